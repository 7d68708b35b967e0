"""One stream of game events, many subscribers.

The table flow emits :class:`~firmware_host.transcript.FlowEvent` values; the service publishes each
on its :class:`EventStream`, and every output subscribes: the journal, the roll log, and whatever
comes next (the table app, MQTT) without another hand-wired branch::

    >>> stream = EventStream()
    >>> seen = []
    >>> _ = stream.subscribe(seen.append)
    >>> stream.publish("turn 1")
    >>> seen
    ['turn 1']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Subscriber = Callable[[Any], None]


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
