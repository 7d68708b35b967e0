"""FrameHub: the frame-rate cap, waiting for frames, encoding once for many readers, scaling."""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from firmware_host.errors import ServiceError
from firmware_host.web.frames import BadFrame, FrameHub, JpegFrame


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def grey(value: int, width: int = 320, height: int = 240) -> np.ndarray:
    return np.full((height, width, 3), value, np.uint8)


def decode(frame: JpegFrame) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(frame.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def test_thirty_fps_camera_is_cut_to_the_cap() -> None:
    clock = Clock()
    hub = FrameHub(max_fps=10, clock=clock)
    kept = []
    for k in range(30):
        clock.now = k / 30
        kept.append(hub.publish(grey(k)))
    stats = hub.stats()
    assert stats.frames_published == 30
    assert stats.frames_accepted == sum(kept) == 10
    assert kept[:4] == [True, False, False, True]
    assert stats.fps == pytest.approx(30, rel=0.01)
    assert stats.frames_encoded == 0  # nobody watched, nothing encoded


def test_wait_next_waits_for_the_first_frame() -> None:
    hub = FrameHub(clock=Clock())
    assert hub.wait_next(0, timeout=0.01) is None
    assert hub.snapshot() is None
    got: list[JpegFrame | None] = []
    waiting = threading.Thread(target=lambda: got.append(hub.wait_next(0, timeout=5)))
    waiting.start()
    hub.publish(grey(120))
    waiting.join(5)
    assert not waiting.is_alive()
    assert got[0] is not None and got[0].seq == 1
    assert decode(got[0]).mean() == pytest.approx(120, abs=2)


def test_wait_next_gives_only_newer_frames() -> None:
    clock = Clock()
    hub = FrameHub(clock=clock)
    hub.publish(grey(10))
    first = hub.wait_next(0, timeout=1)
    assert first is not None
    assert hub.wait_next(first.seq, timeout=0.01) is None
    clock.now = 1.0
    hub.publish(grey(200))
    second = hub.wait_next(first.seq, timeout=1)
    assert second is not None and second.seq == first.seq + 1
    assert decode(second).mean() == pytest.approx(200, abs=2)


def test_many_readers_share_one_encoding() -> None:
    hub = FrameHub(clock=Clock())
    hub.publish(grey(80))
    frames: list[JpegFrame | None] = []
    readers = [threading.Thread(target=lambda: frames.append(hub.wait_next(0, timeout=5))) for _ in range(6)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(5)
    assert len(frames) == 6 and all(f is not None and f.seq == 1 for f in frames)
    assert len({id(f) for f in frames}) == 1
    assert hub.stats().frames_encoded == 1


def test_close_wakes_waiting_readers() -> None:
    hub = FrameHub(clock=Clock())
    got: list[JpegFrame | None] = []
    started = threading.Event()

    def wait() -> None:
        started.set()
        got.append(hub.wait_next(0, timeout=30))

    waiting = threading.Thread(target=wait)
    waiting.start()
    started.wait(5)
    hub.close()
    waiting.join(5)
    assert not waiting.is_alive()
    assert got == [None]
    assert not hub.publish(grey(1))


def test_wide_frames_are_scaled_down() -> None:
    hub = FrameHub(clock=Clock(), max_width=640, quality=95)
    image = grey(90, width=1920, height=1080)
    image[400:600, 800:1000] = 250  # a bright square: still where it was, a third the size
    hub.publish(image)
    frame = hub.snapshot()
    assert frame is not None
    assert (frame.width, frame.height) == (640, 360)
    shown = decode(frame)
    assert shown.shape == (360, 640, 3)
    assert shown[166, 300].mean() > 230 and shown[100, 100].mean() < 100


def test_grey_frames_are_shown() -> None:
    hub = FrameHub(clock=Clock())
    hub.publish(np.full((60, 80), 33, np.uint8))
    frame = hub.snapshot()
    assert frame is not None and decode(frame).shape == (60, 80, 3)


@pytest.mark.parametrize(
    "frame, shown",
    [
        (np.zeros((10, 10, 3), np.float32), "float32"),
        (np.zeros((10, 10, 4), np.uint8), "(10, 10, 4)"),
        (np.zeros((0, 10, 3), np.uint8), "(0, 10, 3)"),
        ("tray.jpg", "str"),
    ],
)
def test_bad_frames_are_refused_naming_them(frame: object, shown: str) -> None:
    hub = FrameHub(clock=Clock())
    with pytest.raises(BadFrame, match=shown.replace("(", r"\(").replace(")", r"\)")) as caught:
        hub.publish(frame)  # type: ignore[arg-type]
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, ServiceError)
    assert hub.stats().frames_published == 0


@pytest.mark.parametrize("kwargs", [{"max_fps": 0}, {"quality": 101}, {"max_width": 4}])
def test_bad_settings_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match=str(next(iter(kwargs.values())))):
        FrameHub(**kwargs)  # type: ignore[arg-type]
