"""The dice fairness report: counts per face per dice set, only dice thrown, and Pearson's
chi-square test against a fair die."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from firmware_host.fairness import (
    MIN_THROWS,
    PLAIN_SET,
    SURE_P,
    Finding,
    chi_square,
    fairness,
    roll_log_fairness,
    sets_fairness,
)
from firmware_host.rolllog import LoggedReading, RollLog
from vision.types import BodyColour, DieReading, DieStatus, FrameReading


def die(value: int, x: int, face: str | None = None) -> DieReading:
    return DieReading(value, 0.99, (x, 40, 30, 30), DieStatus.OK, face=face or str(value))


def logged(*dice: DieReading, dice_set: str | None = None) -> LoggedReading:
    return LoggedReading("r", 0.0, "", True, 1.0, dice, dice_set)


def test_the_p_value_matches_the_chi_square_table() -> None:
    from firmware_host.fairness import SURE_STATISTIC, _chi2_sf_5

    # The 5-degree-of-freedom table: 11.070 at p = 0.05, 15.086 at 0.01, 4.351 at 0.50, 20.515 at 0.001.
    for statistic, p in ((11.070, 0.05), (15.086, 0.01), (4.351, 0.50), (20.515, 0.001)):
        assert math.isclose(_chi2_sf_5(statistic), p, abs_tol=5e-4), statistic
    assert SURE_STATISTIC == pytest.approx(20.515, abs=1e-3)


def test_a_loaded_die_is_told_from_a_fair_one() -> None:
    rng = random.Random(1)
    fair = fairness(rng.randint(1, 6) for _ in range(600))
    loaded = fairness(6 if rng.random() < 0.3 else rng.randint(1, 6) for _ in range(600))
    assert fair.finding is Finding.NO_SIGN and fair.verdict == "no sign of bias" and fair.throws_to_be_sure is None
    assert loaded.finding is Finding.BIASED and loaded.p_value < SURE_P and loaded.verdict.startswith("biased")
    assert loaded.counts[5] == max(loaded.counts)


def test_a_set_that_looks_biased_says_how_many_throws_would_make_sure() -> None:
    counts = [9, 10, 10, 11, 9, 23]  # 72 throws, six favoured: p about 0.03
    report = fairness(v for v, n in enumerate(counts, 1) for _ in range(n))
    assert report.finding is Finding.LOOKS_BIASED
    needed = report.throws_to_be_sure
    assert needed is not None and needed > report.throws
    assert report.verdict == f"looks biased, roll more to be sure: about {needed} throws in all"
    # As many throws again with the same shares would be called biased, and not many fewer would not.
    scale = needed / report.throws
    assert chi_square([c * scale for c in counts])[1] < SURE_P * 1.01
    assert chi_square([c * scale * 0.9 for c in counts])[1] > SURE_P


def test_few_throws_say_how_many_are_needed_and_unread_dice_are_left_out() -> None:
    report = fairness([1, 2, None, 3])
    assert report.throws == 3 and report.finding is Finding.TOO_FEW
    assert report.verdict == f"too few throws to tell: 3 of the {MIN_THROWS} needed"
    with pytest.raises(ValueError, match="six counts"):
        chi_square([1, 2, 3])


def test_a_die_kept_for_a_reroll_is_counted_once() -> None:
    first = logged(die(6, 10), die(6, 60), die(2, 110))
    # The two sixes were kept (still there, a pixel off); the two was rerolled and shows 5 elsewhere.
    reroll = logged(die(6, 11), die(6, 60), die(5, 200))
    # Thrown again: a six lands on the spot of a six that was there, but a die moved away: new dice.
    again = logged(die(6, 300), die(3, 60), die(4, 350))
    report = sets_fairness([first, reroll, again])
    assert report.overall.counts == (0, 1, 1, 1, 1, 3)
    assert report.kept == 2
    # The other player's dice where these lay are other dice: all thrown.
    theirs = logged(die(6, 300), die(3, 60), die(4, 350), dice_set="monk")
    assert sets_fairness([first, reroll, again, theirs]).kept == 2


def test_dice_sets_are_told_apart_by_whose_dice_and_by_face_labels() -> None:
    readings = [
        logged(die(1, 10), die(2, 60), dice_set="barbarian"),
        logged(die(6, 10), dice_set="moon-elf"),
        logged(die(1, 200, "sword-1"), die(4, 250, "heart-4")),  # a calibrated set outside a game
        logged(die(6, 200, "pow-6"), die(4, 252, "heart-4")),  # the heart kept: one set, counted once
        logged(die(3, 300)),  # plain dice outside a game
    ]
    report = sets_fairness(readings)
    by_set = {r.dice_set: r for r in report.sets}
    assert list(by_set) == ["barbarian", "moon-elf", "heart-4/pow-6/sword-1", PLAIN_SET]
    assert by_set["barbarian"].counts == (1, 1, 0, 0, 0, 0)
    labelled = by_set["heart-4/pow-6/sword-1"]
    assert labelled.counts == (1, 0, 0, 1, 0, 1)
    assert labelled.faces == ("sword-1", "2", "3", "heart-4", "5", "pow-6")
    assert report.overall.throws == 7 and report.kept == 1


def test_dice_of_a_set_that_differ_in_colour_are_tested_one_by_one(tmp_path: Path) -> None:
    red, blue = BodyColour("red", (200, 30, 35)), BodyColour("blue", (30, 70, 200))
    path = tmp_path / "rolls.sqlite3"
    log = RollLog(path)
    for throw in range(60):
        # The red die is loaded (always a six); the blue one rolls every face in turn.
        dice = (
            DieReading(6, 0.99, (10 + throw % 7 * 40, 0, 30, 30), DieStatus.OK, face="6", colour=red),
            DieReading(throw % 6 + 1, 0.99, (400 + throw % 5 * 40, 0, 30, 30), DieStatus.OK, colour=blue),
        )
        log.record_reading(FrameReading(dice), dice_set="battle")
    log.close()
    by_set = {r.dice_set: r for r in roll_log_fairness(path).sets}
    assert list(by_set) == ["battle", "battle: red die", "battle: blue die"]
    assert by_set["battle: red die"].counts == (0, 0, 0, 0, 0, 60)
    assert by_set["battle: red die"].finding is Finding.BIASED
    assert by_set["battle: blue die"].counts == (10,) * 6 and by_set["battle: blue die"].finding is Finding.NO_SIGN
    # A set of one colour has one report.
    same = sets_fairness([logged(DieReading(3, 0.99, (10, 40, 30, 30), DieStatus.OK, colour=red), dice_set="monk")])
    assert [r.dice_set for r in same.sets] == ["monk"]


def test_the_report_reads_the_roll_log(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    log = RollLog(path)
    for values in ((1, 2, 3, 4, 5), (6, 6, 1, 2, 3)):
        dice = tuple(DieReading(v, 0.99, (10 + 50 * i + 7 * len(values) * v, 0, 8, 8), DieStatus.OK) for i, v in enumerate(values))
        log.record_reading(FrameReading(dice), dice_set="monk")
    log.close()
    report = roll_log_fairness(path)
    (monk,) = report.sets
    assert monk.dice_set == "monk" and monk.counts == (2, 2, 2, 1, 1, 2) and monk.throws == 10
    assert report.to_json()["sets"][0]["finding"] == "too-few"
