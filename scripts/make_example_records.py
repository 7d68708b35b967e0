"""Plays the example games of docs/examples/ with seeded dice and simple, sensible choices, and
writes their records. Run from the repository root: ``.venv/bin/python scripts/make_example_records.py``.

The records are the documentation; the tests replay them (tests/rules/test_records.py). A player:
rolls up to three times keeping what the odds advise, activates the most valuable ability, attacks
the opponent with the most health (the leader in King of the Hill), spends statuses that cut or add
damage in the damage window, plays a card that adds or prevents damage when it has the CP, takes
the first option of an "Or", buys one upgrade when rich, and sells down to six cards.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.dicethrone.game import CardKind, Game, Phase  # noqa: E402
from rules.dicethrone.odds import odds  # noqa: E402
from rules.dicethrone.statuses import SpendKind, find_status  # noqa: E402
from rules.dice import Roll  # noqa: E402
from rules.errors import IllegalActionError  # noqa: E402
from rules.records import GameRecord  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def dice(rng: random.Random, n: int) -> str:
    return " ".join(str(rng.randint(1, 6)) for _ in range(n))


def offensive_roll(game: Game, rng: random.Random) -> None:
    hero = game.active_player.hero
    roll = Roll.from_notation(dice(rng, 5))
    game.record_offensive_roll(roll)
    while game.roll_attempts_left > 0:
        report = odds(hero, roll, game.roll_attempts_left)
        best = game.activations()
        if best and best[0].expected_damage >= 8:
            break
        keep = list(report.best.keep) if report.best is not None else []
        kept = [f for f in keep]
        roll = Roll.from_notation(" ".join(str(f) for f in kept) + " " + dice(rng, 5 - len(kept)))
        game.record_offensive_roll(roll)


def window(game: Game, rng: random.Random) -> None:
    """Statuses and cards before the damage is applied: the active player first, then in turn order."""
    if game.selected is None or game.exchange is not None:
        return
    order = [game.players[(game.active + k) % len(game.players)] for k in range(len(game.players))]
    for player in order:
        for name in list(player.statuses):
            status = find_status(name)
            if status.spend in (SpendKind.NONE, SpendKind.REMOVE_NEGATIVE, SpendKind.PAY_TO_REMOVE):
                continue
            try:
                game.spend_status(player, name, die=rng.randint(1, 6) if status.succeeds_on else None)
            except IllegalActionError:
                pass
        if player.cp >= 3 and player.hand > 1 and rng.random() < 0.5:
            effect = "add 2" if player.index == game.active else "prevent 2"
            try:
                game.play_card(1, player=player, kind=CardKind.ROLL, effect=effect)
            except IllegalActionError:
                pass


def turn(game: Game, rng: random.Random) -> None:
    while game.phase is not Phase.MAIN_1 and game.outcome is None:
        game.advance()
    if game.outcome is not None:
        return
    player = game.active_player
    if player.cp >= 6 and not player.upgrades:
        ability = player.hero.offensive_abilities()[0].name
        game.play_upgrade(ability, 2, 3)
    game.advance()
    if game.phase is Phase.OFFENSIVE_ROLL:
        offensive_roll(game, rng)
        found = game.activations()
        game.select_ability(found[0].ability if found else None)
        if game.status_roll_needed is not None:
            game.record_status_roll(rng.randint(1, 6))
        if game.selected is not None:
            ability = player.hero.ability(game.selected.ability)
            if ability.bonus_roll is not None:
                game.record_bonus_roll(dice(rng, ability.bonus_roll.dice))
            for phrase, options in game.pending_choices().items():
                game.choose(options[0])
        game.advance()
        if game.phase is Phase.TARGETING_ROLL:
            if game.targeting_die is None and game.mode.value == "2v2":
                game.record_targeting_roll(rng.randint(1, 6))
            if game.target is None:
                target = max(game.opponents(), key=lambda p: (game.health(p), -p.index))
                game.choose_target(target)
            game.advance()
        if game.phase is Phase.DEFENSIVE_ROLL:
            window(game, rng)
            assert game.defender is not None and game.defense is not None or game.defender is not None
            if game.defense is None:
                game.choose_defense(game.defender.hero.defensive_abilities()[0].name)
            defense = game.defender.hero.ability(game.defense)
            game.record_defensive_roll(dice(rng, defense.defense_dice))
            window(game, rng)
            game.advance()
        elif game.phase is Phase.OFFENSIVE_ROLL:
            window(game, rng)
            game.advance()
    if game.outcome is not None:
        return
    game.advance()  # Main Phase (2) -> Discard
    while game.active_player.hand > 6:
        game.sell_card()
    game.advance()


def play(heroes: list[str], names: list[str], seed: int, max_turns: int = 200) -> Game:
    rng = random.Random(seed)
    game = Game.new(heroes, names=names)
    game.seed = seed
    while game.outcome is None and game.turn <= max_turns:
        turn(game, rng)
    return game


def write(path: Path, game: Game, title: str) -> None:
    record = GameRecord.of(game)
    header = f"# {title}\n# Written by scripts/make_example_records.py; replayed by tests/rules/test_records.py.\n"
    path.write_text(header + record.notation(), encoding="utf-8")
    print(f"{path.name}: {len(record.actions)} actions, turn {game.turn}, winner {game.winner_name()}")


if __name__ == "__main__":
    EXAMPLES.mkdir(parents=True, exist_ok=True)
    koth = play(["paladin", "monk", "barbarian"], ["Ada", "Ben", "Cy"], seed=12)
    write(EXAMPLES / "king-of-the-hill.dtr", koth, "King of the Hill: Paladin, Monk and Barbarian")
    duel = play(["shadow-thief", "moon-elf"], ["Sam", "Mia"], seed=3)
    write(EXAMPLES / "shadow-thief-v-moon-elf.dtr", duel, "1v1: Shadow Thief against Moon Elf")
    teams = play(["ninja", "pyromancer", "treant", "shadow-thief"], ["Nia", "Pyr", "Tre", "Sha"], seed=4)
    write(EXAMPLES / "two-v-two.dtr", teams, "2v2: Ninja and Treant against Pyromancer and Shadow Thief")
