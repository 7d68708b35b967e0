"""Labelled image folders: images plus ``labels.json`` (the format ``dicetray eval`` and calibration read).

``labels.json`` is a list with one entry per image::

    [{"image": "name.jpg", "dice": [{"value": 1, "box": [x, y, w, h], "face": "pips"}]}]

``face`` is optional. Every problem is reported with the file and the entry it is in.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.datafile import load_json_file
from vision.errors import DatasetError
from vision.imageio import Frame, load_image

LABELS_FILE = "labels.json"


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: its value, the box of its top face (x, y, w, h) and the face kind."""

    value: int
    box: tuple[int, int, int, int]
    face: str = "pips"


@dataclass(frozen=True)
class LabelledImage:
    """One image of a labelled folder and the dice on it."""

    path: Path
    dice: tuple[LabelledDie, ...]

    @property
    def name(self) -> str:
        return self.path.name

    def load(self) -> Frame:
        """The image as BGR; raises :class:`~vision.errors.ImageLoadError` naming it if it cannot be read."""
        return load_image(self.path)


@dataclass(frozen=True)
class Dataset:
    """A labelled folder."""

    folder: Path
    images: tuple[LabelledImage, ...]

    def __len__(self) -> int:
        return len(self.images)

    @property
    def dice_count(self) -> int:
        return sum(len(i.dice) for i in self.images)


def load_dataset(folder: str | os.PathLike[str]) -> Dataset:
    """Reads a labelled folder.

    :raises DatasetError: the folder is missing or empty, ``labels.json`` is missing or malformed, or
        it names an image that is not there.
    """
    root = Path(folder)
    if not root.is_dir():
        raise DatasetError(f"not a folder: {str(root)!r}")
    labels_path = root / LABELS_FILE
    if not labels_path.is_file():
        if not any(root.iterdir()):
            raise DatasetError(f"empty folder: {str(root)!r}")
        raise DatasetError(f"no {LABELS_FILE} in {str(root)!r}")
    data = load_json_file(labels_path, DatasetError, "labels file")
    if not isinstance(data, list):
        raise DatasetError(f"{str(labels_path)!r} must hold a list of images, not {type(data).__name__}")
    if not data:
        raise DatasetError(f"{str(labels_path)!r} lists no images")
    images: list[LabelledImage] = []
    seen: set[str] = set()
    for index, entry in enumerate(data):
        where = f"{str(labels_path)!r} entry {index}"
        image = parse_image(entry, where)
        if image in seen:
            raise DatasetError(f"{where}: image {image!r} is listed twice")
        seen.add(image)
        path = root / image
        if not path.is_file():
            raise DatasetError(f"{where}: image not found: {str(path)!r}")
        dice = entry.get("dice")
        if not isinstance(dice, list):
            raise DatasetError(f"{where} ({image!r}): 'dice' must be a list")
        images.append(LabelledImage(path, tuple(parse_die(d, f"{where} ({image!r}) die {i}") for i, d in enumerate(dice))))
    return Dataset(root, tuple(images))


def parse_image(entry: Any, where: str) -> str:
    if not isinstance(entry, dict):
        raise DatasetError(f"{where}: must be an object, not {entry!r}")
    image = entry.get("image")
    # 255 bytes is the longest file name most file systems take; longer ones fail to stat at all.
    if not isinstance(image, str) or not image or "/" in image or "\\" in image or "\x00" in image or len(image.encode("utf-8", "replace")) > 255:
        raise DatasetError(f"{where}: 'image' must be a file name in the folder, not {image!r}")
    return image


def parse_die(die: Any, where: str) -> LabelledDie:
    if not isinstance(die, dict):
        raise DatasetError(f"{where}: must be an object, not {die!r}")
    value = die.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise DatasetError(f"{where}: 'value' must be 1-6, not {value!r}")
    box = die.get("box")
    if (
        not isinstance(box, list)
        or len(box) != 4
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box)
        or box[2] <= 0
        or box[3] <= 0
    ):
        raise DatasetError(f"{where}: 'box' must be [x, y, w, h] with w, h > 0, not {box!r}")
    face = die.get("face", "pips")
    if not isinstance(face, str) or not face:
        raise DatasetError(f"{where}: 'face' must be a text label, not {face!r}")
    x, y, w, h = (int(round(v)) for v in box)
    return LabelledDie(value=value, box=(x, y, w, h), face=face)
