"""A die's body colour, measured on its top face and named, so dice of one player or one
character can be told apart (Battle Dice teams, Dice Masters characters).

The top face is cut from the frame, its pixels split in two by colour (body and pips, or body and
glare) and the larger part's median is the body colour. The name comes from CIE Lab: dice with
little chroma are white, grey or black by lightness, the others are named by hue angle, with dark
oranges and reds called brown.

    >>> import numpy as np
    >>> face = np.full((40, 40, 3), (40, 40, 200), np.uint8)  # BGR: a red die
    >>> face[17:23, 17:23] = 255  # a white pip
    >>> body_colour(face, (0, 0, 40, 40)).name
    'red'
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from vision.imageio import Frame
from vision.types import BodyColour, FrameReading

#: Named colours by hue angle in Lab (degrees, counter-clockwise from +a): each name covers
#: the angles from its value up to the next one.
HUE_NAMES: tuple[tuple[float, str], ...] = (
    (0.0, "pink"),
    (12.0, "red"),
    (52.0, "orange"),
    (82.0, "yellow"),
    (112.0, "green"),
    (170.0, "teal"),
    (235.0, "blue"),
    (307.0, "purple"),
    (333.0, "pink"),
)
#: Every name :func:`colour_name` gives, so a game's setup can be checked against it.
COLOUR_NAMES: tuple[str, ...] = ("white", "grey", "black", "brown", *dict.fromkeys(name for _, name in HUE_NAMES))
#: Below this chroma (Lab units) a die has no hue worth naming; dark dice show less of their hue.
NEUTRAL_CHROMA = 14.0
NEUTRAL_CHROMA_DARK = 10.0
#: Share of the top face's box, around its centre, that is measured (its edges show the sides).
MEASURED_SHARE = 0.7
#: Every top face is measured at this many pixels a side.
MEASURED_SIDE = 16


def body_colour(frame: Frame, box: tuple[int, int, int, int]) -> BodyColour | None:
    """The body colour of the die whose top face is ``box`` (x, y, w, h) in ``frame`` (BGR), or
    None when too little of the box lies in the frame to say."""
    return body_colours(frame, [box])[0]


def body_colours(frame: Frame, boxes: Sequence[tuple[int, int, int, int]]) -> list[BodyColour | None]:
    """:func:`body_colour` of every box, measured together (one pass for all the dice of a frame)."""
    patches: list[Any] = []
    measured: list[int] = []
    for i, (x, y, w, h) in enumerate(boxes):
        inset_x, inset_y = w * (1 - MEASURED_SHARE) / 2, h * (1 - MEASURED_SHARE) / 2
        x0, y0 = max(0, int(round(x + inset_x))), max(0, int(round(y + inset_y)))
        x1, y1 = min(frame.shape[1], int(round(x + w - inset_x))), min(frame.shape[0], int(round(y + h - inset_y)))
        if x1 - x0 < 3 or y1 - y0 < 3:
            continue
        # Every face at the same 16 x 16: a few hundred pixels say the colour as well as thousands.
        patches.append(cv2.resize(frame[y0:y1, x0:x1], (MEASURED_SIDE, MEASURED_SIDE), interpolation=cv2.INTER_AREA))
        measured.append(i)
    found: list[BodyColour | None] = [None] * len(boxes)
    if not patches:
        return found
    pixels = np.stack(patches).reshape(len(patches), -1, 3).astype(np.float32)  # D x N x 3
    # Two-means per face in colour, from its darkest and its lightest pixel (so the same face
    # always gives the same colour); the larger part is the body, the smaller the pips or glare.
    light = pixels.sum(axis=2)
    rows = np.arange(len(patches))
    centres = np.stack([pixels[rows, light.argmin(axis=1)], pixels[rows, light.argmax(axis=1)]], axis=1)  # D x 2 x 3
    lighter = np.zeros(light.shape, bool)
    for _ in range(4):
        # nearer the light centre: |p - l|^2 < |p - d|^2, i.e. 2 p.(l - d) > |l|^2 - |d|^2
        step = centres[:, 1] - centres[:, 0]
        bound = (centres[:, 1] ** 2).sum(axis=1) - (centres[:, 0] ** 2).sum(axis=1)
        lighter = 2 * np.einsum("dnc,dc->dn", pixels, step) > bound[:, None]
        for side, part in ((1, lighter), (0, ~lighter)):
            count = part.sum(axis=1)
            mean = np.einsum("dnc,dn->dc", pixels, part.astype(np.float32)) / np.maximum(count, 1)[:, None]
            centres[:, side] = np.where(count[:, None] > 0, mean, centres[:, side])
    body_is_light = 2 * lighter.sum(axis=1) >= light.shape[1]
    in_body = lighter == body_is_light[:, None]
    # The body's median (a pip's soft rim and marbling pull a mean): others sort after the body.
    ordered = np.sort(np.where(in_body[..., None], pixels, np.inf), axis=1)
    middle = (in_body.sum(axis=1) - 1) // 2
    medians = np.take_along_axis(ordered, middle[:, None, None].repeat(3, axis=2), axis=1)[:, 0]  # D x 3, BGR
    bgr = np.clip(np.round(medians), 0, 255).astype(np.uint8)
    for k, i in enumerate(measured):
        b, g, r = (int(v) for v in bgr[k])
        found[i] = BodyColour(colour_name((r, g, b)), (r, g, b))
    return found


def colour_name(rgb: tuple[int, int, int]) -> str:
    """The name of an sRGB colour (0-255 each).

    >>> colour_name((250, 250, 245)), colour_name((30, 30, 35)), colour_name((30, 60, 200))
    ('white', 'black', 'blue')
    """
    pixel = np.array([[[rgb[2], rgb[1], rgb[0]]]], np.uint8)
    lab = cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)
    lightness = lab[0] * 100.0 / 255.0
    a, b = lab[1] - 128.0, lab[2] - 128.0
    chroma = math.hypot(a, b)
    if chroma < (NEUTRAL_CHROMA_DARK if lightness < 35 else NEUTRAL_CHROMA):
        return "white" if lightness > 72 else "black" if lightness < 28 else "grey"
    angle = math.degrees(math.atan2(b, a)) % 360.0
    name = HUE_NAMES[0][1]
    for start, hue in HUE_NAMES:
        if angle >= start:
            name = hue
    if name in ("orange", "red") and lightness < 40:
        return "brown" if name == "orange" else "red"
    return name


def with_colours(frame: Frame, reading: FrameReading) -> FrameReading:
    """``reading`` with each die's body colour measured in ``frame`` (its time added to the reading's)."""
    start = time.perf_counter()
    colours = body_colours(frame, [d.box for d in reading.dice])
    dice = tuple(dataclasses.replace(d, colour=c) for d, c in zip(reading.dice, colours))
    return dataclasses.replace(reading, dice=dice, ms=reading.ms + (time.perf_counter() - start) * 1000.0)
