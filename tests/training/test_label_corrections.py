"""Corrected labels of the real photo sets: what training reads in place of labels plainly wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SHARED
from vision.dataset import LabelledDie, load_dataset
from vision.errors import DatasetError
from vision.evaluate import MATCH_DISTANCE, _box_distance
from vision.splits import split_of
from vision.training.data import LABEL_CORRECTIONS, LabelCorrection, corrected, label_corrections, real_frames
from vision.training.train import RealSource, TrainConfig, real_record

BYLER = SHARED / "data" / "byler-d6-train"


def test_a_wrong_value_is_changed_and_a_missing_die_added() -> None:
    dice = (LabelledDie(2, (10, 10, 30, 30)), LabelledDie(5, (60, 10, 30, 30), "pips"))
    fixes = [
        LabelCorrection("a.jpg", (60, 10, 30, 30), 5, 4),
        LabelCorrection("a.jpg", (100, 10, 30, 30), None, 6),
        LabelCorrection("b.jpg", (10, 10, 30, 30), 2, 3),  # another image's: not made here
    ]
    assert corrected("a.jpg", dice, fixes) == (
        LabelledDie(2, (10, 10, 30, 30)),
        LabelledDie(4, (60, 10, 30, 30)),
        LabelledDie(6, (100, 10, 30, 30)),
    )


def test_a_correction_of_a_die_not_labelled_so_is_refused_naming_the_image() -> None:
    dice = (LabelledDie(2, (10, 10, 30, 30)),)
    with pytest.raises(DatasetError, match=r"a\.jpg: no die labelled 3 at \[10, 10, 30, 30\]"):
        corrected("a.jpg", dice, [LabelCorrection("a.jpg", (10, 10, 30, 30), 3, 4)])


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "not valid JSON"),
        (json.dumps({"set": {"image": "a.jpg"}}), "must be a list"),
        (json.dumps({"set": [{"image": "a.jpg", "box": [1, 2, 3, 4], "value": 7, "was": 2}]}), "'value' must be 1-6"),
        (json.dumps({"set": [{"image": "a.jpg", "box": [1, 2, 3, 4], "value": 3, "was": "two"}]}), "'was' must be 1-6 or null"),
        (json.dumps({"set": [{"image": "../a.jpg", "box": [1, 2, 3, 4], "value": 3, "was": 2}]}), "'image' must be a file name"),
    ],
)
def test_a_malformed_corrections_file_is_named(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "corrections.json"
    path.write_text(content)
    with pytest.raises(DatasetError, match=message) as caught:
        label_corrections("set", path)
    assert "corrections" in str(caught.value)


def test_a_folder_with_no_corrections_reads_as_labelled(tmp_path: Path) -> None:
    path = tmp_path / "corrections.json"
    path.write_text(json.dumps({"other": []}))
    assert label_corrections("set", path) == []


@pytest.mark.skipif(not BYLER.is_dir(), reason="byler-d6-train photos not present")
def test_the_shipped_corrections_fit_the_photo_set_and_touch_no_held_out_photo() -> None:
    fixes = label_corrections(BYLER.name, LABEL_CORRECTIONS)
    assert fixes
    images = {i.name: i for i in load_dataset(BYLER).images}
    for fix in fixes:
        assert split_of(fix.image) in ("train", "val")  # held-out labels stay as given
        labels = images[fix.image].dice
        if fix.was is None:
            # an added die is where no die is labelled
            assert all(_box_distance(d.box, fix.box) >= MATCH_DISTANCE for d in labels)
        else:
            assert any(d.box == fix.box and d.value == fix.was for d in labels)
    # training reads the corrected labels: a die more for each one added
    frames = real_frames(BYLER, ("train", "val"), "die")
    labelled = sum(len(i.dice) for i in images.values() if split_of(i.name) in ("train", "val"))
    added = sum(f.was is None for f in fixes)
    assert sum(len(f.dice) for f in frames) == labelled + added


def test_a_training_record_counts_the_corrected_labels_of_each_folder() -> None:
    shipped = json.loads(LABEL_CORRECTIONS.read_text(encoding="utf-8"))
    cfg = TrainConfig(out="m", real=(RealSource("data/byler-d6-train", "die", 2.0), RealSource("data/real-d6/", "face")))
    records = real_record(cfg, [[], []], weights=True)
    assert [(r["folder"], r["weight"], r["train_images"]) for r in records] == [("byler-d6-train", 2.0, 0), ("real-d6", 1.0, 0)]
    assert [r["label_corrections"] for r in records] == [len(shipped["byler-d6-train"]), len(shipped.get("real-d6", []))]
    assert records[0]["label_corrections"] > 0
    assert all("weight" not in r for r in real_record(cfg, [[], []], weights=False))
