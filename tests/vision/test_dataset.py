import json
import shutil
from pathlib import Path

import pytest

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"
from vision.dataset import LabelledDie, load_dataset
from vision.errors import DatasetError

needs_real = pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")


def _folder(tmp_path: Path, labels: object, images: tuple[str, ...] = ("a.jpg",)) -> Path:
    for name in images:
        shutil.copy(REAL_D6 / "valid_70.jpg", tmp_path / name)
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    return tmp_path


@needs_real
def test_real_d6_loads() -> None:
    dataset = load_dataset(REAL_D6)
    assert len(dataset) == 391
    assert dataset.dice_count == 1196
    first = dataset.images[0]
    assert first.name == "dice_1.jpg"
    assert first.dice == (LabelledDie(1, (255, 220, 78, 86), "pips"),)


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="not a folder"):
        load_dataset(tmp_path / "absent")


def test_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="empty folder"):
        load_dataset(tmp_path)


def test_folder_without_labels(tmp_path: Path) -> None:
    (tmp_path / "x.jpg").write_bytes(b"x")
    with pytest.raises(DatasetError, match="no labels.json"):
        load_dataset(tmp_path)


def test_labels_not_json(tmp_path: Path) -> None:
    (tmp_path / "labels.json").write_text("[{")
    with pytest.raises(DatasetError, match="not valid JSON"):
        load_dataset(tmp_path)


@needs_real
@pytest.mark.parametrize(
    "labels, message",
    [
        ({"image": "a.jpg"}, "must hold a list"),
        ([], "lists no images"),
        (["a.jpg"], "must be an object"),
        ([{"image": "../a.jpg", "dice": []}], "file name in the folder"),
        ([{"image": "b.jpg", "dice": []}], "image not found"),
        ([{"image": "a.jpg", "dice": {}}], "'dice' must be a list"),
        ([{"image": "a.jpg", "dice": [{"value": 7, "box": [1, 2, 3, 4]}]}], "'value' must be 1-6, not 7"),
        ([{"image": "a.jpg", "dice": [{"value": 3, "box": [1, 2, 3]}]}], "'box' must be"),
        ([{"image": "a.jpg", "dice": [{"value": 3, "box": [1, 2, 0, 4]}]}], "'box' must be"),
        ([{"image": "a.jpg", "dice": []}, {"image": "a.jpg", "dice": []}], "listed twice"),
    ],
)
def test_malformed_labels_name_the_entry(tmp_path: Path, labels: object, message: str) -> None:
    folder = _folder(tmp_path, labels)
    with pytest.raises(DatasetError, match=message) as caught:
        load_dataset(folder)
    assert "labels.json" in str(caught.value)
