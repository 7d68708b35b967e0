"""Errors of the hardware package."""

from __future__ import annotations


class HardwareError(Exception):
    """Base of every error raised by :mod:`hardware`."""


class CameraUnavailable(HardwareError, RuntimeError):
    """No camera could be opened or it stopped delivering frames; the message names the device."""


class CameraHung(CameraUnavailable):
    """A camera call (open, read) did not return within its limit: the camera is treated as lost."""


class CaptureStopped(CameraUnavailable):
    """A wait for the camera was cut short because the service is stopping."""


class PinBusy(HardwareError, RuntimeError):
    """A GPIO pin is already in use; the message names the pin."""


class DisplayUnavailable(HardwareError, RuntimeError):
    """The display is not on the bus or cannot be opened."""
