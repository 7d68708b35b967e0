"""The table app's server: the Starlette app of :mod:`firmware_host.web.app` on uvicorn, in a
thread of its own next to the service loop.

The service talks to :class:`TrayWeb` through ``publish_frame``, ``publish_state``,
``clear_reading`` and ``close``, and :meth:`TrayWeb.on_event` subscribes to the
service's event stream. The page's button presses wait in a queue the service drains on its own
thread (:meth:`TrayWeb.drain`), so the game is only ever touched by the service.

Cost on the frame loop: ``publish_frame`` stores a copy at most ``max_fps`` times a second (the
:class:`~firmware_host.web.frames.FrameHub`); one pump thread encodes JPEG only while somebody watches
the stream, and hands each frame to every viewer on the event loop. Idle connections cost a socket
and a little memory, no thread.

Under load: a viewer that stops reading is dropped after
:data:`STREAM_WRITE_TIMEOUT_S`, and a new viewer arriving while the streams are full takes the place
of one stalled for :data:`STALLED_S`; a connection that sends no request within
:data:`REQUEST_TIMEOUT_S` is closed (uvicorn only times out idle keep-alive connections, not new
ones); the ``Host`` is checked (:class:`~firmware_host.web.access.HostCheck`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import errno
import json
import logging
import queue
import socket
import threading
import time
from collections import deque as collections_deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import PurePath
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from firmware_host.errors import ServiceError
from firmware_host.web.access import HostCheck, Pairing
from firmware_host.web.actions import ActionRefused, TableAction, presses
from firmware_host.web.frames import FrameHub, JpegFrame
from vision.types import FrameReading

log = logging.getLogger("dicetray.web")

Frame = npt.NDArray[np.uint8]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
STREAM_WRITE_TIMEOUT_S = 3.0
"""Seconds one write to a stream viewer may block before that viewer is dropped; a viewer that reads
never blocks this long (a frame is tens of KB, the socket buffer holds several)."""
STALLED_S = 0.5
"""Seconds a write must have blocked for its viewer to count as stalled and give way to a new one."""
REQUEST_TIMEOUT_S = 5.0
"""Seconds a new connection may take to send its request."""
KEEPALIVE_S = 5.0
MAX_BODY_BYTES = 16 * 1024
EVENT_QUEUE = 256
"""Messages a stream (WebSocket) client may fall behind by before it is dropped as too slow."""


class WebServerError(ServiceError):
    """Base of the table app server's errors."""


class PortInUse(WebServerError, RuntimeError):
    """Another program (or another tray) already listens on the port; the message names it."""


class BadWebAddress(WebServerError, ValueError):
    """A host or port the server cannot bind (not a port number, unknown host, port not allowed)."""


def to_jsonable(value: Any) -> Any:
    """``json.dumps`` fallback for the project's values: enums by value, dataclasses as dicts, paths,
    sets, numpy scalars; so the service publishes its values without converting them."""
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


def _timed_protocol(request_timeout_s: float) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol, closing a connection that has sent no whole request after
    ``request_timeout_s`` (a slow or silent client would otherwise hold a connection slot forever)."""

    class RequestTimedH11(H11Protocol):
        _request_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._request_timer = self.loop.call_later(request_timeout_s, self._request_overdue)

        def _request_overdue(self) -> None:
            if self.cycle is None and not self.transport.is_closing():
                self.transport.close()

        def handle_websocket_upgrade(self, event: Any) -> None:
            self._stop_request_timer()
            super().handle_websocket_upgrade(event)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_request_timer()
            super().connection_lost(exc)

        def _stop_request_timer(self) -> None:
            if self._request_timer is not None:
                self._request_timer.cancel()
                self._request_timer = None

    return RequestTimedH11


class StreamSlot:
    """One camera stream viewer: since when its current write has blocked, and a way to cut it off."""

    def __init__(self) -> None:
        self.writing_since: float | None = None
        self.cut = asyncio.Event()

    def stalled(self, now: float) -> bool:
        return self.writing_since is not None and now - self.writing_since >= STALLED_S


class Subscriber:
    """One event-stream client: a bounded queue of JSON texts; ``gone`` when it fell too far behind."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str] = asyncio.Queue(maxsize=EVENT_QUEUE)
        self.gone = asyncio.Event()
        self.too_slow = False


def _interface_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses, the one with the default route first."""
    found: list[str] = []
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # a documentation address: no packet is sent
        found.append(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            address = str(info[4][0])
            if address not in found:
                found.append(address)
    except OSError:
        pass
    return [a for a in found if not a.startswith("127.")]


def tray_urls(host: str, port: int) -> list[str]:
    """The addresses a person can open: for a wildcard host (``0.0.0.0``), the machine's
    ``NAME.local`` and each of its addresses, never ``0.0.0.0`` itself."""
    if host in ("0.0.0.0", "::", ""):
        machine = socket.gethostname()
        urls = [f"http://{machine}.local:{port}/"]
        urls += [f"http://{address}:{port}/" for address in _interface_addresses()]
        return urls
    shown = f"[{host}]" if ":" in host else host
    return [f"http://{shown}:{port}/"]


class TrayWeb:
    """The table app. Nothing listens until :meth:`start`; :meth:`close` stops it.

    :param host: address to listen on; ``127.0.0.1`` (the default) serves this machine only.
    :param port: TCP port; 0 picks a free one (:attr:`port` after :meth:`start`).
    :param names: host names the tray may be reached by besides IP addresses, ``localhost`` and
        the machine's name.
    :param max_connections: open connections at once; requests beyond get 503.
    :param stream_clients: camera stream viewers at once (a stalled one gives way to a new one).
    :param event_clients: event stream (WebSocket) clients at once.
    :param read_needs_pairing: whether reading (state, camera, events) needs a token too.
    :param pairing: the PIN and tokens (a new :class:`Pairing` with a random PIN by default).
    :param announce: announce the page over mDNS when it is served on the network (not on loopback).
    """

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        *,
        max_fps: float = 10.0,
        names: Sequence[str] = (),
        max_connections: int = 100,
        stream_clients: int = 8,
        event_clients: int = 32,
        read_needs_pairing: bool = False,
        pairing: Pairing | None = None,
        hub: FrameHub | None = None,
        write_timeout_s: float = STREAM_WRITE_TIMEOUT_S,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        keepalive_s: float = KEEPALIVE_S,
        max_body_bytes: int = MAX_BODY_BYTES,
        announce: bool = True,
    ) -> None:
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise BadWebAddress(f"web port must be 0-65535, got {port!r}")
        if not host.strip():
            raise BadWebAddress("web host is empty; use '127.0.0.1' or '0.0.0.0'")
        self.host = host
        self._requested_port = port
        self._bound_port: int | None = None
        self.hosts = HostCheck((host, *names))
        self.pairing = pairing if pairing is not None else Pairing()
        self.hub = hub if hub is not None else FrameHub(max_fps=max_fps)
        self.max_connections = max_connections
        self.stream_clients = stream_clients
        self.event_clients = event_clients
        self.read_needs_pairing = read_needs_pairing
        self.write_timeout_s = write_timeout_s
        self.request_timeout_s = request_timeout_s
        self.keepalive_s = keepalive_s
        self.max_body_bytes = max_body_bytes
        self.stalled_dropped = 0
        self.slow_dropped = 0
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {"table": None, "screen": None, "status": None, "camera_lost": None}
        self._state_json = json.dumps(self._state)
        self._reading_json = "null"
        self._events: collections_deque[dict[str, Any]] = collections_deque(maxlen=200)
        self._presses: queue.SimpleQueue[TableAction] = queue.SimpleQueue()
        self._pin_until = float("-inf")
        # Event loop side (touched only on the loop's thread).
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscribers: set[Subscriber] = set()
        self.streams: list[StreamSlot] = []
        self._frame: JpegFrame | None = None
        self._frame_ready: asyncio.Event | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._pump: threading.Thread | None = None
        self._watched = threading.Event()
        self._closed = False
        self.announce = announce
        self.announcement: Any = None
        self.games_path: Any = None
        """The roll log whose game records the page lists and offers for download (None: none)."""
        self.wizard: Any = None
        """The calibration wizard under way on the page (a :class:`~firmware_host.web.calibrate.CalibrationWizard`), or None."""
        self.tray_shots: Any = None
        """The tray being calibrated on the page (a :class:`~firmware_host.web.calibrate.TrayShots`), or None."""
        self.on_tray_saved: Callable[[], None] | None = None
        """Called once the page has saved a tray profile (the service reads with it from then on), or None."""
        self._grabs: list[queue.SimpleQueue[Frame]] = []

    @classmethod
    def from_config(cls, config: Any) -> TrayWeb:
        """The server a ``[liveview]`` config section describes."""
        return cls(
            config.host,
            config.port,
            max_fps=config.max_fps,
            names=config.names,
            max_connections=config.max_connections,
            stream_clients=config.stream_clients,
            read_needs_pairing=config.read_needs_pairing,
        )

    def __repr__(self) -> str:
        return f"TrayWeb(host={self.host!r}, port={self.port!r})"

    def __enter__(self) -> TrayWeb:
        if self._server is None:
            self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def port(self) -> int:
        return self._bound_port if self._bound_port is not None else self._requested_port

    @property
    def url(self) -> str:
        """The first address to open (loopback for a loopback host)."""
        return self.urls[0]

    @property
    def urls(self) -> list[str]:
        return tray_urls(self.host, self.port)

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> None:
        """Bind, then serve on a thread of its own.

        :raises PortInUse: something already listens on the port.
        :raises BadWebAddress: the host is unknown or the port may not be bound.
        """
        from firmware_host.web.app import build_app

        if self._closed:
            raise WebServerError(f"web server on port {self.port} is closed; make a new one")
        if self._server is not None:
            raise WebServerError(f"web server on port {self.port} was already started")
        sock = self._bind()
        self._bound_port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            build_app(self),
            http=_timed_protocol(self.request_timeout_s),
            ws="websockets-sansio",
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
            limit_concurrency=self.max_connections,
            timeout_keep_alive=int(max(1, self.keepalive_s)),
            timeout_graceful_shutdown=1,
            h11_max_incomplete_event_size=16 * 1024,
            ws_max_size=64 * 1024,
        )
        self._server = uvicorn.Server(config)
        started = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            self._frame_ready = asyncio.Event()
            assert self._server is not None
            try:
                loop.run_until_complete(self._serve(sock, started))
            except BaseException as error:  # reported to start(); the thread ends
                failure.append(error)
                started.set()
            finally:
                loop.close()

        self._thread = threading.Thread(target=serve, name="web-server", daemon=True)
        self._thread.start()
        started.wait(10.0)
        if failure or not self._server.started:
            self.close()
            raise WebServerError(f"the web server on port {self.port} did not start: {failure[0] if failure else 'timeout'}")
        self._pump = threading.Thread(target=self._pump_frames, name="web-frames", daemon=True)
        self._pump.start()
        for url in self.urls:
            log.info("table app at %s", url)
        addresses = _interface_addresses() if self.host in ("0.0.0.0", "") else [self.host]
        if self.announce and addresses and not addresses[0].startswith("127.") and ":" not in addresses[0]:
            from firmware_host.web.mdns import Announcement

            self.announcement = Announcement(self.port, addresses)
            self.announcement.start()

    async def _serve(self, sock: socket.socket, started: threading.Event) -> None:
        assert self._server is not None
        task = asyncio.ensure_future(self._server.serve(sockets=[sock]))
        while not self._server.started and not task.done():
            await asyncio.sleep(0.01)
        started.set()
        await task

    def _bind(self) -> socket.socket:
        try:
            infos = socket.getaddrinfo(self.host, self._requested_port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        except socket.gaierror as error:
            raise BadWebAddress(f"web host {self.host!r} is unknown: {error.strerror}") from None
        family, _, _, _, address = infos[0]
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
            sock.listen(256)
        except OSError as error:
            sock.close()
            where = f"{self.host}:{self._requested_port}"
            if error.errno == errno.EADDRINUSE:
                raise PortInUse(f"web port {where} is in use (another dicetray or web server?)") from None
            if error.errno == errno.EACCES:
                raise BadWebAddress(f"web port {where} may not be bound (ports below 1024 need root)") from None
            raise BadWebAddress(f"web address {where} cannot be bound: {error.strerror}") from None
        sock.setblocking(False)
        return sock

    def close(self) -> None:
        """Stops serving: stream viewers and event clients are ended, then the server."""
        if self._closed:
            return
        self._closed = True
        if self.announcement is not None:
            self.announcement.close()
        self.hub.close()
        self._watched.set()
        loop = self._loop
        if loop is not None and self._server is not None:
            self._server.should_exit = True
            try:
                loop.call_soon_threadsafe(self._end_clients)
            except RuntimeError:
                pass  # the loop is already closed
        for thread in (self._pump, self._thread):
            if thread is not None:
                thread.join(5.0)

    def _end_clients(self) -> None:
        for slot in self.streams:
            slot.cut.set()
        for subscriber in self._subscribers:
            subscriber.gone.set()
        if self._frame_ready is not None:
            self._frame_ready.set()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- what the service publishes ---------------------------------------------------------------

    def publish_frame(self, frame_bgr: Frame, reading: FrameReading | None = None) -> None:
        """Offer a camera frame (kept at most ``max_fps`` a second). The page draws the dice from
        the reading itself, so the frame goes out as the camera saw it; a new ``reading`` is sent
        on the event stream with the frame's size."""
        self.hub.publish(frame_bgr)
        if self._grabs:  # a calibration shot waits for this frame
            with self._lock:
                waiting, self._grabs = self._grabs, []
            shot = np.array(frame_bgr, dtype=np.uint8, copy=True)
            for grab in waiting:
                grab.put(shot)
        if reading is not None:
            height, width = frame_bgr.shape[:2]
            body = {"reading": reading.to_json(), "width": int(width), "height": int(height)}
            text = json.dumps(body, default=to_jsonable)
            with self._lock:
                changed = text != self._reading_json
                self._reading_json = text
            if changed:
                self._broadcast("reading", body)

    def grab_frame(self, timeout: float = 2.0) -> Frame | None:
        """The next camera frame as the camera gave it (not the JPEG), for a calibration shot;
        None when no frame comes within ``timeout`` seconds. Blocks: call it off the event loop."""
        grab: queue.SimpleQueue[Frame] = queue.SimpleQueue()
        with self._lock:
            self._grabs.append(grab)
        try:
            return grab.get(timeout=timeout)
        except queue.Empty:
            with self._lock:
                if grab in self._grabs:
                    self._grabs.remove(grab)
            return None

    def clear_reading(self) -> None:
        with self._lock:
            had = self._reading_json != "null"
            self._reading_json = "null"
        if had:
            self._broadcast("reading", None)

    def publish_state(self, state: Mapping[str, Any]) -> None:
        """The table's state: ``{"table": table_state(flow), "screen", "status", "camera_lost"}``."""
        merged = {**self._state, **dict(state)}
        text = json.dumps(merged, default=to_jsonable)
        with self._lock:
            self._state = merged
            self._state_json = text
        self._broadcast("state", json.loads(text))

    def on_event(self, event: Any) -> None:
        """The event stream's subscriber: every flow event goes to the page (and is kept for
        newcomers, the last 200)."""
        body = event.to_json() if hasattr(event, "to_json") else {"text": str(event)}
        body = json.loads(json.dumps(body, default=to_jsonable))
        with self._lock:
            self._events.append(body)
        self._broadcast("event", body)

    def press(self, event: Any) -> None:
        """Queues a button press from the page for the service (see :meth:`drain`)."""
        self._presses.put(TableAction("press", button=event.value))

    def act(self, action: TableAction) -> None:
        """Queues a table action from the page for the service (see :meth:`drain`)."""
        self._presses.put(action)

    def drain(self, flow: Any = None) -> Iterator[Any]:
        """The button presses for the page's actions since the last call, oldest first, for the
        service to apply on its thread. Lazy: each press is worked out against ``flow`` after the
        one before it was applied. An action the flow cannot take is refused: logged and sent to
        the page as ``{"type": "refused"}``; the rest go on."""
        while True:
            try:
                action = self._presses.get_nowait()
            except queue.Empty:
                return
            try:
                yield from presses(action, flow)
            except ActionRefused as refusal:
                log.warning("the page's %s was refused: %s", action.action, refusal)
                self._broadcast("refused", {"action": action.action, "reason": str(refusal)})

    def show_pin(self, seconds: float = 60.0) -> None:
        """Asks for the PIN on the tray's display for ``seconds`` (the page's "pair" button)."""
        with self._lock:
            self._pin_until = time.monotonic() + seconds

    def pin_shown(self) -> str | None:
        """The PIN while it should be on the display, else None (the service asks each refresh)."""
        with self._lock:
            showing = time.monotonic() < self._pin_until
        return self.pairing.pin if showing else None

    # -- what the app reads -----------------------------------------------------------------------

    def state_json(self) -> str:
        with self._lock:
            return self._state_json

    def reading_json(self) -> str:
        with self._lock:
            return self._reading_json

    def recent_events(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._events)

    def stats(self) -> dict[str, Any]:
        out = self.hub.stats().to_json()
        out["clients"] = len(self.streams)
        out["event_clients"] = len(self._subscribers)
        out["stalled_dropped"] = self.stalled_dropped
        out["slow_dropped"] = self.slow_dropped
        out["paired"] = self.pairing.paired
        out["connections"] = len(self._server.server_state.connections) if self._server is not None else 0
        return out

    # -- event loop side ---------------------------------------------------------------------------

    def _broadcast(self, kind: str, body: Any) -> None:
        loop = self._loop
        if loop is None or self._closed:
            return
        text = json.dumps({"type": kind, "data": body}, default=to_jsonable)
        try:
            loop.call_soon_threadsafe(self._deliver, text)
        except RuntimeError:
            pass  # the loop closed meanwhile

    def _deliver(self, text: str) -> None:
        for subscriber in list(self._subscribers):
            try:
                subscriber.queue.put_nowait(text)
            except asyncio.QueueFull:
                self.slow_dropped += 1
                subscriber.too_slow = True
                subscriber.gone.set()
                self._subscribers.discard(subscriber)

    def subscribe(self) -> Subscriber | None:
        if len(self._subscribers) >= self.event_clients:
            return None
        subscriber = Subscriber()
        self._subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.discard(subscriber)

    def admit_stream(self) -> StreamSlot | None:
        """A slot for a new camera viewer, or None when the streams are full and none is stalled
        (a stalled one is cut off to make room)."""
        if len(self.streams) >= self.stream_clients:
            now = time.monotonic()
            stalled = [slot for slot in self.streams if slot.stalled(now)]
            if stalled:
                oldest = min(stalled, key=lambda slot: slot.writing_since or now)
                self.streams.remove(oldest)
                oldest.cut.set()
                self.stalled_dropped += 1
        if len(self.streams) >= self.stream_clients:
            return None
        slot = StreamSlot()
        self.streams.append(slot)
        self._watched.set()
        return slot

    def release_stream(self, slot: StreamSlot) -> None:
        if slot in self.streams:
            self.streams.remove(slot)
        if not self.streams and not self._closed:
            self._watched.clear()

    async def next_frame(self, last_seq: int) -> JpegFrame | None:
        """The newest encoded frame after ``last_seq``, or the newest frame again after
        ``keepalive_s`` (so a viewer that left is noticed), or None when closing."""
        assert self._frame_ready is not None
        deadline = time.monotonic() + self.keepalive_s
        while not self._closed:
            frame = self._frame
            if frame is not None and frame.seq > last_seq:
                return frame
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return frame
            ready = self._frame_ready
            try:
                await asyncio.wait_for(ready.wait(), remaining)
            except TimeoutError:
                pass
        return None

    def _pump_frames(self) -> None:
        """Encodes frames while somebody watches and hands each to the loop (one thread for all
        viewers, so twenty viewers cost one encode per frame, not twenty)."""
        last = 0
        while not self._closed:
            if not self._watched.wait(0.5):
                continue
            frame = self.hub.wait_next(last, timeout=0.5)
            if frame is None or self._closed:
                continue
            last = frame.seq
            loop = self._loop
            if loop is None:
                continue
            try:
                loop.call_soon_threadsafe(self._new_frame, frame)
            except RuntimeError:
                return

    def _new_frame(self, frame: JpegFrame) -> None:
        self._frame = frame
        ready = self._frame_ready
        self._frame_ready = asyncio.Event()
        if ready is not None:
            ready.set()

