import io
from pathlib import Path

import pytest

from vision.dataset import LabelledDie, load_dataset
from vision.evaluate import evaluate, score_image
from vision.reader import DiceReader
from vision.splits import HELD_OUT, subset
from vision.types import DieReading, DieStatus, FrameReading

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"
# Floors just under what the shipped model measures on each set's held-out split (images the
# model never saw in training or tuning; docs/model-card.md has the figures), so a change that
# reads real photos worse fails here.
HELD_OUT_FLOORS = {
    # folder: (exact images, precision, recall)
    "real-d6": (0.94, 0.985, 0.98),
    "byler-d6-train": (0.5, 0.985, 0.85),
}


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


@pytest.mark.parametrize("folder", sorted(HELD_OUT_FLOORS))
def test_held_out_accuracy_and_honest_confidence(folder: str) -> None:
    root = REAL_D6.parent / folder
    if not root.is_dir():
        pytest.skip(f"{folder} photos not present")
    held_out = subset(load_dataset(root), HELD_OUT)
    progress = io.StringIO()
    report = evaluate(held_out, DiceReader().read, progress=progress)
    assert f"{report.images}/{report.images}" in progress.getvalue()
    summary = report.summary()
    exact, precision, recall = HELD_OUT_FLOORS[folder]
    assert report.exact_rate >= exact, summary
    assert report.precision >= precision, summary
    assert report.recall >= recall, summary
    # the confidence stated for the dice read is the share of them read right
    assert abs(report.stated_confidence - report.precision) <= 0.02, summary
