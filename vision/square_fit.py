"""The square of a die's top face, fitted to the die's own edges.

The learned detector says where a die is and about how big (within a third or so: a die whose face
is artwork is measured loosely), not how it is turned. The rule-based finders outline a die by its
colour against the tray, which a light tray with grain and the soft shadow round each die pull
off the die. :func:`fit_face_square` fits the face to the die itself:

1. how much each pixel near the die looks like the die's body rather than the tray (its colour
   on the line from the tray's colour, seen round the die, to the body's, seen in a ring round
   the die's centre, where artwork leaves some body; where a big symbol covers most of that
   ring, the body may be the ring's other colour, and the die is fitted both ways, a square with
   the body all round it being the symbol, not the face; a dark square with lighter than the tray
   all round it is a dark symbol on a light die, which the detector may have sized by its symbol:
   the die is fitted again to its light colour in a larger window, and a square round the
   symbol is the face);
2. how the die is turned: the direction its strong edges share modulo a quarter turn, counted
   with every colour beyond the body's or the tray's held at theirs (a black heart's edges on a
   white die on light wood are far stronger than the die's own, and run at 45 degrees to them);
3. turned upright, the square whose four sides step from tray up to die body most strongly, along
   their whole length (the median along each line: a face's edge runs straight across the die,
   artwork's edges cross a line only here and there). Artwork is drawn to stand out from the
   body, so its edges step the other way and do not count;
4. seen off vertical, a die shows one or two side faces beside its top face, shaded between the
   tray and the top face: the square round the whole die would put the top face's corner number
   off its place in the crop, so a side with such a band inside it is moved in to the top face's
   own step down to the band (the face is then a rectangle, as it looks from there).

The fit says how sure it is (:attr:`FittedSquare.strength`): the weakest side's step as a share of
the strongest contrast with the tray round the die (its body's or its artwork's). A black die on a
dark cloth, or its shadow, leaves that weak.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Frame = npt.NDArray[np.uint8]
Corners = npt.NDArray[np.float64]

#: The die is fitted at about this many pixels across (a bigger one is shrunk first, by a
#: whole factor: the fit costs about the same for any die, and a die's edges are plain at that size).
WORK_SIZE = 40.0
#: The top face's side, as a share of the detector's size of the die, looked for: from a die
#: measured twice too big to one measured a twentieth too small.
SIDE_RANGE = (0.5, 1.05)
#: How far the face's centre may lie from where the detector put the die (share of its size).
CENTRE_REACH = 0.2
#: A bigger square is favoured, its steps' strength times its side to this power: a face's
#: corner numbers or a row of pips can step the same way as its edges, over a smaller square.
BIGGER = 1.0
#: The least contrast (grey levels, on the line from tray to body) between a die and its tray
#: that a fit is tried on.
MIN_CONTRAST = 8.0
#: Bins of the edge-direction histogram over a quarter turn.
DIRECTION_BINS = 90


@dataclass(frozen=True)
class FittedSquare:
    """A top face fitted to the die's edges: its corners (top left, then clockwise as the image
    shows it; a square, or a rectangle where a side face showed beside it) and ``strength``, the
    weakest side's step from tray to die as a share of the strongest contrast with the tray round
    the die (0.2 or more for most dice plain against their tray)."""

    corners: Corners
    strength: float
    #: The level just beyond the face's sides (their median), as a share of the body's: about 0
    #: round a die on its tray, well below 0 round a symbol on its die's body (beyond it lies a
    #: colour on the other side of the tray's from the one fitted to). Measured only where the
    #: fit may be a symbol's: the ring round the die's centre has a second colour, or the body is
    #: darker than the tray (:func:`fit_face_square`); else 0.
    beyond: float = 0.0


@functools.lru_cache(maxsize=8)
def _radii(side: int) -> npt.NDArray[np.float32]:
    """Each pixel's distance from the middle of a ``side`` square."""
    c = (side - 1) / 2.0
    yy, xx = np.mgrid[0:side, 0:side]
    return np.asarray(np.hypot(xx - c, yy - c), np.float32)


def _window(image: Frame, cx: float, cy: float, span: int, side: int) -> tuple[npt.NDArray[np.float32], float, float]:
    """The square of ``image`` ``span`` pixels wide round (cx, cy), on whole pixels, the image's
    edge repeated where it reaches past it, shrunk to ``side`` pixels by area (a die's fine edges
    kept, not aliased); and the point of ``image`` at its middle."""
    h, w = image.shape[:2]
    x0, y0 = int(round(cx - (span - 1) / 2.0)), int(round(cy - (span - 1) / 2.0))
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + span), min(h, y0 + span)
    if xb <= xa or yb <= ya:
        xa, ya = min(max(0, x0), w - 1), min(max(0, y0), h - 1)
        xb, yb = xa + 1, ya + 1  # a die wholly off the image: its nearest pixel repeated
    patch: Any = image[ya:yb, xa:xb]
    if (xa, ya, xb, yb) != (x0, y0, x0 + span, y0 + span):
        top, left = max(0, ya - y0), max(0, xa - x0)
        patch = cv2.copyMakeBorder(patch, top, span - top - (yb - ya), left, span - left - (xb - xa), cv2.BORDER_REPLICATE)
    if span != side:
        patch = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
    return np.asarray(patch, np.float32), x0 + (span - 1) / 2.0, y0 + (span - 1) / 2.0


@functools.lru_cache(maxsize=64)
def _rings(side: int, work: float) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The pixels (flat indices, every third) of a ``side`` window outside the die, where the tray
    shows, and those of the ring round the die's centre where its body shows between the artwork."""
    flat = _radii(side).ravel()
    return np.flatnonzero(flat > 0.85 * work)[::3], np.flatnonzero((flat > 0.15 * work) & (flat < 0.32 * work))


@functools.lru_cache(maxsize=64)
def _edge_ring(side: int, work: float) -> npt.NDArray[np.intp]:
    """The pixels (flat indices) of a ``side`` window where a die ``work`` pixels across has its edges."""
    flat = _radii(side).ravel()
    return np.flatnonzero((flat > 0.2 * work) & (flat < 0.75 * work))


def _colours(window: npt.NDArray[np.float32], size: float) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
    """The tray's colour round the die, the body's (the median of the ring round its centre), and
    the body's other likely colour: where a big symbol covers most of that ring (a black heart on
    a white die), the median is the symbol's colour, so where a good share of the ring
    (:data:`ARTWORK_SHARE`) lies nearer the tray's colour than to that median (on the line between
    them), the median of those pixels (else ``None``)."""
    channels = window.shape[2] if window.ndim == 3 else 1
    pixels = window.reshape(-1, channels)
    ring = _rings(window.shape[0], round(size * 2.0) / 2.0)[1]
    tray = _tray_colour(window, size)
    body = _row_medians(pixels[ring].T)
    towards = (body - tray).astype(np.float32)
    spread = float(towards @ towards)
    if spread < MIN_CONTRAST**2:
        return tray, body, None
    ringed = pixels[ring]
    rest = ringed[(ringed - tray) @ towards / np.float32(spread) < 0.5]
    other = _row_medians(np.ascontiguousarray(rest.T)) if len(rest) >= ARTWORK_SHARE * len(ring) else None
    return tray, body, other


def _tray_colour(window: npt.NDArray[np.float32], size: float) -> npt.NDArray[np.float32]:
    """The tray's colour round the die (the median of the window outside it)."""
    channels = window.shape[2] if window.ndim == 3 else 1
    return _row_medians(window.reshape(-1, channels)[_rings(window.shape[0], round(size * 2.0) / 2.0)[0]].T)


#: The share of the ring round a die's centre that, lying nearer the tray's colour than to the
#: ring's median colour, makes that median perhaps a symbol's colour (:func:`_colours`).
ARTWORK_SHARE = 0.25


def _level(
    window: npt.NDArray[np.float32], tray: npt.NDArray[np.float32], body: npt.NDArray[np.float32]
) -> tuple[npt.NDArray[np.float32], float] | None:
    """Each pixel's colour on the line from ``tray`` (0) towards ``body`` (its distance from the
    tray, returned beside the map); ``None`` where they are nearer than :data:`MIN_CONTRAST`."""
    channels = window.shape[2] if window.ndim == 3 else 1
    axis = (body - tray).astype(np.float32)
    contrast = float(np.linalg.norm(axis))
    if contrast < MIN_CONTRAST:
        return None
    unit = axis / np.float32(contrast)
    # One pass over the window: each pixel's colour dotted with the unit axis, less the tray's.
    projection = np.append(unit, -np.float32(tray @ unit)).astype(np.float32)[None, :]
    level: Any = cv2.transform(window.reshape(window.shape[0], window.shape[1], channels), projection)
    return np.asarray(level, np.float32).reshape(window.shape[:2]), contrast


def _row_medians(values: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The median of each row (the mean of the two middle values of an even row, as
    :func:`numpy.median` takes it), a fraction of its time on the few hundred values a fit has."""
    rows = np.ascontiguousarray(values)
    n = rows.shape[1]
    lower, upper = (n - 1) // 2, n // 2
    middle = np.partition(rows, (lower, upper), axis=1)
    out: npt.NDArray[np.float32] = (middle[:, lower] + middle[:, upper]) * rows.dtype.type(0.5)
    return out


def _gradients(level: npt.NDArray[np.float32], sigma: float) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    smooth = cv2.GaussianBlur(level, (0, 0), sigma)
    across = np.asarray(cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3), np.float32)
    down = np.asarray(cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3), np.float32)
    return across, down


def _turn(gx: npt.NDArray[np.float32], gy: npt.NDArray[np.float32], size: float) -> float:
    """How far the die is turned (degrees, 0-90): the direction the strong edges round the centre
    share modulo a quarter turn."""
    ring = _edge_ring(gx.shape[0], round(size * 2.0) / 2.0)
    x, y = gx.ravel()[ring], gy.ravel()[ring]
    weight = x * x + y * y
    angle = np.degrees(np.arctan2(y, x)) % 90.0
    bins = (angle * DIRECTION_BINS / 90.0).astype(np.intp) % DIRECTION_BINS
    histogram = np.bincount(bins, weights=weight, minlength=DIRECTION_BINS)
    # Smoothed round the quarter turn: 0 and 89 degrees are neighbours.
    smoothed = np.convolve(np.concatenate([histogram[-3:], histogram, histogram[:3]]), np.ones(7) / 7.0, mode="valid")
    peak = int(np.argmax(smoothed))
    left, centre, right = smoothed[peak - 1], smoothed[peak], smoothed[(peak + 1) % DIRECTION_BINS]
    curve = left - 2.0 * centre + right
    offset = 0.5 * (left - right) / curve if curve < 0 else 0.0
    return float(((peak + 0.5 + offset) * 90.0 / DIRECTION_BINS) % 90.0)


def _best_pairs(
    profile: npt.NDArray[np.float64], centre: float, sides: npt.NDArray[np.intp], reach: float, both_step: bool = False
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.intp]]:
    """For each side length, the strongest pair of edges that far apart, the first stepping up to
    the die and the second down from it (with ``both_step``, each of them: a strong edge and a
    stretch of tray or artwork do not make a face), whose middle lies within ``reach`` of
    ``centre``: their summed step and where the first lies (-inf where no pair fits)."""
    n = len(profile)
    starts = np.arange(n)[None, :]
    ends = starts + sides[:, None]
    middles = starts + sides[:, None] / 2.0
    fits = (ends < n) & (np.abs(middles - centre) <= reach)
    last = profile[np.minimum(ends, n - 1)]
    if both_step:
        fits &= (profile[None, :] > 0) & (last < 0)
    pairs = np.where(fits, profile[None, :] - last, -np.inf)
    best = np.argmax(pairs, axis=1)
    return pairs[np.arange(len(sides)), best], best


def fit_face_square(image: Frame, cx: float, cy: float, size: float, *, every_side_steps: bool = False) -> FittedSquare | None:
    """The top face of the die the detector put at (cx, cy), ``size`` across (the whole die),
    fitted to the die's edges; ``None`` for a die under 8 pixels or hardly set off from its tray.

    ``every_side_steps``: of the squares, those whose four sides each step up to the die come
    first. For the one die of a calibration photo that nothing else outlines: a bigger square is
    favoured (:data:`BIGGER`), and one with a stretch of tray for a side may win over the die's
    own face (a white die on light wood, which the detector may also size up to nearly twice too
    big). At the table the finders' outline serves such a die better than a square inside it,
    which its artwork may make (measured: more wrong numbers on wood)."""
    if not np.isfinite(size) or size < 8.0:
        return None
    window, mx, my, shrink, work = _die_window(image, cx, cy, size)
    tray, body, other = _colours(window, work)

    # A body darker than the tray may be a dark symbol on a lighter die: what lies beyond a
    # square fitted to it tells (a dark die's shadow is darker than the tray, a light die lighter).
    dark = float(body.sum()) < float(tray.sum())
    measure = other is not None or dark

    def fitted_to(level: tuple[npt.NDArray[np.float32], float] | None) -> FittedSquare | None:
        # what lies beyond the square is asked only where it may be a symbol
        return _fit_level(*level, work, shrink, mx, my, every_side_steps, beyond=measure) if level is not None else None

    body_level = _level(window, tray, body)
    fitted = fitted_to(body_level)
    strong = fitted is not None and fitted.strength >= FIT_STRENGTH and fitted.beyond > SYMBOL_BEYOND
    # A dark square with lighter than the tray all round it: a symbol on a light die hardly
    # lighter than its tray (a black heart on a white die on light wood), which the detector may
    # size by its symbol.
    symbol = dark and fitted is not None and fitted.beyond < -DARK_SYMBOL_BEYOND
    if strong and not symbol:
        return fitted
    # A dark body whose fit is weak or a symbol's: the die may be the lighter colour round it,
    # fitted again in a larger window, a face only with the tray (or its shadow) round it.
    light = other if other is not None and float(other.sum()) > float(body.sum()) else None
    if light is None and symbol and body_level is not None:
        light = _lighter_than_tray(window, *body_level)
    wider = _fit_colour(image, cx, cy, size * LARGER, light, every_side_steps) if dark and light is not None else None
    if wider is not None and wider.beyond > ON_TRAY:
        wider = None
    if strong and fitted is not None:
        # Of two strong squares, a larger one round the first is the face: a face holds its symbol.
        return wider if wider is not None and _holds(wider, fitted) else fitted
    if other is None and wider is None:
        return fitted
    # The body's colour may be a symbol's: fitted to the other colour too, and a square with the
    # body all round it is the symbol.
    tries = (fitted, fitted_to(_level(window, tray, other)) if other is not None else None, wider)
    fits = [f for f in tries if f is not None and f.beyond > SYMBOL_BEYOND]
    return max(fits, key=lambda f: f.strength, default=None)


def _lighter_than_tray(window: npt.NDArray[np.float32], level: npt.NDArray[np.float32], contrast: float) -> npt.NDArray[np.float32] | None:
    """The median colour of the window's pixels lying the other way from the tray than the body
    (``level``, :func:`_level` of the window towards the body, ``contrast`` apart), by
    :data:`DARK_SYMBOL_BEYOND` of the contrast or more: the light die round a dark symbol."""
    lighter = level < -DARK_SYMBOL_BEYOND * contrast
    if not lighter.any():
        return None
    channels = window.shape[2] if window.ndim == 3 else 1
    return _row_medians(np.ascontiguousarray(window.reshape(-1, channels)[lighter.ravel()].T))


#: A face fitted to a die's own edges this strongly or more (:attr:`FittedSquare.strength`) is cut
#: where the fit puts it; a weaker fit (a die hardly set off from its tray) is left to the finders.
#: Chosen on rendered dice of three kinds on felt and wood at seed 12 (the fits within 0.1 of a
#: side of the true face: 98 % this strong; those off by 0.15 or more: 16 %). A fit of the ring's
#: median colour this strong, with tray round it, is not fitted again to the ring's other colour.
FIT_STRENGTH = 0.2


#: A square fitted to a colour darker than the tray, with surroundings lighter than the tray by
#: this share of its contrast or more (:attr:`FittedSquare.beyond`), is a dark symbol on a lighter
#: die: a dark die's own shadow lies darker than the tray round it, not lighter. (A white die round
#: a black heart on light wood lies 0.2-0.7 of the way.)
DARK_SYMBOL_BEYOND = 0.15
#: A light die fitted round a dark symbol has the tray round it, or its own shadow (darker than
#: the tray): a square with its own colour round it by more than this share of its contrast is
#: not its face (the pale pips of a green die fitted inside the die lie at about 0.56).
ON_TRAY = 0.25
#: A die whose first fit may be its symbol is fitted to its lighter colour again, this much larger.
LARGER = 1.4
#: A square holds another (:func:`_holds`) when this much larger or more.
HOLDS = 1.2


def mean_side(corners: npt.ArrayLike) -> float:
    """The mean length of the sides of a quadrilateral given by its corners in order."""
    quad = np.asarray(corners, np.float64)
    return float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))


def _holds(face: FittedSquare, symbol: FittedSquare) -> bool:
    """Whether ``face`` is a strong fit, not itself a symbol, at least :data:`HOLDS` times as large
    as ``symbol``, with the symbol's centre well inside it."""
    if face.strength < FIT_STRENGTH or face.beyond <= SYMBOL_BEYOND or mean_side(face.corners) < HOLDS * mean_side(symbol.corners):
        return False
    offset = np.abs(symbol.corners.mean(axis=0) - face.corners.mean(axis=0))
    return bool(np.all(offset < 0.25 * mean_side(face.corners)))


def _die_window(image: Frame, cx: float, cy: float, size: float) -> tuple[npt.NDArray[np.float32], float, float, int, float]:
    """The window two dice across round the die at (cx, cy), ``size`` across, shrunk by a whole
    factor (each window pixel the mean of a block of the frame's) to about :data:`WORK_SIZE` a die:
    the window, the point of ``image`` at its middle, the factor and the die's size in the window."""
    shrink = max(1, int(round(size / WORK_SIZE)))
    side = int(np.ceil(2.0 * size / shrink)) | 1
    window, mx, my = _window(image, cx, cy, side * shrink, side)
    return window, mx, my, shrink, size / shrink


def _fit_colour(image: Frame, cx: float, cy: float, size: float, colour: npt.NDArray[np.float32], every_side_steps: bool) -> FittedSquare | None:
    """The square fitted to ``colour`` round the die at (cx, cy), ``size`` across, against the tray round it."""
    window, mx, my, shrink, work = _die_window(image, cx, cy, size)
    level = _level(window, _tray_colour(window, work), colour)
    return _fit_level(*level, work, shrink, mx, my, every_side_steps, beyond=True) if level is not None else None


#: A square whose surroundings lie this far (a share of the body's level) the other way from the
#: tray is a symbol fitted in place of its die (:attr:`FittedSquare.beyond`): a white die round a
#: black heart on green felt lies about 5 times as far; a die's own shadow on light wood, where
#: the die is hardly lighter than the wood, under 1.
SYMBOL_BEYOND = -2.0


def _fit_level(
    level: npt.NDArray[np.float32], body: float, work: float, shrink: int, mx: float, my: float, every_side_steps: bool, beyond: bool
) -> FittedSquare | None:
    """The square fitted to ``level`` (:func:`_level` of a window, ``work`` pixels a die,
    shrunk ``shrink`` times, whose middle is (mx, my) in the image; the body at ``body``), in the
    image's pixels; with ``beyond``, :attr:`FittedSquare.beyond` measured (else 0)."""
    side = level.shape[0]
    sigma = max(0.7, work / 60.0)
    # The turn from the level held between tray and body: artwork stands out from the body more
    # than the body from the tray (a black heart on a white die on light wood), and its curved
    # edges, counted at full strength, would outweigh the die's own straight ones.
    gx, gy = _gradients(np.clip(level, 0.0, body), sigma)
    turn = _turn(gx, gy, work)
    c = (side - 1) / 2.0
    # Turned so that the die's edges run along the rows and columns of the window.
    matrix = cv2.getRotationMatrix2D((c, c), turn, 1.0)
    upright = cv2.warpAffine(level, matrix, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ux, uy = _gradients(np.asarray(upright, np.float32), sigma)
    band = slice(max(0, int(c - 0.3 * work)), int(c + 0.3 * work) + 1)
    columns = _row_medians(ux[band, :].T).astype(np.float64)
    rows = _row_medians(uy[:, band]).astype(np.float64)
    sides = np.arange(max(4, int(SIDE_RANGE[0] * work)), int(SIDE_RANGE[1] * work) + 1)
    sides = sides[sides < side - 2]
    if not len(sides):
        return None
    total = np.full(len(sides), -np.inf)
    if every_side_steps:
        across, lefts = _best_pairs(columns, c, sides, CENTRE_REACH * work, both_step=True)
        down, tops = _best_pairs(rows, c, sides, CENTRE_REACH * work, both_step=True)
        total = across + down
    if not np.isfinite(total).any():
        # The strongest square, whether or not its every side steps up to the die: its strength
        # says how weak the weakest is (a black die on a dark cloth, its sides hardly there).
        across, lefts = _best_pairs(columns, c, sides, CENTRE_REACH * work)
        down, tops = _best_pairs(rows, c, sides, CENTRE_REACH * work)
        total = across + down
    if not np.isfinite(total).any():
        return None
    best = int(np.argmax(np.where(np.isfinite(total), total, -np.inf) * (sides / work) ** BIGGER))
    d, x0, y0 = int(sides[best]), int(lefts[best]), int(tops[best])
    steps = (columns[x0], -columns[x0 + d], rows[y0], -rows[y0 + d])
    around = _beyond(np.asarray(upright, np.float32), x0, y0, d) / body if beyond else 0.0
    # Seen off vertical, a die shows side faces beside its top face: along each axis, a side moved
    # in to the top face's own edge where a side face lies between (the strength stays the die's).
    flat = np.asarray(upright, np.float32)
    strongest = float(max(steps))
    x0, x1 = _without_side_face(columns, lambda: _row_medians(flat[band, :].T), x0, x0 + d, body, strongest)
    y0, y1 = _without_side_face(rows, lambda: _row_medians(flat[:, band]), y0, y0 + d, body, strongest)
    upright_corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
    back = cv2.invertAffineTransform(matrix)
    in_window = upright_corners @ back[:, :2].T + back[:, 2]
    corners = (in_window - c) * shrink + np.array([mx, my])
    return FittedSquare(_top_left_first(corners), float(min(steps)) / max(1e-6, float(np.max(np.abs(level)))), around)


#: A side face seen beside the top face (a view off vertical) is shaded between the tray's level
#: and the top face's: at this share of the body's level, at least and at most.
SIDE_FACE_LEVELS = (0.1, 0.8)
#: ... as wide as this share of the square's side, at least and at most (about 0.35 at 20 degrees
#: off vertical; under 0.06 the two steps blur into one).
SIDE_FACE_WIDTHS = (0.06, 0.4)
#: The top face's step down to its side face is at least this share of the side face's step down
#: to the tray, and of half the square's strongest side.
SIDE_FACE_STEP = 0.35


def _without_side_face(
    profile: npt.NDArray[np.float64], levels: Callable[[], npt.NDArray[np.float32]], start: int, end: int, body: float, strongest: float
) -> tuple[int, int]:
    """The square's two sides along one axis (``start`` stepping up from the tray to the die,
    ``end`` down from it; ``profile`` the steps along the axis, ``levels`` the level at each place
    along it, asked only where a step inside a side may be a side face's), one of them moved in to
    the top face's own edge where a side face shows beyond it. A side face each way is no view of
    a die: then neither moves."""
    n = len(profile)
    backwards = -profile[::-1]  # the near side is the far side of the axis run backwards
    far = _inner_step(profile, start, end, strongest)
    near = _inner_step(backwards, n - 1 - end, n - 1 - start, strongest)
    if far is None and near is None:
        return start, end
    along = levels().astype(np.float64)
    far = far if far is not None and _side_face_beyond(along, far, end, body) else None
    near = near if near is not None and _side_face_beyond(along[::-1], near, n - 1 - start, body) else None
    if (far is None) == (near is None):
        return start, end
    return (start, far) if far is not None else (n - 1 - int(near or 0), end)


def _inner_step(profile: npt.NDArray[np.float64], start: int, end: int, strongest: float) -> int | None:
    """A step down inside ``end`` where a side face would end the top face: :data:`SIDE_FACE_WIDTHS`
    from it, as strong as :data:`SIDE_FACE_STEP` asks, with no step up between it and ``end`` (a
    dark number near a face's edge steps down and up again)."""
    d = end - start
    low, high = max(2, int(round(SIDE_FACE_WIDTHS[0] * d))), int(round(SIDE_FACE_WIDTHS[1] * d))
    inner = [p for p in range(max(start + 1, end - high), end - low + 1) if profile[p] < 0 and profile[p] <= min(profile[p - 1], profile[p + 1])]
    if not inner:
        return None
    edge = min(inner, key=lambda p: float(profile[p]))
    step = -float(profile[edge])
    if step < SIDE_FACE_STEP * max(-float(profile[end]), 0.5 * strongest) or float(profile[edge + 1 : end].max()) > 0.25 * step:
        return None
    return edge


def _side_face_beyond(levels: npt.NDArray[np.float64], edge: int, end: int, body: float) -> bool:
    """Whether the band from ``edge`` to ``end`` lies at :data:`SIDE_FACE_LEVELS` (a die's shadow
    lies darker than the tray) with the top face at the body's level inside it, clear of the step's
    slope."""
    band = _median(levels[edge + 1 : end]) / body
    top = _median(levels[max(0, edge - 4) : max(1, edge - 1)]) / body
    return SIDE_FACE_LEVELS[0] <= band <= SIDE_FACE_LEVELS[1] and 0.8 <= top <= 1.25 and band <= top - 0.2


def _median(values: npt.NDArray[np.float64]) -> float:
    """:func:`numpy.median` of a few values, without its overhead."""
    ordered = np.sort(values)
    half = len(ordered) // 2
    return float(ordered[half]) if len(ordered) % 2 else float(0.5 * (ordered[half - 1] + ordered[half]))


def _beyond(upright: npt.NDArray[np.float32], x0: int, y0: int, d: int) -> float:
    """The median level a tenth of the side beyond the four sides of the square at (x0, y0), ``d``
    across, of the upright level map."""
    side = upright.shape[0]
    out = max(1, int(round(0.1 * d)))
    span_x, span_y = slice(max(0, x0), min(side, x0 + d + 1)), slice(max(0, y0), min(side, y0 + d + 1))
    lines = [upright[span_y, x] for x in (x0 - out, x0 + d + out) if 0 <= x < side]
    lines += [upright[y, span_x] for y in (y0 - out, y0 + d + out) if 0 <= y < side]
    return float(np.median(np.concatenate(lines))) if lines else 0.0


def _top_left_first(corners: Corners) -> Corners:
    """The same square's corners starting at the one nearest the top left, clockwise as shown."""
    start = int(np.argmin(corners[:, 0] + corners[:, 1]))
    return corners[(np.arange(4) + start) % 4]
