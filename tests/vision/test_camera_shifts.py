"""Camera shifts: each changes the frame as its name says and moves every label box with it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from firmware_host.cli import main
from vision.camera_shifts import SHIFTS
from vision.dataset import LabelledDie

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"


def _marked_frame() -> tuple[np.ndarray, tuple[LabelledDie, ...]]:
    """A grey 480x640 frame with two white squares (not centred, not square-symmetric) as its dice."""
    frame = np.full((480, 640, 3), 90, np.uint8)
    dice = (LabelledDie(3, (40, 60, 50, 30)), LabelledDie(5, (500, 380, 60, 80)))
    for die in dice:
        x, y, w, h = die.box
        frame[y : y + h, x : x + w] = 230
    return frame, dice


@pytest.mark.parametrize("name", sorted(SHIFTS))
def test_every_box_still_covers_its_die(name: str) -> None:
    frame, dice = _marked_frame()
    shifted, moved = SHIFTS[name](frame.copy(), dice, "tray.jpg")
    assert shifted.dtype == np.uint8 and shifted.ndim == 3 and shifted.shape[2] == 3
    assert [d.value for d in moved] == [d.value for d in dice]
    background = float(np.median(shifted))
    for die in moved:
        x, y, w, h = die.box
        assert 0 <= x and 0 <= y and x + w <= shifted.shape[1] and y + h <= shifted.shape[0]
        inner = shifted[y + h // 4 : y + 3 * h // 4, x + w // 4 : x + 3 * w // 4]
        # the square is where its box says, and brighter than the grey around it
        assert float(inner.mean()) > background + 40, name


def test_shifts_change_the_frame_as_named() -> None:
    frame, dice = _marked_frame()
    assert SHIFTS["12mp"](frame, dice, "a")[0].shape == (3000, 4000, 3)
    assert SHIFTS["wide"](frame, dice, "a")[0].shape == (288, 384, 3)
    assert SHIFTS["turned"](frame, dice, "a")[0].shape == (640, 480, 3)
    assert SHIFTS["dim"](frame, dice, "a")[0].mean() < 0.5 * frame.mean()
    assert SHIFTS["bright"](frame, dice, "a")[0].mean() > 1.2 * frame.mean()
    warm = SHIFTS["warm"](frame, dice, "a")[0].reshape(-1, 3).mean(axis=0)
    assert warm[2] > warm[1] > warm[0]  # BGR: red up, blue down
    assert SHIFTS["soft"](frame, dice, "a")[0][60, 40:45, 0].tolist() != frame[60, 40:45, 0].tolist()
    assert not np.array_equal(SHIFTS["jpeg"](frame, dice, "a")[0], frame)


def test_noise_is_seeded_by_the_image_name() -> None:
    frame, dice = _marked_frame()
    once = SHIFTS["noisy"](frame, dice, "tray.jpg")[0]
    assert np.array_equal(once, SHIFTS["noisy"](frame, dice, "tray.jpg")[0])
    assert not np.array_equal(once, SHIFTS["noisy"](frame, dice, "other.jpg")[0])
    assert 5 < float(np.abs(once.astype(int) - frame).mean()) < 12


@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_eval_with_a_shift_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = json.loads((REAL_D6 / "labels.json").read_text())
    chosen = [e for e in labels if e["image"] in {"valid_70.jpg", "six_1.jpg"}]
    for entry in chosen:
        shutil.copy(REAL_D6 / entry["image"], tmp_path / entry["image"])
    (tmp_path / "labels.json").write_text(json.dumps(chosen))
    assert main(["eval", str(tmp_path), "--shift", "turned", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["shift"] == "turned" and report["images"] == 2
    # turned a quarter, the same white dice are read where their turned labels say
    assert report["recall"] == 1.0 and report["precision"] == 1.0
    assert main(["eval", str(tmp_path), "--shift", "fisheye"]) == 2
    err = capsys.readouterr().err
    assert "'fisheye'" in err and "12mp" in err and "turned" in err


def test_the_help_names_every_shift() -> None:
    import argparse

    from firmware_host.commands.vision_cmd import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    help_text = parser._subparsers._group_actions[0].choices["eval"].format_help()  # type: ignore[union-attr]
    for name in SHIFTS:
        assert name in help_text
