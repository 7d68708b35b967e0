"""The frame loop's cost with the table app under load: idle, then 200 idle connections and 20
camera stream clients reading as fast as they can, plus 20 event-stream clients. The loop is what
the service does per camera frame (settle detection, then the frame offered to the web server)."""

from __future__ import annotations

import selectors
import socket
import threading
from collections.abc import Iterator

import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from firmware_host.web import TrayWeb
from hardware.sim import Background, Lighting, random_scene, render_tray
from vision.settle import SettleDetector


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    scene = random_scene(rng, 5, tilt_deg=0, background=Background("wood", (170, 205, 222), 1), lighting=Lighting())
    return [render_tray(scene, rng).frame for _ in range(4)]


class Load:
    """``idle`` connections that send nothing, ``streams`` MJPEG readers and ``sockets`` event
    clients, all read on one thread so the load costs the server, not the test."""

    def __init__(self, port: int, idle: int, streams: int, sockets: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.connections: list[socket.socket] = []
        self.bytes_read = 0
        for _ in range(idle):
            self.connections.append(socket.create_connection(("127.0.0.1", port)))
        for _ in range(streams):
            self._reader(port, b"GET /api/v1/camera/stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        for _ in range(sockets):
            self._reader(
                port,
                b"GET /api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            )
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _reader(self, port: int, request: bytes) -> None:
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall(request)
        connection.setblocking(False)
        self.selector.register(connection, selectors.EVENT_READ)
        self.connections.append(connection)

    def _read(self) -> None:
        while not self._stop.is_set():
            for key, _ in self.selector.select(0.1):
                try:
                    chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                self.bytes_read += len(chunk)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for connection in self.connections:
            connection.close()
        self.selector.close()


@pytest.fixture(params=["no clients", "200 idle + 20 streams + 20 sockets"])
def loaded_web(request) -> Iterator[tuple[TrayWeb, Load | None]]:
    web = TrayWeb("127.0.0.1", 0, max_connections=400, stream_clients=20, event_clients=40, request_timeout_s=600)
    web.start()
    load = Load(web.port, 200, 20, 20) if request.param != "no clients" else None
    yield web, load
    if load is not None:
        load.close()
    web.close()


def test_frame_loop_with_the_table_app(benchmark: BenchmarkFixture, frames, loaded_web) -> None:
    web, load = loaded_web
    detector = SettleDetector()
    state = {"i": 0, "t": 0.0}

    def one_frame() -> None:
        frame = frames[state["i"] % len(frames)]
        state["i"] += 1
        state["t"] += 1 / 30
        detector.update(frame, state["t"])
        web.publish_frame(frame)
        if state["i"] % 30 == 0:
            web.publish_state({"status": f"frame {state['i']}"})  # a state push a second

    benchmark.pedantic(one_frame, rounds=300, iterations=1, warmup_rounds=10)
    if load is not None and benchmark.enabled:
        assert load.bytes_read > 0  # the clients really were served
        assert len(web.streams) == 20
