"""The simulated tray as a training-data generator: wide variety, exact labels, repeatable files."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.sim import DatasetWriteError
from hardware.sim.faces import DieDesign, DieStyle, Finish, InvalidDieDesign, face_texture
from hardware.sim.training import (
    FrameFinish,
    random_design,
    random_style,
    training_frame,
    training_scene,
    with_streaks,
    write_training_set,
)


def test_same_seed_same_files(tmp_path: Path) -> None:
    a = write_training_set(tmp_path / "a", 3, seed=4)
    b = write_training_set(tmp_path / "b", 3, seed=4)
    assert a.read_text() == b.read_text()
    for name in ("train_000000.jpg", "train_000002.jpg"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_frame_can_be_rebuilt_alone(tmp_path: Path) -> None:
    write_training_set(tmp_path / "all", 3, seed=9)
    write_training_set(tmp_path / "one", 1, seed=9, start=2)
    whole = json.loads((tmp_path / "all" / "training.json").read_text())
    alone = json.loads((tmp_path / "one" / "training.json").read_text())
    assert alone == whole[2:]


def test_labels_carry_what_training_needs(tmp_path: Path) -> None:
    write_training_set(tmp_path, 12, seed=1)
    entries = json.loads((tmp_path / "training.json").read_text())
    assert len(entries) == 12
    statuses: Counter[str] = Counter()
    for entry in entries:
        image = cv2.imread(str(tmp_path / entry["image"]))
        assert image.shape[:2] == (entry["height"], entry["width"])
        for die in entry["dice"]:
            assert set(die) >= {"value", "box", "centre", "size", "status", "kind"}
            statuses[die["status"]] += 1
            if die["status"] == "ok":
                cx, cy = die["centre"]
                assert 0 <= cx < entry["width"] and 0 <= cy < entry["height"]
                assert 6 <= die["size"] <= 400
    assert statuses["ok"] > 30


def test_the_world_is_wide() -> None:
    rng = np.random.default_rng(0)
    styles = [random_style(rng) for _ in range(300)]
    assert {s.finish for s in styles} == set(Finish)
    # some dice have ink close to their body (red on dark red, black on dark blue)
    contrast = [abs(int(max(s.body)) - int(max(s.ink))) for s in styles]
    assert sum(c < 90 for c in contrast) > 20
    assert sum(c > 150 for c in contrast) > 100
    designs = Counter(random_design(rng).name.split("-")[0].rstrip("0123456789") for _ in range(300))
    assert designs["pips"] > 150 and designs["numerals"] > 5 and designs["art"] > 20


def test_bold_marble_changes_only_how_marbled_dice_look() -> None:
    plain = [training_scene(np.random.default_rng([6, i])) for i in range(40)]
    veined = [training_scene(np.random.default_rng([6, i]), bold_marble=0.6) for i in range(40)]
    bold = 0
    for a, b in zip(plain, veined):
        assert [(d.value, d.x_mm, d.y_mm, d.style.body, d.style.ink, d.style.finish) for d in a.dice] == [
            (d.value, d.x_mm, d.y_mm, d.style.body, d.style.ink, d.style.finish) for d in b.dice
        ]
        assert all(d.style.veins == 0 for d in a.dice)
        for d in b.dice:
            if d.style.veins:
                assert d.style.finish is Finish.MARBLED and 0.55 <= d.style.veins <= 0.95
                bold += 1
    marbled = sum(d.style.finish is Finish.MARBLED for s in veined for d in s.dice)
    assert 0.35 * marbled < bold < 0.85 * marbled


def test_glare_streaks_change_only_the_light_of_a_share_of_scenes() -> None:
    plain = [training_scene(np.random.default_rng([6, i])) for i in range(60)]
    assert [with_streaks(s, 0.0) for s in plain] == plain
    lit = [with_streaks(s, 0.3) for s in plain]
    streaked = 0
    for a, b in zip(plain, lit):
        assert replace(b, lighting=a.lighting) == a  # the same dice, tray and camera
        if b.lighting != a.lighting:
            assert replace(b.lighting, streaks=0.0, streak_angle_deg=0.0, streak_width=0.08, streak_count=1) == a.lighting
            assert 0.35 <= b.lighting.streaks <= 1.0 and b.lighting.streak_count in (1, 2, 3)
            streaked += 1
    assert 8 <= streaked <= 30
    assert [with_streaks(s, 0.3) for s in plain] == lit  # drawn from the scene, not from a generator


def test_bold_veins_cross_the_face_and_its_pips() -> None:
    soft = DieStyle((30, 30, 30), (60, 60, 200), Finish.MARBLED, (250, 250, 250), seed=5)
    bold = DieStyle((30, 30, 30), (60, 60, 200), Finish.MARBLED, (250, 250, 250), seed=5, veins=0.9)
    soft_face, _ = face_texture(DieDesign.pips(), soft, 6, 64)
    bold_face, _ = face_texture(DieDesign.pips(), bold, 6, 64)
    # soft swirls blend at most half the vein's colour in; bold veins nearly all of it (the blue
    # channel: the red ink has little)
    assert soft_face[:, :, 0].max() < 160 and bold_face[:, :, 0].max() > 200
    assert "veins=0.9" in repr(bold) and "veins" not in repr(soft)
    with pytest.raises(InvalidDieDesign, match="veins"):
        DieStyle(veins=1.5)


def test_dice_of_every_size_and_status() -> None:
    sizes, statuses, kinds = [], Counter(), Counter()
    for i in range(80):
        frame, dice = training_frame(np.random.default_rng([2, i]))
        assert frame.dtype == np.uint8 and frame.ndim == 3
        for d in dice:
            sizes.append(d["size"] * 640 / frame.shape[1])
            statuses[d["status"]] += 1
            kinds[d["kind"]] += 1
    assert min(sizes) < 20 and max(sizes) > 110
    assert statuses["cocked"] > 0 and statuses["occluded"] > 0
    assert kinds["pips"] > kinds["symbol"] > 0 and kinds["numeral"] > 0


def test_lens_distortion_moves_labels_with_the_pixels() -> None:
    finish = FrameFinish(distortion=0.15)
    frame = np.zeros((480, 640, 3), np.uint8)
    cv2.circle(frame, (560, 90), 4, (255, 255, 255), -1)
    out = finish.apply(frame)
    ys, xs = np.nonzero(out[:, :, 0] > 128)
    x, y = finish.point(560, 90, 640, 480)
    assert abs(xs.mean() - x) < 1.0 and abs(ys.mean() - y) < 1.0
    assert abs(x - 560) > 10  # it did move


def test_unwritable_folder_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(DatasetWriteError, match="file"):
        write_training_set(blocker / "sub", 1)
