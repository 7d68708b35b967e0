"""Marvel Heroes Battle Dice (seed ``003_...``): figures and their stats as data files, teams,
Strike Totals, match-ups, battle stats, Battle Totals, powers, captures, zones and reloading, on the
game-agnostic core in :mod:`rules`.

Registered with :func:`rules.games.find_game` as ``"battledice"`` (aliases ``battle-dice``).
"""

from __future__ import annotations

from rules.games import register_game
from rules.table import lazy_game_type

register_game(
    lazy_game_type("battledice", "Marvel Heroes Battle Dice", "rules.battledice.game", ("battle-dice", "bd"))
)
