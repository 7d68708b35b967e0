"""Errors of the vision package."""

from __future__ import annotations


class VisionError(Exception):
    """Base of every error raised by :mod:`vision`."""


class ImageLoadError(VisionError, ValueError):
    """An image file that is missing, empty or cannot be decoded; the message names the file."""


class DatasetError(VisionError, ValueError):
    """A labelled folder that cannot be used: empty, or a malformed ``labels.json``."""


class InvalidFrameError(VisionError, ValueError):
    """A frame that is not an HxWx3 uint8 array of a usable size."""
