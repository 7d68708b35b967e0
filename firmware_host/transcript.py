"""What happened at the table, as values the roll log can store and lines a person can read.

Every action of the game flow (a phase change, a roll read, a correction, an ability activated,
damage dealt, an undo) is one :class:`FlowEvent`. The event's ``text`` is its transcript line; its
``data`` is a small JSON-able mapping for the roll log.

>>> event = FlowEvent(FlowEventKind.ROLL, "Roll 1/3: 1 1 2 5 6", {"attempt": 1})
>>> event
FlowEvent(FlowEventKind.ROLL, 'Roll 1/3: 1 1 2 5 6', {'attempt': 1})
>>> format_line(event)
'  Roll 1/3: 1 1 2 5 6'
>>> event.json_line()
'{"data": {"attempt": 1}, "kind": "roll", "text": "Roll 1/3: 1 1 2 5 6"}'
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO


class FlowEventKind(str, enum.Enum):
    """What kind of step a :class:`FlowEvent` records."""

    TURN = "turn"  # a new turn: the active player, everyone's health and CP
    PHASE = "phase"  # the game entered a phase
    PROMPT = "prompt"  # a duty the table must do by hand (draw a card, discard down to 6)
    READING = "reading"  # a settled reading arrived (every die, as read)
    REROLL = "reroll"  # a die could not be read: reroll it or set it from the buttons
    CORRECTION = "correction"  # the player set a die's value from the buttons
    ROLL = "roll"  # a roll attempt was scored (dice, symbols, activations, odds, keep)
    ABILITY = "ability"  # the active player activated an ability (or none)
    TARGET = "target"  # the defender was chosen
    DEFENSE = "defense"  # the defender's roll and what it does
    DAMAGE = "damage"  # damage and healing applied; health and CP after it
    HEALTH = "health"  # a health dial set by hand (statuses and cards the tray does not see)
    STATUS = "status"  # a player spent a status (the damage window)
    UNDO = "undo"  # BACK undid the last step
    GAME_OVER = "game_over"  # the game ended: winner, draw or turn limit with the leader
    NEW_GAME = "new_game"  # the same table starts another game


@dataclass(frozen=True)
class FlowEvent:
    """One step of the game flow: ``kind``, the transcript line ``text``, and loggable ``data``."""

    kind: FlowEventKind
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"FlowEvent(FlowEventKind.{self.kind.name}, {self.text!r}, {dict(self.data)!r})"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "text": self.text, "data": dict(self.data)}

    def json_line(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, default=str)


EventSink = Callable[[FlowEvent], None]


class Transcript:
    """The readable record of a game: one line per event, indented under the phase it belongs to.

    Usable as an event sink (``GameFlow(game, on_event=transcript)``); ``echo`` also prints each
    line as it comes, which is how ``dicetray demo`` shows the game live.
    """

    def __init__(self, echo: TextIO | None = None) -> None:
        self._events: list[FlowEvent] = []
        self._echo = echo

    def __call__(self, event: FlowEvent) -> None:
        self.append(event)

    def append(self, event: FlowEvent) -> None:
        self._events.append(event)
        if self._echo is not None:
            print(format_line(event), file=self._echo, flush=True)

    def extend(self, events: Iterable[FlowEvent]) -> None:
        for event in events:
            self.append(event)

    @property
    def events(self) -> tuple[FlowEvent, ...]:
        return tuple(self._events)

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(format_line(event) for event in self._events)

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def __iter__(self) -> Iterator[FlowEvent]:
        return iter(self._events)

    def __len__(self) -> int:
        return len(self._events)


def format_line(event: FlowEvent) -> str:
    """A turn starts a block; everything else is indented under it, so a turn reads top-down."""
    if event.kind in (FlowEventKind.TURN, FlowEventKind.GAME_OVER, FlowEventKind.NEW_GAME):
        return event.text
    return "  " + event.text
