"""Training samples for the learned reader, from real labelled folders and rendered training sets.

Everything here is numpy and OpenCV; :mod:`vision.training.train` turns the samples into tensors.

- A *source* is a list of :class:`TrainFrame` (the decoded image and its dice as
  :class:`TrainDie`: top-face centre, the whole die's size when the labels give it, and the class).
  :func:`real_frames` reads a ``labels.json`` folder and keeps only the images of the asked split
  (:mod:`vision.splits`); :func:`rendered_frames` reads a folder written by the simulated tray's
  training generator (``training.json``).
- :func:`detector_sample` cuts one augmented working-scale patch and its targets (centre heat map,
  log size and offset, and the masks saying where they count); :func:`face_sample` cuts one
  augmented crop as the reader cuts it, with its class.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.dataset import LabelledDie, load_dataset, parse_die, parse_image
from vision.datafile import load_json_file
from vision.errors import DatasetError
from vision.imageio import Frame, load_image
from vision.learned import CLASSES, CROP_CONTEXT, CROP_SIZE, STRIDE, WORK_SIZE, crop_at, to_input
from vision.splits import Split, split_of

F32 = npt.NDArray[np.float32]

CLASS_INDEX = {name: i for i, name in enumerate(CLASSES)}

#: Boxes in a labelled folder bound either the whole visible die or only its top face / pip pattern.
BoxKind = str  # "die" | "face"


@dataclass(frozen=True)
class TrainDie:
    """One die: top-face centre (frame px), the whole die's size in px (``None``: not known from
    the labels) and its class index in :data:`vision.learned.CLASSES`."""

    cx: float
    cy: float
    size: float | None
    label: int


@dataclass(frozen=True)
class TrainFrame:
    """A decoded frame, its dice, the size to assume for a die whose size is unknown, and where it came from."""

    image: Frame
    dice: tuple[TrainDie, ...]
    typical_size: float
    source: str
    #: Places the trained detector took for dice where there are none (centre x, y and size).
    negatives: tuple[tuple[float, float, float], ...] = ()


#: Plainly wrong labels of the real photo sets, corrected for training only (the file says how
#: each was found); ``dicetray eval`` scores against the labels as given.
LABEL_CORRECTIONS = Path(__file__).with_name("label_corrections.json")


@dataclass(frozen=True)
class LabelCorrection:
    """One corrected label: the die at ``box`` of ``image`` shows ``value``; ``was`` is the value
    it was labelled with, ``None`` for a die with no label."""

    image: str
    box: tuple[int, int, int, int]
    was: int | None
    value: int


def label_corrections(folder_name: str, path: Path = LABEL_CORRECTIONS) -> list[LabelCorrection]:
    """The corrections for the labelled folder named ``folder_name`` (none if the file has none).

    :raises DatasetError: the corrections file is malformed (named, with the entry).
    """
    data = load_json_file(path, DatasetError, "label corrections")
    entries = data.get(folder_name, []) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise DatasetError(f"{path}: {folder_name!r} must be a list of corrections")
    out = []
    for i, entry in enumerate(entries):
        where = f"{path} ({folder_name!r}) correction {i}"
        image = parse_image(entry, where)
        die = parse_die(entry, where)
        was = entry.get("was")
        if was is not None and (isinstance(was, bool) or not isinstance(was, int) or not 1 <= was <= 6):
            raise DatasetError(f"{where}: 'was' must be 1-6 or null, not {was!r}")
        out.append(LabelCorrection(image, die.box, was, die.value))
    return out


def corrected(image: str, dice: tuple[LabelledDie, ...], corrections: Sequence[LabelCorrection]) -> tuple[LabelledDie, ...]:
    """``dice`` (the labels of ``image``) with ``corrections`` made: a die's value changed where
    it was labelled ``was`` at the box, a die added where it had no label.

    :raises DatasetError: a correction names a labelled die the image does not have (labels
        other than those the corrections were made for).
    """
    out = list(dice)
    for fix in corrections:
        if fix.image != image:
            continue
        if fix.was is None:
            out.append(LabelledDie(fix.value, fix.box))
            continue
        at = [i for i, d in enumerate(out) if d.box == fix.box and d.value == fix.was]
        if not at:
            raise DatasetError(f"{image}: no die labelled {fix.was} at {list(fix.box)} to correct to {fix.value} ({LABEL_CORRECTIONS.name})")
        out[at[0]] = LabelledDie(fix.value, fix.box, out[at[0]].face)
    return tuple(out)


def real_frames(folder: str | Path, split: Split | Sequence[Split], boxes: BoxKind = "die") -> list[TrainFrame]:
    """The images of ``split`` in a labelled folder, with the folder's :func:`label_corrections`.

    ``boxes`` says what the folder's boxes bound: ``die`` (the whole visible die: its size is the
    box's longer side) or ``face`` (the top face or only the pip pattern: a box much smaller than
    the folder's typical die is a lone pip, whose die size is then unknown).
    """
    splits = {split} if isinstance(split, str) else set(split)
    dataset = load_dataset(folder)
    corrections = label_corrections(Path(folder).resolve().name)
    sides = sorted(max(d.box[2], d.box[3]) for im in dataset.images for d in im.dice if d.value != 1)
    typical = float(sides[len(sides) // 2]) if sides else 40.0
    frames: list[TrainFrame] = []
    for labelled in dataset.images:
        if split_of(labelled.name) not in splits:
            continue
        dice = []
        for d in corrected(labelled.name, labelled.dice, corrections):
            x, y, w, h = d.box
            # A top-face or pip-pattern box says little of the whole die's size (a two's box is
            # its two pips): such sizes are left unknown, to be taken from the trained detector.
            size = float(max(w, h)) if boxes == "die" else None
            dice.append(TrainDie(x + w / 2, y + h / 2, size, CLASS_INDEX[str(d.value)]))
        die_typical = typical * (1.25 if boxes == "face" else 1.0)
        frames.append(TrainFrame(labelled.load(), tuple(dice), die_typical, Path(folder).name))
    return frames


_STATUS_CLASS = {"cocked": "cocked", "occluded": "cut", "unreadable": "other"}


def rendered_frames(folder: str | Path, limit: int | None = None) -> list[TrainFrame]:
    """The frames of a rendered training set (``training.json`` beside the JPEGs).

    :raises DatasetError: the folder has no readable ``training.json``.
    """
    root = Path(folder)
    path = root / "training.json"
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DatasetError(f"cannot read rendered training set {str(path)!r}: {error}") from None
    frames: list[TrainFrame] = []
    for entry in entries[:limit]:
        dice = []
        for d in entry["dice"]:
            status = d["status"]
            if status in _STATUS_CLASS:
                name = _STATUS_CLASS[status]
            elif d["kind"] == "pips":
                name = str(d["value"])
            else:
                name = "other"
            dice.append(TrainDie(float(d["centre"][0]), float(d["centre"][1]), float(d["size"]), CLASS_INDEX[name]))
        sizes = [d.size for d in dice if d.size]
        typical = float(np.median(sizes)) if sizes else 40.0
        frames.append(TrainFrame(load_image(root / entry["image"]), tuple(dice), typical, "rendered"))
    return frames


# ----------------------------------------------------------------------------------------------
# Photometric augmentation (shared by both networks)


def augment_colour(image: Frame, rng: np.random.Generator) -> Frame:
    """Hue turned, light and contrast changed, sometimes inverted or grey, blurred, noisy."""
    out: Any = image
    if rng.random() < 0.7:
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV)
        hsv[:, :, 0] = ((hsv[:, :, 0].astype(np.int16) + int(rng.integers(0, 180))) % 180).astype(np.uint8)
        sat = float(rng.uniform(0.5, 1.4))
        hsv[:, :, 1] = np.clip(hsv[:, :, 1].astype(np.float32) * sat, 0, 255).astype(np.uint8)
        out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    if rng.random() < 0.3:
        out = out[:, :, rng.permutation(3)]
    if rng.random() < 0.08:
        out = 255 - out
    if rng.random() < 0.08:
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    gain = float(rng.uniform(0.6, 1.35))
    bias = float(rng.uniform(-30, 30))
    gamma = float(rng.uniform(0.7, 1.4))
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma * gain + bias, 0, 255).astype(np.uint8)
    out = cv2.LUT(np.ascontiguousarray(out), lut)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.4, 1.4)))
    if rng.random() < 0.5:
        noise = rng.normal(0, float(rng.uniform(1, 8)), out.shape).astype(np.float32)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    result: Frame = np.ascontiguousarray(out)
    return result


def camera_shift(image: Frame, rng: np.random.Generator) -> Frame:
    """``image`` as another camera might give it: white balance off (each channel's gain apart),
    exposure from half to a third over, and JPEG compression from hard to mild; each
    of the three half the time. :func:`augment_colour` turns hues and lifts light over the whole
    crop alike, and never blocks it as a cheap webcam's stream does."""
    out = image.astype(np.float32)
    if rng.random() < 0.5:
        out = out * np.exp(rng.normal(0.0, 0.15, 3)).astype(np.float32)
    if rng.random() < 0.5:
        out = out * float(np.exp(rng.uniform(math.log(0.5), math.log(1.3))))
    result: Frame = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, encoded = cv2.imencode(".jpg", result, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(20, 86))])
        if ok:
            result = np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), dtype=np.uint8)
    return np.ascontiguousarray(result)


# ----------------------------------------------------------------------------------------------
# Detector samples


@dataclass(frozen=True)
class DetectorSample:
    """One patch (3 x P x P) and its targets at 1/STRIDE: heat map, log size, offset, and masks."""

    image: F32
    heat: F32
    size: F32
    offset: F32
    mask: F32  # 1 where the size and offset count (die centres)
    size_known: F32  # 1 where the die's size is known


def detector_sample(frame: TrainFrame, rng: np.random.Generator, patch: int = 256) -> DetectorSample:
    """A random patch of ``frame`` at the working scale (jittered), flipped or turned, recoloured."""
    h, w = frame.image.shape[:2]
    scale = WORK_SIZE / max(h, w) * math.exp(rng.uniform(math.log(0.55), math.log(1.8)))
    # Keep dice within the sizes the detector is meant for at the working scale.
    # Keep dice within the sizes the detector is meant for at the working scale.
    die_work = frame.typical_size * scale
    if die_work > 70:
        scale *= 70 / die_work
    angle = float(rng.choice([0.0, 90.0, 180.0, 270.0])) + (float(rng.uniform(-25, 25)) if rng.random() < 0.3 else 0.0)
    # A centre in the frame, so that most patches hold dice; sometimes one near a die.
    if frame.dice and rng.random() < 0.7:
        d = frame.dice[int(rng.integers(len(frame.dice)))]
        cx, cy = d.cx + rng.uniform(-0.4, 0.4) * patch / scale, d.cy + rng.uniform(-0.4, 0.4) * patch / scale
    else:
        cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[0, 2] += patch / 2 - cx
    m[1, 2] += patch / 2 - cy
    if rng.random() < 0.5:  # mirror
        m[0] = -m[0]
        m[0, 2] += patch
    border = tuple(int(v) for v in rng.integers(0, 256, 3))
    image: Any = cv2.warpAffine(frame.image, m, (patch, patch), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    image = augment_colour(image, rng)
    cells = patch // STRIDE
    heat = np.zeros((cells, cells), np.float32)
    size = np.zeros((cells, cells), np.float32)
    offset = np.zeros((2, cells, cells), np.float32)
    mask = np.zeros((cells, cells), np.float32)
    known = np.zeros((cells, cells), np.float32)
    ys, xs = np.mgrid[0:cells, 0:cells].astype(np.float32)
    for d in frame.dice:
        px = m[0, 0] * d.cx + m[0, 1] * d.cy + m[0, 2]
        py = m[1, 0] * d.cx + m[1, 1] * d.cy + m[1, 2]
        side = (d.size if d.size else frame.typical_size) * scale
        if not (-side / 2 < px < patch + side / 2 and -side / 2 < py < patch + side / 2):
            continue
        gx, gy = px / STRIDE, py / STRIDE
        sigma = max(0.5, side / STRIDE * 0.16)
        blob = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma * sigma))
        np.maximum(heat, blob, out=heat)
        ix, iy = int(gx), int(gy)
        if 0 <= ix < cells and 0 <= iy < cells:
            heat[iy, ix] = 1.0
            mask[iy, ix] = 1.0
            offset[0, iy, ix] = gx - ix
            offset[1, iy, ix] = gy - iy
            if d.size:
                size[iy, ix] = math.log(side)
                known[iy, ix] = 1.0
    return DetectorSample(to_input(image), heat, size, offset, mask, known)


# ----------------------------------------------------------------------------------------------
# Face samples


def face_sample(
    frame: TrainFrame,
    rng: np.random.Generator,
    negative: bool,
    size: int = CROP_SIZE,
    context: float = CROP_CONTEXT,
    camera: float = 0.0,
) -> tuple[F32, int]:
    """One augmented ``size`` px crop showing ``context`` times the die's size, and its class: a die
    of the frame as the detector would place it, or (``negative``) a place with no die at its
    centre; ``camera`` of them also shifted as another camera would (:func:`camera_shift`)."""
    crop, label = _face_sample(frame, rng, negative, size, context)
    if camera > 0 and rng.random() < camera:
        crop = camera_shift(crop, rng)
    return to_input(crop), label


def _face_sample(frame: TrainFrame, rng: np.random.Generator, negative: bool, size: int, context: float) -> tuple[Frame, int]:
    """:func:`face_sample`'s crop (BGR, augmented) and class, before it is made the network's input."""
    h, w = frame.image.shape[:2]
    if negative and frame.negatives and rng.random() < 0.5:
        nx, ny, nsize = frame.negatives[int(rng.integers(len(frame.negatives)))]
        side = nsize * math.exp(rng.normal(0, 0.1))
        crop = crop_at(frame.image, nx + rng.normal(0, 0.05) * nsize, ny + rng.normal(0, 0.05) * nsize, side, float(rng.uniform(0, 360)), size, context)
        return augment_colour(crop, rng), CLASS_INDEX["none"]
    if negative and frame.dice and rng.random() < 0.3:
        # Off a die's centre by most of its size: the detector must give one die one place.
        d = frame.dice[int(rng.integers(len(frame.dice)))]
        base = d.size if d.size else frame.typical_size
        turn = rng.uniform(0, 2 * math.pi)
        reach = rng.uniform(0.6, 1.0) * base
        cx, cy = d.cx + reach * math.cos(turn), d.cy + reach * math.sin(turn)
        if all(math.hypot(cx - o.cx, cy - o.cy) > 0.55 * (o.size or frame.typical_size) for o in frame.dice):
            crop = crop_at(frame.image, cx, cy, base * math.exp(rng.normal(0, 0.12)), float(rng.uniform(0, 360)), size, context)
            return augment_colour(crop, rng), CLASS_INDEX["none"]
    if negative or not frame.dice:
        side = frame.typical_size * math.exp(rng.uniform(-0.7, 0.7))
        for _ in range(30):
            cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
            if all(math.hypot(cx - d.cx, cy - d.cy) > 0.7 * (d.size or frame.typical_size) for d in frame.dice):
                break
        else:
            return _face_sample(frame, rng, False, size, context) if frame.dice else (np.zeros((size, size, 3), np.uint8), 0)
        label = CLASS_INDEX["none"]
    else:
        d = frame.dice[int(rng.integers(len(frame.dice)))]
        base = d.size if d.size else frame.typical_size
        side = base * math.exp(rng.normal(0, 0.12))
        cx = d.cx + rng.normal(0, 0.06) * base
        cy = d.cy + rng.normal(0, 0.06) * base
        label = d.label
    crop = crop_at(frame.image, cx, cy, side, float(rng.uniform(0, 360)), size, context)
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return augment_colour(np.ascontiguousarray(crop), rng), label


def check_classes(frames: Sequence[TrainFrame]) -> dict[str, int]:
    """How many dice of each class the frames hold (for the training log)."""
    counts = {name: 0 for name in CLASSES}
    for f in frames:
        for d in f.dice:
            counts[CLASSES[d.label]] += 1
    return counts
