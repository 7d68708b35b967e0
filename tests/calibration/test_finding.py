"""Finding the one die of a calibration photo: crops of real dice at any margin, simulated hero dice
as crops, single-die photos and tray photos, and photos with no die or several."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.build import build_from_folder
from calibration.errors import ProfileError
from calibration.finding import die_crop, locate_die
from hardware.sim import DieDesign, DieStyle, random_scene, render_face, render_tray
from vision.learned import LearnedReader
from vision.types import DieStatus

from .conftest import FELT

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
MARGINS = (0.0, 0.2, 0.5)


def cut(image: np.ndarray, box: tuple[int, int, int, int], margin: float) -> tuple[np.ndarray, tuple[float, float]]:
    """The square crop of ``box`` with ``margin`` of its side all round (clipped by the photo), and
    where the die's centre is in it."""
    x, y, w, h = box
    side, cx, cy = max(w, h), x + w / 2.0, y + h / 2.0
    half = side * (0.5 + margin)
    x0, y0 = max(0, int(round(cx - half))), max(0, int(round(cy - half)))
    x1, y1 = min(image.shape[1], int(round(cx + half))), min(image.shape[0], int(round(cy + half)))
    return image[y0:y1, x0:x1].copy(), (cx - x0, cy - y0)


def whole_die_boxes(folder: str, photos: int, per_photo: int) -> list[tuple[np.ndarray, tuple[int, int, int, int]]]:
    """Photos and whole-die boxes of their labelled dice. byler-d6-train's boxes are whole dice;
    real-d6's box the pips (a one's box is the pip alone, see its SOURCE.md), so there the die the
    detector finds at the labelled box stands for it."""
    labels = json.loads((DATA / folder / "labels.json").read_text())
    reader = LearnedReader()
    out = []
    for item in labels[:: max(1, len(labels) // photos)][:photos]:
        image = cv2.imread(str(DATA / folder / item["image"]))
        found = reader.find(image) if folder == "real-d6" else []
        for die in item["dice"][:per_photo]:
            x, y, w, h = die["box"]
            if folder != "real-d6":
                out.append((image, (x, y, w, h)))
                continue
            cx, cy, reach = x + w / 2, y + h / 2, max(w, h)
            near = [f for f in found if abs(f.cx - cx) < reach and abs(f.cy - cy) < reach]
            if near:
                f = min(near, key=lambda f: (f.cx - cx) ** 2 + (f.cy - cy) ** 2)
                s = int(round(f.size))
                out.append((image, (int(round(f.cx - s / 2)), int(round(f.cy - s / 2)), s, s)))
    return out


@pytest.mark.parametrize("folder", ["byler-d6-train", "real-d6"])
def test_real_crops_of_any_margin_are_found(folder: str) -> None:
    if not (DATA / folder).is_dir():
        pytest.skip(f"{folder} photos not present")
    dice = whole_die_boxes(folder, photos=20, per_photo=3)
    assert len(dice) >= 40
    for margin in MARGINS:
        found = 0
        for image, box in dice:
            crop, (ex, ey) = cut(image, box, margin)
            side = max(box[2], box[3])
            try:
                die = locate_die(crop, "crop").die
            except ProfileError:
                continue
            found += abs(die.cx - ex) < 0.3 * side and abs(die.cy - ey) < 0.3 * side
        assert found >= 0.95 * len(dice), (folder, margin, found, len(dice))


def test_a_tight_crop_is_found_only_with_the_photo_padded() -> None:
    """A die filling its crop is not found as it is (its pips pass for dice), but is in the padded canvas."""
    if not (DATA / "byler-d6-train").is_dir():
        pytest.skip("byler-d6-train photos not present")
    padded = 0
    dice = whole_die_boxes("byler-d6-train", photos=6, per_photo=3)
    for image, box in dice:
        crop, _ = cut(image, box, 0.0)
        padded += locate_die(crop, "crop").padded
    assert padded >= 0.9 * len(dice)


@pytest.mark.parametrize("margin", MARGINS)
def test_hero_dice_cut_from_tray_frames_are_found(margin: float) -> None:
    """Simulated hero dice cut out of tray frames (neighbours' edges show at wider margins)."""
    rng = np.random.default_rng(11)
    design = DieDesign.barbarian()
    found = total = 0
    while total < 24:
        scene = random_scene(rng, 4, designs=[design], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=70.0)
        tray = render_tray(scene, rng)
        for truth in tray.truth:
            if truth.status is not DieStatus.OK:
                continue
            x, y, w, h = truth.box
            crop, (ex, ey) = cut(tray.frame, (x, y, w, h), margin)
            total += 1
            try:
                die = locate_die(crop, "crop").die
            except ProfileError:
                continue
            found += abs(die.cx - ex) < 0.3 * w and abs(die.cy - ey) < 0.3 * h
    assert found >= 0.95 * total, (found, total)


def test_a_single_die_photo_and_a_face_photo_give_the_die() -> None:
    rng = np.random.default_rng(5)
    design = DieDesign.barbarian()
    scene = random_scene(rng, 1, designs=[design], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=70.0)
    tray = render_tray(scene, rng)
    x, y, w, h = tray.truth[0].box
    die = locate_die(tray.frame, "tray.png").die
    assert abs(die.cx - (x + w / 2)) < 0.3 * w and abs(die.cy - (y + h / 2)) < 0.3 * h
    face = render_face(design, DieStyle(), 4, 96, rng=rng)
    assert die_crop(face, "face.png").shape[:2] == die_crop(tray.frame, "tray.png").shape[:2]


def test_a_photo_with_several_dice_says_how_many() -> None:
    rng = np.random.default_rng(8)
    scene = random_scene(rng, 4, designs=[DieDesign.barbarian()], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=60.0)
    frame = render_tray(scene, rng).frame
    with pytest.raises(ProfileError, match=r"'photos/sword-1/3.png': found 4 dice"):
        die_crop(frame, "photos/sword-1/3.png")


def test_a_photo_with_no_die_says_so() -> None:
    empty = np.full((240, 320, 3), (50, 80, 40), np.uint8)
    with pytest.raises(ProfileError, match=r"'empty.png': no die found"):
        die_crop(empty, "empty.png")


def test_calibrate_from_crops_with_neighbours(tmp_path: Path) -> None:
    """A folder of crops with a fifth of margin builds a profile that reads the faces back."""
    rng = np.random.default_rng(21)
    design = DieDesign.barbarian()
    counts: dict[str, int] = {}
    kept = []
    while min(counts.get(f.label, 0) for f in design.faces) < 4:
        scene = random_scene(rng, 4, designs=[design], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=80.0)
        tray = render_tray(scene, rng)
        for truth in tray.truth:
            if truth.status is not DieStatus.OK:
                continue
            crop, _ = cut(tray.frame, truth.box, 0.2)
            if counts.get(truth.face, 0) >= 4:
                kept.append((truth.face, crop))
                continue
            (tmp_path / truth.face).mkdir(exist_ok=True)
            cv2.imwrite(str(tmp_path / truth.face / f"{counts.get(truth.face, 0)}.png"), crop)
            counts[truth.face] = counts.get(truth.face, 0) + 1
    (tmp_path / "faces.toml").write_text(
        "\n".join(f'[faces.{f.label}]\nvalue = {f.value}\nsymbol = "{f.symbol}"\n' for f in design.faces)
    )
    profile = build_from_folder("barbarian", tmp_path)
    assert sorted(profile.exemplars) == sorted(f.label for f in design.faces)
    classifier = profile.classifier()
    reads = [classifier.match(die_crop(crop, "shot")) for _, crop in kept[:30]]
    symbols = {f.label: f.symbol for f in design.faces}
    wrong_symbol = [(label, r.face.label) for (label, _), r in zip(kept, reads) if r.ok and r.face.symbol != symbols[label]]
    assert not wrong_symbol


def test_crops_cut_close_round_small_dice_build_a_profile(tmp_path: Path) -> None:
    """A player's crops cut tight round dice under 32 px (smaller than the finders read a frame)
    are found and cut, and the profile built from them reads such dice on a tray."""
    rng = np.random.default_rng(33)
    design = DieDesign.pips()
    counts = {str(v): 0 for v in range(1, 7)}
    trays = []
    while min(counts.values()) < 3:
        scene = random_scene(rng, 4, designs=[design], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=20.0)
        tray = render_tray(scene, rng)
        trays.append(tray)
        for truth in tray.truth:
            if truth.status is not DieStatus.OK or counts[truth.face] >= 3:
                continue
            crop, _ = cut(tray.frame, truth.box, 0.0)
            assert min(crop.shape[:2]) < 32
            assert die_crop(crop, "tight.png").shape[:2] == (64, 64)
            (tmp_path / truth.face).mkdir(exist_ok=True)
            cv2.imwrite(str(tmp_path / truth.face / f"{counts[truth.face]}.png"), crop)
            counts[truth.face] += 1
    profile = build_from_folder("small-pips", tmp_path)
    assert sorted(profile.exemplars) == [str(v) for v in range(1, 7)]
    reader = profile.reader()
    right = wrong = total = 0
    for _ in range(6):
        tray = render_tray(random_scene(rng, 4, designs=[design], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=20.0), rng)
        read = [d.value for d in reader.read(tray.frame).dice if d.ok]
        truth = [int(t.face) for t in tray.truth if t.status is DieStatus.OK]
        total += len(truth)
        for value in read:
            if value in truth:
                truth.remove(value)
                right += 1
            else:
                wrong += 1
    assert wrong == 0 and right >= 0.8 * total, (right, wrong, total)


def test_a_photo_too_small_to_show_a_die_is_named() -> None:
    with pytest.raises(ProfileError, match=r"'speck.png': no die found in a photo of 12x10 pixels"):
        die_crop(np.full((10, 12, 3), 200, np.uint8), "speck.png")



def test_real_pip_dice_calibrated_from_crops_read_no_key_or_side_face_as_a_face(tmp_path: Path) -> None:
    """The real-d6 profile of the calibration figures (scripts/measure_calibration.py: five crops
    per face as a player cuts them, the die and a fifth of it round it): a laptop key's round
    print (five_34) is not read as a one, and an oblique die whose front face shows two pips
    (dice_21, a one on top, which the pip finder lays out) is read as the one it is, never as a
    two. The face network leans the wrong way on both, but not surely."""
    if not (DATA / "real-d6").is_dir():
        pytest.skip("real-d6 photos not present")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    try:
        from measure_calibration import real_profile_and_rest
    finally:
        sys.path.pop(0)
    profile, rest = real_profile_and_rest(DATA / "real-d6", tmp_path / "crops")
    assert {"five_34.jpg", "dice_21.jpg"} <= {item.name for item in rest.images}
    reader = profile.reader()
    key = [d for d in reader.read(cv2.imread(str(DATA / "real-d6" / "five_34.jpg"))).dice if d.box[0] < 130 and d.box[1] < 60]
    assert not any(d.ok for d in key), key
    oblique = [d for d in reader.read(cv2.imread(str(DATA / "real-d6" / "dice_21.jpg"))).dice if 250 < d.box[0] < 320 and d.box[1] < 150]
    assert oblique and not any(d.ok and d.value == 2 for d in oblique), oblique
    assert [(d.value, d.status) for d in oblique] == [(1, DieStatus.OK)], oblique


def _dice_masters_die_on_wood(card: str, colour: str, die_px: float, seed: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    from firmware_host.seed_demo import _design
    from hardware.sim import Background
    from rules.dicemasters.cards import load_card

    rng = np.random.default_rng(seed)
    wood = Background("wood", (170, 205, 222), 3)
    scene = random_scene(rng, 1, designs=[_design(load_card(card))], styles=[DieStyle.parse(colour)], tilt_deg=0, background=wood, die_px=die_px)
    tray = render_tray(scene, rng)
    return tray.frame, tray.truth[0].box


@pytest.mark.parametrize(
    "card, colour, die_px, seed",
    [("sidekick", "white/black", 40.0, 25), ("batman", "black/white", 56.0, 13)],
    ids=["white die with a glyph", "black die with a glyph"],
)
def test_the_one_die_of_a_photo_is_found_though_the_face_network_doubts_it(card: str, colour: str, die_px: float, seed: int) -> None:
    """A small artwork die on a light wooden tray, which the face network takes about as much for
    no die as for a face it does not know: still the photo's one die, not "no die found"."""
    frame, (x, y, w, h) = _dice_masters_die_on_wood(card, colour, die_px, seed)
    die = locate_die(frame, "tray.png").die
    assert abs(die.cx - (x + w / 2)) < 0.3 * w and abs(die.cy - (y + h / 2)) < 0.3 * h


def test_a_corner_number_found_as_a_die_is_part_of_its_die() -> None:
    """A black die on wood that the detector measures small, and its corner number found as a die
    of its own beside its centre: one die, not "found 2 dice"."""
    frame, (x, y, w, h) = _dice_masters_die_on_wood("batman", "black/white", 56.0, 33)
    die = locate_die(frame, "tray.png").die
    assert abs(die.cx - (x + w / 2)) < 0.3 * w and abs(die.cy - (y + h / 2)) < 0.3 * h


def _barbarian_on_wood(seed: int, die_px: float) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    from hardware.sim import Background

    rng = np.random.default_rng(seed)
    wood = Background("wood", (170, 205, 222), 5)
    scene = random_scene(rng, 1, designs=[DieDesign.barbarian()], styles=[DieStyle()], tilt_deg=0, background=wood, die_px=die_px)
    tray = render_tray(scene, rng)
    return tray.frame, tray.truth[0].box


@pytest.mark.parametrize("seed", [38, 67])
def test_a_die_the_detector_scores_weakly_is_still_the_photos_die(seed: int) -> None:
    """A white hero die on light wood that the detector scores under the reader's 0.3: the photo
    shows one die, so the one weaker find is it, not "no die found"."""
    from calibration.finding import _only_die_by_finders, _weakly_found, die_shot
    from vision.profile_reader import BodyDetector

    frame, (x, y, w, h) = _barbarian_on_wood(seed, 60.0)
    reader = LearnedReader()
    with pytest.raises(ProfileError, match="no die found"):
        locate_die(frame, "photo.png", reader)  # nothing at the reader's own score
    assert _only_die_by_finders(frame, BodyDetector()) is None  # nor by its finders
    die = _weakly_found(frame, reader)
    assert die is not None and abs(die.cx - (x + w / 2)) < 0.3 * w and abs(die.cy - (y + h / 2)) < 0.3 * h
    assert die_shot(frame, "photo.png", reader=reader).crop.size


@pytest.mark.parametrize("seed", [77, 117])
def test_a_lone_die_is_cut_by_its_own_face_where_a_bigger_square_wins(seed: int) -> None:
    """A white hero die on light wood, where the square the edge fit favours for its size has a
    stretch of tray for a side (too weak to use): the calibration photo's die is cut by the
    square whose every side steps up to it, its own face."""
    from vision.profile_reader import BodyDetector, outline_found_die
    from vision.square_fit import fit_face_square

    frame, (x, y, w, h) = _barbarian_on_wood(seed, 60.0)
    die = locate_die(frame, "photo.png").die
    plain = fit_face_square(frame, die.cx, die.cy, die.size)
    assert plain is None or plain.strength < 0.2
    face = outline_found_die(frame, die, BodyDetector(), repeat_edge=True, lone=True)
    assert face is not None
    fx, fy, fw, fh = face.box
    assert abs(fw - w) < 0.08 * w and abs(fh - h) < 0.08 * h
    assert abs(fx + fw / 2 - (x + w / 2)) < 0.08 * w and abs(fy + fh / 2 - (y + h / 2)) < 0.08 * h
