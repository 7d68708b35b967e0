"""The page's table actions, turned into the tray's button presses.

The page asks for what a player means ("set die 2 to 5", "choose the option 'Spend Chi'"); the
service turns each into presses *as it applies them*, on its own thread, against the flow as it is
at that moment, so the page never has to count SELECT presses and a stale page cannot press the
wrong thing: an action naming an option the flow no longer offers is refused, naming it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from hardware.buttons import ButtonEvent

ACTIONS = ("press", "choose", "set-die", "undo", "start-game")


class ActionRefused(ValueError):
    """A table action the flow cannot take now; the message says which and why."""


@dataclass(frozen=True)
class TableAction:
    """One action from the page: ``press`` a button, ``choose`` an option (by index, checked by
    label), ``set-die`` to a value, ``undo``, or ``start-game`` (heroes, names, mode)."""

    action: str
    button: str | None = None
    option: int | None = None
    label: str | None = None
    die: int | None = None
    value: int | None = None
    game: Any = None  # start-game: the new game, checked when the page asked for it

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> TableAction:
        """Checks a request body; :raises ActionRefused: naming the key that is wrong."""
        action = body.get("action")
        if action not in ACTIONS:
            raise ActionRefused(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        if action == "press":
            button = body.get("button")
            if button not in {event.value for event in ButtonEvent}:
                raise ActionRefused(f"press takes a button: next, select, back or one of them -held, not {button!r}")
            return cls("press", button=str(button))
        if action == "choose":
            option, label = body.get("option"), body.get("label")
            if not isinstance(option, int) or isinstance(option, bool) or option < 0:
                raise ActionRefused(f"choose takes option: the index of an offered option, not {option!r}")
            if label is not None and not isinstance(label, str):
                raise ActionRefused(f"choose's label must be the option's text, not {label!r}")
            return cls("choose", option=option, label=label)
        if action == "set-die":
            die, value = body.get("die"), body.get("value")
            if not isinstance(die, int) or isinstance(die, bool) or die < 0:
                raise ActionRefused(f"set-die takes die: the die's index from 0, not {die!r}")
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
                raise ActionRefused(f"set-die takes value: 1 to 6, not {value!r}")
            return cls("set-die", die=die, value=value)
        if action == "start-game":
            return cls("start-game", game=_new_game(body))
        return cls("undo")


def presses(action: TableAction, flow: Any) -> Iterator[ButtonEvent | StartGame]:
    """The presses that carry ``action`` out, each worked out after the one before was applied.

    :raises ActionRefused: the flow does not offer what the action needs (raised while iterating).
    """
    if action.action == "press":
        assert action.button is not None
        yield ButtonEvent(action.button)
    elif action.action == "undo":
        yield ButtonEvent.BACK
    elif action.action == "choose":
        assert action.option is not None
        yield from _choose(flow, action.option, action.label)
    elif action.action == "start-game":
        if not hasattr(flow, "start_game"):
            raise ActionRefused("start-game: this game is set up in the tray's config ([game]), not from the page")
        yield StartGame(action.game)
    elif action.action == "set-die":
        assert action.die is not None and action.value is not None
        yield from _set_die(flow, action.die, action.value)


@dataclass(frozen=True)
class StartGame:
    """Not a press: the service applies it with :meth:`apply` (the flow starts the new game)."""

    game: Any

    def apply(self, flow: Any) -> Any:
        return flow.start_game(self.game)


def _new_game(body: Mapping[str, Any]) -> Any:
    """The game a start-game body asks for: ``heroes`` (2-4 hero ids in seat order), optional
    ``names`` (as many) and ``mode`` (``1v1``, ``2v2``, ``king-of-the-hill``)."""
    from firmware_host.errors import PROJECT_ERRORS
    from rules.dicethrone.game import Game

    heroes, names, mode = body.get("heroes"), body.get("names"), body.get("mode")
    if not isinstance(heroes, list) or not all(isinstance(h, str) for h in heroes):
        raise ActionRefused(f"start-game takes heroes: a list of hero ids like [\"barbarian\", \"moon-elf\"], not {heroes!r}")
    if names is not None and (not isinstance(names, list) or len(names) != len(heroes) or not all(isinstance(n, str) and n.strip() for n in names)):
        raise ActionRefused(f"start-game's names must be one name per hero ({len(heroes)}), not {names!r}")
    if mode is not None and not isinstance(mode, str):
        raise ActionRefused(f"start-game's mode is 1v1, 2v2 or king-of-the-hill, not {mode!r}")
    try:
        return Game.new(heroes, mode=mode, names=[n.strip() for n in names] if names else None)
    except (*PROJECT_ERRORS, ValueError, LookupError) as error:
        raise ActionRefused(f"start-game: {error}") from None


def _choose(flow: Any, index: int, label: str | None) -> Iterator[ButtonEvent]:
    options = tuple(flow.options)
    if index >= len(options):
        raise ActionRefused(f"option {index} is not offered now ({len(options)} options)")
    if label is not None and options[index].label != label:
        raise ActionRefused(f"option {index} is now {options[index].label!r}, not {label!r}: the page was behind")
    current = flow.selected  # an option (Dice Throne) or the index of a menu line
    at = current if isinstance(current, int) else options.index(current) if current in options else 0
    for _ in range((index - at) % len(options)):
        yield ButtonEvent.SELECT
    yield ButtonEvent.NEXT


def _set_die(flow: Any, die: int, value: int) -> Iterator[ButtonEvent]:
    from firmware_host.game_flow import OptionKind

    if hasattr(flow, "line_for_die"):
        yield from _set_menu_die(flow, die, value)
        return
    fix = [
        i for i, option in enumerate(flow.options)
        if getattr(option, "kind", None) is OptionKind.FIX and option.index == die
    ]  # fmt: skip
    if not fix:
        raise ActionRefused(f"die {die + 1} cannot be set now (no 'Fix die {die + 1}' among the options)")
    yield from _choose(flow, fix[0], None)
    fixing = flow.fixing
    if fixing is None or fixing[0] != die:
        raise ActionRefused(f"die {die + 1} did not open for correcting")
    for _ in range((value - fixing[1]) % 6):
        yield ButtonEvent.SELECT
    yield ButtonEvent.NEXT


def _set_menu_die(flow: Any, die: int, value: int) -> Iterator[ButtonEvent]:
    """A game played from menus: the die is set through its menu lines (a die the tray could not
    read, or one of a roll taken back with BACK to correct)."""
    if flow.line_for_die(die, str(value)) is None:
        opens = flow.line_for_die(die)
        if opens is None:
            raise ActionRefused(
                f"die {die + 1} cannot be set now: only a die the tray could not read, or one of a roll"
                " taken back with Undo right after it, is set from the menu"
            )
        yield from _choose(flow, opens, None)
    line = flow.line_for_die(die, str(value))
    if line is None:
        raise ActionRefused(f"die {die + 1} has no face {value} in this game: choose its face from the menu")
    yield from _choose(flow, line, None)
