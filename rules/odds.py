"""The old import path of :mod:`rules.dicethrone.odds`: Dice Throne now lives under ``rules/dicethrone/``
(a game per folder). Kept so code written against the one-game layout still imports; new code
imports ``rules.dicethrone.odds``."""

from rules.dicethrone.odds import *  # noqa: F403

