"""`dicetray run` as systemd runs it: a real process, a notify socket, SIGTERM; and its faults at start."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import cv2
import pytest
from gpiozero import LED
from PIL import Image, ImageChops

from firmware_host.config import load_config, parse_config
from firmware_host.errors import exit_status_for
from firmware_host.rolllog import RollLog
from firmware_host.service import ROLL_LOG_FAILED_SCREEN, build_service
from hardware.display import NullDisplay
from hardware.errors import PinBusy
from hardware.lights import StatusLight
from hardware.screens import OFFLINE_SCREEN, render_screen

REPO = Path(__file__).resolve().parents[2]


def dicetray(*args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "firmware_host", *args], capture_output=True, text=True, cwd=REPO, timeout=120, **kwargs
    )


def laptop_config(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "laptop.toml"
    path.write_text(
        'camera = "sim:2"\ngpio = "mock"\ndisplay = "capture:frames"\nroll_log = "rolls.sqlite3"\n' + extra
    )
    return path


def test_sigterm_under_systemd_notify_ends_cleanly(tmp_path: Path) -> None:
    config = laptop_config(tmp_path)
    notify = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(notify))
        server.settimeout(60)
        env = dict(os.environ, NOTIFY_SOCKET=str(notify), WATCHDOG_USEC="200000", JOURNAL_STREAM="8:1")
        process = subprocess.Popen(
            [sys.executable, "-m", "firmware_host", "run", "--config", str(config)],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            messages = [server.recv(4096).decode()]
            assert messages[0].startswith("READY=1"), messages
            # The loop pings the watchdog at half of WATCHDOG_USEC once it processes frames.
            while "WATCHDOG=1" not in messages[-1]:
                messages.append(server.recv(4096).decode())
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=60)
            while True:  # the rest of what was sent, up to STOPPING=1
                messages.append(server.recv(4096).decode())
                if messages[-1] == "STOPPING=1":
                    break
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert process.returncode == 0, err
    assert "Traceback" not in err
    # Journal lines: a syslog priority, no timestamp of their own.
    assert "<6>INFO firmware_host.service: SIGTERM: stopping" in out
    assert not any(line[3:4].isdigit() for line in out.splitlines())
    # The display is left showing OFFLINE, and the LEDs are off (the mock pins went with the process).
    last = sorted((tmp_path / "frames").glob("frame_*.png"))[-1]
    with Image.open(last) as image:
        # Compared in "L": ImageChops on a mode "1" PNG straight from disk is not reliable.
        expected = render_screen(OFFLINE_SCREEN).convert("L")
        assert ImageChops.difference(image.convert("L"), expected).getbbox() is None
    with RollLog(tmp_path / "rolls.sqlite3") as roll_log:
        assert roll_log.integrity_check() == "ok"


def test_run_stops_after_max_frames(tmp_path: Path) -> None:
    result = dicetray("run", "--config", str(laptop_config(tmp_path)), "--max-frames", "20")
    assert result.returncode == 0, result.stderr
    assert "stopping after 20 frames" in result.stdout


@pytest.mark.parametrize("claim", ["jpeg", "png"])
def test_an_oversized_frame_in_a_replay_is_skipped_as_corrupt(tmp_path: Path, replay_scenes: Path, claim: str) -> None:
    """A frame whose header claims 20000x20000 (JPEG) or 40000x40000 (PNG, above OpenCV's own limit)
    is one corrupt frame: skipped, never decoded, the run goes on to the replay's end."""
    folder = tmp_path / "replay"
    shutil.copytree(replay_scenes, folder)
    frame = folder / "frame_0020.png"
    if claim == "jpeg":
        ok, data = cv2.imencode(".jpg", cv2.imread(str(frame)))
        patched = bytearray(data.tobytes())
        at = patched.index(b"\xff\xc0")
        patched[at + 5 : at + 9] = (20000).to_bytes(2, "big") * 2
        frame.unlink()
        (folder / "frame_0020.jpg").write_bytes(bytes(patched))
    else:
        header = struct.pack(">IIBBBBB", 40000, 40000, 8, 2, 0, 0, 0)
        frame.write_bytes(b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + header + zlib.crc32(b"IHDR" + header).to_bytes(4, "big"))
    config = tmp_path / "replay.toml"
    config.write_text(f'camera = "replay:{folder}"\ngpio = "mock"\ndisplay = "none"\nroll_log = "rolls.sqlite3"\n')
    result = dicetray("run", "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "skipped a corrupt frame" in result.stdout and "frame_0020" in result.stdout
    assert "beyond the limit" in result.stdout
    assert "ended after 36 frames" in result.stdout


def test_a_roll_log_that_cannot_be_opened_ends_the_run_with_status_1(tmp_path: Path, replay_scenes: Path) -> None:
    (tmp_path / "state").write_text("a file where the roll log's folder should be")
    config = tmp_path / "replay.toml"
    config.write_text(
        f'camera = "replay:{replay_scenes}"\ngpio = "mock"\ndisplay = "capture:frames"\nroll_log = "state/rolls.sqlite3"\n'
    )
    result = dicetray("run", "--config", str(config))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "rows not written: stopping with status 1" in result.stdout
    assert "Traceback" not in result.stderr
    last = sorted((tmp_path / "frames").glob("frame_*.png"))[-1]
    with Image.open(last) as image:
        expected = render_screen(ROLL_LOG_FAILED_SCREEN).convert("L")
        assert ImageChops.difference(image.convert("L"), expected).getbbox() is None


def test_a_config_typo_exits_2_naming_file_and_key(tmp_path: Path) -> None:
    config = laptop_config(tmp_path, "[pins]\nselcet = 6\n")
    result = dicetray("run", "--config", str(config))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "laptop.toml" in result.stderr and "unknown key pins.selcet (did you mean 'select'?)" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_config_file_exits_2(tmp_path: Path) -> None:
    result = dicetray("run", "--config", str(tmp_path / "nope.toml"))
    assert result.returncode == 2
    assert "nope.toml' does not exist" in result.stderr


def test_bad_limits_are_usage_errors(tmp_path: Path) -> None:
    result = dicetray("run", "--config", str(laptop_config(tmp_path)), "--max-frames", "0")
    assert result.returncode == 2
    assert "--max-frames must be at least 1, not 0" in result.stderr


def test_a_busy_gpio_pin_is_named_and_nothing_stays_claimed(tmp_path: Path, pins) -> None:
    config = load_config(laptop_config(tmp_path))
    squatter = LED(18, pin_factory=pins)  # something else holds the tray light's pin
    with pytest.raises(PinBusy, match=r"GPIO18 \(tray light strip\) is busy") as caught:
        build_service(config, pin_factory=pins)
    assert exit_status_for(caught.value) == 1
    # The status LED opened before the failure was closed again: its pins are free.
    StatusLight(pin_factory=pins).close()
    squatter.close()


def test_a_missing_oled_warns_once_and_the_tray_runs_without_it(tmp_path: Path, caplog) -> None:
    # This machine has no /dev/i2c-1: exactly the tray with its display unplugged.
    config = parse_config('camera = "sim:1"\ngpio = "mock"\ndisplay = "ssd1306"\n', source=tmp_path / "c.toml")
    with caplog.at_level(logging.WARNING):
        service = build_service(config)
        try:
            assert service.run(max_frames=15) == 0
        finally:
            service.close()
    assert isinstance(service.display, NullDisplay)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "without a display" in warnings[0].message
    assert service.stats.frames == 15


def test_the_service_paces_the_simulated_tray_to_the_frame_rate(tmp_path: Path) -> None:
    config = parse_config('camera = "sim:1"\ngpio = "mock"\ndisplay = "dummy"\n[frames]\nfps = 10\n')
    slept: list[float] = []
    now = [0.0]

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    service = build_service(config, clock=lambda: now[0], sleep=sleep)
    try:
        service.run(max_frames=5)
    finally:
        service.close()
    assert now[0] == pytest.approx(0.4)  # five frames at 10 fps: the first at once, then 0.1 s apart


def test_a_taken_live_view_port_is_named_and_the_devices_are_released(tmp_path: Path, pins) -> None:
    from firmware_host.web.server import PortInUse

    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        config = parse_config(
            f'camera = "sim"\ngpio = "mock"\ndisplay = "dummy"\n[liveview]\nenabled = true\nport = {port}\n'
        )
        with pytest.raises(PortInUse, match=str(port)):
            build_service(config, pin_factory=pins)
    StatusLight(pin_factory=pins).close()  # released again


def test_long_runs_on_mock_pins_forget_the_pin_history(pins) -> None:
    from gpiozero import PWMLED

    from firmware_host.service import _forget_pin_history

    led = PWMLED(18, pin_factory=pins)
    for step in range(50):
        led.value = step / 50
    assert len(pins.pin(18).states) > 40
    _forget_pin_history(pins)()
    assert len(pins.pin(18).states) == 1
    led.close()
    service = build_service(parse_config('camera = "sim"\ngpio = "mock"\ndisplay = "dummy"\n'))
    try:
        assert service._housekeeping is not None  # wired for mock pins, every 10 s of the loop
    finally:
        service.close()


def _save_tray_seen_from_above(dice_photos: int, scale: int = 1, tilt_deg: float = 0) -> tuple[int, int]:
    """Saves the tray profile of rendered photos taken straight down (or ``tilt_deg`` off it): an
    empty tray, then ``dice_photos`` with six pip dice, at ``scale`` times the simulated camera's
    size; returns the photos' size (width, height)."""
    import numpy as np

    from calibration.tray import calibrate_tray, save_tray_profile
    from hardware.sim import random_scene, render_tray

    rng = np.random.default_rng(3)
    frames = [render_tray(random_scene(rng, dice, tilt_deg=tilt_deg), rng).frame for dice in (0,) + (6,) * dice_photos]
    frames = [cv2.resize(f, (f.shape[1] * scale, f.shape[0] * scale)) for f in frames]
    save_tray_profile(calibrate_tray("tray", frames[:1], frames[1:]))
    return frames[0].shape[1], frames[0].shape[0]


def _service_started(tmp_path: Path, caplog, frames: int = 0) -> Any:
    """The service on the simulated tray, its log at INFO, run for ``frames`` frames and closed."""
    config = parse_config('camera = "sim:1"\ngpio = "mock"\ndisplay = "dummy"\n', source=tmp_path / "c.toml")
    with caplog.at_level(logging.INFO):
        service = build_service(config)
        try:
            if frames:
                assert service.run(max_frames=frames) == 0
        finally:
            service.close()
    return service


def test_a_tray_calibrated_as_seen_from_above_reads_its_camera_without_the_pip_check(tmp_path: Path, caplog) -> None:
    size = _save_tray_seen_from_above(dice_photos=4)
    service = _service_started(tmp_path, caplog, frames=5)
    assert service.reader.overhead_frames == size and service.reader.view_watch is None
    assert any(f"{size[0]}x{size[1]} frames are checked by the pip reader only where a die is unsure" in r.message for r in caplog.records)


def test_a_tray_calibrated_as_seen_at_an_angle_checks_every_roll(tmp_path: Path, caplog) -> None:
    _save_tray_seen_from_above(dice_photos=4, tilt_deg=40)
    service = _service_started(tmp_path, caplog)
    assert service.reader.overhead_frames is None and service.reader.view_watch is None
    assert not any("told from the rolls" in r.message for r in caplog.records)


def test_a_tray_profile_that_does_not_tell_its_view_leaves_it_to_be_watched(tmp_path: Path, caplog) -> None:
    _save_tray_seen_from_above(dice_photos=0)
    service = _service_started(tmp_path, caplog)
    assert service.reader.overhead_frames is None and service.reader.view_watch is not None
    assert any("it is told from the rolls as they come" in r.message and "calibrating the tray again with photos of pip dice" in r.message for r in caplog.records)


def test_a_tray_profile_made_from_photos_of_another_size_is_named_as_unused(tmp_path: Path, caplog) -> None:
    _save_tray_seen_from_above(dice_photos=4, scale=2)  # photos at twice the camera's size
    service = _service_started(tmp_path, caplog)
    assert service.reader.view_watch is not None  # the camera's own view is watched instead
    warnings = [r.message for r in caplog.records if r.levelno == logging.WARNING]
    assert any("made from 1280x960 photos and the camera gives 640x480 frames: it is not used" in m for m in warnings)
    assert not any("looks straight down" in r.message for r in caplog.records)


def test_a_camera_no_tray_profile_tells_is_watched_from_its_rolls(tmp_path: Path, caplog, fake_clock) -> None:
    from vision.view import WATCHED_ROLLS, View, ViewWatch

    config = parse_config('camera = "sim:1"\ngpio = "mock"\ndisplay = "dummy"\n', source=tmp_path / "c.toml")
    with caplog.at_level(logging.INFO):
        # the simulated tray's rolls come by the service's clock: the fake one waits for none
        service = build_service(config, clock=fake_clock, sleep=fake_clock.sleep)
        try:
            assert service.reader.overhead_frames is None
            assert service.reader.view_watch.rolls == WATCHED_ROLLS
            # the simulated camera looks straight down: told after a few rolls, not twenty
            service.reader.view_watch = watch = ViewWatch(rolls=3, recheck_every=2)
            assert service.run(max_frames=1000) == 0
        finally:
            service.close()
    assert service.stats.readings >= 4 and watch.view is View.OVERHEAD
    messages = [r.message for r in caplog.records]
    assert any("no tray profile: which way the camera looks is told from the rolls as they come" in m for m in messages)
    told = [m for m in messages if "told from the last 3 rolls" in m]
    assert len(told) == 1 and told[0].startswith("the camera looks straight down (")
    assert "checked by the pip reader in one roll of 2 and where a die is unsure" in told[0]


def test_a_tray_profile_saved_while_the_service_runs_is_read_with_from_the_next_roll(tmp_path: Path, caplog) -> None:
    """The table app's tray calibration saves a profile while `dicetray run` reads: the service
    makes its reader again before the next frame, as its start would have made it."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from tests.service.conftest import table_app_service

    service = table_app_service(MockFactory(pin_class=MockPWMPin), tmp_path)
    try:
        assert service.live.on_tray_saved == service.tray_profile_saved  # the page's save reaches the loop
        with caplog.at_level(logging.INFO):
            service.start()
            service.step()
            assert service.reader.overhead_frames is None and service.reader.view_watch is not None
            size = _save_tray_seen_from_above(dice_photos=4)
            service.live.on_tray_saved()
            service.step()
        assert service.reader.overhead_frames == size and service.reader.view_watch is None
        assert any("the new tray profile is read with from the next roll" in r.message for r in caplog.records)
        assert any(f"{size[0]}x{size[1]} frames are checked by the pip reader only where a die is unsure" in r.message for r in caplog.records)
    finally:
        service.close()
