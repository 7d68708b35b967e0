"""The live view: a small web server showing the tray camera with every die's box, value and status
drawn on it, and the game state, to any phone or laptop on the table's network.

Endpoints:

=====================  =====================================================================
``GET /``              a page with the stream and the state (polls ``/api/state`` every second;
                       no external assets, so it works on a network without internet)
``GET /stream.mjpg``   ``multipart/x-mixed-replace`` JPEG stream, many clients at once
``GET /snapshot.jpg``  the newest frame as one JPEG; 503 until the first frame is published
``GET /api/state``     ``{"reading": FrameReading.to_json() or null, "state": {...}, ...}``
``GET /api/stats``     frames published and streamed, clients, frame rates, encode time
=====================  =====================================================================

Wiring it into a frame loop takes a line per event::

    live = LiveView(host="0.0.0.0", port=8080)
    live.start()                                  # raises PortInUse naming the port
    live.publish_frame(frame_bgr)                 # every frame; cheap when nobody watches
    live.publish_frame(frame_bgr, reading)        # the frame that was read: boxes drawn from now on
    live.clear_reading()                          # the dice move again: boxes go away
    live.publish_state({"screen": flow.screen(), "status": flow.status()})
    live.close()

Cost on the frame loop: :meth:`LiveView.publish_frame` only stores a copy of the frame, and at most
``max_fps`` times a second. Drawing and JPEG encoding happen in the HTTP threads, only when a client
is waiting for a newer frame, so an unwatched tray spends no CPU on the stream.

Under load: a stream write that blocks (a viewer that stopped reading) times out after
:data:`STREAM_WRITE_TIMEOUT_S` and ends that stream; a new viewer arriving while the streams are
full takes the place of one stalled for :data:`STALLED_S`, so stalled clients never lock viewers out.
Every request's ``Host`` must be an IP address, ``localhost``, this machine's host name (also with
``.local``) or one of the configured ``names``: anything else is 421, which stops DNS rebinding (a web
page elsewhere making a browser on the table's network read the tray).

Standard library only (:class:`http.server.ThreadingHTTPServer`) plus OpenCV for the JPEG; the boxes
are drawn by :func:`vision.annotate.annotate`, the same debug image ``dicetray read --annotate`` writes.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import enum
import errno
import json
import logging
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import PurePath
from types import TracebackType
from typing import Any, ClassVar, Protocol
from urllib.parse import urlsplit

import cv2
import numpy as np
import numpy.typing as npt

from firmware_host.errors import ServiceError
from firmware_host.web.access import HostCheck
from vision.annotate import annotate
from vision.reader import DiceReader
from vision.settle import SettleDetector, SettleState, SettleUpdate
from vision.types import DieReading, FrameReading

__all__ = [
    "BadFrame",
    "BadLiveViewAddress",
    "FrameHub",
    "HubStats",
    "JpegFrame",
    "LiveView",
    "LiveViewError",
    "PortInUse",
    "StateNotJSON",
    "to_jsonable",
    "TrayWatch",
]

log = logging.getLogger(__name__)

Frame = npt.NDArray[np.uint8]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
BOUNDARY = "dicetrayframe"

# Errors a client that went away gives on write; the stream ends quietly on them.
_GONE = (OSError,)  # a broken pipe, a reset, a write timeout, a socket cut off as stalled

# Seconds one write to a stream viewer may block before that viewer is dropped; a viewer that reads
# never blocks this long (a frame is tens of KB, the socket buffer holds several).
STREAM_WRITE_TIMEOUT_S = 3.0

# Seconds a write must have blocked for its viewer to count as stalled and give way to a new one.
STALLED_S = 0.5

# Seconds a connection may take to send its request.
REQUEST_TIMEOUT_S = 5.0


class LiveViewError(ServiceError):
    """Base of the live view's errors."""


class PortInUse(LiveViewError, RuntimeError):
    """Another program (or another live view) already listens on the port; the message names it."""


class BadLiveViewAddress(LiveViewError, ValueError):
    """A host or port the live view cannot bind (not a port number, unknown host, port not allowed)."""


class BadFrame(LiveViewError, ValueError):
    """A published frame that is not a BGR (or grey) ``uint8`` image; the message gives its shape."""


class StateNotJSON(LiveViewError, TypeError):
    """A published state holding a value JSON cannot carry; the message names the value."""


def to_jsonable(value: Any) -> Any:
    """``json.dumps`` fallback for the project's values: enums by value, dataclasses as dicts, paths.

    So ``publish_state({"screen": flow.screen(), "status": flow.status()})`` needs no conversion.
    """
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{value!r} ({type(value).__name__}) is not JSON serialisable")


@dataclass(frozen=True)
class JpegFrame:
    """One encoded frame: ``seq`` counts accepted frames from 1; ``timestamp`` is the hub clock's."""

    seq: int
    jpeg: bytes = field(repr=False)
    width: int
    height: int
    timestamp: float


@dataclass(frozen=True)
class HubStats:
    """What ``/api/stats`` reports.

    ``frames_published`` every frame given to the hub; ``frames_accepted`` those kept under the
    ``max_fps`` cap; ``frames_encoded`` those turned into JPEG (only while someone watches);
    ``fps`` the published frame rate, ``stream_fps`` the encoded one (both over the last seconds);
    ``encode_ms`` the mean time to draw and encode one frame.
    """

    frames_published: int
    frames_accepted: int
    frames_encoded: int
    clients: int
    fps: float
    stream_fps: float
    encode_ms: float
    max_fps: float

    def to_json(self) -> dict[str, Any]:
        return {
            "frames_published": self.frames_published,
            "frames_accepted": self.frames_accepted,
            "frames_encoded": self.frames_encoded,
            "clients": self.clients,
            "fps": round(self.fps, 2),
            "stream_fps": round(self.stream_fps, 2),
            "encode_ms": round(self.encode_ms, 2),
            "max_fps": self.max_fps,
        }


class _Rate:
    """Events per second over the last ``window_s`` seconds of a clock."""

    def __init__(self, window_s: float = 2.0) -> None:
        self._window_s = window_s
        self._times: collections.deque[float] = collections.deque(maxlen=256)

    def tick(self, now: float) -> None:
        self._times.append(now)

    def per_second(self, now: float) -> float:
        times = [t for t in self._times if now - t <= self._window_s]
        if len(times) < 2 or times[-1] <= times[0]:
            return 0.0
        return (len(times) - 1) / (times[-1] - times[0])


class FrameHub:
    """The newest frame as JPEG: one producer, many readers.

    The producer calls :meth:`publish` for every camera frame. At most ``max_fps`` frames a second
    are kept (a copy, so the camera may reuse its buffer); the rest are counted and dropped at the
    cost of one clock read. A frame given with a new reading is always kept, so the boxes appear at
    once. Readers call :meth:`wait_next`; the first reader that finds a kept frame not yet encoded
    draws the reading on it and encodes it, outside the lock, while the others wait for the result.

    :param max_fps: cap on frames kept, hence encoded, per second.
    :param quality: JPEG quality 0-100.
    :param max_width: wider frames are scaled down to this width before drawing (a 12 MP still
        would cost far more to encode than a phone can show).
    :param clock: seconds from any origin; injected so tests drive time.
    """

    def __init__(
        self,
        *,
        max_fps: float = 10.0,
        quality: int = 80,
        max_width: int = 960,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not max_fps > 0:
            raise ValueError(f"max_fps must be positive, got {max_fps!r}")
        if not 0 <= quality <= 100:
            raise ValueError(f"quality must be 0-100, got {quality!r}")
        if max_width < 16:
            raise ValueError(f"max_width must be at least 16 pixels, got {max_width!r}")
        self.max_fps = float(max_fps)
        self.quality = int(quality)
        self.max_width = int(max_width)
        self._clock = clock
        self._interval = 1.0 / self.max_fps
        self._cond = threading.Condition()
        self._closed = False
        # Producer side: the newest kept frame, not yet encoded when _raw_seq > _done_seq.
        self._raw: Frame | None = None
        self._raw_seq = 0
        self._raw_time = 0.0
        self._next_due: float | None = None
        self._overlay: FrameReading | None = None
        self._overlay_drawn: FrameReading | None = None
        # Reader side.
        self._jpeg: JpegFrame | None = None
        self._done_seq = 0  # newest seq encoded or given up on
        self._encoding = False
        self._clients = 0
        self._published = 0
        self._encoded = 0
        self._encode_s_total = 0.0
        self._in_rate = _Rate()
        self._out_rate = _Rate()

    def __repr__(self) -> str:
        return f"FrameHub(max_fps={self.max_fps!r}, quality={self.quality!r}, max_width={self.max_width!r})"

    # Producer -----------------------------------------------------------------------------------

    def publish(self, frame: Frame, reading: FrameReading | None = None) -> bool:
        """Offer a frame; ``reading`` (if given) is drawn on it and on later frames until
        :meth:`clear_reading` or another reading. Returns whether the frame was kept.

        :raises BadFrame: ``frame`` is not a ``uint8`` image of shape (h, w, 3) or (h, w).
        """
        _check_frame(frame)
        now = self._clock()
        with self._cond:
            if self._closed:
                return False
            self._published += 1
            self._in_rate.tick(now)
            # Compare dice, not objects or timings: the same dice read again are no news.
            new_reading = reading is not None and (self._overlay is None or reading.dice != self._overlay.dice)
            if reading is not None:
                self._overlay = reading
            # A millisecond of slack, so frames exactly on the beat are not lost to float rounding.
            if not new_reading and self._next_due is not None and now + 1e-3 < self._next_due:
                return False
            # Keep the average at max_fps even when camera frames do not land on the cap's beat;
            # after a pause, start a fresh beat rather than letting a burst through.
            if self._next_due is None or now - self._next_due >= self._interval:
                self._next_due = now + self._interval
            else:
                self._next_due += self._interval
            self._raw = np.array(frame, dtype=np.uint8, copy=True)
            self._raw_seq += 1
            self._raw_time = now
            self._cond.notify_all()
            return True

    def clear_reading(self) -> None:
        """Stop drawing the last reading (the dice are moving again)."""
        with self._cond:
            self._overlay = None

    def close(self) -> None:
        """Wake every waiting reader with ``None``; later publishes are ignored."""
        with self._cond:
            self._closed = True
            self._raw = None
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    # Readers ------------------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The sequence number of the newest kept frame (0 before the first)."""
        return self._raw_seq

    def latest(self) -> JpegFrame | None:
        """The newest encoded frame, without encoding anything."""
        return self._jpeg

    def wait_next(self, last_seq: int, timeout: float) -> JpegFrame | None:
        """The first encoded frame newer than ``last_seq``, waiting up to ``timeout`` seconds for it
        (also for the very first frame). ``None`` on timeout or when the hub is closed."""
        return self._wait(last_seq + 1, timeout)

    def snapshot(self, timeout: float = 1.0) -> JpegFrame | None:
        """The newest frame as JPEG (encoding it if nobody has yet); ``None`` before the first frame.

        Waits at most ``timeout`` for the encoding; after that the newest encoded frame is returned.
        """
        with self._cond:
            wanted = self._raw_seq
        if wanted == 0:
            return None
        return self._wait(wanted, timeout) or self._jpeg

    @contextmanager
    def client(self) -> Iterator[None]:
        """Count a stream client for the duration of the block (``/api/stats`` reports it)."""
        with self._cond:
            self._clients += 1
        try:
            yield
        finally:
            with self._cond:
                self._clients -= 1

    def stats(self) -> HubStats:
        now = self._clock()
        with self._cond:
            return HubStats(
                frames_published=self._published,
                frames_accepted=self._raw_seq,
                frames_encoded=self._encoded,
                clients=self._clients,
                fps=self._in_rate.per_second(now),
                stream_fps=self._out_rate.per_second(now),
                encode_ms=1000.0 * self._encode_s_total / self._encoded if self._encoded else 0.0,
                max_fps=self.max_fps,
            )

    def _wait(self, min_seq: int, timeout: float) -> JpegFrame | None:
        # Waits use the real clock: the injected one may be a test's virtual time.
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            while True:
                if self._closed:
                    return None
                if self._jpeg is not None and self._jpeg.seq >= min_seq:
                    return self._jpeg
                if self._raw is not None and self._raw_seq > self._done_seq and not self._encoding:
                    self._encode_pending()
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def _encode_pending(self) -> None:
        """Encode the pending frame; called with the lock held, releases it while encoding."""
        assert self._raw is not None
        raw, seq, stamp, overlay = self._raw, self._raw_seq, self._raw_time, self._overlay
        self._encoding = True
        self._cond.release()
        result: JpegFrame | None = None
        started = time.perf_counter()
        try:
            result = _encode(raw, overlay, seq, stamp, self.quality, self.max_width)
        except (cv2.error, ValueError) as error:
            # One bad frame must not stop the stream; the next frame gets its own chance.
            log.warning("live view: cannot encode frame %d (%s): %s", seq, raw.shape, error)
        finally:
            spent = time.perf_counter() - started
            self._cond.acquire()
            self._encoding = False
            self._done_seq = max(self._done_seq, seq)
            if result is not None and (self._jpeg is None or result.seq > self._jpeg.seq):
                self._jpeg = result
                self._encoded += 1
                self._encode_s_total += spent
                self._out_rate.tick(self._clock())
            if self._raw is raw:
                self._raw = None  # drop the pixels once encoded; the JPEG stays
            self._cond.notify_all()


def _check_frame(frame: object) -> None:
    if not isinstance(frame, np.ndarray):
        raise BadFrame(f"frame must be a numpy image, got {type(frame).__name__}")
    if frame.dtype != np.uint8 or not (
        (frame.ndim == 3 and frame.shape[2] == 3) or frame.ndim == 2
    ) or frame.shape[0] == 0 or frame.shape[1] == 0:
        raise BadFrame(f"frame must be a BGR or grey uint8 image, got shape {frame.shape} dtype {frame.dtype}")


def _scaled(reading: FrameReading, factor: float) -> FrameReading:
    def scale(die: DieReading) -> DieReading:
        x, y, w, h = die.box
        box = (round(x * factor), round(y * factor), max(1, round(w * factor)), max(1, round(h * factor)))
        return dataclasses.replace(die, box=box)

    return dataclasses.replace(reading, dice=tuple(scale(d) for d in reading.dice))


def _encode(
    frame: Frame, reading: FrameReading | None, seq: int, stamp: float, quality: int, max_width: int
) -> JpegFrame:
    """Scale down, draw the reading, encode: scaling first keeps drawing and encoding cheap."""
    image = frame
    if image.ndim == 2:
        image = np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    height, width = image.shape[:2]
    if width > max_width:
        factor = max_width / width
        size = (max_width, max(1, round(height * factor)))
        image = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
        if reading is not None:
            reading = _scaled(reading, factor)
    if reading is not None and reading.dice:
        image = annotate(image, reading)
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError(f"OpenCV could not encode a {image.shape} frame as JPEG")
    return JpegFrame(seq=seq, jpeg=buffer.tobytes(), width=image.shape[1], height=image.shape[0], timestamp=stamp)


# The server ---------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    """ThreadingHTTPServer that remembers its connections, so close() can end stalled ones."""

    daemon_threads = True
    block_on_close = False  # close() joins its own threads, with a bound
    view: LiveView

    def __init__(self, address: tuple[str, int], view: LiveView, family: socket.AddressFamily) -> None:
        self.address_family = family
        self.view = view
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._workers: set[threading.Thread] = set()
        self._streams: dict[socket.socket, _StreamSlot] = {}
        super().__init__(address, _Handler)

    def admit_stream(self, connection: socket.socket, limit: int) -> _StreamSlot | None:
        """A slot for a new stream viewer, or None when ``limit`` viewers stream and none is stalled.
        A stalled viewer (a write blocked for :data:`STALLED_S`) is cut off to make room."""
        now = time.monotonic()
        with self._lock:
            if len(self._streams) >= limit:
                stalled = [slot for slot in self._streams.values() if slot.stalled(now)]
                if stalled:
                    oldest = min(stalled, key=lambda slot: slot.writing_since or now)
                    del self._streams[oldest.connection]
                    oldest.cut_off()
                    self.view.stalled_dropped += 1
            if len(self._streams) >= limit:
                return None
            slot = _StreamSlot(connection)
            self._streams[connection] = slot
            return slot

    def release_stream(self, slot: _StreamSlot) -> None:
        with self._lock:
            if self._streams.get(slot.connection) is slot:
                del self._streams[slot.connection]

    def stalled_streams(self) -> int:
        now = time.monotonic()
        with self._lock:
            return sum(1 for slot in self._streams.values() if slot.stalled(now))

    def server_bind(self) -> None:
        # HTTPServer.server_bind asks DNS for the host's full name; a Pi without DNS would stall here.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        worker = threading.Thread(
            target=self._serve_one, args=(request, client_address), name="liveview-client", daemon=True
        )
        with self._lock:
            self._connections.add(request)
            self._workers.add(worker)
        worker.start()

    def _serve_one(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._connections.discard(request)
                self._workers.discard(threading.current_thread())

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The default prints a traceback to stderr; a client's fault is worth one log line.
        log.warning("live view: request from %s failed", client_address[0] if client_address else "?", exc_info=True)

    def end_connections(self, timeout: float) -> None:
        """Shut every client socket (unblocking writes to stalled clients) and join their threads."""
        with self._lock:
            connections = list(self._connections)
            workers = list(self._workers)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by its thread
        deadline = time.monotonic() + timeout
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))


class _StreamSlot:
    """One stream viewer: its socket and since when its current write has been blocked."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.writing_since: float | None = None

    def stalled(self, now: float) -> bool:
        return self.writing_since is not None and now - self.writing_since >= STALLED_S

    def cut_off(self) -> None:
        try:
            self.connection.shutdown(socket.SHUT_RDWR)  # its blocked write fails; its thread ends
        except OSError:
            pass


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "dicetray-liveview"
    # A client that sends no request holds a thread for at most this long.
    timeout = REQUEST_TIMEOUT_S
    routes: ClassVar[dict[str, str]] = {
        "/": "_page",
        "/index.html": "_page",
        "/stream.mjpg": "_stream",
        "/snapshot.jpg": "_snapshot",
        "/api/state": "_state",
        "/api/stats": "_stats",
    }

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        host = self.headers.get("Host")
        if not self.server.view.host_allowed(host):
            shown = str(host)[:100].encode("utf-8", "replace")
            self._send(HTTPStatus.MISDIRECTED_REQUEST, b"unknown host name: " + shown + b"\n", "text/plain; charset=utf-8")
            return
        path = urlsplit(self.path).path
        name = self.routes.get(path)
        if name is None:
            shown = path[:200].encode("utf-8", "replace")  # named, but a long probe is not echoed whole
            self._send(HTTPStatus.NOT_FOUND, b"not found: " + shown + b"\n", "text/plain; charset=utf-8")
            return
        try:
            getattr(self, name)()
        except _GONE:
            pass  # the client left; nothing to tell it

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's signature)
        log.debug("live view: %s %s", self.address_string(), format % args)

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _page(self) -> None:
        self._send(HTTPStatus.OK, PAGE.encode("utf-8"), "text/html; charset=utf-8")

    def _state(self) -> None:
        self._send(HTTPStatus.OK, self.server.view.state_json().encode("utf-8"), "application/json")

    def _stats(self) -> None:
        body = json.dumps(self.server.view.stats()).encode("utf-8")
        self._send(HTTPStatus.OK, body, "application/json")

    def _snapshot(self) -> None:
        frame = self.server.view.hub.snapshot(timeout=1.0)
        if frame is None:
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, b"no frame yet\n", "text/plain; charset=utf-8")
            return
        self._send(HTTPStatus.OK, frame.jpeg, "image/jpeg")

    def _stream(self) -> None:
        view = self.server.view
        hub = view.hub
        slot = self.server.admit_stream(self.connection, view.max_clients)
        if slot is None:
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, b"too many viewers\n", "text/plain; charset=utf-8")
            return
        try:
            self.connection.settimeout(view.write_timeout_s)
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            last = 0
            with hub.client():
                while not hub.closed:
                    frame = hub.wait_next(last, timeout=view.keepalive_s)
                    if frame is None:
                        # No new frame for a while: send the last one again, so a client that left is
                        # noticed (the write fails) instead of holding its thread until close().
                        frame = hub.latest()
                        if frame is None or hub.closed:
                            continue
                    slot.writing_since = time.monotonic()
                    self.wfile.write(
                        f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(frame.jpeg)}\r\n\r\n".encode()
                        + frame.jpeg
                        + b"\r\n"
                    )
                    self.wfile.flush()
                    slot.writing_since = None
                    last = frame.seq
        finally:
            self.server.release_stream(slot)


class LiveView:
    """The live view server. Nothing listens until :meth:`start`; :meth:`close` stops it.

    ::

        with LiveView(port=8080) as live:     # start() on enter, close() on exit
            live.publish_frame(frame, reading)
            print(live.url)                    # http://127.0.0.1:8080/

    :param host: address to listen on: ``127.0.0.1`` (this machine only, the default) or
        ``0.0.0.0`` / ``::`` for phones on the network.
    :param port: TCP port; 0 picks a free one (see :attr:`port` after :meth:`start`).
    :param max_fps: frames per second kept for the stream (see :class:`FrameHub`).
    :param max_clients: stream viewers at once; more get 503, so a crowd cannot starve the Pi.
    :param keepalive_s: seconds a stream waits for a new frame before resending the last one.
    :param hub: a :class:`FrameHub` to serve (one with ``max_fps`` and defaults otherwise).
    :param write_timeout_s: seconds one write to a stream viewer may block before it is dropped.
    :param names: host names the page may be reached by besides IP addresses, ``localhost`` and this
        machine's name (``Host`` is checked, against DNS rebinding).
    """

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        *,
        max_fps: float = 10.0,
        max_clients: int = 8,
        keepalive_s: float = 5.0,
        hub: FrameHub | None = None,
        names: Sequence[str] = (),
        write_timeout_s: float = STREAM_WRITE_TIMEOUT_S,
    ) -> None:
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise BadLiveViewAddress(f"live view port must be 0-65535, got {port!r}")
        if not isinstance(host, str) or not host:
            raise BadLiveViewAddress(f"live view host must be an address such as '127.0.0.1', got {host!r}")
        self.host = host
        self._requested_port = port
        self.max_clients = max_clients
        self.keepalive_s = keepalive_s
        self.write_timeout_s = write_timeout_s
        self.stalled_dropped = 0
        """Stream viewers cut off because they stalled while a new one waited."""
        self.hosts = HostCheck((host, *names))
        self.hub = hub if hub is not None else FrameHub(max_fps=max_fps)
        self._lock = threading.Lock()
        self._reading_json = "null"
        self._reading_seq = 0
        self._state_json = "{}"
        self._state_seq = 0
        self._server: _Server | None = None
        self._bound_port: int | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self._started_at = time.monotonic()

    def __repr__(self) -> str:
        return f"LiveView(host={self.host!r}, port={self.port!r})"

    def __enter__(self) -> LiveView:
        if self._server is None:
            self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def port(self) -> int:
        """The port listened on (the free port picked when 0 was asked for, once started)."""
        return self._bound_port if self._bound_port is not None else self._requested_port

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}/"

    def start(self) -> None:
        """Bind and serve in a daemon thread.

        :raises PortInUse: something already listens on the port.
        :raises BadLiveViewAddress: the host is unknown or the port may not be bound (below 1024).
        :raises LiveViewError: the view was started before, or closed.
        """
        if self._closed:
            raise LiveViewError(f"live view on port {self.port} is closed; make a new one")
        if self._server is not None:
            raise LiveViewError(f"live view on port {self.port} was already started")
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        where = f"{self.host}:{self._requested_port}"
        try:
            server = _Server((self.host, self._requested_port), self, family)
        except socket.gaierror as error:
            raise BadLiveViewAddress(f"live view host {self.host!r} is not an address here: {error.strerror}") from error
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise PortInUse(
                    f"live view port {self._requested_port} is already in use on {self.host} "
                    f"(another dicetray or web server?); choose another port"
                ) from error
            if error.errno == errno.EACCES:
                raise BadLiveViewAddress(
                    f"live view port {self._requested_port} needs root (ports below 1024); choose 8080 or above"
                ) from error
            if error.errno == errno.EADDRNOTAVAIL:
                raise BadLiveViewAddress(f"live view host {self.host!r} is not an address of this machine") from error
            raise LiveViewError(f"live view cannot listen on {where}: {error.strerror or error}") from error
        self._server = server
        self._bound_port = int(server.server_address[1])
        self._started_at = time.monotonic()
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.1}, name="liveview", daemon=True
        )
        self._thread.start()
        log.info("live view at %s", self.url)

    def host_allowed(self, header: str | None) -> bool:
        """Whether a request's ``Host`` header names this tray: an IP address (a browser sends one
        only when the user typed it), ``localhost``, this machine's name or a configured name, with
        or without a port. A request without ``Host`` (HTTP/1.0; no browser) is allowed."""
        return self.hosts.allows_host(header)

    def publish_frame(self, frame_bgr: Frame, reading: FrameReading | None = None) -> None:
        """Show a camera frame. A ``reading`` is drawn on this frame and the following ones (the dice
        lie still) until :meth:`clear_reading` or the next reading, and becomes ``/api/state``'s.

        :raises BadFrame: ``frame_bgr`` is not a ``uint8`` BGR or grey image.
        """
        if reading is not None:
            text = json.dumps(reading.to_json())
            with self._lock:
                self._reading_json = text
                self._reading_seq += 1
        self.hub.publish(frame_bgr, reading)

    def clear_reading(self) -> None:
        """The dice move again: no boxes on the stream, ``"reading": null`` in ``/api/state``."""
        self.hub.clear_reading()
        with self._lock:
            if self._reading_json != "null":
                self._reading_json = "null"
                self._reading_seq += 1

    def publish_state(self, state: Mapping[str, Any]) -> None:
        """Replace the game state ``/api/state`` shows. Enums, dataclasses (such as
        :class:`hardware.screens.ScreenState`) and paths are converted (:func:`to_jsonable`).

        :raises StateNotJSON: a value JSON cannot carry; nothing is replaced.
        """
        if not isinstance(state, Mapping):
            raise StateNotJSON(f"state must be a mapping of names to values, got {type(state).__name__}")
        try:
            text = json.dumps(dict(state), default=to_jsonable, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise StateNotJSON(f"state cannot be sent as JSON: {error}") from error
        with self._lock:
            self._state_json = text
            self._state_seq += 1

    def state_json(self) -> str:
        """The body of ``/api/state``."""
        with self._lock:
            return (
                f'{{"reading": {self._reading_json}, "reading_seq": {self._reading_seq}, '
                f'"state": {self._state_json}, "state_seq": {self._state_seq}, "frame_seq": {self.hub.seq}}}'
            )

    def stats(self) -> dict[str, Any]:
        """The body of ``/api/stats``."""
        out = self.hub.stats().to_json()
        server = self._server
        out["stalled_clients"] = server.stalled_streams() if server is not None else 0
        out["stalled_dropped"] = self.stalled_dropped
        out["uptime_s"] = round(time.monotonic() - self._started_at, 1)
        return out

    def close(self, timeout: float = 2.0) -> None:
        """Stop serving: streams end, the port is released, the threads are joined. Idempotent."""
        self._closed = True
        self.hub.close()  # first: every stream's wait returns and its loop ends
        server, thread = self._server, self._thread
        self._server, self._thread = None, None
        if server is None:
            return
        server.shutdown()
        server.end_connections(timeout)
        server.server_close()
        if thread is not None:
            thread.join(timeout)
        log.info("live view on port %d closed", self.port)


class _Source(Protocol):
    def read(self) -> Frame: ...

    def close(self) -> None: ...


class _Reader(Protocol):
    def read(self, frame: Frame) -> FrameReading: ...


class TrayWatch:
    """Shows a camera on a live view and reads the dice each time they settle; no game, no LEDs.

    For pointing and focusing the camera and checking the light before a game: what the page shows
    is what the reader sees. The state published is ``{"tray": "empty|rolling|settled", "reads": n}``.

    :param reader: reads a settled frame (default :class:`vision.reader.DiceReader`).
    :param detector: decides when the dice settled (default :class:`vision.settle.SettleDetector`).
    """

    def __init__(
        self, live: LiveView, *, reader: _Reader | None = None, detector: SettleDetector | None = None
    ) -> None:
        self.live = live
        self.reader = reader if reader is not None else DiceReader()
        self.detector = detector if detector is not None else SettleDetector()
        self.reads = 0
        self.tray: SettleState | None = None

    def __repr__(self) -> str:
        return f"<TrayWatch {self.live!r} reads={self.reads} tray={self.tray}>"

    def show(self, frame: Frame, now: float) -> SettleUpdate:
        """Take one frame captured at ``now`` (seconds): publish it, read it if it settles the dice."""
        update = self.detector.update(frame, now=now)
        if update.settled:
            self.reads += 1
            reading = self.reader.read(frame)
            if not reading.dice:
                self.detector.mark_empty()  # as the service does: this still scene is the empty tray
            self.live.publish_frame(frame, reading)
        else:
            if update.state is SettleState.ROLLING and self.tray is not SettleState.ROLLING:
                self.live.clear_reading()
            self.live.publish_frame(frame)
        if update.state is not self.tray or update.settled:
            self.tray = update.state
            self.live.publish_state({"tray": self.tray, "reads": self.reads})
        return update

    def run(
        self,
        source: _Source,
        *,
        frames: int | None = None,
        stop: threading.Event | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> int:
        """Show ``source`` until ``frames`` frames were shown or ``stop`` is set; returns the count.

        The frame time is the source's ``timestamp`` when it keeps one (the simulated tray), else
        ``clock()``.
        """
        shown = 0
        while (frames is None or shown < frames) and not (stop is not None and stop.is_set()):
            frame = source.read()
            stamp = getattr(source, "timestamp", None)
            self.show(frame, float(stamp) if isinstance(stamp, (int, float)) else clock())
            shown += 1
        return shown


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m firmware_host.liveview [--camera SPEC] [--host H] [--port N]``: a :class:`TrayWatch`."""
    parser = argparse.ArgumentParser(
        prog="python -m firmware_host.liveview",
        description="Show the tray camera with the dice read on it, in a browser (no game is played).",
    )
    parser.add_argument("--camera", default="sim", help="picamera, usb:N, replay:DIR, sim or sim:SEED (default sim)")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 for phones)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    parser.add_argument("--frames", type=int, default=None, help="stop after this many frames")
    args = parser.parse_args(argv)
    from firmware_host.errors import PROJECT_ERRORS, exit_status_for
    from hardware.camera import SimulatedTraySource, open_camera

    source: _Source | None = None
    live: LiveView | None = None
    try:
        kind, _, seed = str(args.camera).partition(":")
        if kind == "sim" and (not seed or (seed.isascii() and seed.isdigit())):
            # Real time, so the page shows dice tumbling at the pace they would at the table.
            source = SimulatedTraySource(int(seed or 0), clock=time.monotonic, pace=True)
        else:
            source = open_camera(args.camera)
        live = LiveView(args.host, args.port)
        live.start()
        print(f"live view at {live.url} (Ctrl-C stops)", flush=True)
        TrayWatch(live).run(source, frames=args.frames)
        return 0
    except KeyboardInterrupt:
        return 0
    except PROJECT_ERRORS as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return exit_status_for(error)
    finally:
        if live is not None:
            live.close()
        if source is not None:
            source.close()


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dice tray</title>
<style>
  body { margin: 0; font: 16px/1.4 system-ui, sans-serif; background: #15171a; color: #e8e8e8; }
  header { padding: .5em 1em; background: #23262b; display: flex; justify-content: space-between; }
  main { display: flex; flex-wrap: wrap; gap: 1em; padding: 1em; }
  #view { flex: 2 1 480px; }
  #view img { width: 100%; height: auto; background: #000; border-radius: 4px; }
  aside { flex: 1 1 260px; }
  table { border-collapse: collapse; width: 100%; }
  td, th { padding: .2em .5em; text-align: left; border-bottom: 1px solid #333; }
  .ok { color: #5c5; } .cocked { color: #fa0; } .occluded { color: #48f; } .unreadable { color: #e55; }
  pre { white-space: pre-wrap; word-break: break-word; background: #23262b; padding: .5em; border-radius: 4px; }
  #conn.off { color: #e55; }
</style>
</head>
<body>
<header><strong>Dice tray</strong><span id="conn">connecting</span></header>
<main>
  <section id="view"><img id="stream" src="stream.mjpg" alt="tray camera"></section>
  <aside>
    <h3>Dice</h3>
    <table><thead><tr><th>#</th><th>face</th><th>status</th><th>conf.</th></tr></thead>
    <tbody id="dice"><tr><td colspan="4">waiting for a roll</td></tr></tbody></table>
    <h3>Game</h3>
    <pre id="game">no game state yet</pre>
  </aside>
</main>
<script>
"use strict";
let readingSeq = -1, stateSeq = -1, offline = false;
const img = document.getElementById("stream");
img.onerror = () => { setTimeout(() => { img.src = "stream.mjpg?" + Date.now(); }, 2000); };
function cell(row, text, cls) {
  const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; row.appendChild(td);
}
function showReading(reading) {
  const body = document.getElementById("dice"); body.replaceChildren();
  if (!reading || reading.dice.length === 0) {
    const row = body.insertRow(); cell(row, reading ? "no dice in view" : "dice moving or no roll yet");
    row.firstChild.colSpan = 4; return;
  }
  reading.dice.forEach((die, i) => {
    const row = body.insertRow();
    cell(row, String(i + 1));
    cell(row, die.status === "ok" ? (die.symbol || die.face || String(die.value)) : "?");
    cell(row, die.status, die.status);
    cell(row, die.confidence.toFixed(2));
  });
}
function showState(state) {
  const screen = state.screen;
  let text = "";
  if (screen && typeof screen === "object") {
    if (screen.title) text += screen.title + (screen.attempt ? "  " + screen.attempt.join("/") : "") + "\\n";
    (screen.players || []).forEach(p => { text += (p.active ? "> " : "  ") + p.name + "  HP " + p.health + "  CP " + p.cp + "\\n"; });
    if (screen.banner) text += screen.banner + "\\n";
    (screen.lines || []).forEach((line, i) => { text += (i === screen.selected ? "> " : "  ") + line.replace("\\t", "  ") + "\\n"; });
    if (screen.prompt) text += "[" + screen.prompt + "]\\n";
  }
  for (const [key, value] of Object.entries(state)) {
    if (key === "screen" && screen && typeof screen === "object") continue;
    text += key + ": " + (typeof value === "object" ? JSON.stringify(value) : String(value)) + "\\n";
  }
  if (!text) text = "no game state yet";
  document.getElementById("game").textContent = text;
}
async function poll() {
  const conn = document.getElementById("conn");
  try {
    const response = await fetch("api/state", {cache: "no-store"});
    const data = await response.json();
    if (data.reading_seq !== readingSeq) { readingSeq = data.reading_seq; showReading(data.reading); }
    if (data.state_seq !== stateSeq) { stateSeq = data.state_seq; showState(data.state); }
    if (offline) img.src = "stream.mjpg?" + Date.now();  // the tray is back: the old stream ended
    offline = false; conn.textContent = "live"; conn.className = "";
  } catch (error) {
    offline = true; conn.textContent = "offline"; conn.className = "off";
  }
}
poll(); setInterval(poll, 1000);
</script>
</body>
</html>
"""


if __name__ == "__main__":
    sys.exit(main())
