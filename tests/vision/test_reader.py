"""The rule-based reader (vision.detect finding top faces by their pips, PipClassifier reading them):
the path a calibrated profile of pip faces reads with. The default, learned reader: test_learned.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.classify import FaceClassifier, FaceResult, PipClassifier
from vision.detect import CROP_SIZE, FaceCandidate, FaceDetector
from vision.imageio import load_image
from vision.reader import DiceReader
from vision.types import DieStatus

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"
needs_real = pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")


@needs_real
@pytest.mark.parametrize(
    "image, values",
    [
        ("valid_70.jpg", (1, 4, 4, 5, 5)),
        ("five_10.jpg", (5,)),
        ("dice_13.jpg", (1, 1)),
        ("six_1.jpg", (6,)),
    ],
)
def test_reads_real_photos(image: str, values: tuple[int, ...]) -> None:
    reading = DiceReader(classifier=PipClassifier()).read(load_image(REAL_D6 / image))
    assert reading.all_ok
    assert tuple(sorted(reading.values)) == values


@needs_real
def test_side_faces_never_add_pips() -> None:
    # ones on top, with two to four pips on each side face the oblique camera sees
    for image in ("dice_3.jpg", "dice_4.jpg", "dice_13.jpg"):
        reading = DiceReader(classifier=PipClassifier()).read(load_image(REAL_D6 / image))
        assert reading.dice and {d.value for d in reading.dice} == {1}, image


@needs_real
def test_candidates_carry_a_square_crop_of_the_top_face() -> None:
    candidates = FaceDetector().find(load_image(REAL_D6 / "five_10.jpg"))
    assert len(candidates) == 1
    face = candidates[0]
    assert face.crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    assert not face.touches_frame_edge
    assert face.layout is not None and face.layout.value == 5
    x, y, w, h = face.box
    assert 280 < x + w / 2 < 360 and 230 < y + h / 2 < 300


@needs_real
def test_faces_found_without_crops_are_the_same_faces() -> None:
    # the learned reader's pip check asks for no crops (its classifier reads layouts alone)
    frame = load_image(REAL_D6 / "valid_70.jpg")
    with_crops, sides = FaceDetector().find_with_side_faces(frame)
    without, sides_without = FaceDetector().find_with_side_faces(frame, crops=False)
    assert len(with_crops) == 5 and sides_without == sides
    assert [(f.box, f.pips, f.layout, f.flags, f.quality) for f in without] == [(f.box, f.pips, f.layout, f.flags, f.quality) for f in with_crops]
    assert all(f.crop.any() for f in with_crops) and not any(f.crop.any() for f in without)


@needs_real
def test_a_die_cut_by_the_frame_edge_is_never_read() -> None:
    frame = load_image(REAL_D6 / "five_10.jpg")
    # the five sits around x 300-350: cut the frame through it
    cut = np.ascontiguousarray(frame[:, :322])
    reading = DiceReader(classifier=PipClassifier()).read(cut)
    assert all(d.status is not DieStatus.OK for d in reading.dice)


@needs_real
def test_a_face_whose_rim_is_cut_but_whose_pips_are_all_in_view_is_read() -> None:
    frame = load_image(REAL_D6 / "five_10.jpg")
    (face,) = FaceDetector().find(frame)
    right = max(p.x + p.diameter for p in face.pips)
    x, _, w, _ = face.box
    edge = int(right + 2)
    assert edge < x + w  # the cut goes through the face's rim
    reading = DiceReader(classifier=PipClassifier()).read(np.ascontiguousarray(frame[:, :edge]))
    assert [(d.value, d.status) for d in reading.dice] == [(5, DieStatus.OK)]


def test_blank_frame_has_no_dice() -> None:
    assert DiceReader(classifier=PipClassifier()).read(np.full((480, 640, 3), 180, dtype=np.uint8)).dice == ()


def test_noise_frame_has_no_dice() -> None:
    rng = np.random.default_rng(3)
    frame = rng.integers(0, 256, (480, 640, 3), dtype=np.uint8)
    assert all(not d.ok for d in DiceReader(classifier=PipClassifier()).read(frame).dice)


class _Always:
    """A classifier that reads every face as the same calibrated label."""

    def classify(self, candidate: FaceCandidate) -> FaceResult:
        return FaceResult(value=None, face="sword", confidence=0.9)


@needs_real
def test_any_classifier_plugs_into_the_reader() -> None:
    assert isinstance(_Always(), FaceClassifier)
    assert isinstance(PipClassifier(), FaceClassifier)
    reading = DiceReader(classifier=_Always()).read(load_image(REAL_D6 / "five_10.jpg"))
    assert [(d.face, d.status) for d in reading.dice] == [("sword", DieStatus.OK)]


def test_reader_repr_is_a_constructor_call() -> None:
    assert repr(DiceReader(classifier=PipClassifier())).startswith("DiceReader(classifier=PipClassifier(")


sim = pytest.importorskip("hardware.sim")


def _tray(seed: int, **scene: Any) -> Any:
    """A seeded rendered tray of five dice (``scene``: :func:`hardware.sim.random_scene` options)."""
    rng = np.random.default_rng(seed)
    return sim.render_tray(sim.random_scene(rng, 5, **scene), rng)


@pytest.mark.parametrize("seed", [1, 11, 21])
def test_rendered_pip_dice_are_read(seed: int) -> None:
    tray = _tray(seed, tilt_deg=20)
    reading = DiceReader(classifier=PipClassifier()).read(tray.frame)
    truth = sorted(d.value for d in tray.truth)
    read = sorted(reading.values)
    # never a wrong value: every value read is one of the dice there
    assert len(read) >= 4
    remaining = list(truth)
    for value in read:
        assert value in remaining
        remaining.remove(value)


@pytest.mark.parametrize("seed", [500, 506, 508])
def test_touching_dice_in_line_with_the_camera_are_both_read(seed: int) -> None:
    # at 25 degrees a die's front face is far more foreshortened than its top, so two faces
    # foreshortened alike, one behind the other, are the tops of two touching dice
    tray = _tray(seed, tilt_deg=25, touching=2)
    reading = DiceReader(classifier=PipClassifier()).read(tray.frame)
    assert sorted(reading.values) == sorted(d.value for d in tray.truth)


@pytest.mark.parametrize("seed", [526, 535, 541])
def test_a_die_cocked_on_a_neighbour_is_reported_cocked(seed: int) -> None:
    # leaning 22-38 degrees on the next die, its faces are foreshortened unlike its neighbours'
    tray = _tray(seed, tilt_deg=25, cocked=1)
    reading = DiceReader(classifier=PipClassifier()).read(tray.frame)
    assert any(d.status is DieStatus.COCKED for d in reading.dice)
    # and no die lying flat is
    (cocked,) = [t for t in tray.truth if t.status is DieStatus.COCKED]
    for die in reading.dice:
        if die.status is DieStatus.COCKED:
            x, y, w, h = cocked.box
            cx, cy = die.box[0] + die.box[2] / 2, die.box[1] + die.box[3] / 2
            assert x - w / 2 <= cx <= x + 1.5 * w and y - h / 2 <= cy <= y + 1.5 * h


def test_a_die_out_of_frame_is_not_read_as_a_value() -> None:
    tray = _tray(4, tilt_deg=25, out_of_frame=1)
    reading = DiceReader(classifier=PipClassifier()).read(tray.frame)
    ok_truth = sorted(d.value for d in tray.truth if d.status is DieStatus.OK)
    assert sorted(reading.values) == ok_truth


def test_symbol_faces_are_unreadable_not_counted() -> None:
    rng = np.random.default_rng(5)
    design = sim.DieDesign.pips_with_emblem(6, "star")
    scene = sim.random_scene(rng, 5, tilt_deg=25, designs=[design], values=[6, 6, 6, 6, 6])
    tray = sim.render_tray(scene, rng)
    reading = DiceReader(classifier=PipClassifier()).read(tray.frame)
    assert 6 not in reading.values
    assert sum(d.status is DieStatus.UNREADABLE for d in reading.dice) >= 3


@needs_real
def test_a_two_spanning_two_faces_of_one_die_is_split_into_its_faces() -> None:
    # steep views of ones: a top face's pip and a pip of the front face fit a "two" about twice
    # the size of the other faces in view; grouped again, the top face's one is found
    for image, values in (("dice_11.jpg", (1, 1)), ("dice_21.jpg", (1, 1, 1)), ("dice_42.jpg", (1, 1, 1, 1, 1))):
        reading = DiceReader(classifier=PipClassifier()).read(load_image(REAL_D6 / image))
        assert reading.all_ok and tuple(sorted(reading.values)) == values, image
        candidates = FaceDetector().find(load_image(REAL_D6 / image))
        assert all(len(c.pips) == 1 for c in candidates), image


@needs_real
@pytest.mark.parametrize(
    "image, values", [("four_16.jpg", (4, 4)), ("two_29.jpg", (2, 2, 2)), ("dice_46.jpg", (1, 1, 1, 1, 1))]
)
@pytest.mark.parametrize("turn", [None, "ROTATE_180", "ROTATE_90_CLOCKWISE", "ROTATE_90_COUNTERCLOCKWISE"])
def test_in_a_view_steeper_than_45_degrees_the_face_further_from_the_camera_is_the_top(
    image: str, values: tuple[int, ...], turn: str | None
) -> None:
    # the front face, on the camera's side of the top face, looks the squarer of the two here; the
    # camera's side is found in the frame, so a camera mounted any way round reads the same
    import cv2

    frame = load_image(REAL_D6 / image)
    if turn is not None:
        frame = np.ascontiguousarray(cv2.rotate(frame, getattr(cv2, turn)))
    reading = DiceReader(classifier=PipClassifier()).read(frame)
    assert reading.all_ok and tuple(sorted(reading.values)) == values


@needs_real
def test_blurred_sixes_whose_pips_sit_on_the_grid_are_read() -> None:
    # motion blur bends some pips' ellipses unlike the others; on the grid they are still one six
    # each (they were read as a three and a two)
    reading = DiceReader(classifier=PipClassifier()).read(load_image(REAL_D6 / "six_46.jpg"))
    assert reading.all_ok and reading.values == (6, 6, 6, 6, 6)


@needs_real
@pytest.mark.parametrize("factor", [1.5, 2.0, 3.0])
def test_a_bigger_camera_frame_reads_as_the_webcam_frame(factor: float) -> None:
    # 960x720 to 1920x1440: pips two to three times the webcam's, too big for a search at full size;
    # a lone die showing a one has a single pip to set the scale by, bigger than its side pips
    import cv2

    for image, values in (("valid_70.jpg", (1, 4, 4, 5, 5)), ("six_56.jpg", (2, 3, 5, 5, 6)), ("dice_1.jpg", (1,))):
        frame = load_image(REAL_D6 / image)
        big = cv2.resize(frame, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)
        reading = DiceReader(classifier=PipClassifier()).read(big)
        assert reading.all_ok and tuple(sorted(reading.values)) == values, image


@needs_real
@pytest.mark.parametrize("image, values", [("dice_13.jpg", (1, 1)), ("valid_70.jpg", (1, 4, 4, 5, 5))])
def test_a_dim_frame_reads_as_a_well_exposed_one(image: str, values: tuple[int, ...]) -> None:
    # under half the light, as a camera's JPEG: a one-pip's contrast falls below what a lone mark
    # needs unless the frame is brightened first
    import cv2

    frame = load_image(REAL_D6 / image)
    dim = np.clip(frame * 0.45, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", dim, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    reading = DiceReader(classifier=PipClassifier()).read(cv2.imdecode(data, cv2.IMREAD_COLOR))
    assert reading.all_ok and tuple(sorted(reading.values)) == values


@needs_real
def test_dice_on_a_dotted_cloth_are_read_and_the_dots_are_not_dice() -> None:
    # a cloth of evenly spaced dark dots links into one group of over a thousand marks
    import cv2

    cloth = np.full((480, 640, 3), 200, dtype=np.uint8)
    for y in range(10, 480, 16):
        for x in range(10, 640, 16):
            cv2.circle(cloth, (x, y), 3, (40, 40, 40), -1)
    assert DiceReader(classifier=PipClassifier()).read(cloth).dice == ()
    frame = cloth.copy()
    frame[230:360, 250:400] = load_image(REAL_D6 / "five_10.jpg")[230:360, 250:400]
    reading = DiceReader(classifier=PipClassifier()).read(frame)
    assert [(d.value, d.status) for d in reading.dice] == [(5, DieStatus.OK)]


@needs_real
def test_a_face_flatter_than_any_top_face_is_not_read() -> None:
    # squashed to 0.43 of its height, the five looks as a side face does from a camera within
    # 45 degrees of straight down: whatever it shows, it is not the top of its die
    import cv2

    frame = load_image(REAL_D6 / "five_10.jpg")
    flat = cv2.resize(frame, (640, 205), interpolation=cv2.INTER_AREA)
    reading = DiceReader(classifier=PipClassifier()).read(np.ascontiguousarray(flat))
    assert reading.dice and all(not d.ok for d in reading.dice)
    squashed = cv2.resize(frame, (640, 384), interpolation=cv2.INTER_AREA)
    assert DiceReader(classifier=PipClassifier()).read(np.ascontiguousarray(squashed)).values == (5,)


def test_the_small_mark_percentile_is_numpys_to_the_last_bit() -> None:
    from vision.detect import _percentile

    rng = np.random.default_rng(11)
    for _ in range(2000):
        values = rng.uniform(0, 255, size=int(rng.integers(1, 40))).tolist()
        assert _percentile(values, 0.75, as_numpy=True) == float(np.percentile(values, 75))
