"""`dicetray` subcommands: run."""

from __future__ import annotations

import argparse
import dataclasses
import logging
from typing import Any

from firmware_host.errors import UsageError

log = logging.getLogger("dicetray")


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
    run = subparsers.add_parser(
        "run",
        help="the tray service, with the hardware the config names",
        description=(
            "Run the tray: watch the camera, read the dice when they settle, play the game on the LED, "
            "display and buttons, log every roll. Config: --config FILE, else /etc/dicetray/config.toml "
            "when present, else the defaults (see deploy/config.example.toml). Stops on SIGTERM or Ctrl-C."
        ),
    )
    run.add_argument("--config", metavar="FILE", help="TOML config file")
    run.add_argument("--max-seconds", type=float, metavar="S", help="stop after S seconds (for tests)")
    run.add_argument("--max-frames", type=int, metavar="N", help="stop after N frames (for tests)")
    run.add_argument(
        "--new-game",
        action="store_true",
        help="start a new game instead of resuming the last unfinished one (as game.resume = false does)",
    )
    run.set_defaults(handler=run_service)


def run_service(args: argparse.Namespace) -> int:
    from firmware_host.config import find_config, load_config
    from firmware_host.logging_setup import configure_logging
    from firmware_host.service import build_service

    if args.max_seconds is not None and not args.max_seconds > 0:
        raise UsageError(f"--max-seconds must be above 0, not {args.max_seconds!r}")
    if args.max_frames is not None and args.max_frames < 1:
        raise UsageError(f"--max-frames must be at least 1, not {args.max_frames!r}")
    config = load_config(args.config)
    if args.new_game:
        config = dataclasses.replace(config, game=dataclasses.replace(config.game, resume=False))
    configure_logging(config.log_level)
    source = find_config(args.config)
    log.info(
        "config %s: camera %s, gpio %s, display %s, roll log %s",
        source if source is not None else "(built-in defaults)",
        config.camera,
        config.gpio,
        config.display,
        config.roll_log_path,
    )
    service = build_service(config)
    return service.run(max_frames=args.max_frames, max_seconds=args.max_seconds)
