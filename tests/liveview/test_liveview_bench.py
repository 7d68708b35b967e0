"""Speed of the live view on the frame loop and in the stream threads (pytest-benchmark).

The normal run executes each once; ``pytest tests/liveview --benchmark-enable`` measures them.
"""

from __future__ import annotations

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from firmware_host.liveview import FrameHub
from hardware.sim import random_scene, render_tray
from vision.types import FrameReading


@pytest.fixture(scope="module")
def tray() -> tuple[np.ndarray, FrameReading]:
    """A 640x480 simulated tray with five dice, and the perfect reading of it."""
    rng = np.random.default_rng(11)
    rendered = render_tray(random_scene(rng, 5), rng)
    return rendered.frame, FrameReading(dice=tuple(t.reading() for t in rendered.truth))


class Beat:
    """A clock that moves a whole second per read, so the hub keeps every frame."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_publish_a_frame_under_the_cap(benchmark: BenchmarkFixture, tray: tuple[np.ndarray, FrameReading]) -> None:
    """What the service loop pays for most frames at 30 fps: a clock read, then dropped."""
    hub = FrameHub(clock=lambda: 0.0)
    frame, _ = tray
    hub.publish(frame)
    kept = benchmark(hub.publish, frame)
    assert kept is False


def test_publish_a_kept_frame(benchmark: BenchmarkFixture, tray: tuple[np.ndarray, FrameReading]) -> None:
    """What the service loop pays for a frame the stream keeps: a copy of 640x480."""
    hub = FrameHub(clock=Beat())
    frame, _ = tray
    assert benchmark(hub.publish, frame) is True


def test_draw_and_encode_a_frame(benchmark: BenchmarkFixture, tray: tuple[np.ndarray, FrameReading]) -> None:
    """What a stream thread pays per frame: draw five dice and encode 640x480 as JPEG."""
    hub = FrameHub(clock=Beat())
    frame, reading = tray

    def publish_and_encode() -> int:
        hub.publish(frame, reading)
        snapshot = hub.snapshot()
        assert snapshot is not None
        return len(snapshot.jpeg)

    size = benchmark(publish_and_encode)
    assert 10_000 < size < 200_000
