"""Which way a camera looks at the tray, told from a few frames of pip dice in it.

The rule-based pip reader checks the learned reader (:class:`vision.reader.DiceReader`'s
``pip_check``). What it adds is in an oblique view: there a die's side faces show, the learned
reader reads one as a die of its own, and the pip reader, which knows a side face from a top face,
drops it. Seen straight down, no side face shows: the check can only settle dice the learned
reader is unsure of, while it costs about as much as the learned reader. A camera fixed over a
tray is seen once, at tray calibration, and its view kept.

A camera looks straight down when, over the frames, the pip reader saw no side face and the faces
it laid out look square: their pips' minor/major axis ratio (1.0 square-on, cos of the view angle
in general) has a median of at least :data:`OVERHEAD_SQUARENESS`.

A tray never calibrated with pip dice is watched instead (:class:`ViewWatch`): the pip reader's
searches of the rolls the reader checks tell the view as they come, over the last
:data:`WATCHED_ROLLS` rolls with pip faces in them.
"""

from __future__ import annotations

import enum
import statistics
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from vision.detect import FaceCandidate, FaceDetector
from vision.imageio import Frame

#: Median squareness of the laid-out faces' pips at or above which the camera looks straight down.
#: Pips seen square-on measure about 0.9 at the sizes a tray camera sees them (a pip a few pixels
#: wide is never quite round); 0.85 is a view within about 20 degrees of straight down.
OVERHEAD_SQUARENESS = 0.85
#: Laid-out faces (two pips or more: a one's pip alone says little of its face) needed to tell.
MIN_FACES = 5
#: Rolls with laid-out faces in them a :class:`ViewWatch` tells the view from. An oblique webcam
#: shows a side face in about two rolls of five with faces in them, so twenty in a row without
#: one are rare there (a few times in 100,000 rolls of ``real-d6``, each ended by the next roll
#: checked), while a camera that looks straight down is told so after about twenty rolls.
WATCHED_ROLLS = 20
#: Once the watch tells a view from above, one roll in this many is still checked, so a camera
#: moved to an angle is seen again.
RECHECK_EVERY = 10


class View(enum.Enum):
    """How the camera sees the tray."""

    OVERHEAD = "overhead"  # straight down: no side faces show
    OBLIQUE = "oblique"  # at an angle: side faces show
    UNKNOWN = "unknown"  # not told: no frames with enough pip dice in them


#: How each view is said to a player.
SAID = {
    View.OVERHEAD: "the camera looks straight down",
    View.OBLIQUE: "the camera looks at an angle",
    View.UNKNOWN: "the camera's view is not told",
}


@dataclass(frozen=True)
class ViewFinding:
    """The view and what it was told from: laid-out faces, their median squareness, side faces."""

    view: View
    faces: int
    squareness: float
    side_faces: int

    def describe(self) -> str:
        seen = f"{self.faces} pip faces, median squareness {self.squareness:.2f}, {self.side_faces} side faces"
        hint = "; photos of pip dice tell it" if self.view is View.UNKNOWN else ""
        return f"{SAID[self.view]} ({seen}{hint})"


def camera_view(frames: Iterable[Frame], detector: FaceDetector | None = None) -> ViewFinding:
    """The view of the camera that took ``frames`` (each with pip dice in it)."""
    finder = detector if detector is not None else FaceDetector()
    squareness: list[float] = []
    sides = 0
    for frame in frames:
        faces, side_faces = finder.find_with_side_faces(frame, crops=False)
        sides += len(side_faces)
        squareness += laid_out_squareness(faces)
    return _told(squareness, sides)


def laid_out_squareness(faces: Sequence[FaceCandidate]) -> list[float]:
    """The squareness of each face the pip reader laid out with two pips or more."""
    return [f.squareness for f in faces if f.layout is not None and len(f.pips) >= 2]


def _told(squareness: Sequence[float], sides: int) -> ViewFinding:
    """The view told from laid-out faces' squareness and the side faces seen beside them."""
    median = statistics.median(squareness) if squareness else 0.0
    if sides or (len(squareness) >= MIN_FACES and median < OVERHEAD_SQUARENESS):
        view = View.OBLIQUE
    elif len(squareness) >= MIN_FACES:
        view = View.OVERHEAD
    else:
        view = View.UNKNOWN
    return ViewFinding(view, len(squareness), round(median, 3), sides)


class ViewWatch:
    """Tells the view of the one camera a reader reads, from the pip reader's searches of the rolls
    it checks (:class:`vision.reader.DiceReader`'s ``view_watch``), for a tray whose calibration did
    not tell it.

    The view is overhead while the last :data:`WATCHED_ROLLS` checked rolls with laid-out faces in
    them showed no side face and their faces look square (:func:`camera_view`'s rule); until then,
    and after any side face, it is oblique or not told and every roll is checked. Told overhead, the
    reader checks one roll in :data:`RECHECK_EVERY` (and every roll with an unsure die), and those
    searches keep watching. Frames of another size are another camera: the watch starts again.
    """

    def __init__(self, rolls: int = WATCHED_ROLLS, recheck_every: int = RECHECK_EVERY) -> None:
        if rolls < 1 or recheck_every < 1:
            raise ValueError(f"a view watch needs rolls and recheck_every of 1 or more, not {rolls} and {recheck_every}")
        self.rolls = rolls
        self.recheck_every = recheck_every
        self._seen: deque[tuple[list[float], int]] = deque(maxlen=rolls)
        self._size: tuple[int, int] | None = None
        self._unchecked = 0
        self.finding = ViewFinding(View.UNKNOWN, 0, 0.0, 0)

    def __repr__(self) -> str:
        return f"ViewWatch(rolls={self.rolls!r}, recheck_every={self.recheck_every!r})"

    @property
    def view(self) -> View:
        """The view told so far: overhead, oblique, or not told."""
        return self.finding.view

    def skips_check(self, size: tuple[int, int]) -> bool:
        """Whether the reader may read a frame of ``size`` (width, height) as seen from above: the
        view is told so for that size, and this is not one of the rolls checked all the same."""
        if size != self._size or self.view is not View.OVERHEAD:
            return False
        self._unchecked += 1
        if self._unchecked >= self.recheck_every:
            self._unchecked = 0
            return False
        return True

    def seen(self, size: tuple[int, int], faces: Sequence[FaceCandidate], side_faces: Sequence[object]) -> None:
        """Takes in the pip reader's search of a frame of ``size``: its faces and side faces."""
        if size != self._size:
            self._size = size
            self._seen.clear()
            self._unchecked = 0
        squareness = laid_out_squareness(faces)
        if not squareness and not side_faces:
            return  # an empty tray, or dice with no pips to tell from
        self._seen.append((squareness, len(side_faces)))
        told = _told([s for roll in self._seen for s in roll[0]], sum(roll[1] for roll in self._seen))
        if told.view is View.OVERHEAD and len(self._seen) < self.rolls:
            told = ViewFinding(View.UNKNOWN, told.faces, told.squareness, told.side_faces)
        self.finding = told
