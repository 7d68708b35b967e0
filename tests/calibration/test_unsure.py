"""Faces a profile cannot tell apart: the profile is built anyway, the pair is reported with how
often the cross-check confused it and how many more shots would help, and at reading time such a
face is ``unreadable`` with both faces as candidates."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from calibration.build import UnsurePair, build_from_folder, crop_from_image
from calibration.profiles import DieProfile
from firmware_host.cli import main
from hardware.sim import DieDesign, DieStyle, render_face
from vision.detect import FaceCandidate, CandidateFlag
from vision.types import DieReading, DieStatus


@pytest.fixture(scope="module")
def alike_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from .conftest import hero_folder

    folder = hero_folder(tmp_path_factory.mktemp("alike"), per_face=4)
    # sword-2's folder holds shots of sword-3: the two faces look the same in these shots.
    shutil.rmtree(folder / "sword-2")
    shutil.copytree(folder / "sword-3", folder / "sword-2")
    return folder


@pytest.fixture(scope="module")
def alike(alike_dir: Path) -> DieProfile:
    return build_from_folder("alike", alike_dir)


def test_the_report_names_the_pair_and_the_shots_that_would_help(alike: DieProfile) -> None:
    pairs = [UnsurePair.from_json(p) for p in alike.fit["unsure"]]
    assert pairs[0].faces == ("sword-2", "sword-3")
    assert pairs[0].describe().startswith("'sword-2' and 'sword-3' look alike: ")
    assert "5 of 'sword-2' and 5 of 'sword-3' more sharp shots would help" in pairs[0].describe()
    assert UnsurePair.from_json(pairs[0].to_json()) == pairs[0]


def test_a_face_that_could_be_either_has_both_as_candidates(alike: DieProfile) -> None:
    classifier = alike.classifier()
    rng = np.random.default_rng(31)
    design = DieDesign.barbarian()
    results = []
    for _ in range(10):
        crop = crop_from_image(render_face(design, DieStyle(), 3, int(rng.integers(80, 110)), rng=rng), "shot")
        candidate = FaceCandidate(box=(0, 0, 64, 64), quad=((0, 0), (64, 0), (64, 64), (0, 64)), crop=crop, pips=(), layout=None, flags=CandidateFlag.NONE, quality=1.0)
        results.append(classifier.classify(candidate))
    unsure = [r for r in results if r.status is DieStatus.UNREADABLE and r.candidates]
    assert len(unsure) >= 8
    for result in unsure:
        assert set(result.candidates) == {"sword-2", "sword-3"}
        assert sorted(result.candidate_values) == [2, 3]
        assert result.symbol == "sword"
        assert result.reason in ("sword 2 or 3", "sword 3 or 2")
    # Never the wrong symbol.
    assert all(r.symbol == "sword" for r in results if r.status is DieStatus.OK)


def test_a_foreign_face_has_no_candidates(alike: DieProfile) -> None:
    classifier = alike.classifier()
    rng = np.random.default_rng(4)
    found = [classifier.match(crop_from_image(render_face(DieDesign.moon_elf(), DieStyle(), v, 96, rng=rng), "shot")) for v in range(1, 7)]
    assert all(not m.candidates for m in found if not m.ok)
    assert any(m.reason == "like no calibrated face" for m in found)


def test_the_cli_builds_the_profile_and_says_what_is_unsure(alike_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DICETRAY_STATE_DIR", str(tmp_path))
    assert main(["calibrate", "die", "alike", "--from", str(alike_dir)]) == 0
    out = capsys.readouterr().out
    assert "hard to tell apart" in out
    assert "'sword-2' and 'sword-3' look alike" in out


def test_an_unsure_reading_round_trips_with_its_candidates() -> None:
    reading = DieReading(None, 0.4, (1, 2, 30, 30), DieStatus.UNREADABLE, symbol="sword", reason="sword 1 or 3",
                         candidates=("sword-1", "sword-3"), candidate_values=(1, 3))
    data = reading.to_json()
    assert data["candidates"] == ["sword-1", "sword-3"] and data["candidate_values"] == [1, 3] and data["symbol"] == "sword"
    assert DieReading.from_json(data) == reading


def test_pip_faces_alike_in_their_photos_are_not_called_hard_to_tell_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Two tight crops a face of small coloured dice: their photos confuse faces, but the faces
    are read by counting their pips, and the report says so instead of listing them as unsure."""
    import json

    import cv2

    data = Path(__file__).resolve().parents[3] / "shared" / "data" / "byler-d6-train"
    if not data.is_dir():
        pytest.skip("byler-d6-train photos not present")
    counts: dict[str, int] = {}
    for entry in sorted(json.loads((data / "labels.json").read_text()), key=lambda e: e["image"]):
        image = None
        for die in entry["dice"]:
            value = str(die["value"])
            if counts.get(value, 0) >= 2:
                continue
            image = cv2.imread(str(data / entry["image"])) if image is None else image
            x, y, w, h = die["box"]
            (tmp_path / "crops" / value).mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(tmp_path / "crops" / value / f"{entry['image']}-{counts.get(value, 0)}.png"), image[y : y + h, x : x + w])
            counts[value] = counts.get(value, 0) + 1
    monkeypatch.setenv("DICETRAY_STATE_DIR", str(tmp_path / "state"))
    assert main(["calibrate", "die", "small-pips", "--from", str(tmp_path / "crops")]) == 0
    out = capsys.readouterr().out
    assert all(f"  {v}: {v} (pips), 2 examples" in out for v in "123456"), out
    assert "six pip faces, one for each number: read at the table as any pip dice are" in out
    assert "pip faces are read by counting their pips (the cross-check of their photos confused" in out
    assert "hard to tell apart" not in out
