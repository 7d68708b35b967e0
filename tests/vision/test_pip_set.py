"""A calibrated set of plain pip dice is read by the plain reader, its dice named as the set names its faces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hardware.sim import DieStyle, random_scene, render_tray

from vision.imageio import load_image
from vision.pip_set import PipSetReader, is_pip_set
from vision.profile_reader import CalibratedFace
from vision.reader import DiceReader
from vision.types import DieReading, DieStatus, FrameReading

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"
NAMES = ("one", "two", "three", "four", "five", "six")
FACES = tuple(CalibratedFace(name, value, "crit" if value == 6 else None, pips=True) for value, name in enumerate(NAMES, start=1))


def test_six_pip_faces_one_for_each_count_are_a_pip_set() -> None:
    assert is_pip_set(FACES)
    assert is_pip_set(tuple(reversed(FACES)))
    # an emblem instead of the six's pips, a count twice, a face short: read by their exemplars
    assert not is_pip_set(FACES[:5] + (CalibratedFace("star", 6),))
    assert not is_pip_set(FACES[:5] + (CalibratedFace("five-too", 5, pips=True),))
    assert not is_pip_set(FACES[:5])


def test_a_set_that_is_not_a_pip_set_is_refused() -> None:
    with pytest.raises(ValueError, match="not six pip faces.*'star'"):
        PipSetReader(FACES[:5] + (CalibratedFace("star", 6),))


@pytest.fixture(scope="module")
def plain() -> DiceReader:
    return DiceReader()


@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_dice_read_ok_are_the_sets_faces_of_their_counts(plain: DiceReader) -> None:
    frame = load_image(REAL_D6 / "valid_70.jpg")
    expected = plain.read(frame)
    reading = PipSetReader(FACES, plain).read(frame)
    assert reading.values == expected.values and sorted(reading.values) == [1, 4, 4, 5, 5]
    assert [d.box for d in reading.dice] == [d.box for d in expected.dice]
    assert all(d.face == NAMES[d.value - 1] and d.symbol is None for d in reading.dice if d.value is not None)


@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_an_unsure_die_has_the_sets_faces_of_its_counts_for_candidates(plain: DiceReader) -> None:
    # dice_13: a one seen obliquely, a two and a three on its side faces in view, whose count the
    # plain reader leaves unsure between two
    frame = load_image(REAL_D6 / "dice_13.jpg")
    unsure = [d for d in plain.read(frame).dice if d.candidates]
    assert [d.candidates for d in unsure] == [("3", "2")]
    named = [d for d in PipSetReader(FACES, plain).read(frame).dice if d.candidates]
    assert [(d.candidates, d.candidate_values, d.value) for d in named] == [(("three", "two"), (3, 2), None)]


def test_a_six_carries_the_symbol_the_set_gives_it() -> None:
    rng = np.random.default_rng(66)
    tray = render_tray(random_scene(rng, 3, styles=[DieStyle()], values=[6, 6, 2], tilt_deg=0, die_px=60.0), rng)
    dice = PipSetReader(FACES).read(tray.frame).dice
    assert sorted((d.value, d.face, d.symbol) for d in dice if d.ok) == [(2, "two", None), (6, "six", "crit"), (6, "six", "crit")]


class _Reads:
    """A plain reader that gives one reading whatever the frame (the set's naming is what is tested)."""

    def __init__(self, *dice: DieReading) -> None:
        self.reading = FrameReading(dice)

    def read(self, frame: np.ndarray) -> FrameReading:
        return self.reading


def test_an_unsure_die_has_the_symbol_its_candidate_faces_share_and_one_count_alone_gives_no_number() -> None:
    faces = tuple(CalibratedFace(name, value, "heart" if value in (4, 5) else None, pips=True) for value, name in enumerate(NAMES, start=1))
    box = (10, 10, 40, 40)
    hearts = DieReading(None, 0.7, box, DieStatus.UNREADABLE, reason="unsure: 4 or 5", candidates=("4", "5"), candidate_values=(4, 5))
    apart = DieReading(None, 0.7, box, DieStatus.UNREADABLE, reason="unsure: 3 or 4", candidates=("3", "4"), candidate_values=(3, 4))
    alone = DieReading(None, 0.7, box, DieStatus.UNREADABLE, reason="unsure: 4 or other", candidates=("4",))
    frame = np.zeros((60, 60, 3), np.uint8)
    read = PipSetReader(faces, _Reads(hearts, apart, alone)).read(frame).dice
    assert [(d.candidates, d.candidate_values, d.symbol) for d in read] == [
        (("four", "five"), (4, 5), "heart"),
        (("three", "four"), (3, 4), None),
        # a four or no pip face: one face named, no number to weigh, no symbol read
        (("four",), (), None),
    ]
