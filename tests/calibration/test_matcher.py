"""The matcher's parts: confidence calibration, the pip fallback, rotation, and bad crops."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from calibration.build import build_from_folder, crop_from_image
from calibration.fitting import HeldOutRead, confidence_table
from calibration.profiles import read_pips
from hardware.sim import DieDesign, DieStyle, render_face, write_face_folders
from vision.errors import InvalidFrameError
from vision.types import DieStatus


def test_confidence_table_is_the_fraction_right_by_margin():
    # 100 reads at small margins, 70 right; 100 at large margins, all right.
    reads = [HeldOutRead(0, 0 if i < 70 else 1, 0.01, 0.001 * (i % 10)) for i in range(100)]
    reads += [HeldOutRead(0, 0, 0.01, 0.05 + 0.001 * i) for i in range(100)]
    table = confidence_table(reads, groups=2)
    assert table(0.0) == pytest.approx(0.70, abs=0.02)  # with the coin-toss tie at margin 0
    assert 0.98 <= table(0.2) < 1.0  # all right, but never certainty
    assert list(table.values) == sorted(table.values)  # never less sure at a larger margin


def test_confidence_table_pools_groups_that_would_fall():
    reads = [HeldOutRead(0, 0, 0.01, 0.01)] * 10 + [HeldOutRead(0, 1, 0.01, 0.02)] * 10
    table = confidence_table(reads, groups=4)
    assert list(table.values) == sorted(table.values)


def test_confidence_is_high_for_right_reads_of_the_calibrated_die(barbarian, shots):
    classifier = barbarian.classifier()
    matches = [classifier.match(crop) for _, crop in shots(DieDesign.barbarian(), 24, seed=8)]
    assert all(0.5 <= m.confidence < 1.0 for m in matches if m.ok)


def test_any_turn_of_a_crop_reads_the_same(barbarian, shots):
    classifier = barbarian.classifier()
    for value, crop in shots(DieDesign.barbarian(), 6, seed=9):
        labels = {classifier.match(np.ascontiguousarray(np.rot90(crop, k))).face.label for k in range(4)}
        assert labels == {DieDesign.barbarian().face(value).label}


def test_lighting_changes_do_not_change_the_read(barbarian, shots):
    classifier = barbarian.classifier()
    for value, crop in shots(DieDesign.barbarian(), 6, seed=10):
        darker = np.clip(crop.astype(np.float32) * 0.6 + 10, 0, 255).astype(np.uint8)
        brighter = np.clip(crop.astype(np.float32) * 1.2 + 15, 0, 255).astype(np.uint8)
        for image in (darker, brighter):
            found = classifier.match(image)
            assert found.ok and found.face.value == value


def test_faces_marked_pips_are_read_by_the_pip_reader(tmp_path):
    design = DieDesign.pips_with_emblem(6, "star")
    write_face_folders(tmp_path, design, DieStyle(), per_face=5, seed=2, faces=(6,))
    shutil.move(tmp_path / design.face(6).label, tmp_path / "emblem")
    pip_faces = "".join(f"[faces.{v}]\npips = true\n" for v in range(1, 6))
    (tmp_path / "faces.toml").write_text('[faces.emblem]\nvalue = 6\nsymbol = "emblem"\n' + pip_faces)
    profile = build_from_folder("branded", tmp_path)
    classifier = profile.classifier(pip_reader=read_pips)
    rng = np.random.default_rng(5)
    for value in range(1, 7):
        found = classifier.match(crop_from_image(render_face(design, DieStyle(), value, 96, rng=rng), "shot"))
        assert found.ok and found.face.value == value
    # A face of another set is neither the emblem nor pips.
    other = crop_from_image(render_face(DieDesign.barbarian(), DieStyle(), 4, 96, rng=rng), "shot")
    assert classifier.match(other).status is DieStatus.UNREADABLE


def test_bad_crops_are_refused_by_name(barbarian):
    classifier = barbarian.classifier()
    with pytest.raises(InvalidFrameError, match="float64 array"):
        classifier.match(np.zeros((64, 64, 3)))
    with pytest.raises(InvalidFrameError, match="shape"):
        classifier.match(np.zeros((64, 64, 4), np.uint8))
