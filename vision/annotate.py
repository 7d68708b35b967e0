"""The debug image: the frame with each die's box, value, confidence and status drawn on it."""

from __future__ import annotations

import cv2
import numpy as np

from vision.imageio import Frame
from vision.types import DieStatus, FrameReading

#: BGR colour per status: green read, amber cocked, blue occluded, red unreadable.
STATUS_COLOURS: dict[DieStatus, tuple[int, int, int]] = {
    DieStatus.OK: (40, 200, 40),
    DieStatus.COCKED: (0, 170, 255),
    DieStatus.OCCLUDED: (255, 140, 0),
    DieStatus.UNREADABLE: (40, 40, 230),
}


def annotate(frame: Frame, reading: FrameReading) -> Frame:
    """A copy of ``frame`` with every die of ``reading`` drawn: box, then ``value conf`` or the status.

    Line widths and text size follow the frame size, so 12 MP photos stay legible.
    """
    out = np.ascontiguousarray(frame.copy())
    scale = max(out.shape[0], out.shape[1]) / 640
    thick = max(1, int(round(scale)))
    font_scale = 0.4 * scale
    for die in reading.dice:
        x, y, w, h = die.box
        colour = STATUS_COLOURS[die.status]
        cv2.rectangle(out, (x, y), (x + w - 1, y + h - 1), colour, thick)
        label = f"{die.face or die.value} {die.confidence:.2f}" if die.ok else f"{die.status.value} {die.confidence:.2f}"
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thick)
        ty = y - 3 * thick if y - th - 3 * thick > 0 else y + h + th + 3 * thick
        tx = min(max(0, x), max(0, out.shape[1] - tw))
        cv2.rectangle(out, (tx, ty - th - base), (tx + tw, ty + base), (0, 0, 0), -1)
        cv2.putText(out, label, (tx, ty), cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, thick, cv2.LINE_AA)
    return out
