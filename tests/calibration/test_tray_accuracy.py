"""Calibrated hero dice read on whole simulated tray frames, as the camera sees them.

The profile is built the way a player builds it: five photos per face of one die lying in the tray.
The frames are fresh (other seeds): one to five dice under the tray's light, found by their bodies,
their top faces rectified from the frame. The sword faces 1-3 differ only by a small corner number,
as do the hearts 4-5, which at 60 px is a few pixels of ink.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.build import build_from_folder
from calibration.profiles import DieProfile
from hardware.sim import Background, DieDesign, DieStyle, random_scene, render_tray
from vision.profile_reader import TrayHint
from vision.types import DieStatus

FELT = Background("plain", (50, 80, 40), 5)
DESIGN = DieDesign.barbarian()


def _tray_photos(folder: Path, die_px: float, seed: int) -> Path:
    """Five frames per face of a single die well inside the tray, sorted into face folders."""
    rng = np.random.default_rng(seed)
    counts: Counter[str] = Counter()
    while min(counts[f.label] for f in DESIGN.faces) < 5:
        scene = random_scene(rng, 1, designs=[DESIGN], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=die_px)
        tray = render_tray(scene, rng)
        truth = tray.truth[0]
        x, y, w, h = truth.box
        if truth.status is not DieStatus.OK or counts[truth.face] >= 5 or min(x, y) < 30 or x + w > 600 or y + h > 440:
            continue
        (folder / truth.face).mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / truth.face / f"{counts[truth.face]}.png"), tray.frame)
        counts[truth.face] += 1
    (folder / "faces.toml").write_text(
        "\n".join(f'[faces.{f.label}]\nvalue = {f.value}\nsymbol = "{f.symbol}"\n' for f in DESIGN.faces)
    )
    return folder


def _read_trays(profile: DieProfile, die_px: float, seed: int, frames: int) -> Counter[str]:
    """Outcome counts over every whole die in ``frames`` fresh frames: right, misread, unreadable
    (the reader said it cannot tell), edge (reported cut by the frame edge), missed."""
    rng = np.random.default_rng(seed)
    reader = profile.reader(TrayHint())
    outcome: Counter[str] = Counter()
    for _ in range(frames):
        scene = random_scene(rng, int(rng.integers(1, 6)), designs=[DESIGN], styles=[DieStyle()], tilt_deg=0,
                             background=FELT, die_px=die_px)
        tray = render_tray(scene, rng)
        dice = reader.read(tray.frame).dice
        for truth in tray.truth:
            if truth.status is not DieStatus.OK:
                continue
            x, y, w, h = truth.box
            hits = [d for d in dice if x <= d.box[0] + d.box[2] / 2 <= x + w and y <= d.box[1] + d.box[3] / 2 <= y + h]
            if not hits:
                outcome["missed"] += 1
            elif hits[0].status is DieStatus.OCCLUDED:
                outcome["edge"] += 1
            elif hits[0].status is not DieStatus.OK:
                outcome["unreadable"] += 1
            else:
                outcome["right" if hits[0].face == truth.face else "misread"] += 1
    return outcome


@pytest.fixture(scope="module")
def small_dice_profile(tmp_path_factory: pytest.TempPathFactory) -> DieProfile:
    return build_from_folder("barbarian", _tray_photos(tmp_path_factory.mktemp("photos-60"), 60, seed=61))


def test_small_hero_dice_on_tray_frames(small_dice_profile: DieProfile) -> None:
    outcome = _read_trays(small_dice_profile, 60, seed=610, frames=40)
    total = sum(outcome.values())
    assert total >= 100, outcome
    # Measured on this seed: 123/123 right; comparing the whole crop at once instead of cell by
    # cell gave 118 right and 2 misread. Over 1865 dice of other seeds: 99.1 % right, 4 misread.
    assert outcome["right"] >= 0.97 * total, outcome
    assert outcome["misread"] <= 1, outcome
    # A whole die near the frame's edge is not reported cut by it.
    assert outcome["edge"] <= 0.01 * total, outcome
    # Faces of the sword set are told apart by their corner number, not by the sword.
    assert outcome["unreadable"] <= 0.02 * total, outcome
