"""Heroes as every part of the tray finds them: the state directory's ``heroes/`` folder first (custom
hero files, see docs/heroes.md), then the bundled ones. ``score``, ``odds``, ``read --hero``, the config's
``game.heroes``, ``dicetray run`` and the demo all look a hero up here, so a custom hero that one
finds, all find."""

from __future__ import annotations

from pathlib import Path

from calibration.paths import state_directory
from rules.dicethrone.heroes import Hero, all_heroes, load_hero


def hero_folders() -> list[Path]:
    """Folders of custom hero files, looked at before the bundled heroes."""
    return [state_directory() / "heroes"]


def find_hero(name: str | Path) -> Hero:
    """A hero by id, name, alias or file path, custom heroes included.

    :raises UnknownHeroError: no hero matches (a LookupError), naming the input.
    :raises HeroDataError: the hero's file does not validate (a ValueError), naming file and key.
    """
    return load_hero(name, search=hero_folders())


def every_hero() -> list[Hero]:
    """Every hero, custom ones included, each id once."""
    return all_heroes(hero_folders())


__all__ = ["every_hero", "find_hero", "hero_folders"]
