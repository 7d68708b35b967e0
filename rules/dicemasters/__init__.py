"""Dice Masters (seed ``004_...``): dice as sets of faces, cards as data files, the roll and one
group reroll, the Reserve Pool and energy by type, buying, fielding, the attack step, Cleanup, life
and winning, on the game-agnostic core in :mod:`rules`.

Registered with :func:`rules.games.find_game` as ``"dicemasters"`` (alias ``dice-masters``).
"""

from __future__ import annotations

from rules.games import register_game
from rules.table import lazy_game_type

register_game(lazy_game_type("dicemasters", "Dice Masters", "rules.dicemasters.game", ("dice-masters", "dm")))
