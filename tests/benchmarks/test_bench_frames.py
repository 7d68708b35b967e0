"""Speed of the frame hub on the frame loop and in the stream's pump thread (pytest-benchmark).

The normal run executes each once; ``pytest tests/benchmarks/test_bench_frames.py --benchmark-enable``
measures them.
"""

from __future__ import annotations

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from firmware_host.web.frames import FrameHub
from hardware.sim import random_scene, render_tray


@pytest.fixture(scope="module")
def tray() -> np.ndarray:
    """A 640x480 simulated tray with five dice."""
    rng = np.random.default_rng(11)
    return render_tray(random_scene(rng, 5), rng).frame


class Beat:
    """A clock that moves a whole second per read, so the hub keeps every frame."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_publish_a_frame_under_the_cap(benchmark: BenchmarkFixture, tray: np.ndarray) -> None:
    """What the service loop pays for most frames at 30 fps: a clock read, then dropped."""
    hub = FrameHub(clock=lambda: 0.0)
    frame = tray
    hub.publish(frame)
    kept = benchmark(hub.publish, frame)
    assert kept is False


def test_publish_a_kept_frame(benchmark: BenchmarkFixture, tray: np.ndarray) -> None:
    """What the service loop pays for a frame the stream keeps: a copy of 640x480."""
    hub = FrameHub(clock=Beat())
    frame = tray
    assert benchmark(hub.publish, frame) is True


def test_encode_a_frame(benchmark: BenchmarkFixture, tray: np.ndarray) -> None:
    """What the pump thread pays per frame while somebody watches: encode 640x480 as JPEG."""
    hub = FrameHub(clock=Beat())
    frame = tray

    def publish_and_encode() -> int:
        hub.publish(frame)
        snapshot = hub.snapshot()
        assert snapshot is not None
        return len(snapshot.jpeg)

    size = benchmark(publish_and_encode)
    assert 10_000 < size < 200_000
