"""Fitting a die's top face to its own edges: drawn squares at any turn with artwork on them, and
rendered dice on a light wooden tray, where the body finder's outline strays."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.sim import Background, DieDesign, DieStyle, random_scene, render_tray
from hardware.sim.render import RenderedTray
from vision.learned import LearnedReader
from vision.profile_reader import FIT_STRENGTH
from vision.square_fit import fit_face_square
from vision.types import DieStatus

WOOD = Background("wood", (170, 205, 222), 5)


def corner_error(corners: np.ndarray, truth: np.ndarray) -> float:
    """Mean distance between the corners of two squares, matched round, as a share of the side."""
    side = float(np.mean(np.linalg.norm(truth - np.roll(truth, -1, axis=0), axis=1)))
    return min(float(np.mean(np.linalg.norm(np.roll(corners, k, axis=0) - truth, axis=1))) for k in range(4)) / side


def drawn_die(turn: float, face: tuple[int, int, int], tray: tuple[int, int, int], ink: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A 200 px frame with a 60 px face turned ``turn`` degrees and a bar of ink across it (drawn at
    eight times the size and shrunk: edges as a camera gives them), and the face's corners."""
    big = np.full((1600, 1600, 3), tray, np.uint8)
    corners = cv2.boxPoints(((800.0, 800.0), (480.0, 480.0), turn))
    cv2.fillPoly(big, [corners.astype(np.int32)], face)
    bar = cv2.boxPoints(((800.0, 760.0), (60.0, 300.0), turn))
    cv2.fillPoly(big, [bar.astype(np.int32)], ink)
    small = cv2.resize(big, (200, 200), interpolation=cv2.INTER_AREA)
    return small, (corners.astype(np.float64) + 0.5) / 8.0 - 0.5


@pytest.mark.parametrize("turn", [0.0, 7.0, 25.0, 44.0, 63.0, 86.0])
@pytest.mark.parametrize(
    "face, tray, ink",
    [((235, 235, 235), (120, 150, 170), (20, 20, 20)), ((30, 30, 30), (60, 110, 50), (240, 240, 240))],
    ids=["white die on wood", "black die on green cloth"],
)
def test_a_turned_face_with_artwork_is_fitted_to_its_edges(turn: float, face: tuple[int, int, int], tray: tuple[int, int, int], ink: tuple[int, int, int]) -> None:
    frame, truth = drawn_die(turn, face, tray, ink)
    # the detector measures a die loosely: a third too big here, and a little off its centre
    fitted = fit_face_square(frame, 102.0, 98.0, 80.0)
    assert fitted is not None
    assert corner_error(fitted.corners, truth) < 0.04
    assert fitted.strength >= 0.2


LIGHT_WOOD, GREEN_FELT = (170, 205, 222), (40, 80, 35)


def drawn_heart_die(
    turn: float, tray: tuple[int, int, int] = LIGHT_WOOD, side_face: bool = False, heart: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """A 200 px frame of ``tray`` with a white 60 px face turned ``turn`` degrees, most of its
    middle a black heart (two lobes and a point: its straight sides run at 45 degrees to the
    die's) and a small number in a corner, drawn as :func:`drawn_die` draws; and the face's corners.
    ``side_face``: a light grey side of the die shows beyond its right edge, as near the frame's edge;
    ``heart``: the heart's size, as a share of the one described."""
    big = np.full((1600, 1600, 3), tray, np.uint8)
    if side_face:
        side = cv2.boxPoints(((800.0 + 280.0 * np.cos(np.radians(turn)), 800.0 + 280.0 * np.sin(np.radians(turn))), (80.0, 480.0), turn))
        cv2.fillPoly(big, [side.astype(np.int32)], (200, 200, 200))
    corners = cv2.boxPoints(((800.0, 800.0), (480.0, 480.0), turn))
    cv2.fillPoly(big, [corners.astype(np.int32)], (240, 240, 240))
    a = np.radians(turn)
    to_frame = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def at(points: list[tuple[float, float]]) -> np.ndarray:
        return (np.asarray(points) @ to_frame.T + 800.0).astype(np.int32)

    for lobe in ((-75.0 * heart, -50.0 * heart), (75.0 * heart, -50.0 * heart)):
        centre = at([lobe])[0]
        cv2.circle(big, (int(centre[0]), int(centre[1])), int(95 * heart), (20, 20, 20), -1)
    cv2.fillPoly(big, [at([(-160.0 * heart, -20.0 * heart), (160.0 * heart, -20.0 * heart), (0.0, 170.0 * heart)])], (20, 20, 20))
    cv2.fillPoly(big, [at([(150.0, 150.0), (200.0, 150.0), (200.0, 200.0), (150.0, 200.0)])], (20, 20, 20))
    small = cv2.resize(big, (200, 200), interpolation=cv2.INTER_AREA)
    return small, (corners.astype(np.float64) + 0.5) / 8.0 - 0.5


@pytest.mark.parametrize("turn", [0.0, 12.0, 20.0, 33.0, 58.0, 75.0])
def test_a_white_die_whose_middle_is_a_black_heart_is_fitted_on_light_wood(turn: float) -> None:
    """The heart's edges stand out from the white body far more than the body from the wood; its
    sides, at 45 degrees to the die's, must not set the face's turn (a face cut across its corners
    loses the number there)."""
    frame, truth = drawn_heart_die(turn)
    fitted = fit_face_square(frame, 102.0, 98.0, 80.0)
    assert fitted is not None
    assert corner_error(fitted.corners, truth) < 0.05
    assert fitted.strength >= 0.2


@pytest.mark.parametrize("heart", [0.7, 1.0], ids=["white in the ring round the centre", "the ring all heart"])
@pytest.mark.parametrize("turn", [0.0, 12.0, 33.0, 45.0, 58.0, 80.0])
def test_a_white_die_sized_by_its_black_heart_is_fitted_on_light_wood(turn: float, heart: float) -> None:
    """The detector may size such a die by its heart (here 44 px for a 60 px face): the colour
    round its centre is then the heart's, and a square of it fits the heart. White, lighter than
    the wood, lies all round that square (a dark die's shadow would be darker), so the die is
    fitted to the white again in a larger window: the square round the heart is the face."""
    frame, truth = drawn_heart_die(turn, heart=heart)
    fitted = fit_face_square(frame, 100.0, 100.0, 44.0)
    assert fitted is not None
    assert corner_error(fitted.corners, truth) < 0.05
    assert fitted.strength >= FIT_STRENGTH


@pytest.mark.parametrize("turn", [0.0, 20.0, 45.0, 70.0])
def test_a_black_die_with_white_pips_and_its_shadow_on_light_wood_is_fitted(turn: float) -> None:
    """A black die is darker than the wood, as a black symbol is, and its white pips are lighter
    than the wood, as a white die round a symbol is: the square fitted to it is the die, whether
    the detector measured it at its size or too big."""
    big = np.full((1600, 1600, 3), LIGHT_WOOD, np.uint8)
    shadow = cv2.boxPoints(((850.0, 840.0), (520.0, 520.0), turn))
    cv2.fillPoly(big, [shadow.astype(np.int32)], (110, 135, 150))
    big = cv2.GaussianBlur(big, (0, 0), 25)
    corners = cv2.boxPoints(((800.0, 800.0), (480.0, 480.0), turn))
    cv2.fillPoly(big, [corners.astype(np.int32)], (30, 30, 30))
    a = np.radians(turn)
    for px, py in ((-120, -120), (120, -120), (0, 0), (-120, 120), (120, 120)):
        x, y = 800 + px * np.cos(a) - py * np.sin(a), 800 + px * np.sin(a) + py * np.cos(a)
        cv2.circle(big, (int(x), int(y)), 45, (235, 235, 235), -1)
    frame = cv2.resize(big, (200, 200), interpolation=cv2.INTER_AREA)
    truth = (corners.astype(np.float64) + 0.5) / 8.0 - 0.5
    for size in (62.0, 80.0):
        fitted = fit_face_square(frame, 100.0, 100.0, size)
        assert fitted is not None
        assert corner_error(fitted.corners, truth) < 0.05, size
        assert fitted.strength >= FIT_STRENGTH


@pytest.mark.parametrize("side_face", [False, True], ids=["face alone", "side face showing"])
@pytest.mark.parametrize("turn", [0.0, 20.0, 45.0, 70.0])
def test_a_heart_covering_the_middle_of_a_white_die_on_dark_felt_is_not_taken_for_the_die(turn: float, side_face: bool) -> None:
    """On dark felt the heart is the colour round the die's centre, and as far from the felt as
    the die's white: a square fitted to it has white all round it, so it is not the face. Where a
    side face spoils one of the die's edges, no fit strong enough to cut by is better than the heart."""
    frame, truth = drawn_heart_die(turn, GREEN_FELT, side_face)
    fitted = fit_face_square(frame, 100.0, 100.0, 62.0)
    assert fitted is not None
    if side_face:
        assert fitted.strength < FIT_STRENGTH or corner_error(fitted.corners, truth) < 0.05
    else:
        assert corner_error(fitted.corners, truth) < 0.05
        assert fitted.strength >= 0.2


def drawn_die_seen_off_vertical(turn: float, sides: tuple[int, ...], tray: tuple[int, int, int] = GREEN_FELT) -> tuple[np.ndarray, np.ndarray]:
    """A 200 px frame of ``tray`` with a white 60 px top face turned ``turn`` degrees, a sword across
    it and a small number near one edge, and beyond its edges ``sides`` (0-3: right, bottom, left,
    top as the face lies) a shaded side face a quarter of the face wide, as a camera 15-20 degrees
    off vertical sees a die; drawn as :func:`drawn_die` draws. Also the top face's corners."""
    big = np.full((1600, 1600, 3), tray, np.uint8)
    a = np.radians(turn)
    to_frame = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def at(points: list[tuple[float, float]]) -> np.ndarray:
        return (np.asarray(points) @ to_frame.T + 800.0).astype(np.int32)

    band = 120.0
    outward = {0: (1, 0), 1: (0, 1), 2: (-1, 0), 3: (0, -1)}
    for index in sides:
        ux, uy = outward[index]
        # the side face: the face's edge and the same edge moved out by ``band``, shaded
        edge = [(240.0 * ux - 240.0 * uy, 240.0 * uy - 240.0 * ux), (240.0 * ux + 240.0 * uy, 240.0 * uy + 240.0 * ux)]
        outer = [(x + band * ux, y + band * uy) for x, y in reversed(edge)]
        cv2.fillPoly(big, [at(edge + outer)], (120, 125, 125))
    corners = at([(-240.0, -240.0), (240.0, -240.0), (240.0, 240.0), (-240.0, 240.0)])
    cv2.fillPoly(big, [corners], (240, 240, 240))
    cv2.fillPoly(big, [at([(-25.0, -180.0), (25.0, -180.0), (25.0, 180.0), (-25.0, 180.0)])], (20, 20, 20))
    cv2.fillPoly(big, [at([(-110.0, -80.0), (110.0, -80.0), (110.0, -40.0), (-110.0, -40.0)])], (20, 20, 20))
    cv2.fillPoly(big, [at([(150.0, 160.0), (190.0, 160.0), (190.0, 215.0), (150.0, 215.0)])], (20, 20, 20))
    small = cv2.resize(big, (200, 200), interpolation=cv2.INTER_AREA)
    exact = (np.array([[-240.0, -240.0], [240.0, -240.0], [240.0, 240.0], [-240.0, 240.0]]) @ to_frame.T + 800.0 + 0.5) / 8.0 - 0.5
    return small, exact


@pytest.mark.parametrize("sides", [(0,), (1, 2), (3,)], ids=["one side face", "two side faces", "a side face the other way"])
@pytest.mark.parametrize("turn", [0.0, 20.0, 45.0, 70.0])
def test_a_die_seen_off_vertical_is_fitted_to_its_top_face_not_its_side_faces(turn: float, sides: tuple[int, ...]) -> None:
    """Seen off vertical, a die shows side faces beside its top face, shaded between the top face's
    level and the tray's: the square round the whole die (its side faces too) would cut the top
    face's number off its place in the crop. The top face ends at its own step down to them."""
    frame, truth = drawn_die_seen_off_vertical(turn, sides)
    fitted = fit_face_square(frame, 100.0, 100.0, 85.0)
    assert fitted is not None
    assert corner_error(fitted.corners, truth) < 0.05
    assert fitted.strength >= FIT_STRENGTH


@pytest.mark.parametrize("turn", [0.0, 30.0])
def test_a_dark_number_near_the_edge_or_a_shadow_is_no_side_face(turn: float) -> None:
    """A die seen straight down keeps its whole face: the dark number near its edge steps down and
    up again, and its shadow lies darker than the tray, neither between tray and face."""
    frame, truth = drawn_die_seen_off_vertical(turn, ())
    fitted = fit_face_square(frame, 100.0, 100.0, 85.0)
    assert fitted is not None and corner_error(fitted.corners, truth) < 0.04
    big = np.full((1600, 1600, 3), LIGHT_WOOD, np.uint8)
    cv2.fillPoly(big, [cv2.boxPoints(((870.0, 860.0), (520.0, 520.0), turn)).astype(np.int32)], (110, 135, 150))
    corners = cv2.boxPoints(((800.0, 800.0), (480.0, 480.0), turn))
    cv2.fillPoly(big, [corners.astype(np.int32)], (250, 250, 250))
    shadowed = cv2.resize(big, (200, 200), interpolation=cv2.INTER_AREA)
    fitted = fit_face_square(shadowed, 100.0, 100.0, 85.0)
    assert fitted is not None and corner_error(fitted.corners, (corners.astype(np.float64) + 0.5) / 8.0 - 0.5) < 0.04


def fits_of_rendered_dice(reader: LearnedReader, tray: RenderedTray) -> list[tuple[float, float]]:
    """For each die of a rendered tray lying flat that the detector finds, the square fitted where
    it found it: its corner error against the true top face, and its strength ((1, 0) for no fit)."""
    found = reader.find(tray.frame)
    out = []
    for truth in tray.truth:
        x, y, w, h = truth.box
        near = [f for f in found if abs(f.cx - (x + w / 2)) < w / 2 and abs(f.cy - (y + h / 2)) < h / 2]
        if truth.status is not DieStatus.OK or not near:
            continue
        fitted = fit_face_square(tray.frame, near[0].cx, near[0].cy, near[0].size)
        out.append((corner_error(fitted.corners, np.asarray(truth.quad)), fitted.strength) if fitted is not None else (1.0, 0.0))
    return out


def test_rendered_hero_dice_seen_off_vertical_on_dark_trays_are_fitted_to_their_top_faces() -> None:
    """Hero dice on dark trays seen 12-20 degrees off vertical: of the fits strong enough to cut by,
    most lie within a twentieth of a side of the true top face (86 %; 69 % with the side faces taken
    in: a side face lit almost as the top face, or with its artwork across the band, stays in)."""
    rng = np.random.default_rng(33)
    reader = LearnedReader()
    errors = []
    for colour in ((60, 40, 120), (30, 30, 30)):
        for _ in range(10):
            scene = random_scene(
                rng, 2, designs=[DieDesign.barbarian()], styles=[DieStyle()], tilt_deg=float(rng.uniform(12, 20)),
                background=Background("plain", colour, 5), die_px=float(rng.uniform(50, 80)),
            )  # fmt: skip
            fits = fits_of_rendered_dice(reader, render_tray(scene, rng))
            errors.extend(error for error, strength in fits if strength >= FIT_STRENGTH)
    assert len(errors) >= 20, errors
    assert np.mean(np.array(errors) < 0.05) >= 0.8, errors


def test_corners_start_top_left_and_go_clockwise() -> None:
    frame, _ = drawn_die(20.0, (235, 235, 235), (120, 150, 170), (20, 20, 20))
    fitted = fit_face_square(frame, 100.0, 100.0, 75.0)
    assert fitted is not None
    c = fitted.corners
    assert int(np.argmin(c[:, 0] + c[:, 1])) == 0
    # clockwise as the image shows it (y down): a positive cross product of the first two sides
    first, second = c[1] - c[0], c[2] - c[1]
    assert first[0] * second[1] - first[1] * second[0] > 0


def test_nothing_to_fit_is_none() -> None:
    blank = np.full((120, 120, 3), 128, np.uint8)
    assert fit_face_square(blank, 60.0, 60.0, 40.0) is None  # no die set off from the tray
    frame, _ = drawn_die(10.0, (235, 235, 235), (120, 150, 170), (20, 20, 20))
    assert fit_face_square(frame, 100.0, 100.0, 5.0) is None  # too small to fit
    assert fit_face_square(frame, 100.0, 100.0, float("nan")) is None


def test_a_die_at_the_frame_edge_is_fitted_past_it() -> None:
    frame, truth = drawn_die(15.0, (235, 235, 235), (120, 150, 170), (20, 20, 20))
    cut = np.ascontiguousarray(frame[:, 60:])
    fitted = fit_face_square(cut, 40.0, 100.0, 80.0)
    assert fitted is not None
    assert corner_error(fitted.corners, truth - np.array([60.0, 0.0])) < 0.08


def test_rendered_hero_dice_on_light_wood_are_fitted() -> None:
    """Hero dice on a light wooden tray with their shadows: where the detector finds a die and the
    fit is strong enough for the reader to cut by it (``FIT_STRENGTH``), most dice, the fitted face
    lies within a tenth of its side of the true face."""
    rng = np.random.default_rng(31)
    reader = LearnedReader()
    errors = []
    for _ in range(12):
        scene = random_scene(rng, 2, designs=[DieDesign.barbarian()], styles=[DieStyle()], tilt_deg=0, background=WOOD, die_px=float(rng.uniform(44, 80)))
        errors.extend(fits_of_rendered_dice(reader, render_tray(scene, rng)))
    used = [error for error, strength in errors if strength >= FIT_STRENGTH]
    assert len(errors) >= 18 and len(used) >= 0.75 * len(errors), errors
    assert np.mean(np.array(used) < 0.1) >= 0.9, errors


@pytest.mark.parametrize("count", [1, 2, 7, 400, 401])
def test_row_medians_are_numpys_medians(count: int) -> None:
    from vision.square_fit import _row_medians

    values = np.random.default_rng(count).normal(size=(3, count)).astype(np.float32)
    values[0, : count // 2] = 5.0  # ties
    assert np.array_equal(_row_medians(values), np.median(values, axis=1))
    strided = values[:, ::2]
    assert np.array_equal(_row_medians(strided), np.median(strided, axis=1))
