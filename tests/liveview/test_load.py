"""The live view under load: stalled stream viewers never lock new ones out, and only requests naming
this tray (by IP address, localhost, its name or a configured name) are served."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import numpy as np
import pytest

from firmware_host.liveview import STREAM_WRITE_TIMEOUT_S, FrameHub, LiveView


def noisy(seed: int) -> np.ndarray:
    """A frame that compresses badly (about 200 KB of JPEG), so stalled sockets fill quickly."""
    return np.random.default_rng(seed).integers(0, 255, (480, 640, 3), dtype=np.uint8)


def stalled_viewer(port: int) -> socket.socket:
    """Asks for the stream and never reads it, with a tiny receive buffer."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return sock


def stats(port: int) -> dict[str, int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/api/stats")
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


class Publisher:
    """Publishes new frames in the background, as the tray's loop does."""

    def __init__(self, view: LiveView) -> None:
        self.view = view
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        frames = [noisy(seed) for seed in range(4)]
        index = 0
        while not self.done.is_set():
            self.view.publish_frame(frames[index % 4])
            index += 1
            self.done.wait(0.02)

    def stop(self) -> None:
        self.done.set()
        self.thread.join(5)


def test_eight_stalled_viewers_never_lock_a_new_one_out() -> None:
    # A long write timeout: the stalled viewers stay until a new one needs their place.
    view = LiveView(port=0, max_clients=8, hub=FrameHub(max_fps=50), write_timeout_s=120.0)
    with view:
        publisher = Publisher(view)
        stalled = [stalled_viewer(view.port) for _ in range(8)]
        try:
            for _ in range(600):  # until every one of them has a write blocked on it
                if stats(view.port)["stalled_clients"] == 8:
                    break
                time.sleep(0.05)
            assert stats(view.port)["stalled_clients"] == 8
            for _ in range(3):  # new viewers, one after another, each served at once
                connection = http.client.HTTPConnection("127.0.0.1", view.port, timeout=5)
                try:
                    connection.request("GET", "/stream.mjpg")
                    response = connection.getresponse()
                    assert response.status == 200
                    assert response.fp.readline().strip() == b"--dicetrayframe"
                finally:
                    connection.close()
            assert view.stalled_dropped >= 1
        finally:
            publisher.stop()
            for sock in stalled:
                sock.close()


def test_a_stalled_viewer_is_dropped_after_the_write_timeout() -> None:
    view = LiveView(port=0, max_clients=8, hub=FrameHub(max_fps=50))
    with view:
        publisher = Publisher(view)
        sock = stalled_viewer(view.port)
        try:
            deadline = time.monotonic() + STREAM_WRITE_TIMEOUT_S + 10
            while time.monotonic() < deadline and stats(view.port)["clients"] != 0:
                time.sleep(0.1)
            assert stats(view.port)["clients"] == 0  # its thread ended: the write timed out
        finally:
            publisher.stop()
            sock.close()


def request_with_host(port: int, host: str | None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        if host is None:
            connection.putrequest("GET", "/api/state", skip_host=True)
        else:
            connection.putrequest("GET", "/api/state", skip_host=True)
            connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


@pytest.mark.parametrize(
    "host, status",
    [
        ("127.0.0.1:8080", 200), ("192.168.1.20", 200), ("[::1]:8080", 200), ("localhost:8080", 200),
        (socket.gethostname(), 200), (f"{socket.gethostname()}.local", 200), ("tray.example.net", 200),
        ("TRAY.example.net.", 200), (None, 200),
        ("evil.example.com", 421), ("evil.example.com:8080", 421), ("127.0.0.1.evil.example", 421), ("", 421),
    ],
)  # fmt: skip
def test_the_host_header_must_name_this_tray(host: str | None, status: int) -> None:
    with LiveView(port=0, names=["tray.example.net"]) as view:
        assert request_with_host(view.port, host) == status
