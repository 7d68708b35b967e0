"""What a simulated die looks like: its style (body and ink colours, finish) and its design (what each
face 1-6 shows: pips, a numeral, or a glyph with an optional small number in a corner).

Face textures are square BGR images with an alpha mask (rounded corners), cached by design, style,
face and resolution so a live source re-renders the same dice cheaply.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.errors import HardwareError
from hardware.sim.glyphs import DOODLE, GLYPH_NAMES, UnknownGlyph, draw_glyph, draw_text, is_glyph

Colour = tuple[int, int, int]


class InvalidDieDesign(HardwareError, ValueError):
    """A die design or style is malformed (wrong number of faces, unknown colour or glyph)."""


class FaceKind(str, enum.Enum):
    """What kind of marking a face carries; the ``face`` key of ``labels.json`` uses these words."""

    PIPS = "pips"
    NUMERAL = "numeral"
    SYMBOL = "symbol"


class Finish(str, enum.Enum):
    """How the die body looks."""

    SOLID = "solid"
    TRANSLUCENT = "translucent"
    MARBLED = "marbled"


# Pip centres in a unit face, the usual Western layout.
_A, _B, _C = 0.25, 0.5, 0.75
PIP_LAYOUT: Mapping[int, tuple[tuple[float, float], ...]] = {
    1: ((_B, _B),),
    2: ((_A, _A), (_C, _C)),
    3: ((_A, _A), (_B, _B), (_C, _C)),
    4: ((_A, _A), (_C, _A), (_A, _C), (_C, _C)),
    5: ((_A, _A), (_C, _A), (_B, _B), (_A, _C), (_C, _C)),
    6: ((_A, _A), (_C, _A), (_A, _B), (_C, _B), (_A, _C), (_C, _C)),
}


@dataclass(frozen=True)
class FaceArt:
    """What one face shows.

    ``value`` is the number the face stands for (1-6); ``kind`` how it is marked; ``glyph`` the glyph
    drawn for a symbol face (see :data:`~hardware.sim.glyphs.GLYPH_NAMES`); ``corner_number`` draws
    the value small in a corner, as Dice Throne dice do; ``label`` names the face (what a calibrated
    profile calls it) and ``symbol`` is the game symbol it means.
    """

    value: int
    kind: FaceKind = FaceKind.PIPS
    glyph: str | None = None
    corner_number: bool = False
    label: str = ""
    symbol: str | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 6:
            raise InvalidDieDesign(f"face value must be 1-6, got {self.value!r}")
        if self.kind is FaceKind.SYMBOL:
            if not is_glyph(self.glyph):
                raise InvalidDieDesign(f"unknown glyph {self.glyph!r}; known: {', '.join(GLYPH_NAMES)} or {DOODLE}N")
            if self.symbol is None:
                object.__setattr__(self, "symbol", self.glyph)
        if not self.label:
            if self.kind is FaceKind.SYMBOL:
                label = f"{self.symbol}-{self.value}" if self.corner_number else str(self.symbol)
            else:
                label = str(self.value)
            object.__setattr__(self, "label", label)

    @classmethod
    def pips(cls, value: int) -> FaceArt:
        return cls(value)

    @classmethod
    def numeral(cls, value: int) -> FaceArt:
        return cls(value, FaceKind.NUMERAL)

    @classmethod
    def glyph_face(cls, value: int, glyph: str, *, number: bool = True, symbol: str | None = None) -> FaceArt:
        return cls(value, FaceKind.SYMBOL, glyph=glyph, corner_number=number, symbol=symbol)


@dataclass(frozen=True)
class DieDesign:
    """The six faces of a die, ``faces[i]`` showing value ``i + 1``; opposite faces sum to 7.

    >>> DieDesign.barbarian().face(2).label
    'sword-2'
    """

    name: str
    faces: tuple[FaceArt, ...]

    def __post_init__(self) -> None:
        if len(self.faces) != 6:
            raise InvalidDieDesign(f"die design {self.name!r} needs 6 faces, got {len(self.faces)}")
        for i, face in enumerate(self.faces):
            if face.value != i + 1:
                raise InvalidDieDesign(f"die design {self.name!r}: face {i + 1} has value {face.value}")
        labels = [f.label for f in self.faces]
        if len(set(labels)) != 6:
            raise InvalidDieDesign(f"die design {self.name!r}: face labels are not unique: {labels!r}")

    def face(self, value: int) -> FaceArt:
        if not 1 <= value <= 6:
            raise InvalidDieDesign(f"face value must be 1-6, got {value!r}")
        return self.faces[value - 1]

    @property
    def has_symbols(self) -> bool:
        return any(f.kind is FaceKind.SYMBOL for f in self.faces)

    @classmethod
    def pips(cls) -> DieDesign:
        """An ordinary pip d6."""
        return cls("pips", tuple(FaceArt.pips(v) for v in range(1, 7)))

    @classmethod
    def numerals(cls) -> DieDesign:
        """A d6 with printed numerals."""
        return cls("numerals", tuple(FaceArt.numeral(v) for v in range(1, 7)))

    @classmethod
    def pips_with_emblem(cls, value: int = 6, glyph: str = "star") -> DieDesign:
        """A branded pip die whose face ``value`` carries an emblem instead of pips."""
        faces = tuple(
            FaceArt.glyph_face(v, glyph, number=False) if v == value else FaceArt.pips(v) for v in range(1, 7)
        )
        return cls(f"pips-{glyph}{value}", faces)

    @classmethod
    def hero(cls, name: str, glyphs: Mapping[int, str], symbols: Mapping[int, str] | None = None) -> DieDesign:
        """A hero die: face ``v`` shows ``glyphs[v]`` with a small ``v`` in the corner.

        ``symbols`` maps a face to its game symbol when it differs from the glyph name.
        """
        missing = [v for v in range(1, 7) if v not in glyphs]
        if missing:
            raise InvalidDieDesign(f"hero die {name!r} has no glyph for faces {missing!r}")
        syms = symbols or {}
        return cls(name, tuple(FaceArt.glyph_face(v, glyphs[v], symbol=syms.get(v)) for v in range(1, 7)))

    @classmethod
    def from_symbols(cls, name: str, symbols: Sequence[str]) -> DieDesign:
        """A hero die from the symbol on each face 1-6 (as ``rules`` hero data lists them).

        Known symbols get their own artwork (:data:`SYMBOL_GLYPHS`); any other symbol gets a glyph no
        other symbol of this die uses, so faces with different symbols always look different.

        >>> DieDesign.from_symbols("barbarian", ["sword"] * 3 + ["heart"] * 2 + ["strength"]).face(6).label
        'strength-6'
        """
        if len(symbols) != 6:
            raise InvalidDieDesign(f"die {name!r} needs 6 face symbols, got {list(symbols)!r}")
        chosen: dict[str, str] = {}
        for sym in dict.fromkeys(symbols):
            known = SYMBOL_GLYPHS.get(sym)
            if known is not None and known not in chosen.values():
                chosen[sym] = known
        spare = [g for g in GLYPH_NAMES if g not in chosen.values()]
        for sym in dict.fromkeys(symbols):
            if sym not in chosen:
                if not spare:
                    raise InvalidDieDesign(f"die {name!r} has more distinct symbols than glyphs: {list(symbols)!r}")
                chosen[sym] = spare.pop(0)
        return cls.hero(name, {v: chosen[symbols[v - 1]] for v in range(1, 7)}, {v: symbols[v - 1] for v in range(1, 7)})

    @classmethod
    def barbarian(cls) -> DieDesign:
        """Like the Barbarian's dice: sword on 1-3, heart on 4-5, strength (a pow burst) on 6."""
        return cls.from_symbols("barbarian", ["sword", "sword", "sword", "heart", "heart", "strength"])

    @classmethod
    def moon_elf(cls) -> DieDesign:
        """Like the Moon Elf's dice: bow (an arrow) on 1-3, foot on 4-5, moon on 6."""
        return cls.from_symbols("moon-elf", ["bow", "bow", "bow", "foot", "foot", "moon"])

    @classmethod
    def shadow_thief(cls) -> DieDesign:
        """Like the Shadow Thief's dice: dagger on 1-2, bag on 3-4, card on 5, shadow on 6."""
        return cls.from_symbols("shadow-thief", ["dagger", "dagger", "bag", "bag", "card", "shadow"])


SYMBOL_GLYPHS: Mapping[str, str] = {
    "sword": "sword",
    "heart": "heart",
    "strength": "pow",
    "pow": "pow",
    "fist": "pow",
    "bow": "arrow",
    "arrow": "arrow",
    "foot": "foot",
    "moon": "moon",
    "dagger": "dagger",
    "bag": "shield",
    "card": "star",
    "shadow": "skull",
    "skull": "skull",
    "star": "star",
    "shield": "shield",
    "fire": "flame",
    "flame": "flame",
    "bolt": "bolt",
    "lightning": "bolt",
}
"""The artwork used for a hero symbol name (``rules`` hero data) when a die is made from symbols."""


def _parse_colour(value: Colour | str) -> Colour:
    if isinstance(value, str):
        try:
            return NAMED_COLOURS[value]
        except KeyError:
            raise InvalidDieDesign(f"unknown colour {value!r}; known: {', '.join(NAMED_COLOURS)}") from None
    if len(value) != 3 or not all(0 <= int(c) <= 255 for c in value):
        raise InvalidDieDesign(f"a colour is three 0-255 BGR values, got {value!r}")
    return (int(value[0]), int(value[1]), int(value[2]))


NAMED_COLOURS: Mapping[str, Colour] = {
    "white": (236, 240, 240),
    "ivory": (200, 228, 238),
    "black": (30, 28, 28),
    "red": (40, 40, 190),
    "blue": (170, 90, 30),
    "green": (70, 140, 40),
    "yellow": (40, 200, 230),
    "purple": (130, 50, 110),
    "orange": (30, 120, 235),
    "grey": (130, 130, 130),
    "gold": (60, 170, 210),
}


@dataclass(frozen=True)
class DieStyle:
    """Colours and finish of a die body: ``body`` and ``ink`` (pips, numerals, glyphs) in BGR.

    ``DieStyle.parse(s.notation()) == s`` for named colours:

    >>> DieStyle.parse("blue/white/marbled")
    DieStyle.parse('blue/white/marbled')
    """

    body: Colour = (236, 240, 240)
    ink: Colour = (30, 28, 28)
    finish: Finish = Finish.SOLID
    marble: Colour = (255, 255, 255)
    seed: int = 0  # the marble pattern
    #: Marbled only: 0 for soft swirls mostly of the body's colour; above 0, sharp veins that
    #: strong (up to 1), running over the pips too, as on dark dice with bold white or red veins.
    veins: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "body", _parse_colour(self.body))
        object.__setattr__(self, "ink", _parse_colour(self.ink))
        object.__setattr__(self, "marble", _parse_colour(self.marble))
        object.__setattr__(self, "finish", Finish(self.finish))
        if not 0.0 <= self.veins <= 1.0:
            raise InvalidDieDesign(f"marble veins must be from 0 to 1, got {self.veins!r}")

    @classmethod
    def parse(cls, text: str) -> DieStyle:
        """Parse ``"body/ink[/finish]"`` with colour names (see :data:`NAMED_COLOURS`)."""
        parts = text.strip().lower().split("/")
        if len(parts) not in (2, 3):
            raise InvalidDieDesign(f"die style must be 'body/ink[/finish]', got {text!r}")
        finish = Finish.SOLID
        if len(parts) == 3:
            try:
                finish = Finish(parts[2])
            except ValueError:
                raise InvalidDieDesign(f"unknown finish in die style {text!r}") from None
        return cls(_parse_colour(parts[0]), _parse_colour(parts[1]), finish)

    def notation(self) -> str:
        names = {v: k for k, v in NAMED_COLOURS.items()}
        body = names.get(self.body, "%d,%d,%d" % self.body)
        ink = names.get(self.ink, "%d,%d,%d" % self.ink)
        return f"{body}/{ink}" if self.finish is Finish.SOLID else f"{body}/{ink}/{self.finish.value}"

    def __repr__(self) -> str:
        names = set(NAMED_COLOURS.values())
        if self.body in names and self.ink in names and self.seed == 0 and self.marble == (255, 255, 255) and not self.veins:
            return f"DieStyle.parse({self.notation()!r})"
        veins = f", veins={self.veins!r}" if self.veins else ""
        return (
            f"DieStyle(body={self.body!r}, ink={self.ink!r}, finish=Finish.{self.finish.name}, "
            f"marble={self.marble!r}, seed={self.seed!r}{veins})"
        )


STYLE_PRESETS: tuple[DieStyle, ...] = (
    DieStyle.parse("white/black"),
    DieStyle.parse("ivory/black"),
    DieStyle.parse("black/white"),
    DieStyle.parse("red/white"),
    DieStyle.parse("blue/white"),
    DieStyle.parse("green/white"),
    DieStyle.parse("yellow/black"),
    DieStyle.parse("purple/gold"),
    DieStyle.parse("red/white/translucent"),
    DieStyle.parse("blue/white/translucent"),
    DieStyle.parse("green/white/marbled"),
    DieStyle.parse("blue/white/marbled"),
    DieStyle.parse("white/red"),
    DieStyle.parse("white/blue"),
)
"""A spread of die styles for random scenes: dark-on-light, light-on-dark, coloured, translucent, marbled."""


@functools.lru_cache(maxsize=32)
def _bevel(res: int) -> np.ndarray:
    """Shading of the rounded edges: 1 inside the face, darker towards its border (float32 RxR)."""
    t = (np.arange(res, dtype=np.float32) + 0.5) / res
    d = np.minimum(t, 1 - t)
    edge = np.minimum(d[:, None], d[None, :])
    return (0.78 + 0.22 * np.clip(edge / 0.09, 0, 1) ** 0.6).astype(np.float32)


@functools.lru_cache(maxsize=32)
def _alpha(res: int, radius: float = 0.2) -> np.ndarray:
    """Rounded-square mask of the face (uint8 RxR)."""
    big = res * 4
    mask = np.zeros((big, big), np.uint8)
    r = int(radius * big)
    cv2.rectangle(mask, (r, 0), (big - 1 - r, big - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (big - 1, big - 1 - r), 255, -1)
    for cx, cy in ((r, r), (big - 1 - r, r), (r, big - 1 - r), (big - 1 - r, big - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return cv2.resize(mask, (res, res), interpolation=cv2.INTER_AREA)


def _marble(style: DieStyle, value: int, res: int) -> np.ndarray:
    """A swirl pattern in 0..1 (float32 RxR), repeatable per style and face."""
    rng = np.random.default_rng([style.seed, value])
    small = rng.standard_normal((6, 6)).astype(np.float32)
    warp = cv2.resize(small, (res, res), interpolation=cv2.INTER_CUBIC)
    y, x = np.mgrid[0:res, 0:res].astype(np.float32) / res
    angle = float(rng.uniform(0, math.pi))
    u = x * math.cos(angle) + y * math.sin(angle)
    if style.veins:
        # Bold veins: a few sharp, winding bands, as real marbled dice show them.
        coarse = cv2.resize(small[:3, :3], (res, res), interpolation=cv2.INTER_CUBIC)
        veins = np.abs(np.sin((u * 1.3 + coarse * 0.8 + warp * 0.25) * math.pi))
        return np.asarray(cv2.GaussianBlur(np.clip((0.35 - veins) / 0.2, 0, 1), (0, 0), max(res / 100, 0.5)))
    veins = np.abs(np.sin((u * 3.0 + warp * 0.9) * math.pi))
    # Soft-edged swirls, mostly body colour (sharp thin veins would read as engraved lines).
    return np.asarray(cv2.GaussianBlur((1.0 - veins) ** 4, (0, 0), max(res / 48, 0.6)))


@functools.lru_cache(maxsize=512)
def face_texture(design: DieDesign, style: DieStyle, value: int, res: int) -> tuple[np.ndarray, np.ndarray]:
    """The flat texture of face ``value``: (BGR uint8 RxRx3, alpha uint8 RxR), before lighting.

    Cached; callers must not modify the arrays.
    """
    art = design.face(value)
    body = np.array(style.body, np.float32)
    img = np.empty((res, res, 3), np.float32)
    img[:] = body
    veins: np.ndarray | None = None
    if style.finish is Finish.MARBLED:
        m = _marble(style, value, res)[:, :, None]
        strength = style.veins or 0.5
        img = img * (1 - strength * m) + np.array(style.marble, np.float32) * strength * m
        if style.veins:
            veins = m
    elif style.finish is Finish.TRANSLUCENT:
        # Light scatters inside a translucent die: brighter, less saturated middle, deeper rim.
        t = (np.arange(res, dtype=np.float32) + 0.5) / res - 0.5
        r2 = (t[:, None] ** 2 + t[None, :] ** 2) * 4
        glow = np.clip(1.0 - r2 * 0.5, 0, 1)[:, :, None]
        img = img * (0.75 + 0.35 * glow) + 25 * glow
    img *= _bevel(res)[:, :, None]
    out = np.clip(img, 0, 255).astype(np.uint8)
    paper = tuple(int(c) for c in out[res // 2, res // 2])
    ink = style.ink
    opposite = design.face(7 - value)
    if style.finish is Finish.TRANSLUCENT and opposite.kind is FaceKind.PIPS:
        # Through a translucent die the far face's pips show faintly, mirrored: a reader must not count them.
        ghost = out.copy()
        for px, py in PIP_LAYOUT[opposite.value]:
            centre = (round((1 - px) * res * 16), round(py * res * 16))
            cv2.circle(ghost, centre, round(res * 0.08 * 16), ink, -1, cv2.LINE_AA, 4)
        ghost = cv2.GaussianBlur(ghost, (0, 0), max(res / 40, 0.5))
        out = cv2.addWeighted(out, 0.82, ghost, 0.18, 0)
    if art.kind is FaceKind.PIPS:
        # Pips are drilled: a shadowed rim on the upper-left inside edge makes them read as holes.
        pip_r = res * 0.092
        rim = tuple(int(c * 0.55) for c in ink)
        for px, py in PIP_LAYOUT[art.value]:
            centre = (round(px * res * 16), round(py * res * 16))
            cv2.circle(out, centre, round(pip_r * 16), rim, -1, cv2.LINE_AA, 4)
            inner = (round((px * res + pip_r * 0.12) * 16), round((py * res + pip_r * 0.12) * 16))
            cv2.circle(out, inner, round(pip_r * 0.85 * 16), ink, -1, cv2.LINE_AA, 4)
    elif art.kind is FaceKind.NUMERAL:
        _draw_text(out, str(art.value), (0.5, 0.52), 0.55 * res, ink, underline=art.value == 6)
    else:
        assert art.glyph is not None
        try:
            if art.corner_number:
                draw_glyph(out, art.glyph, (0.12 * res, 0.1 * res, 0.68 * res), ink, paper)
                _draw_text(out, str(art.value), (0.82, 0.8), 0.22 * res, ink, underline=False)
            else:
                draw_glyph(out, art.glyph, (0.13 * res, 0.13 * res, 0.74 * res), ink, paper)
        except UnknownGlyph as exc:
            raise InvalidDieDesign(str(exc)) from None
    if veins is not None:
        # Bold veins run over the pips as well, fainter there: a pip of the veins' colour fades
        # into a vein that crosses it.
        over = 0.4 * style.veins * veins
        out = np.clip(out * (1 - over) + np.array(style.marble, np.float32) * over, 0, 255).astype(np.uint8)
    alpha = _alpha(res)
    if style.finish is Finish.TRANSLUCENT:
        alpha = (alpha.astype(np.float32) * 0.9).astype(np.uint8)
    out.setflags(write=False)
    alpha.setflags(write=False)
    return out, alpha


def _draw_text(img: np.ndarray, text: str, centre: tuple[float, float], height: float, colour: Colour, underline: bool) -> None:
    thickness = max(1, round(height / 7))
    res = img.shape[0]
    x, y, w = draw_text(img, text, cv2.FONT_HERSHEY_DUPLEX, (centre[0] * res, centre[1] * res), height, colour, thickness)
    if underline:
        cv2.line(img, (x, y + thickness * 2), (x + w, y + thickness * 2), colour, thickness, cv2.LINE_AA)
