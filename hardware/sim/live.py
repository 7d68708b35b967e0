"""The simulated tray as a live camera: dice are picked up, thrown, tumble with motion blur and
settle; a hand reaches in; a settled die gets nudged; the camera can be "unplugged" for a few frames.

Time is virtual by default (frame ``k`` is at ``k / fps`` seconds) so tests and the demo run as fast
as frames can be rendered, with no sleeping; inject ``clock`` to drive it from real or test time.
"""

from __future__ import annotations

import enum
import math
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from types import TracebackType

import numpy as np

from hardware.errors import CameraUnavailable
from hardware.sim.faces import STYLE_PRESETS, DieDesign, DieStyle
from hardware.sim.render import DieTruth, RenderedTray, render_tray
from hardware.sim.scene import (
    Background,
    Camera,
    DiePose,
    Hand,
    InvalidScene,
    Lighting,
    Optics,
    TrayScene,
    _inside,
    _lean_against,
    _polys_overlap,
    random_background,
    random_lighting,
    random_skin,
    silhouette,
    top_value,
)


class SimPhase(str, enum.Enum):
    """What the simulated tray is doing at the current frame."""

    EMPTY = "empty"  # no dice in the tray, nothing moving
    HAND = "hand"  # a hand is in the frame (picking dice up)
    ROLLING = "rolling"  # dice are moving
    SETTLED = "settled"  # every die at rest, no hand


@dataclass(frozen=True)
class ScriptedRoll:
    """One roll of a script: the final ``values`` of the dice thrown (``None`` entries are random),
    the indices of dice left where they lie (``keep``; their values stay), dice that end ``cocked``
    (indices into the new layout), and whether a hand picks the thrown dice up first."""

    values: tuple[int | None, ...] = ()
    keep: tuple[int, ...] = ()
    cocked: tuple[int, ...] = ()
    pickup: bool = True

    @classmethod
    def coerce(cls, item: ScriptedRoll | Sequence[int | None]) -> ScriptedRoll:
        if isinstance(item, ScriptedRoll):
            return item
        return cls(tuple(item))


@dataclass
class _Tumble:
    start: np.ndarray  # x, y in mm
    final: DiePose
    axis: np.ndarray
    turns: float
    delay: float
    duration: float
    bounces: float
    height: float

    def pose_at(self, t: float) -> DiePose:
        s = min(max((t - self.delay) / self.duration, 0.0), 1.0)
        if s >= 1.0:
            return self.final
        ease = 1.0 - (1.0 - s) ** 3
        x = self.start[0] + (self.final.x_mm - self.start[0]) * ease
        y = self.start[1] + (self.final.y_mm - self.start[1]) * ease
        lift = self.height * abs(math.cos(math.pi * self.bounces * s)) * (1.0 - s) ** 2
        angle = self.turns * (1.0 - ease)
        rot = _axis_angle(self.axis, angle) @ self.final.rotation_matrix()  # spin about a world axis
        return replace(self.final, x_mm=x, y_mm=y, rotation=tuple(float(v) for v in rot.ravel()), lift_mm=lift, value=top_value(rot))

    def end(self) -> float:
        return self.delay + self.duration


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + s * k + (1 - c) * (k @ k)


@dataclass
class _Segment:
    """A stretch of the timeline: a pickup (hand in, dice leave), a tumble, or a nudge."""

    kind: str
    start: float
    end: float
    tumbles: dict[int, _Tumble] = field(default_factory=dict)
    layout: list[DiePose] = field(default_factory=list)  # the layout once the segment is over
    hand: Hand | None = None
    removed: tuple[int, ...] = ()


class SimulatedTraySource:
    """A live camera looking at a simulated tray (a :class:`~hardware.camera.FrameSource`).

    ``read()`` returns the next frame (H, W, 3 uint8 BGR). Between rolls the dice rest for
    ``hold_s`` seconds; then the next roll of ``script`` (lists of values, or :class:`ScriptedRoll`)
    is thrown, or a random one when the script is done and ``auto_roll`` is set. Rolls can also be
    asked for at any time with :meth:`roll`. A thrown die enters from the near edge, tumbles with
    motion blur for ``roll_s`` seconds and settles; by default a hand first reaches in and picks up
    the dice to be thrown.

    The truth: :attr:`phase` (:class:`SimPhase`), :attr:`settled_truth` (the dice of the current
    settled state, ``None`` while anything moves), :attr:`settled_values`, :attr:`rolls_settled`,
    :attr:`timestamp` of the last frame, :attr:`frame_index`, :attr:`last` (the last
    :class:`RenderedTray`).

    Awkward cases: :meth:`show_hand`, :meth:`nudge`, ``ScriptedRoll(cocked=...)``, and
    :meth:`fail` makes the next reads raise :class:`~hardware.errors.CameraUnavailable` (a camera
    unplugged mid-game).

    ``clock`` (seconds, monotonic) replaces virtual time; with ``pace=True`` :meth:`read` sleeps
    (``sleep``) so frames come at ``fps`` by that clock.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        n_dice: int = 5,
        script: Iterable[ScriptedRoll | Sequence[int | None]] = (),
        auto_roll: bool = True,
        width: int = 640,
        height: int = 480,
        fps: float = 30.0,
        hold_s: float = 2.0,
        roll_s: tuple[float, float] = (0.6, 1.1),
        start_s: float = 0.5,
        tilt_deg: float = 0.0,
        die_px: float | None = None,
        design: DieDesign | None = None,
        style: DieStyle | None = None,
        background: Background | str | None = None,
        lighting: Lighting | None = None,
        optics: Optics | None = None,
        pickup: bool = True,
        clock: Callable[[], float] | None = None,
        pace: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if fps <= 0:
            raise InvalidScene(f"fps must be positive, got {fps!r}")
        if not 1 <= n_dice <= 30:
            raise InvalidScene(f"a tray holds 1-30 dice, asked for {n_dice!r}")
        self._rng = np.random.default_rng(seed)
        self._noise_rng = np.random.default_rng([seed, 1])
        scale = width / 640.0
        size = die_px if die_px is not None else min(48.0 * scale, math.sqrt(width * height * 0.2 / n_dice) / 1.45)
        self.camera = Camera(width, height, tilt_deg, size)
        if isinstance(background, str):
            background = random_background(self._rng, background)
        self.background = background or Background("wood", (170, 205, 222), seed)
        # No glare unless asked for: the live tray stands in for a tray under a matte light.
        self.lighting = lighting or replace(random_lighting(self._rng), glare=0.0)
        self.optics = optics or Optics(noise=2.5, blur=0.5, jpeg_quality=None)
        self.design = design or DieDesign.pips()
        self.style = style or STYLE_PRESETS[0]
        self.n_dice = n_dice
        self.fps = float(fps)
        self.hold_s = hold_s
        self.roll_s = roll_s
        self.auto_roll = auto_roll
        self.pickup = pickup
        self._script: deque[ScriptedRoll] = deque(ScriptedRoll.coerce(s) for s in script)
        self._clock = clock
        self._pace = pace
        self._sleep = sleep
        self._t0 = clock() if clock is not None else 0.0
        self._frame_index = 0
        self._timestamp = 0.0
        self._layout: list[DiePose] = []
        self._segments: deque[_Segment] = deque()
        self._next_roll_at = start_s
        self._hand_until: tuple[float, float, Hand] | None = None
        self._fail_frames = 0
        self._closed = False
        self._rolls_settled = 0
        self._settled_cache: tuple[DieTruth, ...] | None = None
        self._last: RenderedTray | None = None
        self._phase = SimPhase.EMPTY
        self._asap = False  # a roll asked for with roll() starts as soon as the current motion ends

    # -- FrameSource ---------------------------------------------------------------------------

    def read(self) -> np.ndarray:
        """Render the next frame.

        :raises CameraUnavailable: the source is closed, or told to :meth:`fail`.
        """
        if self._closed:
            raise CameraUnavailable("simulated tray camera is closed")
        t = self._now()
        self._frame_index += 1
        self._timestamp = t
        if self._fail_frames > 0:
            self._fail_frames -= 1
            raise CameraUnavailable(f"simulated tray camera unplugged (frame {self._frame_index - 1})")
        self._advance(t)
        scene = self._scene_at(t)
        tray = render_tray(scene, self._noise_rng)
        self._last = tray
        if self._phase is SimPhase.SETTLED and self._settled_cache is None:
            self._settled_cache = tray.truth
        return tray.frame

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> SimulatedTraySource:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SimulatedTraySource(n_dice={self.n_dice}, fps={self.fps}, width={self.camera.width}, height={self.camera.height})"

    # -- what tests and the demo ask for --------------------------------------------------------

    def roll(
        self,
        values: Sequence[int | None] | None = None,
        *,
        keep: Sequence[int] = (),
        cocked: Sequence[int] = (),
        pickup: bool | None = None,
    ) -> None:
        """Throw dice at the next frame: the dice not in ``keep`` are picked up and thrown, ending on
        ``values`` (one per thrown die, ``None`` random; all random when ``values`` is None)."""
        vals = tuple(values) if values is not None else ()
        self._script.appendleft(ScriptedRoll(vals, tuple(keep), tuple(cocked), self.pickup if pickup is None else pickup))
        self._asap = True
        self._next_roll_at = min(self._next_roll_at, self._time_of_next_frame())

    def show_hand(self, duration_s: float = 1.0, hand: Hand | None = None) -> None:
        """A hand reaches into the tray from the next frame on for ``duration_s`` seconds."""
        start = self._time_of_next_frame()
        hand = hand or Hand(
            str(self._rng.choice(["bottom", "left", "right"])),
            float(self._rng.uniform(0.3, 0.7)),
            0.5,
            float(self._rng.uniform(-20, 20)),
            random_skin(self._rng),
        )
        self._hand_until = (start, start + duration_s, hand)

    def nudge(self, index: int | None = None, *, distance_mm: float = 5.0) -> None:
        """Push a settled die a little (it keeps its value); it moves for a few frames."""
        if not self._layout:
            raise InvalidScene("no dice on the tray to nudge")
        i = int(self._rng.integers(len(self._layout))) if index is None else index
        if not 0 <= i < len(self._layout):
            raise InvalidScene(f"no die {index!r} to nudge; the tray has {len(self._layout)}")
        start = self._time_of_next_frame()
        pose = self._layout[i]
        for _ in range(60):
            a = self._rng.uniform(0, 2 * math.pi)
            moved = replace(
                pose,
                x_mm=pose.x_mm + distance_mm * math.cos(a),
                y_mm=pose.y_mm + distance_mm * math.sin(a),
                yaw_deg=pose.yaw_deg + float(self._rng.uniform(-25, 25)),
            )
            others = [p for j, p in enumerate(self._layout) if j != i]
            if self._fits(moved, others):
                break
        else:
            moved = pose
        layout = list(self._layout)
        layout[i] = moved
        tumble = _Tumble(np.array([pose.x_mm, pose.y_mm]), moved, np.array([0.0, 0.0, 1.0]), math.radians(pose.yaw_deg - moved.yaw_deg), 0.0, 0.3, 0.0, 0.0)
        self._segments.append(_Segment("nudge", start, start + 0.3, {i: tumble}, layout))
        self._settled_cache = None

    def fail(self, frames: int = 1) -> None:
        """The next ``frames`` reads raise :class:`CameraUnavailable`, as if the camera were unplugged."""
        self._fail_frames = frames

    @property
    def phase(self) -> SimPhase:
        return self._phase

    @property
    def settled_truth(self) -> tuple[DieTruth, ...] | None:
        """The dice as they lie, once every die is at rest and no hand is in the frame."""
        return self._settled_cache if self._phase is SimPhase.SETTLED else None

    @property
    def settled_values(self) -> tuple[int, ...] | None:
        """Values of the ``ok`` dice of the settled state, left to right (ordered as
        ``FrameReading.values``). This is the truth: symbol faces count with their number."""
        if self._phase is not SimPhase.SETTLED or self._last is None:
            return None
        return self._last.values

    @property
    def layout(self) -> tuple[DiePose, ...]:
        """The dice where they will lie once the current motion ends."""
        return tuple(self._layout)

    @property
    def rolls_settled(self) -> int:
        """How many rolls (and nudges) have come to rest so far."""
        return self._rolls_settled

    @property
    def frame_index(self) -> int:
        """How many frames have been read (including failed reads)."""
        return self._frame_index

    @property
    def timestamp(self) -> float:
        """Time of the last frame in seconds (virtual, or from ``clock``)."""
        return self._timestamp

    @property
    def last(self) -> RenderedTray | None:
        return self._last

    # -- internals ------------------------------------------------------------------------------

    def _now(self) -> float:
        if self._clock is None:
            return self._frame_index / self.fps
        if self._pace:
            due = self._t0 + self._frame_index / self.fps
            wait = due - self._clock()
            if wait > 0:
                self._sleep(wait)
        return self._clock() - self._t0

    def _time_of_next_frame(self) -> float:
        if self._clock is None:
            return self._frame_index / self.fps
        return self._clock() - self._t0

    def _fits(self, pose: DiePose, others: Sequence[DiePose], ignore: DiePose | None = None) -> bool:
        hull = silhouette(self.camera, pose)
        if not _inside(hull, self.camera, 2.0 + self.background.wall_px(self.camera.width, self.camera.height)):
            return False
        gap = 0.12 * self.camera.die_px
        return not any(o is not ignore and _polys_overlap(hull, silhouette(self.camera, o), gap) for o in others)

    def _place(self, value: int, others: Sequence[DiePose]) -> DiePose:
        cam = self.camera
        m = cam.die_px
        for _ in range(500):
            u = float(self._rng.uniform(m, cam.width - m))
            v = float(self._rng.uniform(m, cam.height - m))
            x, y = cam.unproject(u, v)
            pose = DiePose(value, x, y, float(self._rng.uniform(0, 360)), self.design, self.style)
            if self._fits(pose, others):
                return pose
        raise InvalidScene(f"could not place {len(others) + 1} dice of {m:.0f} px in a {cam.width}x{cam.height} frame")

    def _plan_roll(self, roll: ScriptedRoll, start: float) -> None:
        old = list(self._layout)
        keep = [i for i in roll.keep if 0 <= i < len(old)]
        if len(keep) != len(roll.keep):
            raise InvalidScene(f"cannot keep dice {list(roll.keep)!r}: the tray has {len(old)}")
        kept = [old[i] for i in keep]
        n_thrown = len(roll.values) if roll.values else max((len(old) or self.n_dice) - len(kept), 0)
        values = list(roll.values) + [None] * (n_thrown - len(roll.values))
        thrown: list[DiePose] = []
        for k, v in enumerate(values):
            value = int(v) if v is not None else int(self._rng.integers(1, 7))
            thrown.append(self._place(value, kept + thrown))
        layout = kept + thrown
        for ci in roll.cocked:
            if not 0 <= ci < len(layout):
                raise InvalidScene(f"cannot cock die {ci!r}: the roll has {len(layout)} dice")
            layout[ci] = self._cock(layout, ci)
        t = start
        removed = tuple(i for i in range(len(old)) if i not in keep)
        if roll.pickup and removed:
            centres = np.array([self.camera.project(old[i].centre()[None, :])[0] for i in removed])
            along = float(np.clip(centres[:, 0].mean() / self.camera.width, 0.2, 0.8))
            reach = float(np.clip(1.0 - centres[:, 1].mean() / self.camera.height + 0.08, 0.25, 0.95))
            hand = Hand("bottom", along, reach, float(self._rng.uniform(-15, 15)), random_skin(self._rng))
            self._segments.append(_Segment("pickup", t, t + 0.6, layout=kept, hand=hand, removed=removed))
            t += 0.6
        tumbles: dict[int, _Tumble] = {}
        cam = self.camera
        for j in range(len(kept), len(layout)):
            u = float(self._rng.uniform(0.2, 0.8)) * cam.width
            sx, sy = cam.unproject(u, cam.height - cam.die_px * 0.2)  # thrown in over the near edge
            axis = self._rng.standard_normal(3)
            axis /= np.linalg.norm(axis)
            tumbles[j] = _Tumble(
                np.array([sx, sy]),
                layout[j],
                axis,
                float(self._rng.uniform(3, 6) * math.pi),
                float(self._rng.uniform(0, 0.15)),
                float(self._rng.uniform(*self.roll_s)),
                float(self._rng.uniform(1.5, 3.0)),
                float(self._rng.uniform(15, 35)),
            )
        end = t + max((tb.end() for tb in tumbles.values()), default=0.0)
        self._segments.append(_Segment("tumble", t, end, tumbles, layout))

    def _cock(self, layout: list[DiePose], i: int) -> DiePose:
        others = [p for j, p in enumerate(layout) if j != i]
        pose = layout[i]
        for _ in range(200):
            lean = float(self._rng.uniform(22, 38))
            if others:
                anchor = others[int(self._rng.integers(len(others)))]
                side = anchor.yaw_deg + 90 * int(self._rng.integers(4))
                cocked = _lean_against(pose, anchor, side, lean)
                if self._fits(cocked, others, ignore=anchor):
                    return cocked
            else:
                return replace(pose, lean_deg=lean, lean_dir_deg=float(self._rng.uniform(0, 360)))
        return replace(pose, lean_deg=30.0, lean_dir_deg=float(self._rng.uniform(0, 360)))

    def _advance(self, t: float) -> None:
        """Start rolls that are due and retire segments that are over."""
        while True:
            if not self._segments and t >= self._next_roll_at:
                roll = self._next_roll()
                if roll is None:
                    self._next_roll_at = math.inf
                    break
                self._asap = False
                self._plan_roll(roll, self._next_roll_at if self._clock is None else t)
                self._settled_cache = None
                continue
            if self._segments and t >= self._segments[0].end:
                seg = self._segments.popleft()
                self._layout = list(seg.layout)
                if seg.kind in ("tumble", "nudge"):
                    self._rolls_settled += 1
                    self._settled_cache = None
                    if not self._segments:
                        self._next_roll_at = seg.end if self._asap else seg.end + self.hold_s
                continue
            break

    def _next_roll(self) -> ScriptedRoll | None:
        if self._script:
            return self._script.popleft()
        if self.auto_roll:
            return ScriptedRoll(pickup=self.pickup)
        return None

    def _scene_at(self, t: float) -> TrayScene:
        dice: list[DiePose] = list(self._layout)
        hand: Hand | None = None
        moving = False
        if self._segments and t >= self._segments[0].start:
            seg = self._segments[0]
            if seg.kind == "pickup":
                s = (t - seg.start) / (seg.end - seg.start)
                assert seg.hand is not None
                hand = replace(seg.hand, reach=seg.hand.reach * math.sin(math.pi * min(max(s, 0.0), 1.0)))
                if s >= 0.5:  # the hand has closed on the dice and is taking them away
                    dice = [p for i, p in enumerate(self._layout) if i not in seg.removed]
            else:
                dice = list(seg.layout)
                prev_t = t - 0.5 / self.fps  # the exposure smears the last half frame
                for j, tumble in seg.tumbles.items():
                    now = tumble.pose_at(t - seg.start)
                    before = tumble.pose_at(prev_t - seg.start)
                    if now is not tumble.final:
                        moving = True
                        # A corner's path during the exposure: the smear of both sliding and spinning.
                        a = self.camera.project(now.vertices()[:1])[0]
                        b = self.camera.project(before.vertices()[:1])[0]
                        dice[j] = replace(now, motion_px=(float(a[0] - b[0]), float(a[1] - b[1])))
        if self._hand_until is not None:
            h0, h1, h = self._hand_until
            if h0 <= t < h1:
                s = (t - h0) / max(h1 - h0, 1e-6)
                hand = replace(h, reach=h.reach * min(1.0, 4 * s, 4 * (1 - s)) + 0.05)
            elif t >= h1:
                self._hand_until = None
        if hand is not None:
            self._phase = SimPhase.HAND
        elif moving:
            self._phase = SimPhase.ROLLING
        elif not dice:
            self._phase = SimPhase.EMPTY
        else:
            self._phase = SimPhase.SETTLED
        return TrayScene(self.camera, self.background, tuple(dice), hand, self.lighting, self.optics)
