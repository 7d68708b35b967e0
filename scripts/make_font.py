"""Converts an X11 PCF bitmap font into the tray's font text format (hardware/font/*.txt).

The display's text fonts are X.Org's misc-fixed 5x7 (body text) and 4x6 (the players' strip and
dense lines), public domain ("Public domain font. Share and enjoy."), the fonts X terminals have
drawn small text with for decades: lower case with real descenders, and M, N and H apart. Made with::

    apt-get download xfonts-base && dpkg-deb -x xfonts-base_*.deb /tmp/xf
    python scripts/make_font.py /tmp/xf/usr/share/fonts/X11/misc/5x7-ISO8859-1.pcf.gz fixed5x7 > hardware/font/fixed5x7.txt
    python scripts/make_font.py /tmp/xf/usr/share/fonts/X11/misc/4x6-ISO8859-1.pcf.gz fixed4x6 7 > hardware/font/fixed4x6.txt
"""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path

from PIL import PcfFontFile


def convert(path: str, name: str, line_height: int) -> str:
    data = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    font = PcfFontFile.PcfFontFile(io.BytesIO(data), "iso8859-1")
    glyphs = {code: glyph for code, glyph in enumerate(font.glyph) if glyph is not None}
    width = max(glyph[0][0] for glyph in glyphs.values())  # the advance: misc-fixed is monospaced
    ascent = max(-glyph[1][1] for glyph in glyphs.values())
    descent = max(glyph[1][3] for glyph in glyphs.values())
    height = ascent + descent
    lines = [
        f"# {name}: X.Org misc-fixed {path.rsplit('/', 1)[-1]} (public domain: \"Public domain font. Share and enjoy.\"),",
        "# converted by scripts/make_font.py. Each glyph's cell includes its spacing column; the heart,",
        "# diamond, ellipsis and arrow are the tray's own (" + ("tray5x7.txt" if height == 7 else "scripts/make_font.py") + ").",
        f"font {name} {width} {height} {width} {line_height}",
    ]
    for code in [*range(32, 127), 0xD7]:
        if code not in glyphs:
            continue
        (advance, _), (x0, y0, x1, y1), _, image = glyphs[code]
        rows = []
        for row in range(height):
            cells = []
            for column in range(width):
                gx, gy = column - x0, row - (ascent + y0)
                lit = 0 <= gx < image.size[0] and 0 <= gy < image.size[1] and image.getpixel((gx, gy))
                cells.append("#" if lit else ".")
            rows.append("".join(cells))
        lines.append(f"U+{code:04X} " + " ".join(rows))
    # The symbols the tray draws that Latin-1 lacks are the tray's own: the 5x7 ones from tray5x7.txt,
    # the 4x6 ones below.
    if height == 7:
        own = Path(__file__).resolve().parents[1] / "hardware" / "font" / "tray5x7.txt"
        lines += [line for line in own.read_text().splitlines() if line.split(" ", 1)[0] in EXTRA]
    else:
        lines += [f"{code} {rows}" for code, rows in OWN_4X6.items()]
    return "\n".join(lines) + "\n"


EXTRA = ("U+2665", "U+2666", "U+2026", "U+2192")  # heart, diamond, ellipsis, arrow
OWN_4X6 = {
    "U+2665": "#.#. ###. ###. .#.. .... ....",
    "U+2666": ".... .#.. ###. .#.. .... ....",
    "U+2026": ".... .... .... .... #.#. ....",
    "U+2192": ".... ##.. ###. ##.. .... ....",
}


if __name__ == "__main__":
    sys.stdout.write(convert(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 8))
