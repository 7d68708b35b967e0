"""The tray service loop on the simulated tray and on replays, with real parts: gpiozero mock pins,
luma's dummy display, the dice reader, the game flow and SQLite; and its faults: a roll log that
cannot be written, a camera read that hangs, a camera unplugged at every step of a turn."""

from __future__ import annotations

import logging
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

import pytest
from PIL import ImageChops

from firmware_host.errors import RollLogError
from firmware_host.game_flow import Step
from firmware_host.rolllog import RollLog
from firmware_host.service import RECONNECT_DELAYS, ROLL_LOG_FAILED_SCREEN, TrayService
from hardware.buttons import ButtonEvent
from hardware.camera import ReplaySource, SimulatedTraySource
from hardware.lights import TrayStatus
from hardware.screens import render_screen
from hardware.sim import SimPhase

REPO = Path(__file__).resolve().parents[2]


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
    assert reading.dice_set == "barbarian"  # Ana's dice, for the fairness report
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
    assert "CAMERA LOST" in service.shown_screen.banner
    assert same_image(service.display.image, render_screen(service.shown_screen))
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


def test_the_table_app_gets_frames_readings_and_the_game_state(make_service, replay_scenes: Path) -> None:
    import httpx

    from firmware_host.web import TrayWeb

    live = TrayWeb("127.0.0.1", 0, announce=False)
    live.start()
    service = make_service(lambda: ReplaySource(replay_scenes), live=live)
    service.start()
    step_until(service, lambda: service.stats.readings == 1)
    with httpx.Client(base_url=f"http://127.0.0.1:{live.port}", timeout=10) as http:
        reading = http.get("/api/v1/reading").json()
        assert len(reading["reading"]["dice"]) == len(service.roll_log.readings()[0].dice)
        assert http.get("/api/v1/state").json()["status"] == service.flow.status().value
        snapshot = http.get("/api/v1/camera/snapshot.jpg")
        assert snapshot.headers["content-type"] == "image/jpeg" and snapshot.content[:2] == b"\xff\xd8"
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


def test_a_reading_and_its_score_are_written_in_one_transaction(make_service) -> None:
    """SQLite's own trace of the statements: no COMMIT between a reading and what it scored."""
    sim = SimulatedTraySource(7, auto_roll=False, hold_s=0.5)
    service = make_service(lambda: sim)
    service.start()
    press_until_roll(service)
    statements: list[str] = []
    service.roll_log.integrity_check()  # opens the file
    service.roll_log._connect().set_trace_callback(statements.append)
    sim.roll([1, 2, 3, 4, 5])
    step_until(service, lambda: service.stats.readings == 1)
    (reading,) = service.roll_log.readings()
    (score,) = [s for s in service.roll_log.scores() if s.kind == "roll"]
    assert score.reading_id == reading.id
    writes = [s.split(" (")[0] for s in statements if s.startswith(("INSERT", "COMMIT", "BEGIN"))]
    assert writes == ["BEGIN ", "INSERT OR IGNORE INTO readings", "INSERT OR IGNORE INTO scores", "COMMIT"], writes


def test_an_unwritable_roll_log_stops_the_service_with_status_1_and_says_so(
    make_service, fake_clock, tmp_path: Path, caplog
) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the folder should be")
    roll_log = RollLog(blocker / "rolls.sqlite3")
    sim = SimulatedTraySource(8, auto_roll=False, hold_s=0.5)
    service = make_service(
        lambda: sim, roll_log=roll_log, clock=fake_clock, sleep=fake_clock.sleep, roll_log_grace_s=60.0
    )
    service.start()
    press_until_roll(service)
    sim.roll([6, 6, 6, 6, 6])
    step_until(service, lambda: service.stats.readings == 1)
    assert roll_log.pending == 2  # the reading and its score, kept in memory
    assert service.flow.screen().prompt != "LOG NOT SAVED"
    assert same_image(service.display.image, render_screen(replace(service.flow.screen(), prompt="LOG NOT SAVED")))
    fake_clock.now += 59.0
    service.step()
    assert not service.stopping  # within the grace the tray plays on
    fake_clock.now += 2.0
    with caplog.at_level(logging.ERROR):
        assert service.run() == 1
    assert "could not be written for 61 s; 2 rows not saved" in (service.failure or "")
    assert any("stopping with status 1" in r.message for r in caplog.records if r.levelno == logging.ERROR)
    assert same_image(service.display.image, render_screen(ROLL_LOG_FAILED_SCREEN))


def test_rows_left_unwritten_at_the_end_make_the_exit_status_1(make_service, replay_scenes: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the folder should be")
    service = make_service(lambda: ReplaySource(replay_scenes), roll_log=RollLog(blocker / "rolls.sqlite3"))
    assert service.run() == 1
    assert "rows not written" in (service.failure or "")
    assert same_image(service.display.image, render_screen(ROLL_LOG_FAILED_SCREEN))


def test_a_log_that_comes_back_within_the_grace_keeps_the_tray_running(
    make_service, replay_scenes: Path, tmp_path: Path
) -> None:
    roll_log = RollLog(tmp_path / "full.sqlite3", max_page_count=4)
    service = make_service(lambda: ReplaySource(replay_scenes), roll_log=roll_log)
    service.start()
    step_until(service, lambda: service.stats.readings == 1)
    assert roll_log.pending
    roll_log.max_page_count = None
    roll_log.close()  # the next write opens it again, without the cap
    assert service.run() == 0
    assert service.failure is None and len(roll_log.readings()) == 3


def test_the_roll_log_is_backed_up_at_start_and_on_schedule(make_service, fake_clock, replay_scenes: Path, tmp_path: Path) -> None:
    service = make_service(
        lambda: ReplaySource(replay_scenes), clock=fake_clock, sleep=fake_clock.sleep, backup_every_s=3600.0
    )
    service.start()
    step_until(service, lambda: service.stats.readings == 1)
    backups = tmp_path / "backups"
    assert len(list(backups.glob("rolls-*.sqlite3"))) == 1
    fake_clock.now += 3600.0
    step_until(service, lambda: service.stats.readings == 2)
    copies = sorted(backups.glob("rolls-*.sqlite3"))
    assert len(copies) == 2
    assert len(RollLog(copies[-1]).readings()) >= 1


# -- camera faults: a hung read, unplugging at every step of a turn, a flapping cable, SIGTERM ----


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
    service = make_service(camera.open, clock=fake_clock, sleep=fake_clock.sleep, read_limit_s=1.0)
    service.start()
    press_until_roll(service)
    before = snapshot(service)
    camera.hanging.set()
    with caplog.at_level(logging.WARNING):
        service.step()
    assert service.camera_lost
    assert service.light.status is TrayStatus.CAMERA_LOST
    assert service.shown_screen.banner == "CAMERA LOST"
    assert any("hung for more than 1 s" in r.message for r in caplog.records)
    camera.released.set()
    step_until(service, lambda: not service.camera_lost, limit=2000)
    assert camera.opened == 2 and service.stats.reconnects == 1
    assert snapshot(service) == before
    sim.roll([3, 3, 3, 4, 4])
    step_until(service, lambda: service.stats.readings == 1)
    assert sorted(service.flow.values) == [3, 3, 3, 4, 4]


def rolled_and_read(make_service, fake_clock, replug, seed: int, values: list[int]):
    """A service on a replugging simulated tray, with one offensive roll of ``values`` read."""
    sim = SimulatedTraySource(seed, auto_roll=False, hold_s=0.5)
    service = make_service(replug(sim).open, clock=fake_clock, sleep=fake_clock.sleep)
    service.start()
    press_until_roll(service)
    sim.roll(values)
    step_until(service, lambda: service.stats.readings == 1)
    return service, sim


def test_unplugged_after_a_read_the_same_dice_are_the_same_roll(make_service, fake_clock, replug) -> None:
    service, sim = rolled_and_read(make_service, fake_clock, replug, 22, [1, 2, 2, 5, 6])
    assert service.flow.game.offensive_attempts == 1
    before = snapshot(service)
    unplug_and_back(service, sim)
    assert service.stats.same_after_reconnect == 1
    assert snapshot(service) == before  # still attempt 1/3, one reading logged


def test_a_flapping_cable_reads_one_throw_once(make_service, fake_clock, replug) -> None:
    service, sim = rolled_and_read(make_service, fake_clock, replug, 23, [6, 6, 4, 4, 1])
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
    throws = iter([[1, 2, 3, 1, 2], [4, 4, 4, 4, 4], [6, 6, 1, 2, 3], [3, 3, 3, 3, 3], [1, 1, 1, 1, 1]])
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
    # Upkeep, income and main phase, the offensive roll, the choice, the defense roll, the damage.
    assert {Step.PROMPT, Step.ROLL, Step.CHOOSE, Step.DAMAGE} <= set(seen) and seen.count(Step.ROLL) == 2, seen
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
