"""A QR code drawn for the tray's 128x64 display: the table app's address, to scan with a phone.

The ``qrcode`` package makes the matrix; it is drawn here pixel by pixel, 2 pixels a module where
it fits (version 1 to 3: up to 29 modules, which covers ``http://192.168.100.200:8080/``), else
1, so the code stays crisp. The code is dark on lit, as a scanner expects, with as much of the
4-module quiet zone as the screen's height leaves (at least one module, lit).

>>> image = qr_image("http://192.168.1.23:8080/")
>>> image.size, qr_version("http://192.168.1.23:8080/")
((62, 62), 2)
"""

from __future__ import annotations

import functools

import qrcode
from PIL import Image

__all__ = ["qr_image", "qr_modules", "qr_version"]

QUIET_ZONE = 4
"""Modules of light margin the QR standard asks for; the screen's height may leave fewer."""


@functools.cache
def qr_modules(text: str) -> tuple[tuple[bool, ...], ...]:
    """The QR matrix of ``text`` (True: a dark module), the smallest version at error correction
    level M (15 % of the code can be smudged), without a quiet zone."""
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=0)
    code.add_data(text)
    code.make(fit=True)
    return tuple(tuple(bool(module) for module in row) for row in code.get_matrix())


def qr_version(text: str) -> int:
    """The QR version ``text`` needs (1: 21 modules a side, each version 4 more)."""
    return (len(qr_modules(text)) - 17) // 4


@functools.cache
def qr_image(text: str, height: int = 64) -> Image.Image:
    """``text`` as a square mode "1" QR image at most ``height`` pixels tall: dark modules (0) on
    a lit quiet zone (1)."""
    modules = qr_modules(text)
    count = len(modules)
    scale = 2 if count + 2 <= height // 2 else 1
    quiet = min(QUIET_ZONE, (height // scale - count) // 2)
    if quiet < 1:
        raise ValueError(f"{text[:40]!r}... needs a QR code of {count} modules, more than {height - 2} pixels hold")
    side = (count + 2 * quiet) * scale
    image = Image.new("1", (side, side), 1)
    pixels = image.load()
    assert pixels is not None
    for row, line in enumerate(modules):
        for column, dark in enumerate(line):
            if dark:
                x, y = (column + quiet) * scale, (row + quiet) * scale
                for dx in range(scale):
                    for dy in range(scale):
                        pixels[x + dx, y + dy] = 0
    return image
