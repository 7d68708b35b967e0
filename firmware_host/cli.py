"""The ``dicetray`` command.

Each group of subcommands lives in its own module under :mod:`firmware_host.commands` and exposes
``register(subparsers)``; each registered parser sets ``handler`` to a function ``(args) -> int``.
Expected errors (any project error) print one line naming the input and exit 2 (bad input) or 1
(a fault at run time); never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from firmware_host.commands import COMMAND_MODULES
from firmware_host.errors import PROJECT_ERRORS, exit_status_for


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; keep its one-line message but drop the usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _version() -> str:
    """The installed package's version (pyproject.toml's), or "unknown" when run from a bare checkout."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dicetray")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dicetray",
        description="The smart dice tray: read physical dice, score Dice Throne, run the tray.",
    )
    parser.add_argument("--version", action="version", version=f"dicetray {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except PROJECT_ERRORS as error:
        print(f"dicetray {args.command}: error: {error}", file=sys.stderr)
        return exit_status_for(error)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
