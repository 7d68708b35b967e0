"""The game-agnostic core: what every game on the tray offers, and the games found by name.

A game is a folder under ``rules/`` (``rules/dicethrone/``) whose package registers a
:class:`GameType`. A game in progress follows the :class:`TableGame` protocol: table actions go in
as :class:`Action` values written in the game's own record notation, state comes out as JSON, and
BACK undoes. So the service, the game records and the outputs need nothing game-specific::

    >>> game = find_game("dicethrone").new(["barbarian", "moon-elf"])
    >>> game.play(Action.from_notation("advance")).__class__.__name__
    'Phase'
    >>> Action.from_notation("roll  1 2 3 4 5")
    Action.from_notation('roll 1 2 3 4 5')
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from rules.errors import RulesError

_VERB = re.compile(r"[a-z][a-z0-9-]*\Z")

BUILTIN_GAMES: Mapping[str, str] = {
    "dicethrone": "rules.dicethrone",
    "battledice": "rules.battledice",
    "dicemasters": "rules.dicemasters",
}
"""Game name -> the package that registers it (imported the first time the game is asked for)."""


class UnknownGameError(RulesError, LookupError):
    """No game with that name or alias."""


class InvalidActionError(RulesError, ValueError):
    """A table action that is not written in the game's notation (a bad verb or argument)."""


@dataclass(frozen=True)
class Action:
    """One table action: a verb and its arguments, e.g. ``roll 1 2 3 4 5`` or ``spend P2 Evasive 1``."""

    verb: str
    args: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not _VERB.match(self.verb):
            raise InvalidActionError(f"not an action verb: {self.verb!r}")

    @classmethod
    def from_notation(cls, text: str) -> Action:
        """Parses ``"verb arg arg"`` (words separated by spaces).

        :raises InvalidActionError: for an empty line or a verb that is not a lowercase word.
        """
        words = text.split()
        if not words:
            raise InvalidActionError("an empty action")
        return cls(words[0].lower(), tuple(words[1:]))

    def notation(self) -> str:
        return " ".join((self.verb, *self.args))

    def __repr__(self) -> str:
        return f"Action.from_notation({self.notation()!r})"

    def __str__(self) -> str:
        return self.notation()


@runtime_checkable
class TableGame(Protocol):
    """A game in progress, as the table, the records and the outputs see it."""

    log: list[str]

    def play(self, action: Action) -> object:
        """Applies one table action; an illegal one raises and changes nothing."""
        ...

    def undo(self) -> None: ...

    @property
    def can_undo(self) -> bool: ...

    @property
    def finished(self) -> bool: ...

    def to_json(self) -> dict[str, Any]:
        """The state a record replay prints: players, turn, phase, winner."""
        ...

    @property
    def actions(self) -> list[str]:
        """Every table action so far, in record notation."""
        ...

    def record_headers(self) -> list[tuple[str, str]]:
        """The record's tags that set this game up again (``Game`` first)."""
        ...


@dataclass(frozen=True)
class GameType:
    """A game the tray knows: its name, title and how a new game is set up."""

    name: str
    title: str
    new: Callable[..., TableGame]
    """``new(heroes_or_players, **setup) -> TableGame``."""
    from_tags: Callable[..., TableGame]
    """``from_tags(tags, search=folders) -> TableGame``: a new game set up from a record's tags
    (:mod:`rules.records`); ``search`` names folders of custom pieces (Dice Throne: hero files)
    looked at before the bundled ones."""
    aliases: tuple[str, ...] = ()

    def matches(self, name: str) -> bool:
        wanted = _fold(name)
        return wanted in (_fold(self.name), _fold(self.title), *(_fold(a) for a in self.aliases))


_REGISTRY: dict[str, GameType] = {}


def register_game(game: GameType) -> GameType:
    """Adds ``game`` to the registry (a game package calls this when it is imported)."""
    _REGISTRY[game.name] = game
    return game


def find_game(name: str) -> GameType:
    """The game with this name, title or alias (any case).

    :raises UnknownGameError: naming the input and the games known.
    """
    for package in BUILTIN_GAMES.values():
        importlib.import_module(package)
    for game in _REGISTRY.values():
        if game.matches(name):
            return game
    raise UnknownGameError(f"no game {name!r} (games: {', '.join(sorted(_REGISTRY))})")


def all_games() -> Sequence[GameType]:
    """Every registered game, by name."""
    for package in BUILTIN_GAMES.values():
        importlib.import_module(package)
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def _fold(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())
