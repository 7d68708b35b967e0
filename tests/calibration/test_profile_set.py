"""A tray of dice of two calibrated designs read at once (as a Dice Masters roll mixes the dice of
several cards): each die read as its own design's face, never as the other's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.build import build_from_folder
from calibration.profiles import DieProfile
from firmware_host.commands.vision_cmd import make_reader
from firmware_host.errors import UsageError
from hardware.sim import DieDesign, DieStyle, random_scene, render_tray
from tests.calibration.conftest import FELT, hero_folder
from vision.profile_set import NamedReader, ProfileSetReader
from vision.types import BodyColour, DieReading, DieStatus, FrameReading


@pytest.fixture(scope="module")
def moon_elf(tmp_path_factory: pytest.TempPathFactory) -> DieProfile:
    return build_from_folder("moon-elf", hero_folder(tmp_path_factory.mktemp("moon-elf"), DieDesign.moon_elf()))


def test_dice_of_two_designs_in_one_frame_are_each_read_as_their_own(barbarian: DieProfile, moon_elf: DieProfile) -> None:
    """Each die reads as its own design's profile alone reads it (its faces that look alike in
    that profile's shots stay as alike), and never as a face of the other design."""
    own = {"barbarian": barbarian.reader(), "moon-elf": moon_elf.reader()}
    reader = ProfileSetReader([NamedReader(name, r) for name, r in own.items()])
    designs = [DieDesign.barbarian(), DieDesign.moon_elf()]
    labels = {d.name: {f.label for f in d.faces} for d in designs}
    rng = np.random.default_rng(4242)
    dice = same = 0
    for _ in range(12):
        scene = random_scene(rng, 4, designs=designs, styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=70)
        tray = render_tray(scene, rng)
        reading = reader.read(tray.frame)
        assert reading.frame_size == (640, 480)
        for truth in tray.truth:
            if truth.status is not DieStatus.OK:
                continue
            design = next(name for name, faces in labels.items() if truth.face in faces)
            hit = truth.found_in(reading.dice)
            alone = truth.found_in(own[design].read(tray.frame).dice)
            if alone is None:
                # a die its own profile leaves out (found by the body finder alone and not read
                # surely) is left out of the set's reading too
                assert hit is None
                continue
            assert hit is not None
            dice += 1
            assert not hit.ok or hit.face in labels[design], (truth.face, hit)  # never the other design's
            same += (hit.status, hit.face) == (alone.status, alone.face)
    assert dice >= 40 and same == dice


def test_a_die_only_the_body_finder_found_stands_unsure_when_its_faces_share_a_symbol(moon_elf: DieProfile) -> None:
    """A die the detector missed and the body finder found is kept: read, or, its corner number
    hidden (a smudge, a finger's shadow), unsure between the faces that share its symbol: the rules
    can use the symbol, and the table sees every die."""
    import dataclasses

    from vision.profile_reader import DetectedFace

    designs = [DieDesign.barbarian(), DieDesign.moon_elf()]
    rng = np.random.default_rng(4247)
    for _ in range(10):  # the tenth tray: a foot-4 the detector misses
        tray = render_tray(random_scene(rng, 4, designs=designs, styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=70), rng)
    reader = moon_elf.reader()
    (alone,) = [f for f in reader.detector.find(tray.frame) if isinstance(f, DetectedFace) and not f.by_detector]
    foot = next(t for t in tray.truth if t.face == "foot-4")
    kept = foot.found_in(reader.read(tray.frame).dice)
    assert kept is not None and kept.ok and kept.face == "foot-4"
    # Its four corners painted over in the body's colour: the symbol shows, the number does not.
    crop = alone.crop.copy()
    n, k = crop.shape[0], int(0.3 * crop.shape[0])
    body = np.median(crop[n // 2 - 4 : n // 2 + 4, 2:8].reshape(-1, 3), axis=0)
    for rows in (slice(0, k), slice(n - k, n)):
        for columns in (slice(0, k), slice(n - k, n)):
            crop[rows, columns] = body
    hidden = dataclasses.replace(alone, crop=crop)
    unsure = reader.classifier.classify(hidden)
    assert unsure.status is DieStatus.UNREADABLE and unsure.symbol == "foot" and "foot-4" in unsure.candidates
    (stands,) = reader._read_pips([hidden], 0.0).dice
    assert not stands.ok and stands.symbol == "foot" and "foot-4" in stands.candidates


def test_a_config_names_several_profiles_with_commas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, barbarian: DieProfile, moon_elf: DieProfile) -> None:
    from calibration.profiles import save_profile

    monkeypatch.setenv("DICETRAY_STATE_DIR", str(tmp_path))
    save_profile(barbarian)
    save_profile(moon_elf)
    reader = make_reader("barbarian, moon-elf")
    assert isinstance(reader, ProfileSetReader) and [r.name for r in reader.readers] == ["barbarian", "moon-elf"]
    with pytest.raises(UsageError, match="profile 'barbarian' is named twice"):
        make_reader("barbarian,barbarian")


class _Fixed:
    """A design's reader that always reads the same dice (the merging is what is tested here)."""

    def __init__(self, *dice: DieReading) -> None:
        self.dice = dice

    def read(self, frame: np.ndarray) -> FrameReading:
        return FrameReading(self.dice)


def _read(face: str, colour: str, x: int = 100) -> DieReading:
    return DieReading(1, 0.99, (x, 100, 40, 40), DieStatus.OK, face=face, symbol=face, colour=BodyColour(colour, (0, 0, 0)))


def test_a_die_is_read_only_by_the_designs_of_its_colour_and_two_sure_designs_leave_it_unread() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    black = NamedReader("batman", _Fixed(_read("2fist", "black")), colours=("black",))
    white = NamedReader("sidekick", _Fixed(_read("fist", "black")), colours=("white",))
    assert [d.face for d in ProfileSetReader([black, white]).read(frame).dice] == ["2fist"]
    undecided = NamedReader("zatanna", _Fixed(_read("bolt", "black")))
    [die] = ProfileSetReader([NamedReader("batman", _Fixed(_read("2fist", "black"))), undecided]).read(frame).dice
    assert not die.ok and die.candidates == ("2fist", "bolt") and "two designs read it" in (die.reason or "")


def test_the_dice_masters_setup_gives_each_cards_profile_its_colours() -> None:
    """Profiles named by card id read only dice of that card's colour once the flow's setup says it."""
    from firmware_host.config import GameConfig
    from firmware_host.seed_demo import DICE_MASTERS
    from firmware_host.table_flows import flow_for, new_game

    colours = {
        "P1Colours": "sidekick=white martian-manhunter=green batman=black anger-issues=red villainous-pact=grey",
        "P2Colours": "sidekick=white wonder-woman-champion-of-themyscira=blue zatanna=purple anger-issues=red villainous-pact=grey",
    }
    setup = {k: v for k, v in DICE_MASTERS.items() if k not in ("P1", "P2")} | colours
    config = GameConfig(players=("Patricia", "Jimmy"), name="dicemasters", setup=tuple(setup.items()))
    flow = flow_for(config, new_game(config))
    frame = np.zeros((480, 640, 3), np.uint8)
    reader = ProfileSetReader(
        [NamedReader("batman", _Fixed(_read("2fist", "black"))), NamedReader("sidekick", _Fixed(_read("fist", "black")))]
    ).with_colours(flow.design_colours())
    assert [(r.name, r.colours) for r in reader.readers] == [("batman", ("black",)), ("sidekick", ("white",))]
    assert [d.face for d in reader.read(frame).dice] == ["2fist"]
