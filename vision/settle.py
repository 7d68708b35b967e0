"""Settle detection: from a stream of frames, tell an empty tray, dice rolling, and dice settled.

The expensive dice reader runs only on the one frame that decides "settled". The detector works on a
small blurred grey copy of each frame (``analysis_width`` pixels wide, 160 by default), in the manner of
Frigate's motion detector:

* **motion** is the share of pixels whose grey level changed by more than ``threshold`` since the
  previous frame, or since the first frame of the current still spell (so a die creeping one pixel a
  frame still counts as moving);
* **settled** is decided on the first frame that ends a *stillness window* of ``stillness_s`` seconds
  (default 0.3 s: a tumbling die is never that still, and a reading 0.3 s after the last bounce feels
  instant at the table) with at least ``min_still_frames`` still frames in it;
* one ``settled`` event per settle: after an event, the scene is remembered, and the next settle fires
  only when the still scene differs from it (a nudged or re-rolled die), not when a hand passes over
  and leaves everything where it was;
* a **hand** in the tray (very large motion, or a skin-coloured blob touching the frame edge where
  the empty tray shows something else) keeps the state ``ROLLING``: nothing is read while it is there.
  A "hand" that covers most of the frame is a change of light, not a hand; one that stays perfectly
  still for ``hand_timeout_s`` (3 s) is taken for part of the tray, since real hands tremble: so
  a wooden tray under new light can never hold the reader off for good;
* **empty**: a still scene that matches the empty-tray reference (given, or remembered with
  :meth:`SettleDetector.mark_empty` after a reading found no dice) is ``EMPTY`` and fires no event.

Time is passed in explicitly (``now`` in seconds, any monotonic origin), so tests and replays run at
any speed.

>>> import numpy as np
>>> detector = SettleDetector(stillness_s=0.3)
>>> tray = np.full((480, 640, 3), 90, np.uint8)
>>> [detector.update(tray, now=i / 30).settled for i in range(12)].count(True)
1
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import InvalidFrameError

__all__ = ["SettleDetector", "SettleState", "SettleUpdate"]

GreyImage = npt.NDArray[np.uint8]

# Skin in YCrCb (Y, Cr, Cb): the usual chroma box, which holds for most skin tones under white light.
_SKIN_LOW = np.array([40, 135, 80], dtype=np.uint8)
_SKIN_HIGH = np.array([250, 175, 130], dtype=np.uint8)


class SettleState(str, enum.Enum):
    """What the tray is doing, as far as motion can tell."""

    EMPTY = "empty"  # still, and nothing but the empty tray in view
    ROLLING = "rolling"  # something moves (dice or a hand), or the stillness window has not yet passed
    SETTLED = "settled"  # still for the stillness window, dice in view


@dataclass(frozen=True)
class SettleUpdate:
    """The detector's verdict on one frame.

    ``settled`` is true on exactly one frame per settle: the frame to read. ``motion`` is the share
    of analysed pixels that moved since the previous frame (0..1); ``still_for`` the seconds since the
    last motion.
    """

    state: SettleState
    settled: bool = False
    motion: float = 0.0
    hand: bool = False
    still_for: float = 0.0


class SettleDetector:
    """Watches frames and says when the dice have settled; see the module docstring for the method.

    :param stillness_s: seconds without motion that decide "settled".
    :param min_still_frames: still frames needed as well, so a stalled low frame rate cannot settle on
        one lucky frame.
    :param analysis_width: width in pixels of the grey copy the detector works on.
    :param threshold: grey-level change (0-255, after blurring) that counts a pixel as changed.
    :param min_changed: share of analysed pixels that must change to count as motion or as a different
        scene; small enough that one die nudged by a few millimetres counts.
    :param hand_fraction: motion above this share of the frame is taken for a hand or an arm.
    :param hand_timeout_s: a still "hand" older than this is taken for part of the tray.
    :param empty_reference: a BGR frame of the empty tray, if one is known (from tray calibration).
    """

    def __init__(
        self,
        *,
        stillness_s: float = 0.3,
        min_still_frames: int = 3,
        analysis_width: int = 160,
        threshold: int = 18,
        min_changed: float = 0.0005,
        hand_fraction: float = 0.25,
        hand_timeout_s: float = 3.0,
        empty_reference: npt.NDArray[np.uint8] | None = None,
    ) -> None:
        if stillness_s <= 0:
            raise ValueError(f"stillness_s must be positive, not {stillness_s!r}")
        if min_still_frames < 1:
            raise ValueError(f"min_still_frames must be at least 1, not {min_still_frames!r}")
        if not 16 <= analysis_width <= 1024:
            raise ValueError(f"analysis_width must be 16..1024 pixels, not {analysis_width!r}")
        if not 1 <= threshold <= 254:
            raise ValueError(f"threshold must be 1..254, not {threshold!r}")
        if not 0 < min_changed < 1:
            raise ValueError(f"min_changed must be a share between 0 and 1, not {min_changed!r}")
        if hand_timeout_s <= 0:
            raise ValueError(f"hand_timeout_s must be positive, not {hand_timeout_s!r}")
        if not 0 < hand_fraction <= 1:
            raise ValueError(f"hand_fraction must be a share between 0 and 1, not {hand_fraction!r}")
        self.stillness_s = float(stillness_s)
        self.min_still_frames = int(min_still_frames)
        self.analysis_width = int(analysis_width)
        self.threshold = int(threshold)
        self.min_changed = float(min_changed)
        self.hand_fraction = float(hand_fraction)
        self.hand_timeout_s = float(hand_timeout_s)
        self._empty: GreyImage | None = None
        self._empty_source: npt.NDArray[np.uint8] | None = empty_reference
        self.reset()

    def __repr__(self) -> str:
        return (
            f"SettleDetector(stillness_s={self.stillness_s!r}, min_still_frames={self.min_still_frames!r}, "
            f"analysis_width={self.analysis_width!r}, threshold={self.threshold!r}, "
            f"min_changed={self.min_changed!r}, hand_fraction={self.hand_fraction!r}, "
            f"hand_timeout_s={self.hand_timeout_s!r})"
        )

    @property
    def state(self) -> SettleState:
        return self._state

    def reset(self) -> None:
        """Forgets the frames seen and the remembered scene (the empty reference is kept): the next
        still spell fires a settle. Used after the camera was lost and reopened."""
        self._previous: GreyImage | None = None
        self._anchor: GreyImage | None = None
        self._settled_scene: GreyImage | None = None
        self._last_motion_at: float | None = None
        self._still_frames = 0
        self._armed = True
        self._state = SettleState.ROLLING
        self._size: tuple[int, int] | None = None
        self._hand_since: float | None = None

    def request_read(self) -> None:
        """Fire a settle on the next still frame even if the scene has not changed (a re-read)."""
        self._armed = True
        self._settled_scene = None

    def mark_empty(self) -> None:
        """Remember the last settled scene as the empty tray (a reading found no dice in it)."""
        if self._settled_scene is not None:
            self._empty = self._settled_scene
            self._empty_source = None
            if self._state is SettleState.SETTLED:
                self._state = SettleState.EMPTY

    def update(self, frame_bgr: npt.NDArray[np.uint8], now: float) -> SettleUpdate:
        """Takes the next frame (HxWx3 uint8 BGR) and the time it was captured, in seconds.

        :raises InvalidFrameError: the frame is not an HxWx3 uint8 array of a usable size; the
            detector's state is left as it was.
        """
        grey, colour = self._prepare(frame_bgr)
        size = (frame_bgr.shape[1], frame_bgr.shape[0])
        if size != self._size:
            # A new frame size means a new camera mode: nothing seen before is comparable.
            empty_source = self._empty_source
            self.reset()
            self._size = size
            self._empty = self._analyse(empty_source)[0] if empty_source is not None else None
            if self._empty is not None and self._empty.shape != grey.shape:
                self._empty = None
        if self._last_motion_at is None:
            self._last_motion_at = now

        first = self._previous is None
        # The first frame has nothing to compare with: it counts as movement, so a still spell starts.
        motion = 1.0 if self._previous is None else self._changed(grey, self._previous)
        drift = self._changed(grey, self._anchor) if self._anchor is not None else 0.0
        self._previous = grey

        moving = motion >= self.min_changed or drift >= self.min_changed
        if first or moving:
            hand = not first and motion >= self.hand_fraction
            self._hand_since = None
        else:
            hand = self._still_hand(grey, colour, now)
        if moving or hand:
            self._last_motion_at = now
            self._anchor = grey
            self._still_frames = 0
            self._armed = True
            self._state = SettleState.ROLLING
            return SettleUpdate(SettleState.ROLLING, False, motion, hand, 0.0)

        self._still_frames += 1
        still_for = max(0.0, now - self._last_motion_at)
        # The small allowance keeps frame times like 33/30 - 24/30 (0.29999...) from missing 0.3 s.
        if still_for + 1e-6 < self.stillness_s or self._still_frames < self.min_still_frames:
            if self._armed:
                self._state = SettleState.ROLLING
            return SettleUpdate(self._state, False, motion, False, still_for)
        if not self._armed:
            return SettleUpdate(self._state, False, motion, False, still_for)

        self._armed = False
        if self._empty is not None and self._changed(grey, self._empty) < self.min_changed:
            self._settled_scene = grey
            self._state = SettleState.EMPTY
            return SettleUpdate(SettleState.EMPTY, False, motion, False, still_for)
        same_scene = (
            self._settled_scene is not None and self._changed(grey, self._settled_scene) < self.min_changed
        )
        if same_scene:
            # Something passed over and left: the dice lie as they were read, so no second read.
            self._state = SettleState.SETTLED
            return SettleUpdate(SettleState.SETTLED, False, motion, False, still_for)
        self._settled_scene = grey
        self._state = SettleState.SETTLED
        return SettleUpdate(SettleState.SETTLED, True, motion, False, still_for)

    # -- internals ---------------------------------------------------------------------------

    def _prepare(self, frame: npt.NDArray[np.uint8]) -> tuple[GreyImage, npt.NDArray[np.uint8]]:
        if not isinstance(frame, np.ndarray):
            raise InvalidFrameError(f"frame is a {type(frame).__name__!r}, not a numpy array")
        if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
            raise InvalidFrameError(
                f"frame of shape {frame.shape!r} and dtype {str(frame.dtype)!r} is not HxWx3 uint8"
            )
        if frame.shape[0] < 16 or frame.shape[1] < 16:
            raise InvalidFrameError(f"frame of shape {frame.shape!r} is too small to watch")
        return self._analyse(frame)

    def _analyse(self, frame: npt.NDArray[np.uint8]) -> tuple[GreyImage, npt.NDArray[np.uint8]]:
        height, width = frame.shape[:2]
        small_h = max(8, round(height * self.analysis_width / width))
        small = cv2.resize(frame, (self.analysis_width, small_h), interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        grey = cv2.GaussianBlur(grey, (5, 5), 0)
        return np.asarray(grey, dtype=np.uint8), np.asarray(small, dtype=np.uint8)

    def _changed(self, a: GreyImage, b: GreyImage) -> float:
        difference = cv2.absdiff(a, b)
        return float(np.count_nonzero(difference > self.threshold)) / float(difference.size)

    def _still_hand(self, grey: GreyImage, colour: npt.NDArray[np.uint8], now: float) -> bool:
        if not self._hand_in_view(grey, colour):
            self._hand_since = None
            return False
        if self._hand_since is None:
            self._hand_since = now
        return now - self._hand_since < self.hand_timeout_s

    def _hand_in_view(self, grey: GreyImage, colour: npt.NDArray[np.uint8]) -> bool:
        """A skin-coloured blob touching the frame edge where the empty tray shows something else.

        Only pixels that differ from the empty tray count, so a wooden tray, or tray uncovered where
        dice lay before, never looks like a hand. Without an empty-tray reference (given, or learnt
        with :meth:`mark_empty`) only motion can tell a hand.
        """
        reference = self._empty
        if reference is None:
            return False
        ycrcb = cv2.cvtColor(colour, cv2.COLOR_BGR2YCrCb)
        skin = cv2.inRange(ycrcb, _SKIN_LOW, _SKIN_HIGH)
        new = (cv2.absdiff(grey, reference) > self.threshold).astype(np.uint8) * 255
        mask = cv2.bitwise_and(skin, new)
        if not mask.any():
            return False
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        height, width = mask.shape
        min_area = 0.02 * mask.size  # larger than any die seen from above
        max_area = 0.6 * mask.size  # most of the frame changed colour: the light, not a hand
        for label in range(1, count):
            x, y, w, h, area = (int(v) for v in stats[label])
            touches_edge = x == 0 or y == 0 or x + w >= width or y + h >= height
            if touches_edge and min_area <= area <= max_area:
                return True
        return False
