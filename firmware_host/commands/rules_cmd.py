"""`dicetray` subcommands: heroes, score, odds."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
