"""The tray service loop on the simulated tray and on replays, with real parts: gpiozero mock pins,
luma's dummy display, the dice reader, the game flow and SQLite."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from PIL import ImageChops

from firmware_host.errors import RollLogError
from firmware_host.game_flow import Step
from firmware_host.rolllog import RollLog
from firmware_host.service import RECONNECT_DELAYS, TrayService
from hardware.buttons import ButtonEvent
from hardware.camera import ReplaySource, SimulatedTraySource
from hardware.lights import TrayStatus
from hardware.screens import render_screen
from hardware.sim import SimPhase


def same_image(a, b) -> bool:
    return ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None


def step_until(service: TrayService, done, limit: int = 400) -> None:
    for _ in range(limit):
        if done():
            return
        service.step()
    raise AssertionError(f"not done after {limit} steps")


def press_until_roll(service: TrayService) -> None:
    """NEXT through the duties before the offensive roll (upkeep, income, main phase)."""
    for _ in range(10):
        if service.flow.step is Step.ROLL:
            return
        service.buttons.press(ButtonEvent.NEXT)
        service.step()
    raise AssertionError(f"no roll asked for; flow at {service.flow.step}")


def test_a_roll_is_read_scored_logged_and_shown(make_service) -> None:
    sim = SimulatedTraySource(1, auto_roll=False, hold_s=0.5)
    service = make_service(lambda: sim)
    service.start()
    press_until_roll(service)
    assert service.light.status is service.flow.status()

    sim.roll([6, 6, 6, 6, 6])
    step_until(service, lambda: service.stats.readings == 1)
    assert sim.phase is SimPhase.SETTLED  # never read while anything moved
    assert service.flow.values == (6, 6, 6, 6, 6)
    assert service.flow.step is Step.CHOOSE
    # What the table sees is what the flow says, drawn and lit.
    assert same_image(service.display.image, render_screen(service.flow.screen()))
    assert service.light.status is service.flow.status() is TrayStatus.ABILITY_READY
    (reading,) = service.roll_log.readings()
    assert reading.notation == "6 6 6 6 6"
    scored = service.roll_log.scores()
    assert [s.kind for s in scored] == ["roll"]
    assert scored[0].reading_id == reading.id
    assert 0 < service.stats.latencies_s[0] < 5


def test_a_misread_die_corrected_from_the_buttons_is_logged(make_service) -> None:
    sim = SimulatedTraySource(2, auto_roll=False, hold_s=0.5)
    service = make_service(lambda: sim)
    service.start()
    press_until_roll(service)
    sim.roll([1, 2, 3, 4, 6])
    step_until(service, lambda: service.stats.readings == 1)
    # The player says die 1 is wrong: SELECT through the options to "fix", then set its value.
    for _ in range(len(service.flow.options)):
        if service.flow.selected is not None and service.flow.selected.kind.value == "fix":
            break
        service.buttons.press(ButtonEvent.SELECT)
        service.step()
    if service.flow.selected is None or service.flow.selected.kind.value != "fix":
        pytest.skip("the game flow offers no correction from this step")
    service.buttons.press(ButtonEvent.NEXT)
    service.step()
    service.buttons.press(ButtonEvent.SELECT)
    service.step()
    service.buttons.press(ButtonEvent.NEXT)
    service.step()
    corrections = service.roll_log.corrections()
    assert len(corrections) == 1
    assert corrections[0].reading_id == service.roll_log.readings()[0].id


def test_a_hand_over_settled_dice_reads_nothing_a_nudge_reads_again(make_service) -> None:
    sim = SimulatedTraySource(3, auto_roll=False, hold_s=0.5)
    service = make_service(lambda: sim)
    service.start()
    sim.roll([2, 3, 4, 5, 6])
    step_until(service, lambda: service.stats.readings == 1)
    sim.show_hand(duration_s=0.6)
    for _ in range(40):
        service.step()
        assert service.stats.readings == 1
    assert sim.phase is SimPhase.SETTLED
    sim.nudge(2, distance_mm=6.0)
    step_until(service, lambda: service.stats.readings == 2)
    assert sim.phase is SimPhase.SETTLED
    for _ in range(20):
        service.step()
    assert service.stats.readings == 2


def test_camera_unplugged_mid_game_shows_it_retries_and_resumes(make_service, fake_clock, replug, caplog) -> None:
    clock = fake_clock
    sim = SimulatedTraySource(4, auto_roll=False, hold_s=0.5)
    camera = replug(sim)
    service = make_service(camera.open, clock=clock, sleep=clock.sleep)
    service.start()
    press_until_roll(service)
    phase, player = service.flow.game.phase, service.flow.game.active_player.name

    sim.fail(frames=1)  # the cable comes out
    camera.refuse = 3  # and stays out for three reopen attempts
    with caplog.at_level(logging.WARNING):
        service.step()
    assert service.camera_lost
    assert service.light.status is TrayStatus.CAMERA_LOST
    assert "CAMERA LOST" in service._shown_screen.banner
    assert same_image(service.display.image, render_screen(service._shown_screen))
    assert any("camera lost" in r.message for r in caplog.records)

    started = clock.now
    step_until(service, lambda: not service.camera_lost, limit=1000)
    # Backoff: 0.5 s, then 1, 2 and 4 s between the failed attempts.
    assert clock.now - started == pytest.approx(sum(RECONNECT_DELAYS[:4]), abs=0.15)
    assert camera.opened == 2 and service.stats.reconnects == 1
    assert service.light.status is service.flow.status()
    # The game waited where it was, and the next roll is read as if nothing happened.
    assert (service.flow.game.phase, service.flow.game.active_player.name) == (phase, player)
    assert service.flow.step is Step.ROLL
    sim.roll([5, 5, 5, 5, 5])
    step_until(service, lambda: service.stats.readings == 1)
    assert service.flow.values == (5, 5, 5, 5, 5)


def test_a_replay_with_a_corrupt_frame_skips_it_and_stops_at_the_end(
    make_service, replay_scenes: Path, tmp_path: Path, caplog
) -> None:
    folder = tmp_path / "replay"
    shutil.copytree(replay_scenes, folder)
    (folder / "frame_0020.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
    service = make_service(lambda: ReplaySource(folder))
    with caplog.at_level(logging.WARNING):
        assert service.run() == 0
    assert service.stats.corrupt_frames == 1
    warnings = [r.message for r in caplog.records if r.levelno == logging.WARNING]
    assert any("frame_0020.png" in message for message in warnings)
    assert service.stats.frames == 35
    assert service.stats.readings == 3  # one per scene, the corrupt frame changed nothing
    assert len(service.roll_log.readings()) == 3


def test_a_roll_log_on_a_full_disk_does_not_stop_the_tray(make_service, replay_scenes: Path, tmp_path: Path, caplog) -> None:
    roll_log = RollLog(tmp_path / "full.sqlite3", max_page_count=4)
    service = make_service(lambda: ReplaySource(replay_scenes), roll_log=roll_log)
    with caplog.at_level(logging.WARNING):
        service.run()
    # The file took the schema and nothing more; all three readings wait in memory.
    assert service.stats.readings == 3
    assert service.stats.roll_log_failures >= 1
    assert len([r for r in caplog.records if "full.sqlite3" in r.message and r.levelno == logging.WARNING]) == 1
    roll_log.max_page_count = None
    roll_log.flush()
    assert len(roll_log.readings()) == 3


def test_close_leaves_the_leds_off_and_offline_showing(make_service, pins) -> None:
    sim = SimulatedTraySource(5, auto_roll=False)
    service = make_service(lambda: sim)
    service.start()
    service.step()
    display = service.display
    service.close()
    assert service.light.status is TrayStatus.OFF
    assert all(pins.pin(n).state == 0 for n in (17, 27, 22))
    from hardware.screens import OFFLINE_SCREEN

    assert same_image(display.image, render_screen(OFFLINE_SCREEN))
    service.close()  # a second close is harmless


def test_stop_from_another_thread_ends_run(make_service) -> None:
    import threading

    sim = SimulatedTraySource(6, auto_roll=False)
    service = make_service(lambda: sim)
    timer = threading.Timer(0.5, service.stop)
    timer.start()
    try:
        assert service.run(max_frames=100_000) == 0
    finally:
        timer.cancel()
    assert 0 < service.stats.frames < 100_000


def test_roll_log_errors_are_service_errors() -> None:
    assert issubclass(RollLogError, RuntimeError)


def test_the_live_view_gets_frames_readings_and_the_game_state(make_service, replay_scenes: Path) -> None:
    import json
    import urllib.request

    from firmware_host.liveview import LiveView

    live = LiveView("127.0.0.1", 0)
    live.start()
    service = make_service(lambda: ReplaySource(replay_scenes), live=live)
    service.start()
    step_until(service, lambda: service.stats.readings == 1)
    with urllib.request.urlopen(f"http://127.0.0.1:{live.port}/api/state", timeout=10) as response:
        state = json.load(response)
    assert len(state["reading"]["dice"]) == len(service.roll_log.readings()[0].dice)
    assert state["state"]["status"] == service.flow.status().value
    with urllib.request.urlopen(f"http://127.0.0.1:{live.port}/snapshot.jpg", timeout=10) as response:
        assert response.headers["Content-Type"] == "image/jpeg"
    service.close()
    assert live.hub.closed


def test_a_game_error_on_a_press_is_logged_and_the_tray_plays_on(make_service, replay_scenes: Path, caplog) -> None:
    from firmware_host.game_flow import GameFlow
    from rules.errors import IllegalActionError
    from rules.dicethrone.game import Game

    class Refusing(GameFlow):
        def on_button(self, event):
            raise IllegalActionError("cannot advance now (test)")

    service = make_service(lambda: ReplaySource(replay_scenes), flow=Refusing(Game.new(["barbarian", "moon-elf"])))
    service.start()
    service.buttons.press(ButtonEvent.NEXT)
    with caplog.at_level(logging.ERROR):
        service.step()
    assert any("cannot advance now (test)" in r.message for r in caplog.records)
    step_until(service, lambda: service.stats.readings == 1)
