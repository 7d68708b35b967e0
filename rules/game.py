"""The old import path of :mod:`rules.dicethrone.game`: Dice Throne now lives under ``rules/dicethrone/``
(a game per folder). Kept so code written against the one-game layout still imports; new code
imports ``rules.dicethrone.game``."""

from rules.dicethrone.game import *  # noqa: F403

