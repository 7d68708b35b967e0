import math

import numpy as np
import pytest

from vision.layout import fit_layout

LAYOUTS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _seen(value: int, angle_deg: float, squash: float, spacing_px: float = 12.0):
    """Pip centres of a face rotated by ``angle_deg`` and foreshortened by ``squash`` vertically,
    with the matching unwarp for 8 px pips."""
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    squash_m = np.diag([1.0, squash])
    grid = np.array(LAYOUTS[value], dtype=float) * spacing_px
    points = grid @ rot.T @ squash_m.T + np.array([200.0, 150.0])
    unwarp = np.linalg.inv(squash_m) / 8.0
    return points, unwarp


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0, 17, 45, 80])
@pytest.mark.parametrize("squash", [1.0, 0.75])
def test_every_layout_is_found_at_any_turn_and_tilt(value: int, angle: float, squash: float) -> None:
    points, unwarp = _seen(value, angle, squash)
    fit = fit_layout(points, unwarp)
    assert fit is not None and fit.value == value
    assert fit.center == pytest.approx((200.0, 150.0), abs=1e-6)


def test_seven_pips_are_no_face() -> None:
    points, unwarp = _seen(6, 0, 1.0)
    assert fit_layout(np.vstack([points, [[200.0, 150.0]]]), unwarp) is None


def test_a_bent_row_is_no_three() -> None:
    points, unwarp = _seen(3, 0, 1.0)
    points[1] += [7.0, -7.0]
    assert fit_layout(points, unwarp) is None


def test_a_lopsided_five_is_no_five() -> None:
    points, unwarp = _seen(5, 0, 1.0)
    points[0] += [-14.0, 0.0]
    assert fit_layout(points, unwarp) is None


def test_pips_too_far_apart_for_their_size_are_no_two() -> None:
    points, unwarp = _seen(2, 0, 1.0, spacing_px=40.0)
    assert fit_layout(points, unwarp) is None
