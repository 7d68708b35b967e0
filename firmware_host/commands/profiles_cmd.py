"""`dicetray` subcommands: profiles list, show, remove."""

from __future__ import annotations

import argparse
import json
from typing import Any

from firmware_host.commands._shared import help_handler


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
    profiles = subparsers.add_parser(
        "profiles",
        help="manage saved tray and die profiles",
        description="List, show or remove the profiles saved in the state directory.",
    )
    actions = profiles.add_subparsers(dest="action", metavar="ACTION", parser_class=type(profiles))
    profiles.set_defaults(handler=help_handler(profiles))

    listing = actions.add_parser("list", help="every saved profile")
    listing.add_argument("--json", action="store_true", help="one JSON object per profile, one per line")
    listing.set_defaults(handler=run_list)

    show = actions.add_parser("show", help="one profile in detail")
    show.add_argument("name", metavar="NAME", help="saved name or path")
    show.add_argument("--json", action="store_true", help="print it as one JSON object")
    show.set_defaults(handler=run_show)

    remove = actions.add_parser("remove", help="delete a saved profile")
    remove.add_argument("name", metavar="NAME", help="saved name")
    remove.set_defaults(handler=run_remove)


def run_list(args: argparse.Namespace) -> int:
    from calibration.paths import profiles_directory
    from calibration.profiles import list_profiles

    found = list_profiles()
    if args.json:
        for info in found:
            print(json.dumps(info.to_json()))
        return 0
    if not found:
        print(f"no profiles in {str(profiles_directory())!r}")
        return 0
    for info in found:
        if info.problem:
            print(f"{info.name}  {info.kind}  DAMAGED: {info.problem}")
        else:
            print(f"{info.name}  {info.kind}  {info.detail}  (created {info.created})")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from calibration.profiles import profile_path, read_manifest

    folder = profile_path(args.name)
    kind = read_manifest(folder).get("kind")
    if kind == "tray":
        from calibration.tray import load_tray_profile

        tray = load_tray_profile(args.name)
        summary = {**tray.summary(), "notes": tray.notes()}
    else:
        from calibration.profiles import load_profile

        summary = load_profile(args.name).summary()
    summary["path"] = str(folder)
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"{summary['name']} ({summary['kind']} profile, created {summary['created']}) at {summary['path']}")
    if kind == "tray":
        for key in ("frame_size", "roi", "die_side", "markers", "view"):
            print(f"  {key}: {summary.get(key)}")
        for note in summary["notes"]:
            print(f"  note: {note}")
        return 0
    for face in summary["faces"]:
        symbol = f", symbol {face['symbol']}" if face["symbol"] else ""
        pips = ", read as pips" if face["pips"] else ""
        print(f"  {face['label']}: value {face['value']}{symbol}{pips}, {face['exemplars']} examples")
    matcher = summary["matcher"]
    print(f"  accept distance {matcher['accept_distance']}, min confidence {matcher['min_confidence']}")
    fit = summary.get("fit") or {}
    if fit:
        print(f"  held out: {fit.get('held_out_right')}/{fit.get('held_out_reads')} read right")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from calibration.profiles import remove_profile

    folder = remove_profile(args.name)
    print(f"removed profile {args.name!r} ({str(folder)!r})")
    return 0
