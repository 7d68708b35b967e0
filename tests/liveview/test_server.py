"""The live view server over real HTTP on loopback: page, snapshot, stream, state, stats, ports, close."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from firmware_host.errors import ServiceError
from firmware_host.liveview import BOUNDARY, BadLiveViewAddress, FrameHub, LiveView, PortInUse, StateNotJSON
from hardware.lights import TrayStatus
from hardware.screens import PlayerStatus, ScreenState
from vision.imageio import load_image
from vision.reader import DiceReader
from vision.types import DieReading, DieStatus, FrameReading

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"
needs_real = pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")

Get = Callable[[str], Any]  # conftest's fetch: status, content_type, body


def grey(value: int) -> np.ndarray:
    return np.full((120, 160, 3), value, np.uint8)


def decode(body: bytes) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None, "not a JPEG"
    return image


class StreamClient:
    """Reads a multipart stream in its own thread, keeping each part's mean grey level."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        self.connection.request("GET", "/stream.mjpg")
        self.sock = self.connection.sock  # http.client lets go of it once the response is read
        assert self.sock is not None
        self.response = self.connection.getresponse()
        self.levels: list[float] = []
        self.changed = threading.Condition()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            while True:
                line = self.response.fp.readline()
                if not line:
                    return  # server ended the stream
                if line.strip() != f"--{BOUNDARY}".encode():
                    continue
                headers = {}
                while (line := self.response.fp.readline().strip()):
                    name, _, value = line.decode().partition(":")
                    headers[name.lower()] = value.strip()
                assert headers["content-type"] == "image/jpeg"
                body = self.response.fp.read(int(headers["content-length"]))
                with self.changed:
                    self.levels.append(float(decode(body).mean()))
                    self.changed.notify_all()
        except (OSError, ValueError) as error:  # closed by the test
            self.error = error

    def wait_for(self, count: int, timeout: float = 5.0) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: len(self.levels) >= count, timeout)

    def close(self) -> None:
        # Shut the socket first: the reading thread sees the end of the stream and stops by itself.
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # the server closed it already
        self.thread.join(5)
        assert not self.thread.is_alive()
        self.response.close()
        self.connection.close()
        self.sock.close()


def test_page_is_self_contained(get: Get) -> None:
    page = get("/")
    assert page.status == 200 and page.content_type.startswith("text/html")
    text = page.body.decode()
    assert "stream.mjpg" in text and "api/state" in text and "setInterval(poll, 1000)" in text
    assert "http://" not in text and "https://" not in text  # no external assets


def test_unknown_paths_are_404(get: Get) -> None:
    response = get("/admin")
    assert response.status == 404 and b"/admin" in response.body
    assert get("/api/state?cachebust=1").status == 200


@needs_real
def test_snapshot_is_503_until_the_first_frame(live: LiveView, get: Get) -> None:
    assert get("/snapshot.jpg").status == 503
    frame = load_image(REAL_D6 / "dice_1.jpg")
    live.publish_frame(frame)
    snapshot = get("/snapshot.jpg")
    assert snapshot.status == 200 and snapshot.content_type == "image/jpeg"
    image = decode(snapshot.body)
    assert image.shape == frame.shape
    assert np.abs(image.astype(int) - frame).mean() < 4  # the same picture, give or take JPEG


@needs_real
def test_snapshot_shows_the_reading_drawn_by_vision_annotate(live: LiveView, get: Get) -> None:
    frame = load_image(REAL_D6 / "dice_1.jpg")
    reading = DiceReader().read(frame)
    assert reading.dice, "the reader should find the die in this photo"
    live.publish_frame(frame)
    plain = decode(get("/snapshot.jpg").body).astype(int)
    live.publish_frame(frame, reading)
    drawn = decode(get("/snapshot.jpg").body).astype(int)
    x, y, w, h = reading.dice[0].box
    changed = np.abs(drawn - plain).max(axis=2) > 60
    assert changed[y : y + h, x : x + 2].mean() > 0.5  # the box's left edge
    assert changed[y + 4 : y + h - 4, x + 4 : x + w - 4].mean() < 0.02  # the face itself left alone


def test_two_stream_clients_each_get_every_new_frame(live: LiveView, get: Get) -> None:
    live.publish_frame(grey(40))
    clients = [StreamClient(live.port), StreamClient(live.port)]
    try:
        assert all(c.wait_for(1) for c in clients)
        stats = json.loads(get("/api/stats").body)
        assert stats["clients"] == 2
        live.publish_frame(grey(200))
        assert all(c.wait_for(2) for c in clients)
        for client in clients:
            assert client.levels[0] == pytest.approx(40, abs=2)
            assert client.levels[-1] == pytest.approx(200, abs=2)
        # Two clients, two frames: each frame encoded once.
        stats = json.loads(get("/api/stats").body)
        assert stats["frames_encoded"] == 2 and stats["frames_published"] == 2
    finally:
        for client in clients:
            client.close()


def test_state_reflects_the_reading_and_the_game(live: LiveView, get: Get) -> None:
    empty = json.loads(get("/api/state").body)
    assert empty["reading"] is None and empty["state"] == {}
    reading = FrameReading(
        dice=(
            DieReading(value=6, confidence=0.99, box=(10, 20, 30, 30), status=DieStatus.OK, face="6"),
            DieReading(value=None, confidence=0.4, box=(70, 20, 30, 30), status=DieStatus.COCKED),
        ),
        ms=7.5,
    )
    live.publish_frame(grey(90), reading)
    screen = ScreenState(title="Ana: Offense", attempt=(1, 3), players=(PlayerStatus("Ana", 50, 2, True),))
    live.publish_state({"screen": screen, "status": TrayStatus.ABILITY_READY, "roll": "6 ?"})
    state = json.loads(get("/api/state").body)
    assert state["reading"] == reading.to_json()
    assert state["state"]["screen"]["title"] == "Ana: Offense"
    assert state["state"]["screen"]["players"][0] == {"name": "Ana", "health": 50, "cp": 2, "active": True}
    assert state["state"]["status"] == TrayStatus.ABILITY_READY.value
    assert state["state"]["roll"] == "6 ?"
    assert state["frame_seq"] == 1
    live.clear_reading()
    assert json.loads(get("/api/state").body)["reading"] is None


def test_state_that_is_not_json_is_refused_and_the_old_one_kept(live: LiveView, get: Get) -> None:
    live.publish_state({"phase": "income"})
    with pytest.raises(StateNotJSON, match="object"):
        live.publish_state({"phase": object()})
    with pytest.raises(StateNotJSON):
        live.publish_state({"odds": float("nan")})
    assert json.loads(get("/api/state").body)["state"] == {"phase": "income"}


def test_stats_count_frames(live: LiveView, get: Get) -> None:
    for value in range(5):
        live.publish_frame(grey(value))
    stats = json.loads(get("/api/stats").body)
    assert stats["frames_published"] == 5 and stats["frames_accepted"] == 5
    assert stats["frames_encoded"] == 0 and stats["clients"] == 0
    assert stats["max_fps"] == 10.0 and "fps" in stats and "stream_fps" in stats


def test_port_in_use_is_named() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        view = LiveView(port=port)
        with pytest.raises(PortInUse, match=f"port {port} is already in use") as caught:
            view.start()
        assert isinstance(caught.value, RuntimeError) and isinstance(caught.value, ServiceError)
        view.close()


def test_a_second_view_on_the_same_port_is_refused(live: LiveView) -> None:
    with pytest.raises(PortInUse, match=str(live.port)):
        LiveView(port=live.port).start()


def test_close_releases_the_port_and_ends_streams(get: Get, live: LiveView) -> None:
    live.publish_frame(grey(70))
    client = StreamClient(live.port)
    assert client.wait_for(1)
    assert get("/snapshot.jpg").status == 200
    port = live.port
    live.close()
    client.thread.join(5)
    assert not client.thread.is_alive()  # the server ended the stream
    client.close()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
    # The service restarting binds the same port again.
    with LiveView(port=port) as again:
        assert again.port == port
    live.close()  # closing twice is harmless


def test_a_viewer_leaving_mid_stream_is_quiet(live: LiveView, get: Get, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="firmware_host.liveview")
    live.publish_frame(grey(10))
    client = StreamClient(live.port)
    assert client.wait_for(1)
    client.close()
    clients = 1
    for value in range(500):  # each frame makes the server write to the departed viewer
        live.publish_frame(grey(value % 256))
        clients = json.loads(get("/api/stats").body)["clients"]
        if clients == 0:
            break
    assert clients == 0
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("port", [-1, 65536, "8080", True])
def test_bad_ports_are_refused(port: object) -> None:
    with pytest.raises(BadLiveViewAddress, match=repr(port).replace("'", ".")):
        LiveView(port=port)  # type: ignore[arg-type]


def test_unknown_host_is_named() -> None:
    view = LiveView(host="no-such-host.invalid", port=0)
    with pytest.raises(BadLiveViewAddress, match="no-such-host.invalid"):
        view.start()
    view.close()


def test_too_many_viewers_get_503(get: Get) -> None:
    view = LiveView(port=0, max_clients=1, hub=FrameHub(clock=lambda: 0.0))
    with view:
        view.publish_frame(grey(5))
        first = StreamClient(view.port)
        try:
            assert first.wait_for(1)
            connection = http.client.HTTPConnection("127.0.0.1", view.port, timeout=5)
            try:
                connection.request("GET", "/stream.mjpg")
                response = connection.getresponse()
                assert response.status == 503 and b"too many" in response.read()
            finally:
                connection.close()
        finally:
            first.close()


def test_state_values_from_numpy_and_sets_are_sent(live: LiveView, get: Get) -> None:
    live.publish_state({"confidence": np.float32(0.5), "dice": np.int64(5), "kept": {3, 1}, "player": None})
    assert json.loads(get("/api/state").body)["state"] == {"confidence": 0.5, "dice": 5, "kept": [1, 3], "player": None}
