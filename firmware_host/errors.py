"""Errors of the service, and how the command line turns any project error into an exit status."""

from __future__ import annotations

from calibration.errors import CalibrationError
from hardware.errors import HardwareError
from rules.errors import RulesError
from vision.errors import VisionError


class ServiceError(Exception):
    """Base of every error raised by :mod:`firmware_host`."""


class ConfigError(ServiceError, ValueError):
    """A config file that does not validate; the message names the file and the key."""


class UsageError(ServiceError, ValueError):
    """A command-line argument that cannot be used; the message names it."""


class RollLogError(ServiceError, RuntimeError):
    """The roll log cannot be written (disk full, read-only); the message names the file."""


PROJECT_ERRORS: tuple[type[Exception], ...] = (
    RulesError,
    VisionError,
    CalibrationError,
    HardwareError,
    ServiceError,
)


def exit_status_for(error: BaseException) -> int:
    """2 for bad input or usage (the error is a ValueError or LookupError), 1 for a fault at run time."""
    if isinstance(error, (ValueError, LookupError)):
        return 2
    return 1
