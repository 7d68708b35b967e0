"""Errors of the hardware package."""

from __future__ import annotations


class HardwareError(Exception):
    """Base of every error raised by :mod:`hardware`."""


class CameraUnavailable(HardwareError, RuntimeError):
    """No camera could be opened or it stopped delivering frames; the message names the device."""


class PinBusy(HardwareError, RuntimeError):
    """A GPIO pin is already in use; the message names the pin."""


class DisplayUnavailable(HardwareError, RuntimeError):
    """The display is not on the bus or cannot be opened."""
