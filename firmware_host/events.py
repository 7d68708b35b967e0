"""One stream of game and tray events, many subscribers.

The table flow emits :class:`~firmware_host.transcript.FlowEvent` values (the game's events); the
service adds :class:`TrayEvent` values (what the tray saw or went through: dice moving, a press
taken, the camera lost, a PIN put up). The service publishes both on its :class:`EventStream`, and
every output subscribes: the journal, the roll log, the display and the LED, the table app, MQTT,
without another hand-wired branch. An output that wants the game only subscribes through
:func:`game_events`::

    >>> stream = EventStream()
    >>> seen = []
    >>> _ = stream.subscribe(seen.append)
    >>> stream.publish("turn 1")
    >>> seen
    ['turn 1']
    >>> game_only = []
    >>> _ = stream.subscribe(game_events(game_only.append))
    >>> stream.publish(TrayEvent(TrayEventKind.DICE_MOVING))
    >>> game_only
    []
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Subscriber = Callable[[Any], None]


class TrayEventKind(str, enum.Enum):
    """What happened to the tray itself (as opposed to the game)."""

    STARTED = "started"  # the service runs: the first screen goes up
    DICE_MOVING = "dice_moving"  # the camera saw the dice move
    READ = "read"  # a settled reading went to the game
    PRESSED = "pressed"  # a button press (or an action from the table app) went to the game
    CAMERA_LOST = "camera_lost"  # data: reason
    CAMERA_BACK = "camera_back"
    ROLL_LOG_DOWN = "roll_log_down"  # rows of the roll log wait in memory
    ROLL_LOG_BACK = "roll_log_back"
    PAIRING = "pairing"  # data: pin (None once it is taken down), url


@dataclass(frozen=True)
class TrayEvent:
    """One event of the tray: ``kind`` and a little ``data`` (the camera's fault, the PIN shown)."""

    kind: TrayEventKind
    data: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        data = f", {dict(self.data)!r}" if self.data else ""
        return f"TrayEvent(TrayEventKind.{self.kind.name}{data})"


def game_events(subscriber: Subscriber) -> Subscriber:
    """``subscriber`` for the game's events only: tray events are not passed on (the roll log, the
    table app's event list and MQTT record the game, not the tray's own chores)."""

    def only_the_game(event: Any) -> None:
        if not isinstance(event, TrayEvent):
            subscriber(event)

    return only_the_game


class EventStream:
    """Publishes each event to every subscriber, in the order they subscribed."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> Subscriber:
        """Adds ``subscriber`` (called with each event); returns it, so it can be unsubscribed."""
        self._subscribers.append(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.remove(subscriber)

    def publish(self, event: Any) -> None:
        for subscriber in list(self._subscribers):
            subscriber(event)

    def __len__(self) -> int:
        return len(self._subscribers)
