"""The old import path of :mod:`rules.dicethrone.requirements`: Dice Throne now lives under ``rules/dicethrone/``
(a game per folder). Kept so code written against the one-game layout still imports; new code
imports ``rules.dicethrone.requirements``."""

from rules.dicethrone.requirements import *  # noqa: F403
from rules.dicethrone.scoring import *  # noqa: F403
