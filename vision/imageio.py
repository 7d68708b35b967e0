"""Loading images from disk with errors that name the file."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import ImageLoadError, InvalidFrameError

Frame = npt.NDArray[np.uint8]


def load_image(path: str | os.PathLike[str]) -> Frame:
    """Reads an image file as a BGR ``uint8`` array of shape (H, W, 3).

    Greyscale and BGRA files are converted to BGR. Decoding goes through a byte buffer so that
    paths with any characters work.

    :raises ImageLoadError: the file is missing, unreadable, empty or not a decodable image.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ImageLoadError(f"image not found: {str(p)!r}") from None
    except IsADirectoryError:
        raise ImageLoadError(f"not an image file but a folder: {str(p)!r}") from None
    except OSError as error:
        raise ImageLoadError(f"cannot read image {str(p)!r}: {error.strerror or error}") from None
    if not data:
        raise ImageLoadError(f"image file is empty: {str(p)!r}")
    buffer = np.frombuffer(data, dtype=np.uint8)
    image = cv2.imdecode(buffer, cv2.IMREAD_UNCHANGED)
    if image is None or image.size == 0:
        raise ImageLoadError(f"not a decodable image: {str(p)!r}")
    if image.dtype != np.uint8:
        # 16-bit PNG/TIFF: keep the top byte, which is what a camera frame would carry.
        image = (image.astype(np.float32) / 257.0).clip(0, 255).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    frame: Frame = np.ascontiguousarray(image)
    return frame


def check_frame(frame: object) -> Frame:
    """Returns ``frame`` if it is an HxWx3 ``uint8`` array at least 32x32; raises otherwise.

    :raises InvalidFrameError: naming what was wrong with it.
    """
    if not isinstance(frame, np.ndarray):
        raise InvalidFrameError(f"a frame must be a numpy array, not {type(frame).__name__!r}")
    if frame.dtype != np.uint8:
        raise InvalidFrameError(f"a frame must be uint8, not {str(frame.dtype)!r}")
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise InvalidFrameError(f"a frame must be HxWx3 BGR, not shape {tuple(frame.shape)!r}")
    if frame.shape[0] < 32 or frame.shape[1] < 32:
        raise InvalidFrameError(f"a frame must be at least 32x32, not {frame.shape[1]}x{frame.shape[0]}")
    checked: Frame = frame
    return checked
