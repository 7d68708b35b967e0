"""`dicetray` subcommands: roll-log check, backup."""

from __future__ import annotations

import argparse
from typing import Any

from firmware_host.commands._shared import help_handler


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
    group = subparsers.add_parser(
        "roll-log",
        help="check or back up the roll log",
        description="Check the roll log with SQLite's integrity check, or copy it with SQLite's online "
        "backup (safe while the tray runs). The log is the one the config names (--config FILE, else "
        "/etc/dicetray/config.toml when present, else rolls.sqlite3 in the state directory).",
    )
    actions = group.add_subparsers(dest="roll_log_command", metavar="ACTION", parser_class=type(group))
    group.set_defaults(handler=help_handler(group))

    check = actions.add_parser("check", help="PRAGMA integrity_check; a damaged log is moved aside")
    check.add_argument("--config", metavar="FILE", help="TOML config file")
    check.set_defaults(handler=run_check)

    backup = actions.add_parser("backup", help="an online backup now")
    backup.add_argument("--config", metavar="FILE", help="TOML config file")
    backup.add_argument("--to", metavar="FILE", help="where to write the copy (default: backups/ beside the log)")
    backup.set_defaults(handler=run_backup)


def _roll_log(config_path: str | None) -> Any:
    from firmware_host.config import load_config
    from firmware_host.rolllog import RollLog

    return RollLog(load_config(config_path).roll_log_path)


def run_check(args: argparse.Namespace) -> int:
    roll_log = _roll_log(args.config)
    try:
        verdict = roll_log.integrity_check()
        if roll_log.damaged is not None:
            print(f"roll log {str(roll_log.path)!r} was damaged: kept aside as {str(roll_log.damaged)!r}; a new log starts")
            return 1
        print(f"roll log {str(roll_log.path)!r}: {verdict}, {len(roll_log.readings())} readings")
    finally:
        roll_log.close()
    return 0


def run_backup(args: argparse.Namespace) -> int:
    roll_log = _roll_log(args.config)
    try:
        target = roll_log.backup(args.to)
    finally:
        roll_log.close()
    print(f"roll log {str(roll_log.path)!r} backed up to {str(target)!r}")
    return 0
