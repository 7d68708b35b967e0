import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_host.cli import main

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"
pytestmark = pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")


def test_read_json_prints_one_object_per_image(capsys: pytest.CaptureFixture[str]) -> None:
    images = [str(REAL_D6 / "valid_70.jpg"), str(REAL_D6 / "five_10.jpg")]
    assert main(["read", "--json", *images]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert list(first) == ["image", "ms", "dice"]
    assert first["image"] == images[0] and first["ms"] > 0
    assert sorted(d["value"] for d in first["dice"]) == [1, 4, 4, 5, 5]
    die = first["dice"][0]
    assert set(die) == {"value", "face", "symbol", "confidence", "box", "status", "colour"}
    assert all(d["colour"]["name"] == "white" for d in first["dice"])  # white dice on a desk
    assert die["status"] == "ok" and die["face"] == str(die["value"]) and die["symbol"] is None
    assert len(die["box"]) == 4 and 0 < die["confidence"] <= 1
    assert [d["value"] for d in json.loads(lines[1])["dice"]] == [5]


def test_read_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(REAL_D6 / "five_10.jpg")]) == 0
    assert capsys.readouterr().out.startswith(f"{REAL_D6 / 'five_10.jpg'}: 5 (")


def test_read_annotate_writes_a_debug_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "debug"
    assert main(["read", str(REAL_D6 / "valid_70.jpg"), "--annotate", str(out)]) == 0
    png = out / "valid_70.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import cv2

    debug = cv2.imread(str(png))
    original = cv2.imread(str(REAL_D6 / "valid_70.jpg"))
    assert debug.shape == original.shape
    assert (cv2.absdiff(debug, original).max(axis=2) > 60).sum() > 500  # boxes and labels drawn


def test_missing_image_exits_2_naming_it(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "firmware_host", "read", str(tmp_path / "gone.jpg")], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "gone.jpg" in result.stderr and "Traceback" not in result.stderr


def test_corrupt_image_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not an image at all")
    assert main(["read", str(bad)]) == 2
    assert "bad.jpg" in capsys.readouterr().err


def _small_dataset(tmp_path: Path) -> Path:
    labels = json.loads((REAL_D6 / "labels.json").read_text())
    chosen = [e for e in labels if e["image"] in {"valid_70.jpg", "five_10.jpg", "six_1.jpg"}]
    for entry in chosen:
        shutil.copy(REAL_D6 / entry["image"], tmp_path / entry["image"])
    (tmp_path / "labels.json").write_text(json.dumps(chosen))
    return tmp_path


def test_eval_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(_small_dataset(tmp_path)), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["images"] == 3 and report["dice"] == 7
    assert report["exact_rate"] == 1.0 and report["precision"] == 1.0 and report["recall"] == 1.0
    assert report["abstentions"] == 0 and report["failures"] == [] and report["median_ms"] > 0


def test_eval_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(_small_dataset(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "exact       3/3 = 100.0%" in out and "recall      7/7 = 100.00%" in out


def test_eval_malformed_labels_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "labels.json").write_text('[{"image": "x.jpg", "dice": [{"value": 9, "box": [0, 0, 1, 1]}]}]')
    (tmp_path / "x.jpg").write_bytes(b"x")
    assert main(["eval", str(tmp_path)]) == 2
    assert "'value' must be 1-6, not 9" in capsys.readouterr().err


def test_eval_empty_folder_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path)]) == 2
    assert "empty folder" in capsys.readouterr().err


def test_unknown_profile_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(REAL_D6 / "five_10.jpg"), "--profile", "no-such-die"]) == 2
    assert "no-such-die" in capsys.readouterr().err


def test_a_bad_image_among_many_is_named_and_the_others_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import cv2

    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.imread(str(REAL_D6 / "valid_70.jpg"))[:20, :20])
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    images = [str(REAL_D6 / "five_10.jpg"), str(small), str(empty), str(REAL_D6 / "valid_70.jpg")]
    assert main(["read", *images]) == 2
    out, err = capsys.readouterr()
    assert [line.split(":")[0] for line in out.splitlines()] == [images[0], images[3]]
    errors = err.splitlines()
    assert len(errors) == 2
    assert str(small) in errors[0] and "at least 32x32" in errors[0]
    assert str(empty) in errors[1] and "empty" in errors[1]
