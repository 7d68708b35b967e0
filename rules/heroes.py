"""The old import path of :mod:`rules.dicethrone.heroes`: Dice Throne now lives under ``rules/dicethrone/``
(a game per folder). Kept so code written against the one-game layout still imports; new code
imports ``rules.dicethrone.heroes``."""

from rules.dicethrone.heroes import *  # noqa: F403

