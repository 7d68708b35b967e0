"""Pieces every subcommand group uses."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def help_handler(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    """A handler for a command group called without its action: print the group's help, exit 2."""

    def show_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    return show_help
