"""Finding the one die of a calibration photo, whatever the photo is: a tight crop of the die, a
crop with a margin showing neighbours' edges, a single-die photo or a whole tray.

The die is found by the learned detector (:func:`vision.learned.find_dice`), which finds dice
whatever their faces show:

1. a photo :data:`PHOTO_SIDE` pixels across or more (a single-die photo, a tray photo) is read as
   it is;
2. a smaller photo is put in the middle of a canvas several times its size, filled with a colour
   set off from the photo's rim (:func:`pad_colour`): a crop whose die fills it (the detector
   wants tray around a die, and at the working scale such a die is so big that its pips pass for
   dice). Of the dice found there, the one at the middle of the photo and at least
   :data:`CROP_DIE_SHARE` of its side is the die, if the face network takes it for one;
   neighbours cut by the crop's edge are not dice of the photo;
3. failing that, the photo as it is.

Once found, the die is outlined again by the reader's own finders (its body, else its pips) in the
whole photo, else in a window two dice across round it (the photo's edge repeated where the window
reaches past it), through the function the reader cuts the dice it finds with
(:func:`vision.profile_reader.outline_found_die`), so that the exemplar is cut as the reader will
cut the die at the table; where they do not outline it, it is cut where the detector put its top
face (:func:`vision.profile_reader.top_face_crop`), as the reader cuts it too. Where
the detector sees no die or several, the one die the reader's finders see, if they see exactly
one, is taken; else the one die the detector finds at a lower score (:data:`WEAK_FIND`); else the
photo is reported, with what the detector saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import ProfileError
from vision.detect import FaceDetector
from vision.imageio import MIN_FRAME_SIDE
from vision.learned import CLASSES, TOP_FACE, FoundDie, FrameHalves, LearnedReader, find_big_dice, find_dice
from vision.profile_reader import BodyDetector, outline_found_die, top_face_crop

Crop = npt.NDArray[np.uint8]

#: The canvases a crop is padded to, as multiples of its longer side, tried in turn: the detector
#: sees a die best at about a thirteenth of its working image, and a crop's die is half to all of it.
PAD_FACTORS = (8.0, 12.0, 5.0)
#: The largest padded canvas made, in pixels across.
MAX_CANVAS = 1280
#: The die of a crop spans at least this share of the crop's shorter side (a crop with a margin of
#: half the die all round: 0.5).
CROP_DIE_SHARE = 0.3
#: How far (share of the die's size) a die's top face may seem to stick out of the photo and still
#: be the photo's whole die: a tight crop cuts the die at its edge, the detector's box a little beyond.
EDGE_TOLERANCE = 0.15
#: A find smaller than another whose centre lies within this share of their two sizes added, across
#: and down, is part of it: touching dice lie 0.5 of that apart or more.
PART_OF_A_DIE = 0.4
#: A photo this many pixels across or more is a photo of the tray, read as it is (the detector
#: finds big dice in it as the reader does); a smaller one may be a crop of the die, padded first.
PHOTO_SIDE = 300
#: A die found only in the padded canvas is taken when the face network gives "no die" less than this.
NOT_A_DIE = 0.5
#: Where no die of a photo passes :data:`NOT_A_DIE`, the one find the face network gives "no die"
#: less than this is the photo's die: a die whose face is artwork the network seldom saw (a small
#: glyph and a corner number on a white die) may read as much "no die" as "another face".
LONE_NOT_A_DIE = 0.8
#: Where neither the detector at the reader's score nor the reader's finders find the one die of
#: a photo, the detector's finds down to this score are looked at: a calibration photo shows one
#: die, so one weaker find is likely it (a white die with a glyph on light wood scores 0.29 where
#: the reader wants 0.3, and its body hardly differs from the wood), and the face network still
#: judges it.
WEAK_FIND = 0.1


@dataclass(frozen=True)
class Located:
    """Where the die of a photo is: its centre and whole-die size in photo pixels, and whether the
    photo was padded to find it."""

    die: FoundDie
    padded: bool


def rim_colour(image: Crop) -> npt.NDArray[np.float64]:
    """The median colour of the outermost pixels of ``image`` (BGR)."""
    rim = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]]).reshape(-1, image.shape[2])
    colour: npt.NDArray[np.float64] = np.median(rim, axis=0).astype(np.float64)
    return colour


def pad_colour(image: Crop) -> tuple[float, float, float]:
    """A colour set off from the photo's rim: darker under a light rim, lighter under a dark one."""
    rim = rim_colour(image)
    light = float(rim.mean()) > 100.0
    shaded = rim * 0.45 if light else np.minimum(255.0, rim + 110.0)
    return (float(shaded[0]), float(shaded[1]), float(shaded[2]))


def _whole(found: Sequence[FoundDie], width: int, height: int) -> list[FoundDie]:
    """The dice whose top face lies inside the photo (within :data:`EDGE_TOLERANCE`)."""
    out = []
    for die in found:
        half, slack = die.size * TOP_FACE / 2.0, EDGE_TOLERANCE * die.size
        if die.cx - half >= -slack and die.cy - half >= -slack and die.cx + half <= width + slack and die.cy + half <= height + slack:
            out.append(die)
    return out


def _padded(image: Crop, reader: LearnedReader, factor: float) -> list[FoundDie]:
    """The dice found with ``image`` in the middle of a canvas ``factor`` times its size, in
    ``image``'s pixels. The canvas is made at most :data:`MAX_CANVAS` pixels across (the detector
    sees it at a fraction of that)."""
    h, w = image.shape[:2]
    shrink = min(1.0, MAX_CANVAS / (factor * max(h, w)))
    small = image if shrink == 1.0 else cv2.resize(image, (max(1, round(w * shrink)), max(1, round(h * shrink))), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    side = int(factor * max(sh, sw))
    top, left = (side - sh) // 2, (side - sw) // 2
    canvas = cv2.copyMakeBorder(small, top, side - sh - top, left, side - sw - left, cv2.BORDER_CONSTANT, value=pad_colour(image))
    found = [
        FoundDie((d.cx - left) / shrink, (d.cy - top) / shrink, d.size / shrink, d.score)
        for d in reader.find(np.ascontiguousarray(canvas))
    ]
    return [d for d in found if 0 <= d.cx < w and 0 <= d.cy < h]


def _centred(found: Sequence[FoundDie], width: int, height: int) -> FoundDie | None:
    """The die at the middle of a crop, big enough to be the crop's die, if exactly one is."""
    big = [d for d in found if d.size >= CROP_DIE_SHARE * min(width, height)]
    middle = [d for d in big if abs(d.cx - width / 2.0) < 0.3 * d.size and abs(d.cy - height / 2.0) < 0.3 * d.size]
    if len(middle) == 1:
        return middle[0]
    return big[0] if len(big) == 1 else None


def _is_a_die(image: Crop, die: FoundDie, reader: LearnedReader) -> bool:
    """Whether the face network takes what is at ``die`` for a die (any face, cocked or cut): a
    tray photo padded may show the detector a "die" the size of the photo."""
    return _no_die(image, die, reader) < NOT_A_DIE


def _no_die(image: Crop, die: FoundDie, reader: LearnedReader) -> float:
    """How likely the face network finds it that no die is at ``die`` (the photo framed in a colour
    set off from its rim, so a die at its edge is cut by nothing)."""
    pad = int(die.size)
    framed: Crop = np.asarray(cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=pad_colour(image)), np.uint8)
    shifted = FoundDie(die.cx + pad, die.cy + pad, die.size, die.score)
    probabilities = reader.model.face_probabilities(reader.model.crops(framed, [shifted]))[0]
    return float(probabilities[CLASSES.index("none")])


def locate_die(image: Crop, source: str, reader: LearnedReader | None = None) -> Located:
    """The one die of a calibration photo (see the module docstring).

    :raises ProfileError: naming ``source`` and what was seen: no die, or how many dice.
    """
    reader = reader if reader is not None else LearnedReader()
    h, w = image.shape[:2]
    if max(h, w) < PHOTO_SIDE:
        for factor in PAD_FACTORS:
            die = _centred(_whole(_padded(image, reader, factor), w, h), w, h)
            if die is not None and _is_a_die(image, die, reader):
                return Located(die, padded=True)
    if min(h, w) < MIN_FRAME_SIDE:
        # too small to be read as it is: only the padded canvas could show its die
        raise ProfileError(f"{source!r}: no die found in a photo of {w}x{h} pixels, even padded; a calibration photo shows one die")
    return _one(_dice_in(image, reader, reader.min_score), source)


def _weakly_found(image: Crop, reader: LearnedReader) -> FoundDie | None:
    """The photo's die among the detector's finds down to :data:`WEAK_FIND`, if they make one die."""
    if min(image.shape[:2]) < MIN_FRAME_SIDE or reader.min_score <= WEAK_FIND:
        return None
    found = _dice_in(image, reader, WEAK_FIND)
    return found[0] if len(found) == 1 else None


def _dice_in(image: Crop, reader: LearnedReader, min_score: float) -> list[FoundDie]:
    """The whole dice of the photo as it is that the detector scores ``min_score`` or more, big
    ones too (:func:`vision.learned.find_big_dice`), and that the face network takes for dice
    (where it takes none, the one it doubts least, under :data:`LONE_NOT_A_DIE`); a die found on a
    bigger one (a pip, a part of an emblem, a corner number) is part of it."""
    h, w = image.shape[:2]
    halves = FrameHalves(image)
    found = find_dice(halves, reader.model.detect_raw, min_score) + find_big_dice(halves, reader.model.detect_raw, min_score)
    doubt = [(d, _no_die(image, d, reader)) for d in _whole(found, w, h)]
    dice = [d for d, no in doubt if no < NOT_A_DIE]
    if not dice:
        lone = [d for d, no in doubt if no < LONE_NOT_A_DIE]
        dice = lone if len(lone) == 1 else []
    # Overlapping the bigger die, not only inside its top face: a corner number found as a die
    # lies at that face's corner, and the detector may measure the die small (a black die on
    # wood). Two dice that touch lie a whole die apart.
    return [
        d for d in dice
        if not any(k.size > d.size and max(abs(k.cx - d.cx), abs(k.cy - d.cy)) < PART_OF_A_DIE * (k.size + d.size) for k in dice)
    ]  # fmt: skip


def _one(direct: Sequence[FoundDie], source: str) -> Located:
    """The die when exactly one was found, else the error saying what was seen."""
    if len(direct) == 1:
        return Located(direct[0], padded=False)
    if direct:
        raise ProfileError(f"{source!r}: found {len(direct)} dice; a calibration photo shows one die")
    raise ProfileError(f"{source!r}: no die found (not even with the photo padded); a calibration photo shows one die")


def _only_die_by_finders(image: Crop, bodies: BodyDetector) -> Crop | None:
    """The crop of the one die the body finder or the pip finder sees whole, or ``None`` (also in
    a photo smaller than the finders take)."""
    if min(image.shape[:2]) < MIN_FRAME_SIDE:
        return None
    single = bodies.find_single(image)
    if single is not None:
        return single.crop
    # A face read by its pips is read whole even where the crop cuts the die's edge.
    pips = [c for c in FaceDetector().find(image) if c.layout is not None]
    if len(pips) == 1:
        return pips[0].crop
    whole = [c for c in bodies.find(image) if not c.touches_frame_edge]
    return whole[0].crop if len(whole) == 1 else None


@dataclass(frozen=True)
class Shot:
    """A calibration photo's die: its square top-face crop, cut as the reader cuts dice, and the
    pip count the face network reads surely on the die where it lies in the photo (``None``: not
    a sure pip count, or the die was found by the rule-based finders alone)."""

    crop: Crop
    counted: tuple[int, float] | None = None


def die_crop(image: Crop, source: str, *, reader: LearnedReader | None = None, bodies: BodyDetector | None = None) -> Crop:
    """The square top-face crop of the one die of a calibration photo, cut as the reader cuts dice.

    :raises ProfileError: no die, or several, in the photo (the message names ``source``).
    """
    return die_shot(image, source, reader=reader, bodies=bodies).crop


def die_shot(image: Crop, source: str, *, reader: LearnedReader | None = None, bodies: BodyDetector | None = None) -> Shot:
    """The one die of a calibration photo (:func:`die_crop`) and the face network's count of its
    pips read as the reader reads a die at the table: with the photo round it (its edge repeated
    where the die lies near it), not from the cut top face alone, which a die cut a little off
    or too close leaves hard to read.

    :raises ProfileError: no die, or several, in the photo (the message names ``source``).
    """
    reader = reader if reader is not None else LearnedReader()
    bodies = bodies if bodies is not None else BodyDetector()
    try:
        die = locate_die(image, source, reader).die
    except ProfileError:
        # The detector saw no die or several: the one die the reader's own finders see, if they
        # see exactly one (a crop cut close round a die's pips shows bits of its neighbours);
        # else the one die the detector finds scoring it lower (a white die on light wood).
        only = _only_die_by_finders(image, bodies)
        if only is not None:
            return Shot(only)
        weak = _weakly_found(image, reader)
        if weak is None:
            raise
        die = weak
    outlined = outline_found_die(image, die, bodies, repeat_edge=True, lone=True)
    crop = outlined.crop if outlined is not None else top_face_crop(image, die)
    return Shot(crop, _counted(image, die, reader))


def _counted(image: Crop, die: FoundDie, reader: LearnedReader) -> tuple[int, float] | None:
    """The pip count the face network reads surely on ``die`` of ``image``, the photo's edge
    repeated a die's size round it (a crop cut close round its die)."""
    pad = int(np.ceil(die.size))
    framed: Crop = np.asarray(cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE), np.uint8)
    p = reader.face_probabilities(framed, [FoundDie(die.cx + pad, die.cy + pad, die.size, die.score)])[0]
    best = int(np.argmax(p))
    if CLASSES[best].isdigit() and reader.reads_surely(p):
        return int(CLASSES[best]), float(p[best])
    return None

