"""The geometry of a simulated tray: a pinhole camera over a flat tray, dice as cubes posed on it, an
optional hand, the lighting and the camera's imperfections; and :func:`random_scene` to make one.

World units are millimetres; the tray is the plane z = 0, x to the right, y away from the camera's
bottom edge, z up. A die is a 16 mm cube whose body faces are numbered like a real d6 (opposite faces
sum to 7).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from hardware.errors import HardwareError
from hardware.sim.distractors import Distractor, outline, random_distractor
from hardware.sim.faces import STYLE_PRESETS, DieDesign, DieStyle

DIE_MM = 16.0
_DEFAULT_DISTANCE_MM = 420.0

# Body frame of each face: outward normal and the texture's "right" axis.
_FACE_FRAME: dict[int, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    1: ((0, 0, 1), (1, 0, 0)),
    6: ((0, 0, -1), (1, 0, 0)),
    2: ((1, 0, 0), (0, 1, 0)),
    5: ((-1, 0, 0), (0, -1, 0)),
    3: ((0, 1, 0), (-1, 0, 0)),
    4: ((0, -1, 0), (1, 0, 0)),
}
FACE_NORMALS = {v: np.array(n, np.float64) for v, (n, _) in _FACE_FRAME.items()}
FACE_RIGHT = {v: np.array(u, np.float64) for v, (_, u) in _FACE_FRAME.items()}
_CUBE = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)], np.float64)


class InvalidScene(HardwareError, ValueError):
    """A scene cannot be built as asked (too many dice for the frame, bad sizes or values)."""


def _rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


# Rotation that brings face v's normal to world +z.
_FACE_UP = {1: np.eye(3), 6: _rx(math.pi), 2: _ry(-math.pi / 2), 5: _ry(math.pi / 2), 3: _rx(math.pi / 2), 4: _rx(-math.pi / 2)}


def face_up_rotation(value: int, yaw_deg: float) -> np.ndarray:
    """The rotation (body to world) of a die lying flat with ``value`` up, turned by ``yaw_deg``."""
    return _rz(math.radians(yaw_deg)) @ _FACE_UP[value]


def top_value(rotation: np.ndarray) -> int:
    """The face whose normal points most nearly up."""
    return max(FACE_NORMALS, key=lambda v: float((rotation @ FACE_NORMALS[v])[2]))


@dataclass(frozen=True)
class Camera:
    """A pinhole camera looking at the tray centre, tilted ``tilt_deg`` from straight down.

    ``die_px`` is the edge of a die in pixels at the centre of the frame. The camera stands 42 cm
    from the tray centre, with the lens that die size needs, but never a lens wider than
    ``fov_deg`` (a mild 28.5 degrees across): for small dice it steps back instead, so they do not
    come with a wide-angle look. ``distance_mm`` fixes the distance (and with it the lens).
    """

    width: int = 640
    height: int = 480
    tilt_deg: float = 0.0
    die_px: float = 48.0
    distance_mm: float | None = None
    fov_deg: float = 28.5

    def __post_init__(self) -> None:
        if not (16 <= self.width <= 6000 and 16 <= self.height <= 6000 and self.width * self.height <= 12_600_000):
            raise InvalidScene(f"frame size {self.width}x{self.height} is outside 16x16 .. 12 MP")
        if not 5 <= self.fov_deg <= 120:
            raise InvalidScene(f"lens field of view must be 5-120 degrees, got {self.fov_deg!r}")
        if not 0 <= self.tilt_deg <= 60:
            raise InvalidScene(f"camera tilt must be 0-60 degrees, got {self.tilt_deg!r}")
        if self.die_px <= 2:
            raise InvalidScene(f"die size must be more than 2 px, got {self.die_px!r}")

    @property
    def focal(self) -> float:
        """Focal length in pixels."""
        if self.distance_mm is not None:
            return self.die_px / DIE_MM * self.distance_mm
        widest = self.width / 2 / math.tan(math.radians(self.fov_deg) / 2)
        return max(self.die_px / DIE_MM * _DEFAULT_DISTANCE_MM, widest)

    @property
    def distance(self) -> float:
        """Millimetres from the camera to the tray centre."""
        return self.distance_mm if self.distance_mm is not None else self.focal * DIE_MM / self.die_px

    def _axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        cached: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = self.__dict__.get("_axes_cache")
        if cached is not None:
            return cached
        t = math.radians(self.tilt_deg)
        centre = self.distance * np.array([0.0, -math.sin(t), math.cos(t)])
        fwd = np.array([0.0, math.sin(t), -math.cos(t)])
        right = np.array([1.0, 0.0, 0.0])
        down = np.cross(fwd, right)
        axes = (centre, right, down, fwd)
        object.__setattr__(self, "_axes_cache", axes)  # frozen: the axes never change
        return axes

    @property
    def position(self) -> np.ndarray:
        return self._axes()[0]

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (N, 3) to pixel coordinates (N, 2)."""
        c, r, d, f = self._axes()
        rel = pts - c
        z = rel @ f
        return np.stack([self.focal * (rel @ r) / z + self.width / 2, self.focal * (rel @ d) / z + self.height / 2], axis=1)

    def depth(self, pts: np.ndarray) -> np.ndarray:
        c, _, _, f = self._axes()
        return np.asarray((pts - c) @ f)

    def unproject(self, u: float, v: float) -> tuple[float, float]:
        """The tray point (x, y) seen at pixel (u, v)."""
        c, r, d, f = self._axes()
        ray = f + r * (u - self.width / 2) / self.focal + d * (v - self.height / 2) / self.focal
        s = -c[2] / ray[2]
        p = c + s * ray
        return float(p[0]), float(p[1])


@dataclass(frozen=True)
class DiePose:
    """One die on (or above) the tray.

    A die lying flat shows ``value`` up, turned by ``yaw_deg``. ``lean_deg`` > 0 makes it cocked:
    tipped about a horizontal axis at ``lean_dir_deg``. ``rotation`` (row-major 3x3) overrides all
    of these for a tumbling die; ``lift_mm`` raises it off the tray; ``motion_px`` is the blur
    vector of a moving die during the exposure.
    """

    value: int
    x_mm: float
    y_mm: float
    yaw_deg: float = 0.0
    design: DieDesign = field(default_factory=DieDesign.pips)
    style: DieStyle = field(default_factory=DieStyle)
    lean_deg: float = 0.0
    lean_dir_deg: float = 0.0
    rotation: tuple[float, ...] | None = None
    lift_mm: float = 0.0
    motion_px: tuple[float, float] = (0.0, 0.0)
    size_mm: float = DIE_MM

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 6:
            raise InvalidScene(f"die value must be 1-6, got {self.value!r}")

    def rotation_matrix(self) -> np.ndarray:
        if self.rotation is not None:
            return np.array(self.rotation, np.float64).reshape(3, 3)
        base = face_up_rotation(self.value, self.yaw_deg)
        if self.lean_deg:
            d = math.radians(self.lean_dir_deg)
            lean = _rz(d) @ _ry(math.radians(self.lean_deg)) @ _rz(-d)
            return lean @ base
        return base

    def vertices(self) -> np.ndarray:
        """The eight corners in world coordinates, resting on the tray (lowest corner at z = lift)."""
        cached: np.ndarray | None = self.__dict__.get("_vertices")
        if cached is not None:
            return cached.copy()
        rot = self.rotation_matrix()
        pts = (_CUBE * self.size_mm) @ rot.T
        pts[:, 2] -= pts[:, 2].min()
        pts[:, 0] += self.x_mm
        pts[:, 1] += self.y_mm
        pts[:, 2] += self.lift_mm
        object.__setattr__(self, "_vertices", pts)  # a pose is immutable, so its corners are too
        return pts.copy()

    def centre(self) -> np.ndarray:
        return np.asarray(self.vertices().mean(axis=0))

    @property
    def moving(self) -> bool:
        return bool(self.motion_px[0] or self.motion_px[1] or self.lift_mm > 0.5 or self.rotation is not None)

    @property
    def cocked(self) -> bool:
        if self.rotation is not None:
            rot = self.rotation_matrix()
            return float((rot @ FACE_NORMALS[top_value(rot)])[2]) < math.cos(math.radians(8))
        return self.lean_deg > 8


@dataclass(frozen=True)
class Hand:
    """A hand reaching into the frame from ``edge`` (top, bottom, left, right) at ``along`` (0..1 of
    that edge), its fingertips ``reach`` (0..1) of the way across, pointing ``angle_deg`` off straight."""

    edge: str = "bottom"
    along: float = 0.5
    reach: float = 0.45
    angle_deg: float = 0.0
    skin: tuple[int, int, int] = (120, 150, 205)

    def __post_init__(self) -> None:
        if self.edge not in ("top", "bottom", "left", "right"):
            raise InvalidScene(f"hand edge must be top, bottom, left or right, got {self.edge!r}")


@dataclass(frozen=True)
class Background:
    """The tray surface: ``kind`` is ``plain``, ``wood`` or ``pattern``; ``colour`` its base BGR.

    ``walls`` > 0 frames it with the tray's rim, that fraction of the frame's shorter side wide
    (dice stay inside it).
    """

    kind: str = "wood"
    colour: tuple[int, int, int] = (170, 205, 222)
    seed: int = 0
    walls: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in BACKGROUND_KINDS:
            raise InvalidScene(f"background kind must be one of {', '.join(BACKGROUND_KINDS)}, got {self.kind!r}")
        if not 0 <= self.walls <= 0.25:
            raise InvalidScene(f"tray walls must be 0-0.25 of the frame, got {self.walls!r}")

    def wall_px(self, width: int, height: int) -> float:
        return self.walls * min(width, height)


BACKGROUND_KINDS = ("plain", "wood", "pattern")


@dataclass(frozen=True)
class Lighting:
    """Where the light comes from (azimuth and elevation in degrees), how uneven it is across the
    frame (``gradient``, ``vignette``), an overall ``exposure`` gain, ``glare``: the strength
    (0..1) of a specular highlight on glossy top faces, and ``diffuse``: how soft the light is (0: one
    hard lamp, dark sides and crisp shadows; 1: overcast daylight, sides nearly as bright as the top,
    faint shadows).

    ``streaks``: the strength (0..1) of a long light's reflection (a tube lamp, a window's bars) on
    glossy top faces: ``streak_count`` thin bright bands, ``streak_width`` of a face's edge wide,
    across each top face at about ``streak_angle_deg``. They cross pips as they do on real glossy
    dice, where they can split a pip or join two."""

    azimuth_deg: float = 120.0
    elevation_deg: float = 60.0
    gradient: float = 0.15
    gradient_dir_deg: float = 30.0
    vignette: float = 0.15
    exposure: float = 1.0
    glare: float = 0.0
    diffuse: float = 0.0
    streaks: float = 0.0
    streak_angle_deg: float = 0.0
    streak_width: float = 0.08
    streak_count: int = 1

    def direction(self) -> np.ndarray:
        a, e = math.radians(self.azimuth_deg), math.radians(self.elevation_deg)
        return np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])


@dataclass(frozen=True)
class Optics:
    """The camera's imperfections: sensor noise (sigma in grey levels), lens blur (sigma in px at
    640 wide; scaled with the frame), JPEG quality (``None``: no compression) and a white balance
    that is a little off (B, G, R gains), as a webcam's usually is."""

    noise: float = 3.0
    blur: float = 0.6
    jpeg_quality: int | None = 85
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)


@dataclass(frozen=True)
class TrayScene:
    """Everything needed to render one frame."""

    camera: Camera = field(default_factory=Camera)
    background: Background = field(default_factory=Background)
    dice: tuple[DiePose, ...] = ()
    hand: Hand | None = None
    lighting: Lighting = field(default_factory=Lighting)
    optics: Optics = field(default_factory=Optics)
    distractors: tuple[Distractor, ...] = ()

    def with_dice(self, dice: Sequence[DiePose]) -> TrayScene:
        return replace(self, dice=tuple(dice))


# ----------------------------------------------------------------------------------------------
# Random scenes

_WOODS = ((170, 205, 222), (120, 160, 195), (90, 120, 160), (200, 215, 225))
_PLAINS = ((60, 110, 40), (120, 70, 40), (60, 60, 60), (200, 200, 200), (40, 40, 110), (30, 30, 30))
_PATTERNS = ((150, 150, 160), (80, 110, 150), (110, 90, 70))


def random_background(rng: np.random.Generator, kind: str | None = None, walls: float = 0.0) -> Background:
    kind = kind or str(rng.choice(BACKGROUND_KINDS, p=[0.3, 0.5, 0.2]))
    palette = {"plain": _PLAINS, "wood": _WOODS, "pattern": _PATTERNS}[kind]
    base = palette[int(rng.integers(len(palette)))]
    jitter = rng.integers(-12, 13, 3)
    colour = tuple(int(np.clip(c + j, 0, 255)) for c, j in zip(base, jitter))
    return Background(kind, (colour[0], colour[1], colour[2]), int(rng.integers(1 << 30)), walls)


def random_lighting(rng: np.random.Generator) -> Lighting:
    return Lighting(
        azimuth_deg=float(rng.uniform(0, 360)),
        elevation_deg=float(rng.uniform(45, 80)),
        gradient=float(rng.uniform(0.0, 0.3)),
        gradient_dir_deg=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(0.0, 0.3)),
        exposure=float(rng.uniform(0.85, 1.1)),
        glare=float(rng.uniform(0.1, 0.3)) if rng.random() < 0.25 else 0.0,  # modest, as a matte tray light gives
        diffuse=float(rng.uniform(0.2, 0.9)),
    )


def _white_balance(t: float) -> tuple[float, float, float]:
    # Webcams miss white along the blue-yellow axis (daylight vs lamp), rarely towards magenta.
    return (1.0 + 0.08 * t, 1.0, 1.0 - 0.08 * t)


def random_optics(rng: np.random.Generator) -> Optics:
    return Optics(
        noise=float(rng.uniform(1.0, 5.0)),
        blur=float(rng.uniform(0.3, 1.0)),
        jpeg_quality=int(rng.integers(70, 95)),
        white_balance=_white_balance(float(rng.uniform(-1, 1))),
    )


def silhouette(camera: Camera, pose: DiePose) -> np.ndarray:
    """The convex outline of a die in the image, float32 (K, 2)."""
    pts = camera.project(pose.vertices()).astype(np.float32)
    return np.asarray(cv2.convexHull(pts).reshape(-1, 2))


def _polys_overlap(a: np.ndarray, b: np.ndarray, gap: float) -> bool:
    ax0, ay0 = a.min(axis=0)
    ax1, ay1 = a.max(axis=0)
    bx0, by0 = b.min(axis=0)
    bx1, by1 = b.max(axis=0)
    if ax1 + gap < bx0 or bx1 + gap < ax0 or ay1 + gap < by0 or by1 + gap < ay0:
        return False
    if gap > 0:
        ca = a.mean(axis=0)
        a = ca + (a - ca) * (1 + gap / max(float(np.ptp(a[:, 0])), 1.0))
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return bool(area > 0.5)


def _inside(poly: np.ndarray, camera: Camera, margin: float) -> bool:
    return bool(
        poly[:, 0].min() >= margin
        and poly[:, 1].min() >= margin
        and poly[:, 0].max() <= camera.width - 1 - margin
        and poly[:, 1].max() <= camera.height - 1 - margin
    )


def _lean_against(pose: DiePose, anchor: DiePose, side_deg: float, lean_deg: float) -> DiePose:
    """``pose`` moved beside ``anchor`` on the side at ``side_deg`` and tipped so it rests against it."""
    side = math.radians(side_deg)
    # Built in a frame where the anchor is at the origin and the cocked die lies on its +x side with
    # its top tipped towards -x; then turned to ``side`` and moved to the anchor.
    cocked = replace(pose, x_mm=0.0, y_mm=0.0, yaw_deg=side_deg, lean_deg=lean_deg, lean_dir_deg=side_deg + 180)
    local = cocked.vertices() @ _rz(-side).T
    shift = anchor.size_mm / 2 + 0.2 - float(local[:, 0].min())
    return replace(cocked, x_mm=anchor.x_mm + shift * math.cos(side), y_mm=anchor.y_mm + shift * math.sin(side))


def random_scene(
    rng: np.random.Generator,
    n_dice: int = 5,
    *,
    width: int = 640,
    height: int = 480,
    tilt_deg: float | None = None,
    die_px: float | None = None,
    background: Background | str | None = None,
    designs: Sequence[DieDesign] | None = None,
    styles: Sequence[DieStyle] | None = None,
    values: Sequence[int] | None = None,
    touching: int = 0,
    cocked: int = 0,
    out_of_frame: int = 0,
    hand: bool | Hand = False,
    lighting: Lighting | None = None,
    optics: Optics | None = None,
    distractors: int | Sequence[Distractor] = 0,
) -> TrayScene:
    """A random tray with ``n_dice`` dice (0-30) placed without overlap.

    ``touching`` pairs of dice are pushed side by side; ``cocked`` dice lean against a neighbour (or
    lie tipped when alone); ``out_of_frame`` dice are cut by the frame edge; ``hand`` adds a hand
    reaching in; ``distractors`` (a count, or the objects) puts things that are not dice on the
    tray (a cable, a coin, a barcode label, a keyboard key), with the dice kept clear of them.
    Unset choices (tilt, die size, background, styles, lighting, optics) are drawn from ``rng``;
    ``designs`` and ``styles`` are picked per die (one style per scene unless several are given).
    ``values`` fixes the face up of each die, in placement order (touching pairs first, then free,
    cocked and cut dice).

    :raises InvalidScene: the dice do not fit, or counts are out of range.
    """
    if not 0 <= n_dice <= 30:
        raise InvalidScene(f"a tray holds 0-30 dice, asked for {n_dice!r}")
    if values is not None and len(values) != n_dice:
        raise InvalidScene(f"{len(values)} values given for {n_dice} dice: {list(values)!r}")
    if touching * 2 + cocked + out_of_frame > max(n_dice, 0) or min(touching, cocked, out_of_frame) < 0:
        raise InvalidScene(
            f"{touching} touching pairs, {cocked} cocked and {out_of_frame} cut dice do not fit in {n_dice} dice"
        )
    scale = width / 640.0
    if tilt_deg is None:
        tilt_deg = float(rng.choice([0.0, float(rng.uniform(0, 20)), float(rng.uniform(20, 42))]))
    if die_px is None:
        crowd = math.sqrt(width * height * 0.22 / max(n_dice, 1)) / 1.45
        die_px = float(min(rng.uniform(36, 60) * scale, crowd))
    camera = Camera(width, height, tilt_deg, die_px)
    if isinstance(background, str):
        background = random_background(rng, background)
    background = background or random_background(rng)
    design_list = list(designs) if designs else [DieDesign.pips()]
    style_list = list(styles) if styles else [STYLE_PRESETS[int(rng.integers(len(STYLE_PRESETS)))]]
    vals = list(values) if values is not None else [int(v) for v in rng.integers(1, 7, n_dice)]

    if isinstance(distractors, int):
        things = tuple(random_distractor(rng) for _ in range(distractors))
    else:
        things = tuple(distractors)
    placed: list[DiePose] = []
    gap = 0.12 * die_px
    margin = 2.0 + background.wall_px(width, height)
    # Dice keep clear of the distractors as of each other: their outlines start the list.
    hulls: list[np.ndarray] = [outline(d, die_px, width, height) for d in things]
    n_things = len(hulls)

    def fits(pose: DiePose, ignore: int | None = None, allow_cut: bool = False) -> np.ndarray | None:
        hull = silhouette(camera, pose)
        if allow_cut:
            visible = cv2.intersectConvexConvex(
                hull, np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32)
            )[0]
            area = cv2.contourArea(hull)
            if not 0.35 * area < visible < 0.75 * area:
                return None
        elif not _inside(hull, camera, margin):
            return None
        for j, other in enumerate(hulls):
            if j != ignore and _polys_overlap(hull, other, gap):
                return None
        return hull

    def new_pose(i: int, near_edge: bool = False) -> DiePose:
        if near_edge:
            edge = int(rng.integers(4))
            t = float(rng.uniform(0.15, 0.85))
            off = float(rng.uniform(-0.1, 0.25)) * die_px
            u, v = [(t * width, off), (t * width, height - off), (off, t * height), (width - off, t * height)][edge]
        else:
            u = float(rng.uniform(0.5 * die_px, width - 0.5 * die_px))
            v = float(rng.uniform(0.5 * die_px, height - 0.5 * die_px))
        x, y = camera.unproject(u, v)
        return DiePose(
            vals[i],
            x,
            y,
            float(rng.uniform(0, 360)),
            design_list[int(rng.integers(len(design_list)))],
            style_list[int(rng.integers(len(style_list)))],
        )

    kinds = ["pair"] * touching + ["free"] * (n_dice - 2 * touching - cocked - out_of_frame)
    kinds += ["cocked"] * cocked + ["cut"] * out_of_frame
    i = 0
    for kind in kinds:
        for _attempt in range(400):
            if kind == "cut":
                pose = new_pose(i, near_edge=True)
                hull = fits(pose, allow_cut=True)
            elif kind == "cocked":
                lean = float(rng.uniform(22, 38))
                anchors = [j for j, p in enumerate(placed) if not p.cocked and _inside(hulls[n_things + j], camera, margin)]
                pose = new_pose(i)
                anchor_index: int | None = None
                if anchors:
                    anchor_index = anchors[int(rng.integers(len(anchors)))]
                    anchor = placed[anchor_index]
                    anchor_index += n_things
                    side = anchor.yaw_deg + 90 * int(rng.integers(4))
                    pose = _lean_against(pose, anchor, side, lean)
                else:  # no die to lean on: tipped as if against the tray wall
                    pose = replace(pose, lean_deg=lean, lean_dir_deg=float(rng.uniform(0, 360)))
                hull = fits(pose, ignore=anchor_index)
            elif kind == "pair":
                pose = new_pose(i)
                hull = fits(pose)
                if hull is None:
                    continue
                side = math.radians(pose.yaw_deg + 90 * int(rng.integers(4)))
                d = pose.size_mm + 0.15
                partner = replace(
                    new_pose(i + 1), x_mm=pose.x_mm + d * math.cos(side), y_mm=pose.y_mm + d * math.sin(side), yaw_deg=pose.yaw_deg
                )
                hull2 = fits(partner)
                if hull2 is None:
                    continue
                placed += [pose, partner]
                hulls += [hull, hull2]
                i += 2
                break
            else:
                pose = new_pose(i)
                hull = fits(pose)
            if hull is None:
                continue
            placed.append(pose)
            hulls.append(hull)
            i += 1
            break
        else:
            raise InvalidScene(
                f"could not place {n_dice} dice of {die_px:.0f} px in a {width}x{height} frame; use smaller dice or fewer"
            )
    hand_value: Hand | None
    if isinstance(hand, Hand):
        hand_value = hand
    elif hand:
        hand_value = Hand(
            edge=str(rng.choice(["top", "bottom", "left", "right"])),
            along=float(rng.uniform(0.25, 0.75)),
            reach=float(rng.uniform(0.3, 0.6)),
            angle_deg=float(rng.uniform(-25, 25)),
            skin=random_skin(rng),
        )
    else:
        hand_value = None
    return TrayScene(
        camera,
        background,
        tuple(placed),
        hand_value,
        lighting or random_lighting(rng),
        optics or random_optics(rng),
        things,
    )


_SKINS = ((95, 125, 180), (120, 150, 205), (150, 180, 225), (60, 85, 130), (40, 60, 95))


def random_skin(rng: np.random.Generator) -> tuple[int, int, int]:
    s = _SKINS[int(rng.integers(len(_SKINS)))]
    return (s[0], s[1], s[2])
