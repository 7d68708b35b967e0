"""Loading images from disk with errors that name the file."""

from __future__ import annotations

import os
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from vision.datafile import read_regular_file
from vision.errors import ImageLoadError, InvalidFrameError

Frame = npt.NDArray[np.uint8]


MAX_IMAGE_PIXELS = 70_000_000
"""Width times height an image may claim (a 12 MP camera frame is 12,000,000, a phone's 64 MP photo
64,144,128; the reader reads a 48 MP photo of 25 dice in about 130 ms, within 320 MB): checked from
the header before decoding, since a 45 KB JPEG can claim 20000x20000 and decode into 1.2 GB."""

MAX_IMAGE_BYTES = 64 * 1024 * 1024
"""The largest image file read (an uncompressed 12 MP frame is 36 MB)."""


def load_image(path: str | os.PathLike[str]) -> Frame:
    """Reads an image file as a BGR ``uint8`` array of shape (H, W, 3).

    Greyscale and BGRA files are converted to BGR. A photo whose EXIF block says how the camera was
    held (a phone's portrait shot) is turned that way up, as every viewer shows it and as its dice
    were labelled. Only regular files are read (a FIFO or a device is
    refused without blocking), and the size the header claims is checked against
    :data:`MAX_IMAGE_PIXELS` before anything is decoded. Decoding goes through a byte buffer so that
    paths with any characters work.

    :raises ImageLoadError: the file is missing, unreadable, empty, not a regular file, too large, or
        not a decodable image.
    """
    shown = repr(os.fspath(path))
    data = read_regular_file(path, MAX_IMAGE_BYTES, ImageLoadError, "image")
    if not data:
        raise ImageLoadError(f"image file is empty: {shown}")
    size = image_size(data)
    if size is None:
        raise ImageLoadError(f"not a decodable image: {shown} (not a JPEG, PNG, BMP, TIFF, WebP or PNM header)")
    width, height = size
    if width < 1 or height < 1 or width * height > MAX_IMAGE_PIXELS:
        raise ImageLoadError(
            f"image {shown} claims {width}x{height} pixels, beyond the limit of {MAX_IMAGE_PIXELS:,}"
        )
    buffer = np.frombuffer(data, dtype=np.uint8)
    try:
        # any depth and colours as stored, turned as EXIF says (IMREAD_UNCHANGED would not turn it)
        image = cv2.imdecode(buffer, cv2.IMREAD_ANYCOLOR | cv2.IMREAD_ANYDEPTH)
    except cv2.error as error:
        raise ImageLoadError(f"not a decodable image: {shown} ({str(error).strip().splitlines()[-1]})") from None
    if image is None or image.size == 0:
        raise ImageLoadError(f"not a decodable image: {shown}")
    if image.shape[0] * image.shape[1] > MAX_IMAGE_PIXELS:
        raise ImageLoadError(f"image {shown} decodes to {image.shape[1]}x{image.shape[0]} pixels, beyond the limit")
    if image.dtype != np.uint8:
        # 16-bit PNG/TIFF: keep the top byte, which is what a camera frame would carry.
        image = (image.astype(np.float32) / 257.0).clip(0, 255).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.shape[2] != 3:
        raise ImageLoadError(f"not a colour or grey image: {shown} ({image.shape[2]} channels)")
    frame: Frame = np.ascontiguousarray(image)
    return frame


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) as the header of an encoded image says, without decoding it; None for a
    format not recognised (the formats the tray reads: JPEG, PNG, BMP, TIFF, WebP, PNM)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    if data[:2] == b"BM" and len(data) >= 26:
        header = int.from_bytes(data[14:18], "little")
        if header == 12:  # OS/2 BITMAPCOREHEADER: 16-bit sizes
            return int.from_bytes(data[18:20], "little"), int.from_bytes(data[20:22], "little")
        return abs(int.from_bytes(data[18:22], "little", signed=True)), abs(int.from_bytes(data[22:26], "little", signed=True))
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff_size(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data[:1] == b"P" and data[1:2] in b"123456" and len(data) > 2:
        return _pnm_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        # Start of frame (baseline, progressive, lossless...), not DHT (C4), JPG (C8) or DAC (CC).
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if at + 9 > len(data):
                return None
            return int.from_bytes(data[at + 7 : at + 9], "big"), int.from_bytes(data[at + 5 : at + 7], "big")
        if length < 2:
            return None
        at += 2 + length
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    order: Literal["little", "big"] = "little" if data[:2] == b"II" else "big"
    offset = int.from_bytes(data[4:8], order)
    if offset + 2 > len(data):
        return None
    count = int.from_bytes(data[offset : offset + 2], order)
    found: dict[int, int] = {}
    for index in range(count):
        entry = offset + 2 + 12 * index
        if entry + 12 > len(data):
            return None
        tag = int.from_bytes(data[entry : entry + 2], order)
        kind = int.from_bytes(data[entry + 2 : entry + 4], order)
        if tag in (256, 257):  # ImageWidth, ImageLength: SHORT (3) or LONG (4)
            width = 2 if kind == 3 else 4
            found[tag] = int.from_bytes(data[entry + 8 : entry + 8 + width], order)
    if 256 not in found or 257 not in found:
        return None
    return found[256], found[257]


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def _pnm_size(data: bytes) -> tuple[int, int] | None:
    fields: list[int] = []
    for line in data[2:512].split(b"\n"):
        for token in line.split(b"#", 1)[0].split():
            if not token.isdigit() or len(token) > 9:
                return None
            fields.append(int(token))
            if len(fields) == 2:
                return fields[0], fields[1]
    return None


#: The smallest frame side the readers and finders take.
MIN_FRAME_SIDE = 32


def check_frame(frame: object) -> Frame:
    """Returns ``frame`` if it is an HxWx3 ``uint8`` array at least :data:`MIN_FRAME_SIDE` on each side; raises otherwise.

    :raises InvalidFrameError: naming what was wrong with it.
    """
    if not isinstance(frame, np.ndarray):
        raise InvalidFrameError(f"a frame must be a numpy array, not {type(frame).__name__!r}")
    if frame.dtype != np.uint8:
        raise InvalidFrameError(f"a frame must be uint8, not {str(frame.dtype)!r}")
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise InvalidFrameError(f"a frame must be HxWx3 BGR, not shape {tuple(frame.shape)!r}")
    if frame.shape[0] < MIN_FRAME_SIDE or frame.shape[1] < MIN_FRAME_SIDE:
        raise InvalidFrameError(f"a frame must be at least {MIN_FRAME_SIDE}x{MIN_FRAME_SIDE}, not {frame.shape[1]}x{frame.shape[0]}")
    checked: Frame = frame
    return checked
