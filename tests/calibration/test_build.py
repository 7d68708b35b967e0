"""Building die profiles from labelled photos, reading them back, and the bad cases."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.build import build_from_folder, labelled_crops
from calibration.errors import ProfileError
from hardware.sim import DieDesign, DieStyle, write_face_folders


def test_profile_has_the_faces_numbers_and_symbols(barbarian):
    faces = {f.label: (f.value, f.symbol) for f in barbarian.faces}
    assert faces == {f.label: (f.value, f.symbol) for f in DieDesign.barbarian().faces}
    # Three faces share one symbol and differ only by the small number in a corner.
    assert [faces[label] for label in ("sword-1", "sword-2", "sword-3")] == [(1, "sword"), (2, "sword"), (3, "sword")]
    assert all(len(barbarian.exemplars[label]) == 5 for label in faces)
    assert barbarian.fit["held_out_reads"] > 0


def test_reads_new_shots_of_the_calibrated_die(barbarian, shots):
    classifier = barbarian.classifier()
    shots = shots(DieDesign.barbarian(), 120, seed=42)
    right = sum(1 for value, crop in shots if (m := classifier.match(crop)).ok and m.face.value == value)
    assert right / len(shots) >= 0.98


def test_faces_of_another_die_set_are_unreadable(barbarian, shots):
    classifier = barbarian.classifier()
    shots = shots(DieDesign.moon_elf(), 60, seed=7)
    unreadable = sum(1 for _, crop in shots if not classifier.match(crop).ok)
    assert unreadable / len(shots) >= 0.95


def test_folders_named_1_to_6_need_no_faces_file(tmp_path):
    write_face_folders(tmp_path, DieDesign.numerals(), DieStyle(), per_face=3, seed=3)
    assert not (tmp_path / "faces.toml").exists()
    profile = build_from_folder("numerals", tmp_path)
    assert [(f.label, f.value, f.symbol) for f in profile.faces] == [(str(v), v, None) for v in range(1, 7)]


def test_empty_folder_is_an_error(tmp_path):
    with pytest.raises(ProfileError, match="no face folders"):
        build_from_folder("empty", tmp_path)


def test_missing_folder_is_an_error(tmp_path):
    with pytest.raises(ProfileError, match="not a folder"):
        build_from_folder("gone", tmp_path / "nowhere")


def test_face_folder_without_photos_is_named(tmp_path, make_hero_folder):
    make_hero_folder(tmp_path, per_face=2)
    for photo in (tmp_path / "heart-5").iterdir():
        photo.unlink()
    with pytest.raises(ProfileError, match=r"'heart-5' has no examples"):
        build_from_folder("barbarian", tmp_path)


def test_face_in_faces_file_without_a_folder_is_named(tmp_path, make_hero_folder):
    make_hero_folder(tmp_path, per_face=2)
    six = DieDesign.barbarian().face(6).label
    shutil.rmtree(tmp_path / six)
    with pytest.raises(ProfileError, match=rf"'{six}' has no examples"):
        build_from_folder("barbarian", tmp_path)


def test_label_without_a_number_is_named(tmp_path, make_hero_folder):
    make_hero_folder(tmp_path, per_face=2)
    (tmp_path / "faces.toml").unlink()
    with pytest.raises(ProfileError, match=r"face 'heart-4' has no number"):
        build_from_folder("barbarian", tmp_path)


def test_two_faces_that_look_the_same_are_reported_as_a_pair(tmp_path, make_hero_folder):
    make_hero_folder(tmp_path, per_face=4)
    # The player sorted the same face into two folders: the profile is built, the pair reported.
    shutil.rmtree(tmp_path / "sword-2")
    shutil.copytree(tmp_path / "sword-3", tmp_path / "sword-2")
    profile = build_from_folder("barbarian", tmp_path)
    pair = profile.fit["unsure"][0]
    assert pair["faces"] == ["sword-2", "sword-3"] and pair["alike"]
    assert pair["confused"] >= 2 and pair["reads"] == 8
    assert pair["more_shots"] == {"sword-2": 5, "sword-3": 5}


def test_corrupt_photo_is_named(tmp_path, make_hero_folder):
    make_hero_folder(tmp_path, per_face=2)
    bad = tmp_path / "heart-4" / "00.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    with pytest.raises(ProfileError, match="00.png"):
        build_from_folder("barbarian", tmp_path)


def _blank_photo(path: Path) -> None:
    """A photo of the empty tray: no die in it."""
    cv2.imwrite(str(path), np.full((240, 320, 3), (50, 80, 40), np.uint8))


def test_a_photo_with_no_die_is_left_out_and_named(tmp_path, make_hero_folder, capsys):
    """One shot of many whose die is not found stops nothing: the face's other shots build it, and
    the report names the shot and why."""
    from firmware_host.cli import main

    make_hero_folder(tmp_path, per_face=3)
    _blank_photo(tmp_path / "heart-4" / "99.png")
    profile = build_from_folder("barbarian", tmp_path)
    assert len(profile.exemplars["heart-4"]) == 3
    (left_out,) = profile.fit["left_out"]
    assert left_out["face"] == "heart-4" and "99.png': no die found" in left_out["why"]
    assert main(["calibrate", "die", "barbarian", "--from", str(tmp_path)]) == 0
    assert "left out (face 'heart-4'): " in capsys.readouterr().out


def test_faces_of_one_photo_are_built_and_said_to_be_unchecked(tmp_path, make_hero_folder, capsys):
    """One photo a face builds a profile that reads the die, but nothing was cross-checked: the
    report says so and what would help, never that every face was told apart."""
    from calibration.build import report_notes
    from firmware_host.cli import main

    make_hero_folder(tmp_path, per_face=1)
    profile = build_from_folder("barbarian", tmp_path)
    labels = [face.label for face in DieDesign.barbarian().faces]
    assert profile.fit["unchecked"] == labels and profile.fit["held_out_reads"] == 0
    notes = report_notes(profile)
    assert any(note.startswith("not cross-checked: 'sword-1', 'sword-2'") and "4 more photos of each" in note for note in notes), notes
    assert not any("every face told apart" in note for note in notes)
    assert main(["calibrate", "die", "barbarian", "--from", str(tmp_path)]) == 0
    assert "  not cross-checked: 'sword-1'" in capsys.readouterr().out


def test_a_face_none_of_whose_photos_shows_a_die_is_named(tmp_path, make_hero_folder):
    make_hero_folder(tmp_path, per_face=2)
    for photo in (tmp_path / "heart-5").iterdir():
        _blank_photo(photo)
    with pytest.raises(ProfileError, match=r"face 'heart-5' has no photo whose die was found: .*no die found"):
        build_from_folder("barbarian", tmp_path)


def test_bad_faces_file_is_named(tmp_path, make_hero_folder):
    make_hero_folder(tmp_path, per_face=2)
    text = (tmp_path / "faces.toml").read_text().replace("value = 1\n", "value = 9\n")
    (tmp_path / "faces.toml").write_text(text)
    with pytest.raises(ProfileError, match=r"faces.toml.*value must be a number 1-6, not 9"):
        build_from_folder("barbarian", tmp_path)
    (tmp_path / "faces.toml").write_text("[faces.sword-1\n")
    with pytest.raises(ProfileError, match="not valid TOML"):
        build_from_folder("barbarian", tmp_path)


def test_a_pip_face_needs_no_photos(tmp_path, make_hero_folder):
    make_hero_folder(tmp_path, per_face=2)
    design = DieDesign.barbarian()
    six = design.face(6)
    shutil.rmtree(tmp_path / six.label)
    lines = [f'[faces.{f.label}]\nvalue = {f.value}\nsymbol = "{f.symbol}"\n' for f in design.faces if f.value != 6]
    lines.append("[faces.6]\npips = true\n")
    (tmp_path / "faces.toml").write_text("\n".join(lines))
    profile = build_from_folder("barbarian", tmp_path)
    face = profile.face("6")
    assert face.pips and face.value == 6 and profile.exemplars["6"] == ()


def test_bad_profile_name(tmp_path):
    with pytest.raises(ProfileError, match="bad profile name 'Bad Name'"):
        build_from_folder("Bad Name", tmp_path)


def test_more_examples_do_not_hurt(tmp_path, barbarian, make_hero_folder, shots):
    many = build_from_folder("barbarian", make_hero_folder(tmp_path, per_face=12, seed=5))
    shots = shots(DieDesign.barbarian(), 60, seed=43)
    few, lots = barbarian.classifier(), many.classifier()

    def score(classifier):
        return sum(1 for v, c in shots if (m := classifier.match(c)).ok and m.face.value == v)

    assert score(lots) >= score(few) - 1



REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"


@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_real_photos_read_with_five_labelled_crops_per_face(tmp_path):
    """Real pip dice (real-d6) calibrated as a custom die: faces 1-6 from the first five labelled
    dice of each, then every sixth of the other photos read back."""
    from vision.dataset import Dataset, load_dataset
    from vision.evaluate import evaluate

    profile = build_from_folder("real-d6", REAL_D6)  # a labelled folder: labels.json
    assert profile.finder == "pips"
    assert [(f.label, len(profile.exemplars[f.label])) for f in profile.faces] == [(str(v), 5) for v in range(1, 7)]
    dataset = load_dataset(REAL_D6)
    calibration = set(labelled_crops(dataset)[2])
    rest = [i for i in dataset.images if i.name not in calibration][::6]
    report = evaluate(Dataset(dataset.folder, tuple(rest)), profile.reader().read, progress=None)
    assert report.recall >= 0.97 and report.precision >= 0.97, report.summary()
