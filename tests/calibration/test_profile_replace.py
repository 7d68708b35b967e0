"""Re-saving a profile is crash-safe: the previous one is kept until the new one loads, and a save
cut short is repaired on the next use of the profiles."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from calibration.errors import ProfileError
from calibration.paths import profiles_directory
from calibration.profiles import MANIFEST, DieProfile, list_profiles, load_profile, save_profile, write_profile_folder
from firmware_host.cli import main
from vision.profile_reader import CalibratedFace

REPO = Path(__file__).resolve().parents[2]


def small_profile(shade: int) -> DieProfile:
    faces = tuple(CalibratedFace(f"face-{n}", n) for n in range(1, 7))
    crop = np.full((64, 64, 3), shade, dtype=np.uint8)
    return DieProfile("tiny", faces, {f.label: (crop,) for f in faces})


def test_a_save_cut_between_its_two_renames_is_repaired_on_next_use(capsys: pytest.CaptureFixture[str]) -> None:
    folder = save_profile(small_profile(100))
    # What a crash after "old folder aside" and before "new folder in place" leaves on disk.
    old = folder.with_name(f".{folder.name}.old")
    folder.rename(old)
    staging = folder.with_name(f".{folder.name}.new-x1y2z3")
    staging.mkdir()
    (staging / MANIFEST).write_text('{"half": ')
    assert main(["profiles", "list"]) == 0
    assert "tiny" in capsys.readouterr().out
    assert folder.is_dir() and not old.exists() and not staging.exists()
    assert load_profile("tiny").exemplars["face-1"][0][0, 0, 0] == 100


def test_loading_by_name_repairs_too() -> None:
    folder = save_profile(small_profile(100))
    folder.rename(folder.with_name(f".{folder.name}.old"))
    assert load_profile("tiny").exemplar_count() == 6


def test_a_save_that_finished_its_swap_drops_the_old_folder() -> None:
    folder = save_profile(small_profile(100))
    old = folder.with_name(f".{folder.name}.old")
    shutil.copytree(folder, old)
    save_profile(small_profile(140), overwrite=True)
    assert not old.exists()
    assert load_profile("tiny").exemplars["face-1"][0][0, 0, 0] == 140


def test_a_new_profile_that_does_not_load_keeps_the_old_one() -> None:
    folder = save_profile(small_profile(100))
    manifest = {"format": "dicetray-die-profile", "version": 1, "kind": "die", "name": "tiny", "faces": []}
    with pytest.raises(ProfileError, match="does not load, the old one is kept"):
        write_profile_folder(folder, manifest, lambda staging: None, overwrite=True, loads=load_profile)
    assert load_profile("tiny").exemplar_count() == 6
    assert sorted(p.name for p in profiles_directory().iterdir()) == ["tiny"]


SAVER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from calibration.profiles import DieProfile, save_profile
    from vision.profile_reader import CalibratedFace
    faces = tuple(CalibratedFace(f"face-{n}", n) for n in range(1, 7))
    shade = 0
    while True:
        shade = (shade + 1) % 250
        crop = np.full((64, 64, 3), shade, dtype=np.uint8)
        save_profile(DieProfile("tiny", faces, {f.label: (crop,) * 4 for f in faces}), overwrite=True)
        print(shade, flush=True)
    """
)


def test_kill_9_during_saves_never_loses_the_profile() -> None:
    save_profile(small_profile(1))
    rng = random.Random(8)
    for _ in range(15):
        process = subprocess.Popen([sys.executable, "-c", SAVER], stdout=subprocess.PIPE, text=True, cwd=REPO)
        assert process.stdout is not None
        for _ in range(rng.randint(1, 6)):
            assert process.stdout.readline().strip()
        process.send_signal(signal.SIGKILL)
        process.communicate()
        # Whatever moment the kill hit, the profile is there and whole: the old one or the new.
        assert load_profile("tiny").exemplar_count() in (6, 24)
        assert [info.name for info in list_profiles()] == ["tiny"]
    assert not [p for p in profiles_directory().iterdir() if p.name.startswith(".")]
