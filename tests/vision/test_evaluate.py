import io
from pathlib import Path

import pytest

from vision.dataset import LabelledDie, load_dataset
from vision.evaluate import evaluate, score_image
from vision.reader import DiceReader
from vision.types import DieReading, DieStatus, FrameReading

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"

# The targets are 97% exact images, 99.5% precision, 97% recall; these floors sit just under
# what the reader measures, so a change that loses ground fails here
FLOOR_EXACT = 0.975
FLOOR_PRECISION = 0.996
FLOOR_RECALL = 0.99


def _die(value: int | None, box: tuple[int, int, int, int], status: DieStatus = DieStatus.OK) -> DieReading:
    return DieReading(value=value, confidence=0.9, box=box, status=status, face=str(value) if value else None)


LABELS = (LabelledDie(4, (100, 100, 30, 30)), LabelledDie(2, (300, 100, 30, 30)))


def test_exact_when_every_die_is_right() -> None:
    reading = FrameReading((_die(4, (95, 95, 44, 42)), _die(2, (290, 96, 45, 44))), ms=3.0)
    result = score_image("a.jpg", LABELS, reading)
    assert (result.correct, result.wrong, result.missed, result.extra) == (2, 0, 0, 0)
    assert result.exact


def test_wrong_value_counts_against_precision_and_recall() -> None:
    reading = FrameReading((_die(4, (95, 95, 44, 42)), _die(3, (290, 96, 45, 44))))
    result = score_image("a.jpg", LABELS, reading)
    assert (result.correct, result.wrong, result.missed) == (1, 1, 1)
    assert not result.exact


def test_abstention_is_no_misread_but_not_exact() -> None:
    reading = FrameReading((_die(4, (95, 95, 44, 42)), _die(None, (290, 96, 45, 44), DieStatus.COCKED)))
    result = score_image("a.jpg", LABELS, reading)
    assert (result.correct, result.wrong, result.missed, result.abstained) == (1, 0, 1, 1)


def test_a_die_where_none_is_labelled_is_extra() -> None:
    reading = FrameReading((_die(4, (95, 95, 44, 42)), _die(2, (290, 96, 45, 44)), _die(1, (500, 400, 40, 40))))
    result = score_image("a.jpg", LABELS, reading)
    assert (result.correct, result.wrong, result.extra) == (2, 1, 1)
    assert not result.exact


def test_far_boxes_do_not_match() -> None:
    reading = FrameReading((_die(4, (400, 300, 40, 40)),))
    result = score_image("a.jpg", LABELS[:1], reading)
    assert (result.correct, result.wrong, result.missed, result.extra) == (0, 1, 1, 1)


@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_real_d6_accuracy() -> None:
    progress = io.StringIO()
    report = evaluate(load_dataset(REAL_D6), DiceReader().read, progress=progress)
    assert "391/391" in progress.getvalue()
    assert (report.images, report.dice) == (391, 1196)
    summary = report.summary()
    assert report.exact_rate >= FLOOR_EXACT, summary
    assert report.precision >= FLOOR_PRECISION, summary
    assert report.recall >= FLOOR_RECALL, summary
