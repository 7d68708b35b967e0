"""`dicetray` subcommands: heroes, score, odds."""

from __future__ import annotations

import argparse
import json
from typing import Any

from firmware_host.commands._shared import help_handler


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
    heroes = subparsers.add_parser(
        "heroes",
        help="the hero data the rules engine knows",
        description="List the heroes, or show one hero's dice key and abilities. Custom hero files "
        "in the state directory's heroes/ folder are included (format: docs/heroes.md).",
    )
    actions = heroes.add_subparsers(dest="heroes_command", metavar="ACTION", parser_class=type(heroes))
    listing = actions.add_parser("list", help="every hero, by id")
    listing.add_argument("--json", action="store_true", help="print a JSON list")
    listing.set_defaults(handler=run_heroes_list)
    show = actions.add_parser("show", help="one hero's dice key and abilities")
    show.add_argument("hero", metavar="HERO", help="hero id, display name or hero file")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(handler=run_heroes_show)
    heroes.set_defaults(handler=help_handler(heroes))

    score = subparsers.add_parser(
        "score",
        help="every ability a roll activates",
        description="Score a five-dice offensive roll: every ability it activates, with tier, dice used, "
        "effect and damage, most valuable first.",
    )
    score.add_argument("--hero", required=True, metavar="HERO", help="hero id or display name")
    score.add_argument("dice", nargs="+", metavar="DICE", help="face numbers (1 1 2 5 6) or the hero's symbol names")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.set_defaults(handler=run_score)

    odds = subparsers.add_parser(
        "odds",
        help="exact chance of each ability with the rolls left, and which dice to keep",
        description="Exact chance of reaching each ability with the best keep for it, and the keep "
        "that maximises expected damage. Without --dice the first attempt rolls all five dice.",
    )
    odds.add_argument("--hero", required=True, metavar="HERO", help="hero id or display name")
    odds.add_argument("--dice", nargs="+", metavar="DICE", help="the five dice on the table now")
    odds.add_argument("--rolls-left", type=int, default=3, metavar="N", help="roll attempts still to make (default 3)")
    odds.add_argument("--for", dest="target", metavar="ABILITY", help="advise the keep for this ability")
    odds.add_argument("--json", action="store_true", help="print one JSON object")
    odds.set_defaults(handler=run_odds)


def _hero(name: str) -> Any:
    from firmware_host.heroes import find_hero

    return find_hero(name)


def run_heroes_list(args: argparse.Namespace) -> int:
    from firmware_host.heroes import every_hero

    heroes = every_hero()
    if args.json:
        print(json.dumps([{"id": h.id, "name": h.name, "set": h.set, "partial": h.partial} for h in heroes]))
        return 0
    width = max(len(h.id) for h in heroes)
    for hero in heroes:
        mark = "  (partial)" if hero.partial else ""
        print(f"{hero.id:<{width}}  {hero.name}{mark}")
    return 0


def run_heroes_show(args: argparse.Namespace) -> int:
    hero = _hero(args.hero)
    if args.json:
        print(json.dumps(_hero_json(hero)))
        return 0
    print(f"{hero.name} ({hero.id}){'  partial' if hero.partial else ''}  {hero.set}")
    print("dice:  " + "  ".join(f"{face}={symbol}" for face, symbol in enumerate(hero.faces, start=1)))
    for ability in hero.abilities:
        print(f"{ability.name}  [{ability.kind.value}]  {ability.requirement_text}")
        if ability.aliases:
            print(f"    also: {', '.join(ability.aliases)}")
        damage_type = "" if ability.damage_type is None else f"  ({ability.damage_type.value})"
        text = ability.effect_text or "; ".join(t.text for t in ability.tiers)
        if len(ability.tiers) > 1:
            text = " / ".join(t.text for t in ability.tiers)
        print(f"    {text}{damage_type}")
        for conflict in ability.conflicts:
            print(f"    sources disagree on {conflict.about}: using {conflict.chosen}; other: {conflict.other}")
    if hero.notes:
        print(f"note: {hero.notes}")
    return 0


def _hero_json(hero: Any) -> dict[str, object]:
    return {
        "id": hero.id,
        "name": hero.name,
        "set": hero.set,
        "partial": hero.partial,
        "faces": {str(face): symbol for face, symbol in enumerate(hero.faces, start=1)},
        "abilities": [
            {
                "name": a.name,
                "kind": a.kind.value,
                "aliases": list(a.aliases),
                "requirement": a.requirement_text,
                "tiers": [{"requirement": t.requirement.notation(), "effect": t.text} for t in a.tiers],
                "effect": a.effect_text or (a.tiers[0].text if a.tiers else ""),
                "damage_type": None if a.damage_type is None else a.damage_type.value,
                "conflicts": [{"about": c.about, "chosen": c.chosen, "other": c.other} for c in a.conflicts],
            }
            for a in hero.abilities
        ],
    }


def run_score(args: argparse.Namespace) -> int:
    from rules.dice import Roll
    from rules.dicethrone.scoring import activations, check_offensive_roll

    hero = _hero(args.hero)
    roll = check_offensive_roll(Roll.from_faces(args.dice, hero))
    found = activations(hero, roll)
    if args.json:
        print(json.dumps({"hero": hero.id, "roll": roll.notation(), "activations": [a.to_json() for a in found]}))
        return 0
    symbols = " ".join(roll.symbols(hero))
    print(f"{hero.name}: {roll.notation()}  ({symbols})")
    if not found:
        print("  no ability")
    for activation in found:
        tier = f" tier {activation.tier}/{activation.tiers}" if activation.tiers > 1 else ""
        flag = "  UNSTOPPABLE" if activation.unstoppable else ""
        dice = " ".join(str(face) for face in activation.dice)
        print(f"  {activation.ability}{tier}: {activation.effect}  [dice {dice}]{flag}")
    return 0


def run_odds(args: argparse.Namespace) -> int:
    from rules.dice import Roll
    from rules.dicethrone.odds import odds

    hero = _hero(args.hero)
    dice = None if args.dice is None else Roll.from_faces(args.dice, hero)
    report = odds(hero, dice, args.rolls_left, target=args.target)
    if args.json:
        data = report.to_json()
        if data["dice"] is None:
            data["dice"] = []
        print(json.dumps(data))
        return 0
    on_table = "no dice yet" if report.dice is None else "dice " + " ".join(map(str, report.dice))
    print(f"{hero.name}: {on_table}, {report.rolls_left} roll attempt(s) left")
    width = max(len(a.ability) for a in report.abilities)
    for entry in report.abilities:
        keep = " ".join(map(str, entry.keep)) or "nothing"
        print(f"  {entry.ability:<{width}}  {entry.probability * 100:6.2f}%  keep {keep}")
    best = report.best
    keep = " ".join(map(str, best.keep)) or "nothing"
    if best.target is not None and best.probability is not None:
        print(f"for {best.target}: keep {keep} ({best.probability * 100:.2f}%)")
    else:
        print(f"best: keep {keep} (expected damage {best.expected_damage:.2f})")
    return 0
