"""Saving, loading, listing and removing profiles, corrupt files, and the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from calibration.errors import CalibrationMissing, ProfileError
from calibration.paths import profiles_directory
from calibration.profiles import list_profiles, load_profile, remove_profile, save_profile
from firmware_host.cli import main
from hardware.sim import DieDesign


def test_save_and_load_round_trip(barbarian, shots):
    folder = save_profile(barbarian)
    assert folder == profiles_directory() / "barbarian"
    manifest = json.loads((folder / "profile.json").read_text())
    assert manifest["format"] == "dicetray-die-profile" and manifest["version"] == 1
    assert (folder / "exemplars" / "sword-1" / "00.png").is_file()

    loaded = load_profile("barbarian")
    assert [(f.label, f.value, f.symbol, f.pips) for f in loaded.faces] == [
        (f.label, f.value, f.symbol, f.pips) for f in barbarian.faces
    ]
    assert loaded.settings == barbarian.settings
    for label, crops in barbarian.exemplars.items():
        assert all(np.array_equal(a, b) for a, b in zip(crops, loaded.exemplars[label]))
    # The same reads from the saved copy as from the one in memory.
    before, after = barbarian.classifier(), loaded.classifier()
    for _, crop in shots(DieDesign.barbarian(), 12, seed=3):
        a, b = before.match(crop), after.match(crop)
        assert (a.face, a.status, a.confidence) == (b.face, b.status, b.confidence)


def test_load_by_path(barbarian, tmp_path):
    folder = save_profile(barbarian, tmp_path / "mine")
    assert load_profile(str(folder)).name == "barbarian"
    assert load_profile(str(folder / "profile.json")).name == "barbarian"


def test_saving_over_a_profile_needs_overwrite(barbarian):
    save_profile(barbarian)
    with pytest.raises(ProfileError, match="already exists"):
        save_profile(barbarian)
    save_profile(barbarian, overwrite=True)
    assert load_profile("barbarian").name == "barbarian"


def test_missing_profile_is_a_lookup_error():
    with pytest.raises(CalibrationMissing, match="no profile at .*nothing-here"):
        load_profile("nothing-here")


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda m: "{not json", "not valid JSON"),
        (lambda m: json.dumps({**m, "version": 99}), "unsupported version 99"),
        (lambda m: json.dumps({k: v for k, v in m.items() if k != "faces"}), "missing 'faces'"),
        (lambda m: json.dumps({**m, "faces": [{**m["faces"][0], "value": 8}]}), "value must be 1-6"),
        (lambda m: json.dumps({**m, "matcher": {"accept_distance": -1}}), "bad 'matcher' settings"),
        (lambda m: json.dumps({**m, "faces": [{**m["faces"][0], "exemplars": ["../../etc/passwd"]}]}), "bad exemplar path"),
    ],
)
def test_corrupt_manifest_names_the_file(barbarian, damage, message):
    folder = save_profile(barbarian)
    manifest = folder / "profile.json"
    manifest.write_text(damage(json.loads(manifest.read_text())))
    with pytest.raises(ProfileError, match=message) as caught:
        load_profile("barbarian")
    assert "profile.json" in str(caught.value)


def test_corrupt_exemplar_names_the_file(barbarian):
    folder = save_profile(barbarian)
    broken = folder / "exemplars" / "heart-4" / "02.png"
    broken.write_bytes(broken.read_bytes()[:40])
    with pytest.raises(ProfileError, match=r"heart-4/02.png"):
        load_profile("barbarian")


def test_list_and_remove(barbarian):
    assert list_profiles() == []
    save_profile(barbarian)
    (listed,) = list_profiles()
    assert (listed.name, listed.kind, listed.problem) == ("barbarian", "die", None)
    assert "sword-1" in listed.detail
    remove_profile("barbarian")
    assert list_profiles() == []
    with pytest.raises(CalibrationMissing, match="no saved profile 'barbarian'"):
        remove_profile("barbarian")


def test_damaged_profiles_are_still_listed(barbarian):
    folder = save_profile(barbarian)
    (folder / "profile.json").write_text("[]")
    (listed,) = list_profiles()
    assert listed.problem is not None and "JSON object" in listed.problem


def test_cli_calibrate_list_show_remove(barbarian_dir, capsys):
    assert main(["calibrate", "die", "barbarian", "--from", str(barbarian_dir)]) == 0
    out = capsys.readouterr().out
    assert "saved die profile 'barbarian'" in out and "sword-2: 2 symbol sword, 5 examples" in out

    assert main(["profiles", "list", "--json"]) == 0
    (entry,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert entry["name"] == "barbarian" and entry["kind"] == "die"

    assert main(["profiles", "show", "barbarian", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [f["label"] for f in shown["faces"]][:3] == ["sword-1", "sword-2", "sword-3"]
    assert shown["faces"][0]["exemplars"] == 5

    assert main(["profiles", "show", "barbarian"]) == 0
    assert "sword-1: value 1, symbol sword, 5 examples" in capsys.readouterr().out

    # Calibrating again over it is refused, so a saved profile is never lost by accident.
    assert main(["calibrate", "die", "barbarian", "--from", str(barbarian_dir)]) == 2
    assert "--force" in capsys.readouterr().err

    assert main(["profiles", "remove", "barbarian"]) == 0
    assert main(["profiles", "remove", "barbarian"]) == 2
    assert "no saved profile 'barbarian'" in capsys.readouterr().err
    assert main(["profiles", "list"]) == 0
    assert "no profiles" in capsys.readouterr().out


def test_cli_bad_input_exits_2_with_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "firmware_host", "calibrate", "die", "x", "--from", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.strip().startswith("dicetray calibrate: error: not a folder")
    assert "nope" in result.stderr and "Traceback" not in result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "firmware_host", "profiles", "show", "ghost"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "ghost" in result.stderr and "Traceback" not in result.stderr


REAL_D6 = __import__("pathlib").Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"


@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_cli_eval_with_a_profile_calibrated_from_a_labelled_folder(tmp_path, capsys):
    assert main(["calibrate", "die", "real", "--from", str(REAL_D6)]) == 0
    capsys.readouterr()
    labels = json.loads((REAL_D6 / "labels.json").read_text())
    picked = [e for e in labels if e["image"].startswith("valid_")][:6]
    for entry in picked:
        (tmp_path / entry["image"]).write_bytes((REAL_D6 / entry["image"]).read_bytes())
    (tmp_path / "labels.json").write_text(json.dumps(picked))
    assert main(["eval", str(tmp_path), "--profile", "real", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dataset"] == str(tmp_path) and report["images"] == 6
    assert report["recall"] >= 0.9 and report["precision"] >= 0.9
    assert main(["read", str(tmp_path / picked[0]["image"]), "--profile", "real", "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert all(d["face"] in {"1", "2", "3", "4", "5", "6"} for d in read["dice"] if d["status"] == "ok")
