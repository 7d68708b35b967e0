"""Fixtures for the live view tests: a clock the test drives, and a real server on a free loopback port."""

from __future__ import annotations

import http.client
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from firmware_host.liveview import FrameHub, LiveView


class SteppingClock:
    """A clock that moves ``step`` seconds each time it is read, so every frame is a new beat."""

    def __init__(self, step: float = 0.0) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@dataclass(frozen=True)
class Response:
    status: int
    content_type: str
    body: bytes


@pytest.fixture
def clock() -> SteppingClock:
    return SteppingClock()


@pytest.fixture
def live() -> Iterator[LiveView]:
    """A started live view on 127.0.0.1 with a free port; its hub keeps every frame (1 s per frame)."""
    view = LiveView(port=0, hub=FrameHub(clock=SteppingClock(step=1.0)), keepalive_s=0.2)
    view.start()
    try:
        yield view
    finally:
        view.close()


@pytest.fixture
def get(live: LiveView) -> Callable[[str], Response]:
    """GET a path from the live view with http.client; the connection is always closed."""

    def fetch(path: str) -> Response:
        connection = http.client.HTTPConnection("127.0.0.1", live.port, timeout=5)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
            return Response(response.status, response.getheader("Content-Type", ""), body)
        finally:
            connection.close()

    return fetch
