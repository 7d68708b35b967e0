"""Frames in, dice readings out: finding dice, reading their top faces, settle detection.

Imports only numpy and OpenCV; never hardware or rules.
"""

from vision.types import DieReading, DieStatus, FrameReading

__all__ = ["DieReading", "DieStatus", "FrameReading"]
