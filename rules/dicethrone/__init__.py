"""Dice Throne (Marvel and Season One ReRolled): heroes, requirements, damage, effects, statuses,
turn flow, odds and game records, on the game-agnostic core in :mod:`rules`.

Registered with :func:`rules.games.find_game` as ``"dicethrone"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rules.games import GameType, TableGame, register_game


def _new_game(
    heroes: Sequence[str], mode: str | None = None, start_player: int = 0, names: Sequence[str] | None = None
) -> TableGame:
    from rules.dicethrone.game import Game

    return Game.new(heroes, mode=mode, start_player=start_player, names=names)


def _from_tags(tags: Mapping[str, str], search: Sequence[Path] = ()) -> TableGame:
    from rules.dicethrone.game import Game

    return Game.from_tags(tags, search=search)


register_game(
    GameType(name="dicethrone", title="Dice Throne", new=_new_game, from_tags=_from_tags, aliases=("dice-throne", "dt"))
)
