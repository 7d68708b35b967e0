"""`dicetray` subcommands: demo."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from firmware_host.errors import UsageError


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
    demo = subparsers.add_parser(
        "demo",
        help="play a short 1v1 game on the simulated tray",
        description=(
            "Plays Barbarian against Moon Elf on the simulated tray: simulated camera, settle "
            "detection, the dice reader, the rules engine, buttons and status LED on mock pins, and "
            "every display frame written as a PNG into DIR. The players spend statuses and play a card "
            "in the damage window. Prints the game as it goes and leaves its record in DIR/game.dtr."
        ),
    )
    demo.add_argument("--out", metavar="DIR", default="demo-out", help="folder for the display frames (default: demo-out)")
    demo.add_argument("--seed", metavar="N", default="0", help="seed of the dice and the players' choices (default: 0)")
    demo.add_argument("--turns", metavar="N", default=None, help="turns before the leader is named (default: 6)")
    demo.add_argument(
        "--heroes", nargs=2, metavar="HERO", help="the two heroes (default: barbarian moon-elf); custom heroes too"
    )
    demo.add_argument(
        "--game", metavar="GAME", default="dice-throne",
        help="dice-throne (default), battle-dice or dice-masters (see docs/battle-dice.md, docs/dice-masters.md)",
    )
    demo.add_argument(
        "--web", action="store_true",
        help="serve the table app on 127.0.0.1 while the demo plays, and keep serving until Ctrl-C",
    )  # fmt: skip
    demo.add_argument("--port", metavar="N", default="8080", help="the table app's port with --web (default: 8080)")
    demo.set_defaults(handler=run_demo_command)


def _count(text: str, option: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{option} takes a whole number, not {text!r}") from None
    if value < low:
        raise UsageError(f"{option} must be {low} or more, not {text!r}")
    return value


def run_demo_command(args: argparse.Namespace) -> int:
    from firmware_host.demo import DEMO_HEROES, DEMO_TURNS, run_demo

    seed = _count(args.seed, "--seed", 0)
    if args.game != "dice-throne":
        if args.heroes is not None:
            raise UsageError(f"--heroes picks Dice Throne heroes; {args.game} takes its figures or cards from its own files")
        if args.web:
            raise UsageError(f"--web serves the Dice Throne demo; the table app does not play {args.game} yet")
        return _run_seed_game(args, seed)
    turns = DEMO_TURNS if args.turns is None else _count(args.turns, "--turns", 1)
    out = Path(args.out)
    live = None
    if args.web:
        from firmware_host.web import TrayWeb

        port = _count(args.port, "--port", 1)
        if port > 65535:
            raise UsageError(f"--port must be 65535 or less, not {args.port!r}")
        live = TrayWeb("127.0.0.1", port)
        live.start()
        print(f"table app at {live.url} (pairing PIN {live.pairing.pin}); Ctrl-C stops it", flush=True)
    heroes = DEMO_HEROES if args.heroes is None else tuple(args.heroes)
    result = run_demo(
        out, seed, turn_limit=turns, echo=sys.stdout, heroes=heroes, live=live, pace_s=0.4 if live is not None else 0.0
    )
    print(
        f"\n{result.frames_shown} display frames, the transcript and the game record in {str(out)!r}; {result.camera_frames} camera frames, "
        f"{result.readings} readings, {result.rerolls} reroll prompts, {result.corrections} dice set by hand"
    )
    print(f"played in {result.seconds:.1f} s", file=sys.stderr)
    if not result.finished:
        print("dicetray demo: error: the game stopped before its end", file=sys.stderr)
        return 1
    return 0


def _run_seed_game(args: argparse.Namespace, seed: int) -> int:
    """``--game battle-dice|dice-masters``: the game played on the simulated tray from its menus."""
    from firmware_host.seed_demo import GAMES, run_seed_demo

    if args.game not in GAMES:
        raise UsageError(f"--game takes dice-throne, {', '.join(GAMES)}; not {args.game!r}")
    turns = 60 if args.turns is None else _count(args.turns, "--turns", 1)
    out = Path(args.out)
    result = run_seed_demo(args.game, out, seed, echo=sys.stdout, turn_limit=turns)
    print(
        f"\n{result.frames_shown} display frames, the transcript and the game record in {str(out)!r}; "
        f"{result.rolls} rolls on the simulated tray, {result.read_by_reader} dice read by the reader "
        f"({result.colours_by_reader} told apart by their colour), "
        f"{result.from_truth} faces from the simulator's truth"
    )
    if not result.finished:
        print("dicetray demo: error: the game stopped before its end", file=sys.stderr)
        return 1
    return 0
