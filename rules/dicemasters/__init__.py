"""Dice Masters (seed ``004_...``): dice as sets of faces, cards as data files, the roll and one
group reroll, the Reserve Pool and energy by type, buying, fielding, the attack step, Cleanup, life
and winning, on the game-agnostic core in :mod:`rules`.

Registered with :func:`rules.games.find_game` as ``"dicemasters"`` (alias ``dice-masters``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.games import GameType, TableGame, register_game


def _new_game(*args: Any, **setup: Any) -> TableGame:
    from rules.dicemasters.game import Game

    return Game.new(*args, **setup)


def _from_tags(tags: Mapping[str, str]) -> TableGame:
    from rules.dicemasters.game import Game

    return Game.from_tags(tags)


register_game(
    GameType(
        name="dicemasters", title="Dice Masters", new=_new_game, from_tags=_from_tags, aliases=("dice-masters", "dm")
    )
)
