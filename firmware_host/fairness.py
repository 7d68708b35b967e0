"""Are the dice fair? Counts per face from the roll log and Pearson's chi-square test against a fair
die (each face 1/6), per set of dice, for the table app's fairness panel.

What the roll log can tell apart: identical dice thrown together cannot be told one from another
(nothing marks a die), so the test is of a **dice set**: the dice of one hero (the game logs whose
dice it was waiting for with each reading), or, for readings from outside a game, the dice that
share face labels (a calibrated set's labels, such as ``sword-1``, are its own; plain numbered or
pip dice are one set). A loaded die in a set shows as its favourite face coming up too often.

Only **thrown** dice count: a die lying where it lay in the reading before, with the same face up,
was kept for a reroll, not thrown again, and counting it twice would make the faces players keep
look favoured.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from vision.types import DieReading

FACES = 6
MIN_EXPECTED = 5
"""Throws per face a fair die would give before the chi-square test is trusted (the usual rule)."""
MIN_THROWS = FACES * MIN_EXPECTED
LOOKS_BIASED_P = 0.05
"""Below this p-value a set looks biased."""
SURE_P = 0.001
"""Below this p-value a set is called biased: a fair set gives such uneven faces once in 1000."""
PLAIN_SET = "numbered"
"""The set of dice whose faces are plain numbers or pips, read outside a game."""


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


def _critical(p: float) -> float:
    """The statistic whose p-value is ``p`` (bisection: the survival function falls steadily)."""
    low, high = 0.0, 200.0
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if _chi2_sf_5(middle) > p else (low, middle)
    return high


SURE_STATISTIC = _critical(SURE_P)  # 20.515, the table's value for 5 degrees of freedom at 0.001


class Finding(enum.Enum):
    """What the test says of a set, from least to most alarming."""

    TOO_FEW = "too-few"
    NO_SIGN = "no-sign"
    LOOKS_BIASED = "looks-biased"
    BIASED = "biased"


@dataclass(frozen=True)
class FairnessReport:
    """One set's faces counted over ``throws`` thrown dice, the test's statistic and p-value.

    ``faces`` are the labels seen for each value 1-6 (``"sword-1"``, or the number), for the chart.
    """

    dice_set: str
    counts: tuple[int, ...]
    statistic: float
    p_value: float
    faces: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")

    @property
    def throws(self) -> int:
        return sum(self.counts)

    @property
    def finding(self) -> Finding:
        if self.throws < MIN_THROWS:
            return Finding.TOO_FEW
        if self.p_value >= LOOKS_BIASED_P:
            return Finding.NO_SIGN
        return Finding.BIASED if self.p_value < SURE_P else Finding.LOOKS_BIASED

    @property
    def throws_to_be_sure(self) -> int | None:
        """Throws in all after which the test can be trusted (too few so far), or after which faces
        as uneven as these would be called biased (they look biased now); None otherwise. The
        statistic grows in step with the throws while the faces keep their shares."""
        finding = self.finding
        if finding is Finding.TOO_FEW:
            return MIN_THROWS
        if finding is Finding.LOOKS_BIASED:
            return max(self.throws + 1, math.ceil(self.throws * SURE_STATISTIC / self.statistic))
        return None

    @property
    def verdict(self) -> str:
        finding, needed = self.finding, self.throws_to_be_sure
        if finding is Finding.TOO_FEW:
            return f"too few throws to tell: {self.throws} of the {needed} needed"
        if finding is Finding.NO_SIGN:
            return "no sign of bias"
        if finding is Finding.LOOKS_BIASED:
            return f"looks biased, roll more to be sure: about {needed} throws in all"
        return f"biased: a fair set shows faces this uneven less than 1 time in {round(1 / SURE_P)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "dice_set": self.dice_set,
            "faces": list(self.faces),
            "counts": list(self.counts),
            "throws": self.throws,
            "chi_square": round(self.statistic, 3),
            "p_value": float(f"{self.p_value:.3g}"),  # three figures: a loaded die's p is tiny, not 0
            "finding": self.finding.value,
            "throws_to_be_sure": self.throws_to_be_sure,
            "verdict": self.verdict,
        }


def fairness(values: Iterable[int | None], dice_set: str = "all") -> FairnessReport:
    """The report for the die values thrown (unread dice, None, are left out)."""
    counts = [0] * FACES
    for value in values:
        if value is not None and 1 <= value <= FACES:
            counts[value - 1] += 1
    statistic, p_value = chi_square(counts)
    return FairnessReport(dice_set, tuple(counts), statistic, p_value)


@dataclass(frozen=True)
class Throw:
    """A reading's thrown dice (read, not kept from the reading before), whose set they are, and
    the face labels of every die in the reading (kept ones too: they lie in the tray together)."""

    dice_set: str | None
    dice: tuple[DieReading, ...]
    labels: tuple[str, ...] = ()


def thrown(readings: Iterable[Any]) -> list[Throw]:
    """Each logged reading's dice that were thrown: read ``ok``, and not lying where a die of the
    reading before (of the same dice set: another player's dice are other dice) lay with the same
    face up (kept for a reroll). ``readings`` are :class:`~firmware_host.rolllog.LoggedReading`
    values, oldest first."""
    from firmware_host.rolllog import lies_where_it_lay

    throws: list[Throw] = []
    before: list[DieReading] = []
    before_set: str | None = None
    for reading in readings:
        dice_set = getattr(reading, "dice_set", None)
        left = list(before) if dice_set == before_set else []
        fresh: list[DieReading] = []
        for die in reading.dice:
            kept = next((other for other in left if lies_where_it_lay(die, other)), None)
            if kept is not None:
                left.remove(kept)
            elif die.ok:
                fresh.append(die)
        labels = tuple(str(d.face) for d in reading.dice if d.ok and not _plain(d))
        throws.append(Throw(dice_set, tuple(fresh), labels))
        before, before_set = list(reading.dice), dice_set
    return throws


def _plain(die: DieReading) -> bool:
    return die.face is None or die.face == str(die.value)


def set_names(throws: Sequence[Throw]) -> list[str]:
    """The set each throw's dice belong to: the logged dice set, else the face labels of its set
    (labels seen together in one throw are one set; the name is all of them, sorted, joined by
    ``/``), else :data:`PLAIN_SET`."""
    parent: dict[str, str] = {}

    def root(label: str) -> str:
        while parent.setdefault(label, label) != label:
            label = parent[label]
        return label

    for throw in throws:
        if throw.dice_set is None:
            for label in throw.labels:
                parent[root(label)] = root(throw.labels[0])
    members: dict[str, set[str]] = {}
    for label in list(parent):
        members.setdefault(root(label), set()).add(label)
    names: list[str] = []
    for throw in throws:
        if throw.dice_set is not None:
            names.append(throw.dice_set)
        elif throw.labels:
            names.append("/".join(sorted(members[root(throw.labels[0])])))
        else:
            names.append(PLAIN_SET)
    return names


@dataclass(frozen=True)
class RollLogFairness:
    """Every set's report, the report over all the dice thrown, and how many dice read were left
    out as kept from the reading before."""

    sets: tuple[FairnessReport, ...]
    overall: FairnessReport
    kept: int

    def to_json(self) -> dict[str, Any]:
        return {
            "sets": [report.to_json() for report in self.sets],
            "all": self.overall.to_json(),
            "kept_left_out": self.kept,
            "min_throws": MIN_THROWS,
        }


def sets_fairness(readings: Sequence[Any]) -> RollLogFairness:
    """The reports for logged readings (oldest first), per set, the sets in the order first thrown;
    after a set whose dice differ in body colour, one report per die colour (``"monk: red die"``)."""
    throws = thrown(readings)
    names = set_names(throws)
    by_set: dict[str, list[DieReading]] = {}
    for name, throw in zip(names, throws):
        by_set.setdefault(name, []).extend(throw.dice)
    reports = []
    for name, dice in by_set.items():
        reports.append(_report(name, dice))
        # Dice of one set that differ in body colour are told apart, so each is tested on its own.
        by_colour: dict[str, list[DieReading]] = {}
        for d in dice:
            if d.colour is not None:
                by_colour.setdefault(d.colour.name, []).append(d)
        if len(by_colour) > 1:
            reports.extend(_report(f"{name}: {colour} die", own) for colour, own in by_colour.items())
    read = sum(1 for reading in readings for d in reading.dice if d.ok)
    overall = fairness(d.value for throw in throws for d in throw.dice)
    return RollLogFairness(tuple(reports), overall, read - overall.throws)


def _report(name: str, dice: Sequence[DieReading]) -> FairnessReport:
    labels = [sorted({str(d.face) for d in dice if d.value == v and d.face}) for v in range(1, FACES + 1)]
    faces = tuple("/".join(found) if found else str(v) for v, found in enumerate(labels, 1))
    return dataclasses.replace(fairness((d.value for d in dice), name), faces=faces)


def roll_log_fairness(path: Any) -> RollLogFairness:
    """The reports over the roll log at ``path``."""
    from firmware_host.rolllog import RollLog

    log = RollLog(path)
    try:
        return sets_fairness(log.readings())
    finally:
        log.close()
