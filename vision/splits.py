"""The fixed split of every labelled photo set into train, validation and held-out test images.

An image's split depends only on its file name (a hash), never on the order of a folder or on
which other images are there, so the held-out images of ``real-d6`` or ``byler-d6-train`` are the
same on every machine and in every training run: 20 % ``test`` (never seen by training or by any
tuning), 10 % ``val`` (confidence fitting and model choice), the rest ``train``.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from vision.dataset import Dataset

Split = Literal["train", "val", "test"]
SPLITS: tuple[Split, ...] = ("train", "val", "test")
HELD_OUT: Split = "test"


def split_of(image_name: str) -> Split:
    """The split an image belongs to, from its file name alone.

    >>> split_of("valid_50.jpg")
    'test'
    """
    bucket = int.from_bytes(hashlib.sha256(image_name.encode("utf-8")).digest()[:4], "big") % 10
    if bucket < 2:
        return "test"
    if bucket == 2:
        return "val"
    return "train"


def subset(dataset: Dataset, split: Split) -> Dataset:
    """The images of ``dataset`` that belong to ``split``."""
    return Dataset(dataset.folder, tuple(i for i in dataset.images if split_of(i.name) == split))
