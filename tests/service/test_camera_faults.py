"""Camera faults never lose or double a roll: a hung read, unplugging at every step of a turn, a
flapping cable; and SIGTERM ends the service while a read hangs."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from firmware_host.game_flow import Step
from firmware_host.service import TrayService
from hardware.buttons import ButtonEvent
from hardware.camera import SimulatedTraySource
from hardware.errors import CameraUnavailable
from hardware.lights import TrayStatus

REPO = Path(__file__).resolve().parents[2]


def step_until(service: TrayService, done, limit: int = 600) -> None:
    for _ in range(limit):
        if done():
            return
        service.step()
    raise AssertionError(f"not done after {limit} steps")


def press_until_roll(service: TrayService) -> None:
    for _ in range(10):
        if service.flow.step is Step.ROLL:
            return
        service.buttons.press(ButtonEvent.NEXT)
        service.step()
    raise AssertionError(f"no roll asked for; flow at {service.flow.step}")


class HangingCamera:
    """The simulated tray's camera whose reads can hang, as a USB camera's driver does when its
    cable is half out; plugging it back (``release``) lets a new handle read again."""

    def __init__(self, sim: SimulatedTraySource) -> None:
        self.sim = sim
        self.opened = 0
        self.hanging = threading.Event()
        self.released = threading.Event()

    def open(self) -> Any:
        self.opened += 1
        return _HangingHandle(self)


class _HangingHandle:
    def __init__(self, camera: HangingCamera) -> None:
        self.camera = camera

    def read(self) -> np.ndarray:
        if self.camera.hanging.is_set():
            self.camera.hanging.clear()
            self.camera.released.wait(60)  # a read that does not come back
        return self.camera.sim.read()

    @property
    def timestamp(self) -> float:
        return self.camera.sim.timestamp

    def close(self) -> None:
        pass


def snapshot(service: TrayService) -> tuple[Any, ...]:
    flow = service.flow
    game = flow.game
    return (flow.step, flow.screen(), flow.values, game.phase, game.offensive_attempts, game.active_player.name,
            len(service.roll_log.readings()))  # fmt: skip


def unplug_and_back(service: TrayService, sim: SimulatedTraySource, times: int = 1) -> None:
    """The cable comes out for a frame and back, ``times`` over; then the dice settle again."""
    for _ in range(times):
        losses = service.stats.camera_losses
        sim.fail(frames=1)
        step_until(service, lambda: service.stats.camera_losses == losses + 1)
        step_until(service, lambda: not service.camera_lost, limit=2000)
    settles = service.stats.settles
    step_until(service, lambda: service.stats.settles > settles)


def test_a_hung_read_marks_the_camera_lost_and_it_is_reopened(make_service, fake_clock, caplog) -> None:
    sim = SimulatedTraySource(21, auto_roll=False, hold_s=0.5)
    camera = HangingCamera(sim)
    service = make_service(camera.open, clock=fake_clock, sleep=fake_clock.sleep, read_limit_s=0.3)
    service.start()
    press_until_roll(service)
    before = snapshot(service)
    camera.hanging.set()
    with caplog.at_level(logging.WARNING):
        service.step()
    assert service.camera_lost
    assert service.light.status is TrayStatus.CAMERA_LOST
    assert service._shown_screen.banner == "CAMERA LOST"
    assert any("hung for more than 0.3 s" in r.message for r in caplog.records)
    camera.released.set()
    step_until(service, lambda: not service.camera_lost, limit=2000)
    assert camera.opened == 2 and service.stats.reconnects == 1
    assert snapshot(service) == before
    sim.roll([3, 3, 3, 4, 4])
    step_until(service, lambda: service.stats.readings == 1)
    assert sorted(service.flow.values) == [3, 3, 3, 4, 4]


def test_unplugged_after_a_read_the_same_dice_are_the_same_roll(make_service, fake_clock, replug) -> None:
    sim = SimulatedTraySource(22, auto_roll=False, hold_s=0.5)
    camera = replug(sim)
    service = make_service(camera.open, clock=fake_clock, sleep=fake_clock.sleep)
    service.start()
    press_until_roll(service)
    sim.roll([1, 2, 2, 5, 6])
    step_until(service, lambda: service.stats.readings == 1)
    assert service.flow.game.offensive_attempts == 1
    before = snapshot(service)
    unplug_and_back(service, sim)
    assert service.stats.same_after_reconnect == 1
    assert snapshot(service) == before  # still attempt 1/3, one reading logged


def test_a_flapping_cable_reads_one_throw_once(make_service, fake_clock, replug) -> None:
    sim = SimulatedTraySource(23, auto_roll=False, hold_s=0.5)
    camera = replug(sim)
    service = make_service(camera.open, clock=fake_clock, sleep=fake_clock.sleep)
    service.start()
    press_until_roll(service)
    sim.roll([6, 6, 4, 4, 1])
    step_until(service, lambda: service.stats.readings == 1)
    before = snapshot(service)
    for _ in range(4):
        unplug_and_back(service, sim)
    assert service.stats.readings == 1 and service.stats.same_after_reconnect == 4
    assert snapshot(service) == before


def test_unplugged_while_the_dice_roll_the_throw_is_read_once(make_service, fake_clock, replug) -> None:
    sim = SimulatedTraySource(24, auto_roll=False, hold_s=0.5)
    camera = replug(sim)
    service = make_service(camera.open, clock=fake_clock, sleep=fake_clock.sleep)
    service.start()
    press_until_roll(service)
    sim.roll([2, 3, 4, 5, 6])
    for _ in range(3):  # a few frames into the throw
        service.step()
    assert service.stats.readings == 0
    sim.fail(frames=1)
    step_until(service, lambda: service.stats.camera_losses == 1)
    step_until(service, lambda: service.stats.readings == 1, limit=2000)
    assert sorted(service.flow.values) == [2, 3, 4, 5, 6]
    assert service.flow.game.offensive_attempts == 1


def test_unplugging_at_every_step_of_a_turn_changes_nothing(make_service, fake_clock, replug) -> None:
    sim = SimulatedTraySource(25, auto_roll=False, hold_s=0.5)
    camera = replug(sim)
    service = make_service(camera.open, clock=fake_clock, sleep=fake_clock.sleep)
    service.start()
    first = service.flow.game.active_player.name
    seen: list[Step] = []
    throws = iter([[5, 5, 5, 2, 1], [4, 4, 4, 4, 4], [6, 6, 1, 2, 3], [3, 3, 3, 3, 3], [1, 1, 1, 1, 1]])
    for _ in range(40):
        if service.flow.game.active_player.name != first:
            break
        seen.append(service.flow.step)
        before = snapshot(service)
        unplug_and_back(service, sim)
        assert snapshot(service) == before, f"at {service.flow.step}"
        if service.flow.step is Step.ROLL:
            readings = service.stats.readings
            sim.roll(next(throws)[: max(service.flow.expected_dice, 1)])
            step_until(service, lambda: service.stats.readings > readings)
        else:
            service.buttons.press(ButtonEvent.NEXT)
            service.step()
    assert service.flow.game.active_player.name != first, seen
    assert {Step.PROMPT, Step.ROLL, Step.CHOOSE} <= set(seen), seen
    assert service.stats.same_after_reconnect >= 1


SIGTERM_WHILE_HUNG = textwrap.dedent(
    """
    import sys, threading
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    from firmware_host.game_flow import GameFlow
    from firmware_host.rolllog import RollLog
    from firmware_host.service import TrayService
    from hardware.camera import SimulatedTraySource
    from hardware.display import DummyDisplay
    from hardware.lights import StatusLight
    from rules.game import Game
    from vision.reader import DiceReader

    sim = SimulatedTraySource(26, auto_roll=False)
    reads = 0

    class Handle:
        def read(self):
            global reads
            reads += 1
            if reads == 5:
                print("hanging", flush=True)
                threading.Event().wait()  # never returns
            return sim.read()
        def close(self):
            pass

    service = TrayService(
        open_source=Handle, reader=DiceReader(), flow=GameFlow(Game.new(["barbarian", "moon-elf"])),
        display=DummyDisplay(), roll_log=RollLog(sys.argv[1]),
        light=StatusLight(pin_factory=MockFactory(pin_class=MockPWMPin)), read_limit_s=30.0,
    )
    status = service.run()
    print("exited", status, flush=True)
    """
)


def test_sigterm_ends_the_service_while_a_camera_read_hangs(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SIGTERM_WHILE_HUNG, str(tmp_path / "rolls.sqlite3")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "hanging"
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=5)  # systemd would wait 30 s, then kill
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "exited 0" in out
    assert "Traceback" not in err
