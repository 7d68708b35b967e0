"""The dice fairness report: counts per face and Pearson's chi-square test against a fair die."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from firmware_host.fairness import chi_square, fairness, roll_log_fairness
from firmware_host.rolllog import RollLog
from vision.types import DieReading, DieStatus, FrameReading


def test_the_p_value_matches_the_chi_square_table() -> None:
    from firmware_host.fairness import _chi2_sf_5

    # The 5-degree-of-freedom table: 11.070 at p = 0.05, 15.086 at 0.01, 4.351 at 0.50.
    for statistic, p in ((11.070, 0.05), (15.086, 0.01), (4.351, 0.50)):
        assert math.isclose(_chi2_sf_5(statistic), p, abs_tol=5e-4), statistic


def test_a_loaded_die_is_told_from_a_fair_one() -> None:
    rng = random.Random(1)
    fair = fairness(rng.randint(1, 6) for _ in range(600))
    loaded = fairness(6 if rng.random() < 0.3 else rng.randint(1, 6) for _ in range(600))
    assert fair.enough and fair.p_value > 0.05 and fair.verdict == "no sign of bias"
    assert loaded.p_value < 0.01 and "uneven" in loaded.verdict
    assert loaded.counts[5] == max(loaded.counts)


def test_few_rolls_say_so_and_unread_dice_are_left_out() -> None:
    report = fairness([1, 2, None, 3])
    assert report.rolls == 3 and not report.enough and "too few" in report.verdict
    with pytest.raises(ValueError, match="six counts"):
        chi_square([1, 2, 3])


def test_the_report_reads_the_roll_log(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    log = RollLog(path)
    for values in ((1, 2, 3, 4, 5), (6, 6, 1, 2, 3)):
        dice = tuple(DieReading(v, 0.99, (10 * i, 0, 8, 8), DieStatus.OK) for i, v in enumerate(values))
        log.record_reading(FrameReading(dice))
    log.close()
    report = roll_log_fairness(path)
    assert report.counts == (2, 2, 2, 1, 1, 2) and report.rolls == 10
