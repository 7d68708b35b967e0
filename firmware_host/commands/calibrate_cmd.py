"""`dicetray` subcommands: calibrate tray, calibrate die."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
