"""`dicetray` subcommands: replay (a game record to its end) and games (the records the tray wrote)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from firmware_host.commands._shared import help_handler
from firmware_host.errors import UsageError


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
    replay = subparsers.add_parser(
        "replay",
        help="replay a game record to its final state",
        description=(
            "Replays a game record (docs/game-records.md) action by action and prints the final "
            "state; an action the rules refuse stops it with the line and the rule."
        ),
    )
    replay.add_argument("file", metavar="FILE", help="the game record")
    replay.add_argument("--json", action="store_true", help="print the final state as JSON")
    replay.set_defaults(handler=run_replay)

    games = subparsers.add_parser("games", help="the games the tray recorded in its roll log")
    actions = games.add_subparsers(dest="action", metavar="ACTION")
    games.set_defaults(handler=help_handler(games))
    listing = actions.add_parser("list", help="list the recorded games")
    listing.add_argument("--log", metavar="FILE", default=None, help="the roll log (default: the state directory's)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=run_games_list)
    export = actions.add_parser("export", help="print game N's record (or write it with --out)")
    export.add_argument("number", metavar="N", help="the game's number (see 'games list')")
    export.add_argument("--log", metavar="FILE", default=None, help="the roll log (default: the state directory's)")
    export.add_argument("--out", metavar="FILE", default=None, help="write the record to FILE")
    export.set_defaults(handler=run_games_export)


def run_replay(args: argparse.Namespace) -> int:
    from firmware_host.heroes import hero_folders
    from rules.records import GameRecord, replay

    from vision.datafile import read_text_file

    path = Path(args.file)
    text = read_text_file(path, UsageError, "the record")  # a regular file of bounded size: a FIFO never blocks
    game = replay(GameRecord.from_text(text, str(path)), search=hero_folders())  # custom heroes too
    state = game.to_json()
    if args.json:
        print(json.dumps(state, indent=2))
        return 0
    print(f"{len(game.actions)} actions, turn {state['turn']}, {state['phase']}")
    summary = getattr(game, "summary_lines", None)
    for line in summary() if summary is not None else ():
        print(line)
    for player in state["players"] if summary is None else ():
        statuses = ", ".join(f"{name} {count}" for name, count in player["statuses"].items()) or "no statuses"
        print(
            f"  {player['name']} ({player['hero']}): {player['health']} HP, {player['cp']} CP, "
            f"{player['cards']} cards, {statuses}"
        )
    print(f"winner: {state['winner']}" if state["winner"] is not None else "the game goes on")
    return 0


def _store(args: argparse.Namespace) -> Any:
    from firmware_host.game_store import GameStore

    if args.log is not None and not Path(args.log).is_file():
        raise UsageError(f"no roll log {args.log!r}")
    return GameStore(args.log)


def run_games_list(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        games = store.games()
    finally:
        store.close()
    if args.json:
        print(json.dumps([g.to_json() for g in games], indent=2))
        return 0
    if not games:
        print("no games recorded yet")
    for game in games:
        tags = dict(game.tags)
        seats = ", ".join(v for k, v in game.tags if k[:1] == "P" and k[1:].isdigit())
        aside = "  (kept aside: does not replay)" if game.kept_aside is not None else ""
        print(f"{game.number:4d}  {tags.get('Mode', '?'):16s} {game.actions:5d} actions  {seats}{aside}")
    return 0


def run_games_export(args: argparse.Namespace) -> int:
    try:
        number = int(args.number)
    except ValueError:
        raise UsageError(f"N is a game number, not {args.number!r}") from None
    store = _store(args)
    try:
        record = store.record(number)
    finally:
        store.close()
    text = record.notation()
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {args.out!r}: {error.strerror}") from None
    print(f"game {number}: {len(record.actions)} actions written to {args.out!r}")
    return 0
