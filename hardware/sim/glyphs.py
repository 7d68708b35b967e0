"""Simple vector glyphs for custom die faces, drawn with OpenCV.

Every glyph is described in a unit square (0..1, y down) and drawn anti-aliased at any size, so a
face texture looks the same at 40 px and at 400 px. The shapes are deliberately plain, like the
printed or engraved artwork on hero dice: a sword, a heart, a "pow" burst, a star, a skull, a moon,
an arrow, a shield, a lightning bolt, a flame, a foot and a dagger.

Besides these, ``doodle-N`` names artwork made up from seed ``N`` (stars, polygons, strokes, rings,
letters and punched holes): die sets whose artwork the simulator has no picture of, so that what
learns to tell faces apart from rendered dice learns it for artwork in general.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

from hardware.errors import HardwareError

Colour = tuple[int, int, int]

_SHIFT = 4  # sub-pixel bits for OpenCV drawing
_ONE = 1 << _SHIFT


class UnknownGlyph(HardwareError, LookupError):
    """A face asked for a glyph the simulator cannot draw."""


class _Pen:
    """Draws unit-square shapes into a square image region of side ``size`` at ``origin``."""

    def __init__(self, img: np.ndarray, size: float, origin: tuple[float, float], ink: Colour, paper: Colour):
        self.img = img
        self.size = size
        self.ox, self.oy = origin
        self.ink = ink
        self.paper = paper

    def _pts(self, pts: list[tuple[float, float]]) -> np.ndarray:
        arr = np.array(pts, dtype=np.float64)
        arr[:, 0] = self.ox + arr[:, 0] * self.size
        arr[:, 1] = self.oy + arr[:, 1] * self.size
        return np.round(arr * _ONE).astype(np.int32)

    def poly(self, pts: list[tuple[float, float]], paper: bool = False) -> None:
        colour = self.paper if paper else self.ink
        cv2.fillPoly(self.img, [self._pts(pts)], colour, cv2.LINE_AA, _SHIFT)

    def circle(self, cx: float, cy: float, r: float, paper: bool = False) -> None:
        colour = self.paper if paper else self.ink
        centre = (round((self.ox + cx * self.size) * _ONE), round((self.oy + cy * self.size) * _ONE))
        cv2.circle(self.img, centre, max(1, round(r * self.size * _ONE)), colour, -1, cv2.LINE_AA, _SHIFT)

    def line(self, pts: list[tuple[float, float]], width: float, paper: bool = False) -> None:
        colour = self.paper if paper else self.ink
        thickness = max(1, round(width * self.size))
        cv2.polylines(self.img, [self._pts(pts)], False, colour, thickness, cv2.LINE_AA, _SHIFT)

    def letter(self, text: str, font: int, cx: float, cy: float, height: float) -> None:
        """``text`` in Hershey ``font``, ``height`` of the unit square tall, centred at (cx, cy)."""
        px = height * self.size
        draw_text(self.img, text, font, (self.ox + cx * self.size, self.oy + cy * self.size), px, self.ink, max(1, round(px / 8)))


def draw_text(
    img: np.ndarray, text: str, font: int, centre: tuple[float, float], height: float, colour: Colour, thickness: int
) -> tuple[int, int, int]:
    """``text`` in Hershey ``font``, ``height`` px tall, centred at ``centre`` (px), drawn into
    ``img`` in place. Returns where its baseline starts (x, y) and its width."""
    base_h = cv2.getTextSize(text, font, 1.0, 1)[0][1]
    scale = height / max(base_h, 1)
    (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
    x = round(centre[0] - w / 2)
    y = round(centre[1] + h / 2)
    cv2.putText(img, text, (x, y), font, scale, colour, thickness, cv2.LINE_AA)
    return x, y, w


def _sword(p: _Pen) -> None:
    # A straight sword pointing up, slightly diagonal like most hero-dice artwork.
    blade = [(0.47, 0.08), (0.53, 0.08), (0.56, 0.16), (0.56, 0.62), (0.44, 0.62), (0.44, 0.16)]
    p.poly(blade)
    p.poly([(0.28, 0.62), (0.72, 0.62), (0.72, 0.69), (0.28, 0.69)])  # cross-guard
    p.poly([(0.46, 0.69), (0.54, 0.69), (0.54, 0.86), (0.46, 0.86)])  # grip
    p.circle(0.5, 0.9, 0.055)  # pommel


def _heart(p: _Pen) -> None:
    pts = []
    for i in range(48):
        t = 2 * math.pi * i / 48
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        pts.append((0.5 + x / 38.0, 0.47 - y / 38.0))
    p.poly(pts)


def _pow(p: _Pen) -> None:
    # An explosion burst: an irregular star with twelve spikes, and a hole punched in the middle.
    radii = [0.44, 0.26, 0.38, 0.24, 0.45, 0.27, 0.36, 0.25, 0.43, 0.26, 0.39, 0.23] * 2
    pts = []
    for i in range(24):
        a = 2 * math.pi * i / 24 - math.pi / 2
        pts.append((0.5 + radii[i] * math.cos(a), 0.5 + radii[i] * math.sin(a)))
    p.poly(pts)
    p.circle(0.5, 0.5, 0.1, paper=True)


def _star(p: _Pen) -> None:
    pts = []
    for i in range(10):
        r = 0.42 if i % 2 == 0 else 0.17
        a = -math.pi / 2 + math.pi * i / 5
        pts.append((0.5 + r * math.cos(a), 0.53 + r * math.sin(a)))
    p.poly(pts)


def _skull(p: _Pen) -> None:
    p.circle(0.5, 0.42, 0.3)
    p.poly([(0.32, 0.55), (0.68, 0.55), (0.64, 0.84), (0.36, 0.84)])  # jaw
    p.circle(0.39, 0.44, 0.085, paper=True)
    p.circle(0.61, 0.44, 0.085, paper=True)
    p.poly([(0.5, 0.55), (0.45, 0.64), (0.55, 0.64)], paper=True)  # nose
    for x in (0.42, 0.5, 0.58):  # teeth gaps
        p.line([(x, 0.72), (x, 0.84)], 0.025, paper=True)


def _moon(p: _Pen) -> None:
    p.circle(0.5, 0.5, 0.38)
    p.circle(0.64, 0.4, 0.32, paper=True)


def _arrow(p: _Pen) -> None:
    p.line([(0.2, 0.8), (0.7, 0.3)], 0.06)
    p.poly([(0.82, 0.18), (0.78, 0.45), (0.55, 0.22)])  # head
    p.poly([(0.2, 0.8), (0.12, 0.7), (0.2, 0.66), (0.3, 0.7)])  # fletching
    p.poly([(0.2, 0.8), (0.3, 0.88), (0.34, 0.8), (0.3, 0.7)])


def _shield(p: _Pen) -> None:
    pts = [(0.18, 0.16), (0.5, 0.1), (0.82, 0.16), (0.82, 0.46)]
    for i in range(1, 12):
        t = i / 12
        pts.append((0.82 - 0.32 * t, 0.46 + 0.44 * math.sin(t * math.pi / 2)))
    for i in range(1, 12):
        t = i / 12
        pts.append((0.5 - 0.32 * t, 0.9 - 0.44 * (1 - math.cos(t * math.pi / 2))))
    pts.append((0.18, 0.46))
    p.poly(pts)
    p.poly([(0.47, 0.2), (0.53, 0.2), (0.53, 0.75), (0.47, 0.75)], paper=True)


def _bolt(p: _Pen) -> None:
    p.poly([(0.58, 0.06), (0.24, 0.54), (0.46, 0.54), (0.36, 0.94), (0.76, 0.4), (0.53, 0.4), (0.68, 0.06)])


def _flame(p: _Pen) -> None:
    pts = []
    for i in range(40):
        t = 2 * math.pi * i / 40
        r = 0.28 * (1 - 0.55 * math.sin(t) ** 8 * (1 if math.sin(t) < 0 else 0))
        x = 0.5 + r * math.cos(t)
        y = 0.62 + 0.28 * math.sin(t)
        if math.sin(t) < 0:  # the upper half rises to a curled tip
            y = 0.62 + 0.5 * math.sin(t) + 0.05 * math.cos(t)
            x = 0.5 + 0.28 * math.cos(t) * (1 + math.sin(t)) ** 0.7
        pts.append((x, y))
    p.poly(pts)
    p.circle(0.5, 0.7, 0.09, paper=True)


def _foot(p: _Pen) -> None:
    pts = []
    for i in range(32):
        t = 2 * math.pi * i / 32
        pts.append((0.5 + 0.15 * math.cos(t), 0.6 + 0.27 * math.sin(t)))
    p.poly(pts)
    for x, y, r in ((0.33, 0.24, 0.06), (0.44, 0.18, 0.06), (0.55, 0.18, 0.055), (0.64, 0.23, 0.05), (0.7, 0.3, 0.04)):
        p.circle(x, y, r)


def _dagger(p: _Pen) -> None:
    p.poly([(0.78, 0.14), (0.72, 0.3), (0.38, 0.64), (0.32, 0.58), (0.66, 0.24)])  # blade
    p.line([(0.26, 0.52), (0.44, 0.7)], 0.06)  # guard
    p.line([(0.34, 0.64), (0.2, 0.78)], 0.07)  # grip


_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)
_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ?!#&@%$"


def _doodle(p: _Pen, seed: int) -> None:
    """Artwork made up from ``seed``: one to three shapes or strokes, sometimes a hole punched in."""
    rng = np.random.default_rng(seed)
    for part in range(int(rng.integers(1, 4))):
        cx, cy = (float(v) for v in rng.uniform(0.32, 0.68, 2))
        r = float(rng.uniform(0.16, 0.42)) / (1 + 0.3 * part)
        turn = float(rng.uniform(0, 2 * math.pi))
        kind = int(rng.integers(6)) if part else int(rng.integers(5))
        if kind == 0:  # a star of 3-9 points
            points = int(rng.integers(3, 10))
            inner = float(rng.uniform(0.3, 0.7))
            p.poly(
                [
                    (cx + r * (1 if i % 2 == 0 else inner) * math.cos(turn + math.pi * i / points),
                     cy + r * (1 if i % 2 == 0 else inner) * math.sin(turn + math.pi * i / points))
                    for i in range(2 * points)
                ]
            )  # fmt: skip
        elif kind == 1:  # a lumpy polygon
            angles = np.sort(rng.uniform(0, 2 * math.pi, int(rng.integers(3, 8))))
            radii = rng.uniform(0.55, 1.0, len(angles)) * r
            p.poly([(cx + float(d) * math.cos(float(a)), cy + float(d) * math.sin(float(a))) for a, d in zip(angles, radii)])
        elif kind == 2:  # a stroke
            pts = [(float(x), float(y)) for x, y in rng.uniform(0.15, 0.85, (int(rng.integers(2, 5)), 2))]
            p.line(pts, float(rng.uniform(0.05, 0.14)))
        elif kind == 3:  # a disc or a ring
            p.circle(cx, cy, r)
            if rng.random() < 0.5:
                p.circle(cx, cy, r * float(rng.uniform(0.4, 0.75)), paper=True)
        elif kind == 4:  # a letter or a sign
            p.letter(str(rng.choice(list(_LETTERS))), int(rng.choice(_FONTS)), cx, cy, 1.4 * r)
        else:  # a hole punched in what is drawn so far
            p.circle(cx, cy, r * 0.4, paper=True)


#: Names of made-up artwork start so; the rest of the name is the seed.
DOODLE = "doodle-"


def _doodle_seed(name: str) -> int | None:
    rest = name[len(DOODLE) :] if name.startswith(DOODLE) else ""
    return int(rest) if rest.isdigit() and len(rest) <= 12 else None


def is_glyph(name: object) -> bool:
    """Whether :func:`draw_glyph` can draw ``name``: one of :data:`GLYPH_NAMES` or ``doodle-N``."""
    return isinstance(name, str) and (name in _GLYPHS or _doodle_seed(name) is not None)


_GLYPHS: dict[str, Callable[[_Pen], None]] = {
    "sword": _sword,
    "heart": _heart,
    "pow": _pow,
    "star": _star,
    "skull": _skull,
    "moon": _moon,
    "arrow": _arrow,
    "shield": _shield,
    "bolt": _bolt,
    "flame": _flame,
    "foot": _foot,
    "dagger": _dagger,
}

GLYPH_NAMES: tuple[str, ...] = tuple(_GLYPHS)
"""Every glyph the simulator can draw."""


def draw_glyph(
    img: np.ndarray,
    name: str,
    box: tuple[float, float, float],
    ink: Colour,
    paper: Colour,
) -> None:
    """Draw glyph ``name`` into ``img`` (BGR uint8, in place) inside the square ``box`` = (x, y, side).

    ``paper`` is the colour used to cut holes (eyes of the skull, the moon's shadow).

    :raises UnknownGlyph: ``name`` is neither in :data:`GLYPH_NAMES` nor ``doodle-N``.
    """
    x, y, side = box
    pen = _Pen(img, side, (x, y), ink, paper)
    seed = _doodle_seed(name)
    if seed is not None:
        _doodle(pen, seed)
        return
    try:
        fn = _GLYPHS[name]
    except KeyError:
        raise UnknownGlyph(f"unknown glyph {name!r}; known: {', '.join(GLYPH_NAMES)} or {DOODLE}N") from None
    fn(pen)
