"""The newest camera frame as JPEG, for every viewer of the table app's stream and snapshots.

The service loop publishes every camera frame; :class:`FrameHub` keeps at most ``max_fps`` of them
a second (a copy) and drops the rest for the cost of one clock read. A kept frame is encoded only
when somebody asks for it, once for all the viewers waiting, outside the lock: an unwatched tray
spends no CPU on JPEG. The page draws the dice itself from the reading, so frames go out as the
camera saw them.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from firmware_host.errors import ServiceError

__all__ = ["BadFrame", "FrameHub", "HubStats", "JpegFrame"]

log = logging.getLogger("dicetray.web")

Frame = npt.NDArray[np.uint8]


class BadFrame(ServiceError, ValueError):
    """A published frame that is not a BGR (or grey) ``uint8`` image; the message gives its shape."""


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
    """What ``/api/v1/stats`` reports of the frames.

    ``frames_published`` every frame given to the hub; ``frames_accepted`` those kept under the
    ``max_fps`` cap; ``frames_encoded`` those turned into JPEG (only while someone watches);
    ``fps`` the published frame rate, ``stream_fps`` the encoded one (both over the last seconds);
    ``encode_ms`` the mean time to encode one frame.
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
    cost of one clock read. Readers call :meth:`wait_next`; the first reader that finds a kept frame
    not yet encoded encodes it, outside the lock, while the others wait for the result.

    :param max_fps: cap on frames kept, hence encoded, per second.
    :param quality: JPEG quality 0-100.
    :param max_width: wider frames are scaled down to this width (a 12 MP still would cost far
        more to encode than a phone can show).
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

    def publish(self, frame: Frame) -> bool:
        """Offer a frame; returns whether it was kept (not dropped under the ``max_fps`` cap).

        :raises BadFrame: ``frame`` is not a ``uint8`` image of shape (h, w, 3) or (h, w).
        """
        _check_frame(frame)
        now = self._clock()
        with self._cond:
            if self._closed:
                return False
            self._published += 1
            self._in_rate.tick(now)
            # A millisecond of slack, so frames exactly on the beat are not lost to float rounding.
            if self._next_due is not None and now + 1e-3 < self._next_due:
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
        """Count a stream client for the duration of the block (the stats report it)."""
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
        raw, seq, stamp = self._raw, self._raw_seq, self._raw_time
        self._encoding = True
        self._cond.release()
        result: JpegFrame | None = None
        started = time.perf_counter()
        try:
            result = _encode(raw, seq, stamp, self.quality, self.max_width)
        except (cv2.error, ValueError) as error:
            # One bad frame must not stop the stream; the next frame gets its own chance.
            log.warning("cannot encode camera frame %d (%s): %s", seq, raw.shape, error)
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


def _encode(frame: Frame, seq: int, stamp: float, quality: int, max_width: int) -> JpegFrame:
    """Scale down, then encode: scaling first keeps encoding cheap."""
    image = frame
    if image.ndim == 2:
        image = np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    height, width = image.shape[:2]
    if width > max_width:
        size = (max_width, max(1, round(height * max_width / width)))
        image = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError(f"OpenCV could not encode a {image.shape} frame as JPEG")
    return JpegFrame(seq=seq, jpeg=buffer.tobytes(), width=image.shape[1], height=image.shape[0], timestamp=stamp)
