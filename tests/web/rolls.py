"""A real roll log with two dice sets in it: Ana's barbarian dice, fair, and Ben's moon elf dice,
one of them loaded to land on 6 about half the time."""

from __future__ import annotations

import random
from pathlib import Path

from firmware_host.rolllog import RollLog
from vision.types import DieReading, DieStatus, FrameReading


def log_fair_and_loaded(path: Path, rolls: int = 120, seed: int = 5) -> None:
    """``rolls`` readings of five dice per set, alternating sets; each die lands in a new spot."""
    rng = random.Random(seed)
    with RollLog(path) as log:
        for n in range(2 * rolls):
            loaded = n % 2 == 1
            values = [rng.randint(1, 6) for _ in range(5)]
            if loaded and rng.random() < 0.4:
                values[0] = 6
            spots = rng.sample(range(12), 5)  # a 4x3 grid of places in the tray, none twice
            dice = tuple(
                DieReading(v, 0.98, (40 + 100 * (s % 4), 40 + 100 * (s // 4), 40, 40), DieStatus.OK, face=str(v))
                for v, s in zip(values, spots)
            )
            log.record_reading(FrameReading(dice), at=float(n), dice_set="moon-elf" if loaded else "barbarian")
