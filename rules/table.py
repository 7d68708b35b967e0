"""A base for games whose whole state is one value: table actions by verb, undo by snapshot.

Dice Throne keeps its own undo; the newer games (:mod:`rules.battledice`, :mod:`rules.dicemasters`)
keep all their state in one dataclass, so a snapshot is a deep copy of it and BACK restores it.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from rules.dice import whole_number as ascii_whole_number
from rules.errors import IllegalActionError
from rules.games import Action, GameType, InvalidActionError, TableGame

UNDO_STEPS = 200
"""How many actions BACK can take back."""

StateT = TypeVar("StateT")


class SnapshotGame(Generic[StateT]):
    """A game in progress whose state is ``self.state``; subclasses map verbs to handlers in
    :attr:`VERBS` (``handler(game, args) -> result``). Follows :class:`rules.games.TableGame`."""

    VERBS: ClassVar[Mapping[str, Callable[[Any, tuple[str, ...]], object]]] = {}

    def __init__(self, state: StateT) -> None:
        self.state = state
        self.log: list[str] = []
        self._history: list[tuple[StateT, int]] = []
        self._actions: list[str] = []

    def play(self, action: Action | str) -> object:
        """Applies one table action in record notation; an illegal one raises and changes nothing.

        :raises InvalidActionError: for an unknown verb or a malformed argument.
        :raises IllegalActionError: for an action the rules forbid now.
        """
        act = Action.from_notation(action) if isinstance(action, str) else action
        if act.verb == "undo":
            self.undo()
            return None
        handler = self.VERBS.get(act.verb)
        if handler is None:
            raise InvalidActionError(
                f"unknown action {act.verb!r} (actions: {', '.join(sorted((*self.VERBS, 'undo')))})"
            )
        before = copy.deepcopy(self.state)
        log_length = len(self.log)
        try:
            self.before_action(act)
            result = handler(self, act.args)
        except BaseException:
            self.state = before
            del self.log[log_length:]
            raise
        self._history.append((before, log_length))
        del self._history[:-UNDO_STEPS]
        self._actions.append(act.notation())
        return result

    def before_action(self, action: Action) -> None:
        """Called before each action's handler, inside its snapshot (a game may move on a step)."""

    @property
    def can_undo(self) -> bool:
        return bool(self._history)

    def undo(self) -> None:
        """Takes back the last action (BACK); the correction stays in the record as ``undo``.

        :raises IllegalActionError: when there is nothing to undo.
        """
        if not self._history:
            raise IllegalActionError("nothing to undo")
        self.state, log_length = self._history.pop()
        self.log.append("undo")
        self._actions.append("undo")

    @property
    def actions(self) -> list[str]:
        """Every table action so far, in record notation, corrections (``undo``) included."""
        return list(self._actions)

    def note(self, text: str) -> None:
        self.log.append(text)


def whole_number(text: str, what: str) -> int:
    """``text`` as an int (ASCII digits, at most 30, a sign allowed), or an :class:`InvalidActionError`
    naming ``what``."""
    number = ascii_whole_number(text[1:] if text[:1] in "+-" else text)
    if number is None:
        raise InvalidActionError(f"{what}: expected a whole number, not {_shown(text)}")
    return -number if text[:1] == "-" else number


def seat_index(text: str, seats: int) -> int:
    """``P1`` -> 0, checked against the number of seats.

    :raises InvalidActionError: for anything that is not a seat of this game.
    """
    number = ascii_whole_number(text[1:]) if text[:1].upper() == "P" else None
    if number is not None and 1 <= number <= seats:
        return number - 1
    raise InvalidActionError(f"not a seat: {_shown(text)} (seats P1-P{seats})")


def _shown(text: str) -> str:
    """``text`` for an error message, cut short if a record holds a huge word."""
    return repr(text) if len(text) <= 40 else f"{text[:20]!r}... ({len(text)} characters)"


def lazy_game_type(name: str, title: str, module: str, aliases: tuple[str, ...] = ()) -> GameType:
    """A :class:`~rules.games.GameType` whose ``Game`` class lives in ``module``, imported the
    first time a game is set up (so finding the registry does not load every game)."""

    def game_class() -> Any:
        return importlib.import_module(module).Game

    def new(*args: Any, **setup: Any) -> TableGame:
        game: TableGame = game_class().new(*args, **setup)
        return game

    def from_tags(tags: Mapping[str, str], search: Sequence[Path] = ()) -> TableGame:
        game: TableGame = game_class().from_tags(tags, search=search)
        return game

    return GameType(name=name, title=title, new=new, from_tags=from_tags, aliases=aliases)
