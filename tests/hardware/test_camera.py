"""Camera backends: replay of real photos and of a video, webcam and Pi camera failures, spec parsing."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from hardware.camera import (
    FrameSource,
    InvalidCameraSpec,
    OpenCVSource,
    PiCameraSource,
    ReplayFinished,
    ReplaySource,
    SimulatedTraySource,
    open_camera,
)
from hardware.errors import CameraUnavailable
from hardware.sim import random_scene, render_tray
from vision.errors import ImageLoadError

# The same folder tests/conftest.py names; computed here because this folder has its own conftest.
REAL_D6 = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "real-d6"
needs_real = pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")


@pytest.fixture
def three_real(tmp_path: Path) -> Path:
    if not REAL_D6.is_dir():
        pytest.skip("real-d6 photos not present")
    folder = tmp_path / "frames"
    folder.mkdir()
    for name in ("dice_1.jpg", "dice_10.jpg", "valid_56.jpg"):
        shutil.copy(REAL_D6 / name, folder / name)
    (folder / "labels.json").write_text("[]")  # not a frame: ignored
    return folder


@needs_real
def test_replay_of_the_real_photo_folder_in_name_order() -> None:
    with ReplaySource(REAL_D6) as src:
        assert isinstance(src, FrameSource)
        names = sorted(p.name for p in REAL_D6.iterdir() if p.suffix == ".jpg")
        assert src.frame_count == len(names) == 391
        for name in names[:3]:
            frame = src.read()
            assert src.current == name
            assert np.array_equal(frame, cv2.imread(str(REAL_D6 / name)))
            assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8


def test_replay_ends_or_loops(three_real: Path) -> None:
    src = ReplaySource(three_real)
    assert [src.read().shape for _ in range(3)] == [(480, 640, 3)] * 3
    with pytest.raises(ReplayFinished, match="3 frames") as info:
        src.read()
    assert isinstance(info.value, EOFError)
    looping = ReplaySource(three_real, loop=True)
    first = looping.read()
    for _ in range(2):
        looping.read()
    assert np.array_equal(looping.read(), first) and looping.index == 0
    assert len(list(ReplaySource(three_real))) == 3  # iteration stops at the end


def test_replay_at_its_own_pace_sleeps_between_frames(three_real: Path) -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    src = ReplaySource(three_real, fps=10, realtime=True, clock=lambda: now[0], sleep=sleep)
    for _ in range(3):
        src.read()
    assert sum(slept) == pytest.approx(0.2)  # frames at 0, 0.1 and 0.2 s
    assert src.timestamp == pytest.approx(0.2)
    fast = ReplaySource(three_real, fps=10, clock=lambda: now[0], sleep=lambda s: pytest.fail("slept"))
    for _ in range(3):
        fast.read()


def test_replay_corrupt_frame_names_the_file(three_real: Path) -> None:
    (three_real / "dice_2.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    src = ReplaySource(three_real)
    src.read()  # dice_1.jpg
    src.read()  # dice_10.jpg
    with pytest.raises(ImageLoadError, match="dice_2.jpg"):
        src.read()
    # The bad frame is reported, not skipped silently; the replay goes on after it.
    assert src.read().shape == (480, 640, 3)


def test_replay_missing_or_empty_source(tmp_path: Path) -> None:
    with pytest.raises(CameraUnavailable, match="nowhere"):
        ReplaySource(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no frames here")
    with pytest.raises(CameraUnavailable, match="no image frames"):
        ReplaySource(tmp_path / "empty")
    (tmp_path / "clip.avi").write_bytes(b"definitely not a video")
    with pytest.raises(CameraUnavailable, match="clip.avi"):
        ReplaySource(tmp_path / "clip.avi").read()


def _write_video(path: Path, n: int, fps: float = 15.0) -> list[np.ndarray]:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (320, 240))
    assert writer.isOpened()
    rng = np.random.default_rng(4)
    frames = []
    for _ in range(n):
        tray = render_tray(random_scene(rng, 3, width=320, height=240), rng)
        writer.write(tray.frame)
        frames.append(tray.frame)
    writer.release()
    return frames


def test_replay_of_a_video_file(tmp_path: Path) -> None:
    video = tmp_path / "roll.avi"
    written = _write_video(video, 6)
    with open_camera(f"replay:{video}") as src:
        assert isinstance(src, ReplaySource)
        assert src.fps == pytest.approx(15.0)
        frames = list(src)
    assert len(frames) == 6
    for got, want in zip(frames, written):
        assert got.shape == (240, 320, 3)
        assert np.abs(got.astype(int) - want.astype(int)).mean() < 6  # MJPG is lossy
    looping = ReplaySource(video, loop=True)
    seen = [looping.read() for _ in range(8)]
    assert np.array_equal(seen[6], seen[0]) and looping.index == 1


def test_webcam_missing_device_names_it() -> None:
    with pytest.raises(CameraUnavailable, match="/dev/video57"):
        OpenCVSource(57)
    with pytest.raises(CameraUnavailable, match="/nonexistent/video9"):
        open_camera("usb:/nonexistent/video9")


@pytest.mark.skipif(importlib.util.find_spec("picamera2") is not None, reason="picamera2 is installed here")
def test_picamera_missing_gives_a_clear_error() -> None:
    with pytest.raises(CameraUnavailable, match="picamera2 is not importable.*python3-picamera2") as info:
        PiCameraSource()
    assert isinstance(info.value, RuntimeError)
    with pytest.raises(CameraUnavailable, match="picamera2"):
        open_camera("picamera")


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("webcam:0", "'webcam:0' is not one of"),
        ("usb", "usb needs a device"),
        ("replay:", "replay needs a folder"),
        ("sim:seven", "sim takes a seed"),
        ("picamera:x", "picamera takes a camera number"),
        ("", "'' is not one of"),
    ],
)
def test_bad_specs_are_refused_naming_the_spec(spec: str, match: str) -> None:
    with pytest.raises(InvalidCameraSpec, match=match) as info:
        open_camera(spec)
    assert isinstance(info.value, ValueError)


def test_open_camera_takes_a_config_like_object(three_real: Path) -> None:
    config = SimpleNamespace(camera="sim:3", frames=SimpleNamespace(width=320, height=240, fps=15.0))
    src = open_camera(config)
    assert isinstance(src, SimulatedTraySource)
    assert src.read().shape == (240, 320, 3) and src.fps == 15.0
    replay = open_camera(SimpleNamespace(camera=f"replay:{three_real}", frames=config.frames))
    assert isinstance(replay, ReplaySource) and replay.read().shape == (480, 640, 3)


def test_webcam_source_reads_frames_through_videocapture(tmp_path: Path) -> None:
    # No webcam here: a video file through the same VideoCapture path stands in for one.
    video = tmp_path / "cam.avi"
    written = _write_video(video, 3)
    with OpenCVSource(str(video), backend=cv2.CAP_ANY) as cam:
        assert cam.frame_size == (320, 240)
        frames = [cam.read() for _ in range(3)]
        assert all(f.shape == (240, 320, 3) and f.dtype == np.uint8 for f in frames)
        assert np.abs(frames[0].astype(int) - written[0].astype(int)).mean() < 6
        with pytest.raises(CameraUnavailable, match="cam.avi gave no frame"):
            cam.read()  # the stream ran dry, as an unplugged webcam does
    with pytest.raises(CameraUnavailable, match="closed"):
        cam.read()
