"""The old import path of :mod:`rules.dicethrone.damage`: Dice Throne now lives under ``rules/dicethrone/``
(a game per folder). Kept so code written against the one-game layout still imports; new code
imports ``rules.dicethrone.damage``."""

from rules.dicethrone.damage import *  # noqa: F403

