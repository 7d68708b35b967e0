"""Marvel Heroes Battle Dice (seed ``003_...``): figures and their stats as data files, teams,
Strike Totals, match-ups, battle stats, Battle Totals, powers, captures, zones and reloading, on the
game-agnostic core in :mod:`rules`.

Registered with :func:`rules.games.find_game` as ``"battledice"`` (aliases ``battle-dice``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.games import GameType, TableGame, register_game


def _new_game(*args: Any, **setup: Any) -> TableGame:
    from rules.battledice.game import Game

    return Game.new(*args, **setup)


def _from_tags(tags: Mapping[str, str]) -> TableGame:
    from rules.battledice.game import Game

    return Game.from_tags(tags)


register_game(
    GameType(
        name="battledice",
        title="Marvel Heroes Battle Dice",
        new=_new_game,
        from_tags=_from_tags,
        aliases=("battle-dice", "battle dice", "bd"),
    )
)
