"""The old import path of :mod:`rules.dicethrone.effects`: Dice Throne now lives under ``rules/dicethrone/``
(a game per folder). Kept so code written against the one-game layout still imports; new code
imports ``rules.dicethrone.effects``."""

from rules.dicethrone.effects import *  # noqa: F403

