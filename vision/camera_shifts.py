"""Labelled photos as another camera would have taken them: how a reader holds up on cameras,
lenses and light it was never shown, measured on real dice (``dicetray eval --shift``).

Each shift turns one labelled image (its frame and its dice) into another: the frame changed and
every label box moved with it. Shifts are deterministic: the noise of a frame is seeded by its
image name, so a figure can be measured again.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.dataset import LabelledDie
from vision.imageio import Frame

Dice = tuple[LabelledDie, ...]
#: A shift: (frame, its dice, the image's name) -> the shifted frame and its dice.
Shift = Callable[[Frame, Dice, str], tuple[Frame, Dice]]


def _scaled(dice: Dice, factor: float, dx: float = 0.0) -> Dice:
    return tuple(
        replace(d, box=(round(d.box[0] * factor + dx), round(d.box[1] * factor), round(d.box[2] * factor), round(d.box[3] * factor)))
        for d in dice
    )


def _clipped(values: npt.NDArray[np.float32]) -> Frame:
    out: Frame = np.clip(values, 0, 255).astype(np.uint8)
    return out


def _levels(frame: Frame, gain: tuple[float, float, float], offset: float = 0.0) -> Frame:
    return _clipped(frame.astype(np.float32) * np.array(gain, np.float32) + offset)


def twelve_megapixels(frame: Frame, dice: Dice, name: str) -> tuple[Frame, Dice]:
    """The photo as a 4000x3000 phone camera takes it: scaled to 3000 rows, widened with its own edge."""
    factor = 3000 / frame.shape[0]
    big = cv2.resize(frame, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)
    left = max(0, (4000 - big.shape[1]) // 2)
    right = max(0, 4000 - big.shape[1] - left)
    wide = np.asarray(cv2.copyMakeBorder(big, 0, 0, left, right, cv2.BORDER_REPLICATE), np.uint8)
    return wide, _scaled(dice, factor, left)


def wide_camera(frame: Frame, dice: Dice, name: str) -> tuple[Frame, Dice]:
    """Dice smaller in the frame (0.6 of their size), as from a wider lens or higher up."""
    small = np.asarray(cv2.resize(frame, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA), np.uint8)
    return small, _scaled(dice, 0.6)


def dim(frame: Frame, dice: Dice, name: str) -> tuple[Frame, Dice]:
    """Under-exposed: under half the light."""
    return _levels(frame, (0.45, 0.45, 0.45)), dice


def bright(frame: Frame, dice: Dice, name: str) -> tuple[Frame, Dice]:
    """Over-exposed: a third more light, lifted blacks, highlights clipped."""
    return _levels(frame, (1.35, 1.35, 1.35), 10.0), dice


def warm(frame: Frame, dice: Dice, name: str) -> tuple[Frame, Dice]:
    """A warm lamp and no white balance: blue down, red up."""
    return _levels(frame, (0.7, 0.95, 1.15)), dice


def soft(frame: Frame, dice: Dice, name: str) -> tuple[Frame, Dice]:
    """Out of focus (a Gaussian blur of 1.3 px)."""
    out = np.asarray(cv2.GaussianBlur(frame, (0, 0), 1.3), np.uint8)
    return out, dice


def jpeg(frame: Frame, dice: Dice, name: str) -> tuple[Frame, Dice]:
    """Compressed hard, as a cheap webcam streams (JPEG quality 30)."""
    _, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 30])
    out = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
    return out, dice


def noisy(frame: Frame, dice: Dice, name: str) -> tuple[Frame, Dice]:
    """A small sensor in poor light: Gaussian noise of 10 grey levels, seeded by the image name."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return _clipped(frame.astype(np.float32) + rng.normal(0.0, 10.0, frame.shape).astype(np.float32)), dice


def turned(frame: Frame, dice: Dice, name: str) -> tuple[Frame, Dice]:
    """The camera turned a quarter (clockwise)."""
    rows = frame.shape[0]
    out: Frame = np.ascontiguousarray(cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE))
    return out, tuple(replace(d, box=(rows - d.box[1] - d.box[3], d.box[0], d.box[3], d.box[2])) for d in dice)


#: Every shift by the name ``--shift`` takes.
SHIFTS: dict[str, Shift] = {
    "12mp": twelve_megapixels,
    "wide": wide_camera,
    "dim": dim,
    "bright": bright,
    "warm": warm,
    "soft": soft,
    "jpeg": jpeg,
    "noisy": noisy,
    "turned": turned,
}
