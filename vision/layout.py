"""Matching a group of pip centres to the six pip layouts of a d6.

Every d6 layout is point-symmetric about the face centre and sits on a 3x3 grid, so a group of pips
is a face when, seen square-on (the pips' own ellipses tell how the face is foreshortened), its points
land on that grid. The fit gives the value and the affine frame of the face, which the detector uses
for the face outline and the rectified crop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Grid spacing (centre pip to side pip) in pip diameters accepted for a face; real dice lie
#: between about 1.1 (big pips) and 2.2 (small pips).
MIN_SPACING = 0.8
MAX_SPACING = 3.2
#: Largest mean distance of a pip from its grid place, in grid spacings (real faces stay under 0.07).
MAX_RESIDUAL = 0.15
#: Smallest ratio of the two axes of the face frame once unwarped (1.0 is a perfect square).
MIN_SQUARENESS = 0.62

#: Half the side of a face in grid spacings (corner pips sit at +-1); real dice give 1.6-2.0.
FACE_HALF_SIDE = 1.8

_CORNERS = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
#: least squares onto the corners is one fixed linear map: the pseudo-inverse, computed once
_CORNERS_PINV = np.linalg.pinv(_CORNERS)
#: grid (1, 1) and (1, -1) as columns, inverted once
_BASIS_INV = np.linalg.inv(np.array([[1.0, 1.0], [1.0, -1.0]]))


@dataclass(frozen=True)
class LayoutFit:
    """A pip layout matched to a group of pips.

    ``center`` is the face centre in pixels; ``frame`` the 2x2 matrix (row-major) taking grid units
    (corner pips at +-1) to pixel offsets; ``spacing`` the grid spacing in pip diameters;
    ``residual`` the mean misplacement of the pips in grid spacings (0 is perfect).
    """

    value: int
    center: tuple[float, float]
    frame: tuple[float, float, float, float]
    spacing: float
    residual: float

    def matrix(self) -> FloatArray:
        a, b, c, d = self.frame
        return np.array([[a, b], [c, d]], dtype=np.float64)

    def to_pixels(self, grid_points: FloatArray) -> FloatArray:
        """Grid coordinates (N, 2) to pixel coordinates (N, 2)."""
        m = self.matrix()
        out: FloatArray = grid_points @ m.T + np.array(self.center)
        return out


def fit_layout(points: FloatArray, unwarp: FloatArray, single_spacing: float = 1.7) -> LayoutFit | None:
    """Fits a pip layout to ``points`` (N, 2 pixel centres).

    ``unwarp`` is the 2x2 matrix taking pixel offsets on this face to square-on coordinates measured
    in pip diameters (from the pips' mean ellipse). ``single_spacing`` sets the frame of a lone pip.
    Returns ``None`` when the points match no layout.
    """
    n = len(points)
    if n < 1 or n > 6:
        return None
    center = points.sum(axis=0) / n  # .mean() without its per-call overhead, same arithmetic
    q = points - center
    r = q @ unwarp.T
    if n == 1:
        m: FloatArray = np.asarray(invert_2x2(unwarp) * single_spacing, dtype=np.float64)
        return _make(1, points[0], m, single_spacing, 0.0)
    if n in (2, 3):
        order = np.argsort(np.hypot(r[:, 0], r[:, 1]))
        mid_error = 0.0
        if n == 3:
            mid = r[order[0]]
            ends = r[order[1:]]
        else:
            mid = np.zeros(2)
            ends = r[order]
        diag = ends[0] - ends[1]
        spacing = float(np.hypot(*diag)) / (2 * math.sqrt(2))
        if not MIN_SPACING <= spacing <= MAX_SPACING:
            return None
        if n == 3:
            # the centre pip must sit on the midpoint of the other two
            mid_error = float(np.hypot(*mid)) + float(np.hypot(*(ends[0] + ends[1]))) / 2
        residual = mid_error / spacing
        if residual > MAX_RESIDUAL:
            return None
        half = diag / 2  # grid (1, 1) in square-on coordinates
        perp = np.array([-half[1], half[0]])  # grid (-1, 1)... rotated a quarter turn
        # columns: frame @ (1,1) = half, frame @ (1,-1) = -perp  =>  solve in square-on space
        cols = np.column_stack([half, -perp])
        m_sq = cols @ _BASIS_INV
        m = invert_2x2(unwarp) @ m_sq  # inverted only for a group that fits
        return _make(n, center, m, spacing, residual)
    # four, five or six pips: corners on a square, plus the centre (5) or the side pips (6)
    radii = np.hypot(r[:, 0], r[:, 1])
    order = np.argsort(radii)
    extra: FloatArray
    if n == 4:
        corners = r
        extra = np.zeros((0, 2))
        extra_grid = np.zeros((0, 2))
    elif n == 5:
        corners = r[order[1:]]
        extra = r[order[:1]]
        extra_grid = np.zeros((1, 2))
    else:
        corners = r[order[2:]]
        extra = r[order[:2]]
        extra_grid = np.zeros((2, 2))
    angles = np.arctan2(corners[:, 1], corners[:, 0])
    corners = corners[np.argsort(angles)]
    # least-squares frame with corners in cyclic order -> (1,1), (-1,1), (-1,-1), (1,-1)
    m_sq = (_CORNERS_PINV @ corners).T
    if _axis_ratio(m_sq) < MIN_SQUARENESS:
        return None
    c0, c1 = m_sq[:, 0], m_sq[:, 1]
    if abs(float(c0 @ c1)) / (float(np.hypot(*c0) * np.hypot(*c1)) + 1e-9) > 0.35:
        return None
    spacing = float(math.sqrt(abs(np.linalg.det(m_sq))))
    if not MIN_SPACING <= spacing <= MAX_SPACING:
        return None
    errors = list(np.hypot(*(corners - _CORNERS @ m_sq.T).T))
    if n == 5:
        errors.append(float(np.hypot(*extra[0])))
    elif n == 6:
        # side pips sit at grid (+-1, 0) or (0, +-1): whichever axis the two of them share
        best = math.inf
        for axis in (np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([[0.0, 1.0], [0.0, -1.0]])):
            predicted = axis @ m_sq.T
            a = np.hypot(*(extra - predicted).T).sum()
            b = np.hypot(*(extra - predicted[::-1]).T).sum()
            best = min(best, float(a), float(b))
        errors.extend([best / 2, best / 2])
    residual = float(np.mean(errors)) / spacing
    if residual > MAX_RESIDUAL:
        return None
    del extra_grid
    return _make(n, center, invert_2x2(unwarp) @ m_sq, spacing, residual)


def invert_2x2(m: FloatArray) -> FloatArray:
    """The inverse of a 2x2 matrix in closed form (numpy's general inverse costs more than the sum)."""
    a, b, c, d = float(m[0, 0]), float(m[0, 1]), float(m[1, 0]), float(m[1, 1])
    det = a * d - b * c
    return np.array([[d, -b], [-c, a]]) / det


def _axis_ratio(m: FloatArray) -> float:
    """Smaller over larger singular value of a 2x2 matrix, in closed form."""
    a, b, c, d = float(m[0, 0]), float(m[0, 1]), float(m[1, 0]), float(m[1, 1])
    # the singular values are half the sum and half the difference of these two lengths
    s = math.hypot(a + d, c - b)
    t = math.hypot(a - d, c + b)
    big, small = (s + t) / 2, abs(s - t) / 2
    return small / big if big > 0 else 0.0


def _make(value: int, center: FloatArray, m: FloatArray, spacing: float, residual: float) -> LayoutFit:
    return LayoutFit(
        value=value,
        center=(float(center[0]), float(center[1])),
        frame=(float(m[0, 0]), float(m[0, 1]), float(m[1, 0]), float(m[1, 1])),
        spacing=spacing,
        residual=residual,
    )


def face_outline(fit: LayoutFit, half_side: float = FACE_HALF_SIDE) -> FloatArray:
    """The four corners (4, 2) of the face in pixels."""
    return fit.to_pixels(_CORNERS * half_side)
