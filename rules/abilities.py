"""The old import path of :mod:`rules.dicethrone.abilities`: Dice Throne now lives under ``rules/dicethrone/``
(a game per folder). Kept so code written against the one-game layout still imports; new code
imports ``rules.dicethrone.abilities``."""

from rules.dicethrone.abilities import *  # noqa: F403

