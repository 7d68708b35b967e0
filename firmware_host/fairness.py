"""Are the dice fair? Counts per face from the roll log's readings and Pearson's chi-square test
against a fair die (each face 1/6), for the table app's fairness panel.

The roll log does not know which physical die showed which value (the dice are alike), so the test
is of the set of dice together: a die that favours a face shows as that face coming up too often.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

FACES = 6
MIN_EXPECTED = 5
"""Rolls per face a fair die would give before the chi-square test is trusted (the usual rule)."""


def chi_square(counts: Sequence[int]) -> tuple[float, float]:
    """Pearson's statistic for ``counts`` of six faces against a fair die, and its p-value (the
    chance a fair die gives a statistic this large or larger; 5 degrees of freedom).

    >>> round(chi_square([10, 10, 10, 10, 10, 10])[1], 3)
    1.0
    """
    if len(counts) != FACES:
        raise ValueError(f"chi_square takes six counts, one per face, not {len(counts)}")
    total = sum(counts)
    if total == 0:
        return 0.0, 1.0
    expected = total / FACES
    statistic = sum((count - expected) ** 2 / expected for count in counts)
    return statistic, _chi2_sf_5(statistic)


def _chi2_sf_5(x: float) -> float:
    """The chi-square survival function for 5 degrees of freedom, in closed form (odd degrees:
    erfc plus a finite series), so no statistics library is needed on the Pi."""
    if x <= 0:
        return 1.0
    half = x / 2
    return math.erfc(math.sqrt(half)) + math.sqrt(2 * x / math.pi) * math.exp(-half) * (1 + x / 3)


@dataclass(frozen=True)
class FairnessReport:
    """Faces counted over ``rolls`` dice read; the test's statistic and p-value; ``enough``
    when every face was expected at least :data:`MIN_EXPECTED` times."""

    counts: tuple[int, ...]
    rolls: int
    statistic: float
    p_value: float
    enough: bool

    @property
    def verdict(self) -> str:
        if not self.enough:
            return f"too few dice read to tell ({self.rolls}; {FACES * MIN_EXPECTED} or more)"
        if self.p_value < 0.01:
            return "the faces are uneven: a fair set of dice gives this less than 1 time in 100"
        if self.p_value < 0.05:
            return "somewhat uneven: a fair set gives this less than 1 time in 20; keep rolling"
        return "no sign of bias"

    def to_json(self) -> dict[str, Any]:
        return {
            "counts": list(self.counts),
            "rolls": self.rolls,
            "chi_square": round(self.statistic, 3),
            "p_value": round(self.p_value, 4),
            "enough": self.enough,
            "verdict": self.verdict,
        }


def fairness(values: Iterable[int | None]) -> FairnessReport:
    """The report for the die values read (unread dice, None, are left out)."""
    counts = [0] * FACES
    for value in values:
        if value is not None and 1 <= value <= FACES:
            counts[value - 1] += 1
    statistic, p_value = chi_square(counts)
    rolls = sum(counts)
    return FairnessReport(tuple(counts), rolls, statistic, p_value, rolls >= FACES * MIN_EXPECTED)


def roll_log_fairness(path: Any) -> FairnessReport:
    """The report over every die in the roll log at ``path``."""
    from firmware_host.rolllog import RollLog

    log = RollLog(path)
    try:
        return fairness(die.value for reading in log.readings() for die in reading.dice)
    finally:
        log.close()
