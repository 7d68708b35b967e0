"""The display's bundled bitmap fonts, kept as data in this folder and drawn by our own code.

Neither a system font nor Pillow's default font is used, so a Pillow upgrade cannot move a pixel of
what the tray shows (Pillow's default glyphs changed in 10.1).

>>> from PIL import Image
>>> font = load_font("tray5x7")
>>> image = Image.new("1", (128, 64))
>>> font.draw(image, (0, 0), "Roll 1/3")
>>> font.text_width("Roll 1/3")
47
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from PIL import Image, ImageDraw

from hardware.errors import HardwareError

__all__ = ["BitmapFont", "FontError", "load_font", "parse_font", "FONT_NAMES"]

FONT_NAMES = ("fixed5x7", "fixed4x6", "tray5x7")
"""The fonts shipped in this folder: X.Org's misc-fixed 5x7 for body text and its 4x6 for the
players' strip, dense lines and dice labels too wide for the 5x7 (both public domain, made by
``scripts/make_font.py``), and the tray's own 5x7 capitals for the title, dice and banners."""

_FALLBACK = "?"
_ELLIPSIS = "\u2026"


class FontError(HardwareError, ValueError):
    """A font file is malformed or a font name is unknown; the message names it."""


@dataclass(frozen=True)
class BitmapFont:
    """A monospaced bitmap font: every glyph is ``width`` x ``height`` lit/dark pixels.

    Characters the font lacks are drawn as ``?``; a capitals-only font draws lower case with the
    capital glyphs.
    """

    name: str
    width: int
    height: int
    advance: int
    """Pixels from one glyph's left edge to the next one's (glyph width plus spacing)."""
    line_height: int
    """Pixels from one line's top to the next one's."""
    glyphs: Mapping[str, Image.Image] = field(repr=False)

    def __repr__(self) -> str:
        return f"load_font({self.name!r})"

    def glyph(self, char: str) -> Image.Image:
        """The glyph drawn for ``char`` (mode "1"), falling back to capitals, then to ``?``."""
        found = self.glyphs.get(char)
        if found is None:
            found = self.glyphs.get(char.upper(), self.glyphs[_FALLBACK])
        return found

    def text_width(self, text: str) -> int:
        """Width in pixels of ``text`` on one line (no trailing spacing)."""
        if not text:
            return 0
        return len(text) * self.advance - (self.advance - self.width)

    def fit(self, text: str, width: int) -> str:
        """``text`` cut to at most ``width`` pixels, ending in an ellipsis when something was cut; a
        number is dropped whole rather than cut."""
        if self.text_width(text) <= width:
            return text
        room = (width + self.advance - self.width) // self.advance
        if room <= 0:
            return ""
        cut = room - 1
        # Never cut a number: a "4" left of a cut "45" would say something else.
        while 0 < cut < len(text) and text[cut].isdigit() and text[cut - 1].isdigit():
            cut -= 1
        return text[:cut].rstrip() + _ELLIPSIS

    def draw(self, image: Image.Image, xy: tuple[int, int], text: str, fill: int = 1, scale: int = 1) -> None:
        """Draw ``text`` with its top-left corner at ``xy`` in colour ``fill`` (1 lit, 0 dark).

        ``scale`` magnifies every pixel into a ``scale`` x ``scale`` block, for banners.
        """
        draw = ImageDraw.Draw(image)
        x, y = xy
        for char in text:
            glyph = self.glyph(char)
            if scale != 1:
                glyph = glyph.resize((glyph.width * scale, glyph.height * scale), Image.Resampling.NEAREST)
            draw.bitmap((x, y), glyph, fill=fill)
            x += self.advance * scale


def parse_font(text: str, source: str = "<font>") -> BitmapFont:
    """Build a font from the text format of this folder's ``.txt`` files.

    :raises FontError: a malformed header or glyph, quoting ``source`` and the line.
    """
    header: tuple[str, int, int, int, int] | None = None
    glyphs: dict[str, Image.Image] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source} line {number}"
        tokens = line.split()
        if header is None:
            if tokens[0] != "font" or len(tokens) != 6:
                raise FontError(f"{where}: expected 'font NAME WIDTH HEIGHT ADVANCE LINE_HEIGHT', got {raw!r}")
            try:
                width, height, advance, line_height = (int(token) for token in tokens[2:])
            except ValueError:
                raise FontError(f"{where}: sizes must be whole numbers: {raw!r}") from None
            header = (tokens[1], width, height, advance, line_height)
            continue
        _, width, height, _, _ = header
        code, rows = tokens[0], tokens[1:]
        if not code.startswith("U+"):
            raise FontError(f"{where}: a glyph line starts with its code point like 'U+0041': {raw!r}")
        try:
            char = chr(int(code[2:], 16))
        except ValueError:
            raise FontError(f"{where}: bad code point {code!r}") from None
        if len(rows) != height or any(len(row) != width or set(row) - {"#", "."} for row in rows):
            raise FontError(f"{where}: glyph {code} needs {height} rows of {width} '#' or '.': {raw!r}")
        glyph = Image.new("1", (width, height))
        glyph.putdata([1 if pixel == "#" else 0 for row in rows for pixel in row])
        glyphs[char] = glyph
    if header is None:
        raise FontError(f"{source}: no 'font' header line")
    if _FALLBACK not in glyphs:
        raise FontError(f"{source}: the font has no {_FALLBACK!r} glyph to draw unknown characters with")
    name, width, height, advance, line_height = header
    return BitmapFont(name, width, height, advance, line_height, glyphs)


@functools.cache
def load_font(name_or_path: str | Path) -> BitmapFont:
    """A bundled font by name (one of :data:`FONT_NAMES`) or a font file by path.

    :raises FontError: unknown name, unreadable or malformed file.
    """
    if isinstance(name_or_path, str) and name_or_path in FONT_NAMES:
        text = resources.files(__name__).joinpath(f"{name_or_path}.txt").read_text(encoding="utf-8")
        return parse_font(text, f"{name_or_path}.txt")
    path = Path(name_or_path)
    if not path.is_file():
        raise FontError(f"no font {str(name_or_path)!r}: give one of {', '.join(FONT_NAMES)} or a font file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FontError(f"cannot read font file {str(path)!r}: {error}") from None
    return parse_font(text, str(path))
