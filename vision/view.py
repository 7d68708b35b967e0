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
"""

from __future__ import annotations

import enum
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from vision.detect import FaceDetector
from vision.imageio import Frame

#: Median squareness of the laid-out faces' pips at or above which the camera looks straight down.
#: Pips seen square-on measure about 0.9 at the sizes a tray camera sees them (a pip a few pixels
#: wide is never quite round); 0.85 is a view within about 20 degrees of straight down.
OVERHEAD_SQUARENESS = 0.85
#: Laid-out faces (two pips or more: a one's pip alone says little of its face) needed to tell.
MIN_FACES = 5


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
        squareness += [f.squareness for f in faces if f.layout is not None and len(f.pips) >= 2]
    median = statistics.median(squareness) if squareness else 0.0
    if sides or (len(squareness) >= MIN_FACES and median < OVERHEAD_SQUARENESS):
        view = View.OBLIQUE
    elif len(squareness) >= MIN_FACES:
        view = View.OVERHEAD
    else:
        view = View.UNKNOWN
    return ViewFinding(view, len(squareness), round(median, 3), sides)
