"""Errors of the calibration package."""

from __future__ import annotations


class CalibrationError(Exception):
    """Base of every error raised by :mod:`calibration`."""


class ProfileError(CalibrationError, ValueError):
    """A profile that cannot be built or loaded; the message names the file and the problem."""


class CalibrationMissing(CalibrationError, LookupError):
    """No saved profile with that name."""
