"""Calibrated hero dice read on whole simulated tray frames, as the camera sees them.

The profile is built the way a player builds it: five photos per face of one die lying in the tray.
The frames are fresh (other seeds): one to five dice under the tray's light, found by their bodies,
their top faces rectified from the frame. The sword faces 1-3 differ only by a small corner number,
as do the hearts 4-5, which at 60 px is a few pixels of ink.
"""

from __future__ import annotations

from collections import Counter

import pytest

from calibration.build import build_from_folder
from hardware.sim import Background, DieDesign
from vision.profile_reader import TrayHint

FELT = Background("plain", (50, 80, 40), 5)
DESIGN = DieDesign.barbarian()


@pytest.fixture(scope="module")
def small_dice_reads(tmp_path_factory: pytest.TempPathFactory, photos_on_tray, reads_on_tray) -> list[tuple[str, float]]:
    """Every whole die of 40 fresh frames of 60 px dice, read with a profile from 5 tray photos per face."""
    profile = build_from_folder("barbarian", photos_on_tray(tmp_path_factory.mktemp("photos-60"), DESIGN, 60, seed=61))
    return reads_on_tray(profile.reader(TrayHint()), DESIGN, FELT, 60, seed=610, frames=40)


def test_small_hero_dice_on_tray_frames(small_dice_reads: list[tuple[str, float]]) -> None:
    outcome = Counter(kind for kind, _ in small_dice_reads)
    total = sum(outcome.values())
    assert total >= 100, outcome
    # Measured on this seed: 123/123 right. Over 1175 dice of four other calibrations and
    # 400 frames: 99.83 % right, no misread (faces compared at 40 px, each cell moved 1 px at
    # most: 99.1 % right, 4 misread in 1865).
    assert outcome["right"] >= 0.99 * total, outcome
    assert outcome["misread"] == 0, outcome
    # A whole die near the frame's edge is not reported cut by it.
    assert outcome["edge"] <= 0.01 * total, outcome
    # Faces of the sword set are told apart by their corner number, not by the sword.
    assert outcome["unreadable"] <= 0.01 * total, outcome


def test_confidence_on_tray_frames_says_how_often_reads_are_right(small_dice_reads: list[tuple[str, float]]) -> None:
    read = [(kind, confidence) for kind, confidence in small_dice_reads if kind in ("right", "misread")]
    right = sum(1 for kind, _ in read if kind == "right") / len(read)
    stated = sum(confidence for _, confidence in read) / len(read)
    # Fitted on the calibration photos alone, the confidence said 0.977 on average for these reads
    # that were all right; fitted on the same photos drawn on a tray and found again, 0.997.
    assert abs(stated - right) <= 0.02, (stated, right)
    # It never claims certainty.
    assert all(confidence < 1.0 for _, confidence in read)


WOOD = Background("wood", (170, 205, 222), 5)


@pytest.fixture(scope="module")
def on_wood(tmp_path_factory: pytest.TempPathFactory, photos_on_tray) -> object:
    """A profile from 5 photos per face of a white hero die on a light wooden tray, about as light
    as the die, with grain and soft shadows: a player's own table."""
    return build_from_folder("barbarian", photos_on_tray(tmp_path_factory.mktemp("wood-60"), DESIGN, 60, seed=62, background=WOOD))


def test_hero_dice_calibrated_and_read_on_a_light_wooden_tray(on_wood, reads_on_tray) -> None:
    """The die is cut by its own edges there (vision.square_fit), where its colour against the
    wood outlines it with its shadow. Measured on this seed: 110 of 126 right, none misread, 14
    unsure; at seeds 63 and 64, 113 of 123 (1 misread) and 109 of 118 (none). Cut by its outline,
    as before, two of those three calibrations stopped at a photo ("no die found") and the third
    read 74 of 118 right and 13 misread."""
    outcome = Counter(kind for kind, _ in reads_on_tray(on_wood.reader(TrayHint()), DESIGN, WOOD, 60, seed=620, frames=40))
    total = sum(outcome.values())
    assert total >= 100, outcome
    assert outcome["misread"] <= 0.01 * total, outcome
    assert outcome["right"] >= 0.75 * total, outcome


def test_another_sets_dice_on_the_wooden_tray_are_not_read(on_wood, reads_on_tray) -> None:
    """The moon elf's faces, which the exemplars' looser reach on wood would take for hero faces
    (18 of 60 at seed 64, before), are unreadable: the face embedding finds them like none of the
    set (EmbeddingOpinion.stranger)."""
    outcome = Counter(kind for kind, _ in reads_on_tray(on_wood.reader(TrayHint()), DieDesign.moon_elf(), WOOD, 60, seed=621, frames=20))
    seen = outcome["unreadable"] + outcome["misread"] + outcome["right"]
    assert seen >= 40, outcome
    assert outcome["misread"] + outcome["right"] <= 0.05 * seen, outcome
