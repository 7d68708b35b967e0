"""Fixtures for the service tests: real devices on gpiozero's mock pins, the simulated tray, a game."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_host.game_flow import GameFlow
from firmware_host.rolllog import RollLog
from firmware_host.service import TrayService
from hardware.buttons import SimulatedButtons
from hardware.camera import SimulatedTraySource
from hardware.display import DummyDisplay
from hardware.errors import CameraUnavailable
from hardware.lights import StatusLight
from hardware.sim import Background, Lighting, random_scene, render_tray
from rules.dicethrone.game import Game
from vision.reader import DiceReader
from vision.settle import SettleDetector


@pytest.fixture
def pins() -> Iterator[MockFactory]:
    """A fresh mock pin factory per test, injected (never the global one)."""
    factory = MockFactory(pin_class=MockPWMPin)
    try:
        yield factory
    finally:
        factory.reset()


class FakeClock:
    """Monotonic seconds that move only when the service sleeps: backoff without waiting."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)


class Replug:
    """The camera of a simulated tray that can be unplugged and plugged back in.

    Closing a handle (what the service does with a lost camera) closes the camera, not the tray in
    front of it, so the dice stay where they were while the camera is away. ``refuse`` makes that
    many reopen attempts fail, as a camera still unplugged would.
    """

    def __init__(self, sim: SimulatedTraySource) -> None:
        self.sim = sim
        self.opened = 0
        self.refuse = 0

    def open(self) -> _Handle:
        if self.refuse > 0:
            self.refuse -= 1
            raise CameraUnavailable("simulated tray camera: no such device")
        self.opened += 1
        return _Handle(self.sim)


class _Handle:
    def __init__(self, sim: SimulatedTraySource) -> None:
        self.sim = sim
        self.closed = False

    def read(self) -> np.ndarray:
        if self.closed:
            raise CameraUnavailable("simulated tray camera handle is closed")
        return self.sim.read()

    @property
    def timestamp(self) -> float:
        return self.sim.timestamp

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def replug() -> type[Replug]:
    """The :class:`Replug` class (test modules cannot import from conftest)."""
    return Replug


@pytest.fixture
def make_service(pins: MockFactory, tmp_path: Path) -> Iterator[Callable[..., TrayService]]:
    """Builds a TrayService from real parts: DiceReader, GameFlow on a 1v1 game, StatusLight and
    SimulatedButtons on mock pins, a DummyDisplay, a RollLog in tmp_path."""
    made: list[TrayService] = []

    def make(open_source: Callable[[], Any], **overrides: Any) -> TrayService:
        parts: dict[str, Any] = {
            "reader": DiceReader(),
            "flow": GameFlow(Game.new(["barbarian", "moon-elf"], names=["Ana", "Ben"])),
            "display": DummyDisplay(),
            "roll_log": RollLog(tmp_path / "rolls.sqlite3"),
            "light": StatusLight(pin_factory=pins),
            "buttons": SimulatedButtons(pin_factory=pins),
            "detector": SettleDetector(),
        }
        parts.update(overrides)
        service = TrayService(open_source=open_source, **parts)
        made.append(service)
        return service

    yield make
    for service in made:
        service.close()


def scene_frames(seed: int) -> np.ndarray:
    """One still frame of five pip dice thrown at random into the same tray, under the same light."""
    rng = np.random.default_rng(seed)
    tray = Background("wood", (170, 205, 222), 1)
    scene = random_scene(rng, 5, tilt_deg=0, background=tray, lighting=Lighting())
    return render_tray(scene, rng).frame


@pytest.fixture(scope="package")
def replay_scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A replay folder: three different still scenes of 12 frames each (0.4 s at 30 fps)."""
    folder = tmp_path_factory.mktemp("replay")
    index = 0
    for seed in (11, 12, 13):
        frame = scene_frames(seed)
        for _ in range(12):
            cv2.imwrite(str(folder / f"frame_{index:04d}.png"), frame)
            index += 1
    return folder


def table_app_service(pins: MockFactory, tmp_path: Path, extra: str = "") -> TrayService:
    """``build_service`` on the simulated tray with the table app enabled on a free loopback port
    (``extra``: more lines for its ``[liveview]`` table)."""
    import socket

    from firmware_host.config import parse_config
    from firmware_host.service import build_service

    with socket.socket() as probe:  # a port free now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = parse_config(
        f'camera = "sim"\ngpio = "mock"\ndisplay = "dummy"\nroll_log = "{tmp_path / "rolls.sqlite3"}"\n'
        f'[liveview]\nenabled = true\nhost = "127.0.0.1"\nport = {port}\n{extra}'
    )
    return build_service(config, pin_factory=pins)
