"""Readers in several threads at once: each thread's pip passes work in arrays of their own."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from vision.classify import PipClassifier
from vision.imageio import load_image
from vision.reader import DiceReader

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"


@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_threads_reading_at_once_read_as_one_thread_does() -> None:
    # four photos of one size, so that shared work arrays would be overwritten mid-read
    frames = [load_image(REAL_D6 / name) for name in ("valid_70.jpg", "dice_13.jpg", "five_10.jpg", "valid_50.jpg")]
    assert len({f.shape for f in frames}) == 1
    reader = DiceReader(classifier=PipClassifier())
    alone = [reader.read(frame).dice for frame in frames]

    def read_in_turn(start: int) -> list[object]:
        return [reader.read(frames[(start + k) % len(frames)]).dice for k in range(8)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(read_in_turn, range(4)))
    for start, dice in enumerate(together):
        assert dice == [alone[(start + k) % len(frames)] for k in range(8)]
