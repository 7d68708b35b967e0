"""Camera frame sources: one narrow seam, :class:`FrameSource`, with four backends.

API summary::

    class FrameSource(Protocol):          # every backend; also a context manager
        def read(self) -> np.ndarray: ...  # (H, W, 3) uint8 BGR; raises CameraUnavailable
        def close(self) -> None: ...

    PiCameraSource(size=(1280, 960), camera_num=0, settle_s=1.0, lock_exposure=True, controls=None)
        # Raspberry Pi camera via picamera2 (imported lazily; apt's python3-picamera2). RGB888
        # frames (numpy BGR). AE/AWB run settle_s, then ExposureTime/AnalogueGain/ColourGains are
        # locked (.locked_controls) so thresholds stay put. No camera: CameraUnavailable saying so.
    OpenCVSource(device=0, width=None, height=None, fps=None, backend=None)
        # a USB webcam through cv2.VideoCapture (V4L2 on Linux); CameraUnavailable names the device.
    ReplaySource(path, fps=None, realtime=False, loop=False, clock=None, sleep=None)
        # a folder of frames (sorted by name) or a video file; as fast as read, or at its own
        # pace; ReplayFinished (an EOFError) at the end unless loop; a corrupt frame raises
        # vision.errors.ImageLoadError naming the file (the next read goes on after it).
        # .index, .timestamp (s into the replay), .current (file name), iterable.
    SimulatedTraySource(seed=0, ...)      # hardware.sim.live: the simulated tray, live
    WatchedSource(open_source, read_limit_s=3.0, open_limit_s=10.0, stop=None)
        # any of the above opened, read and closed in a capture thread of its own: a call past
        # its limit raises CameraHung (a CameraUnavailable) instead of freezing the caller.
    open_camera(spec, *, width=None, height=None, fps=None, loop=False)
        # "picamera", "usb:0", "usb:/dev/video2", "replay:DIR_OR_VIDEO", "sim", "sim:SEED"

Errors: :class:`~hardware.errors.CameraUnavailable` (a RuntimeError) when a camera cannot be
opened or stops delivering frames; :class:`InvalidCameraSpec` (a ValueError) for a spec string
that names no backend; :class:`ReplayFinished` (an EOFError) when a replay runs out.
"""

from __future__ import annotations

import concurrent.futures
import math
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from hardware.errors import CameraHung, CameraUnavailable, CaptureStopped, HardwareError
from hardware.sim.live import ScriptedRoll, SimPhase, SimulatedTraySource

__all__ = [
    "CameraUnavailable",
    "FrameSource",
    "InvalidCameraSpec",
    "OpenCVSource",
    "PiCameraSource",
    "ReplayFinished",
    "ReplaySource",
    "ScriptedRoll",
    "SimPhase",
    "SimulatedTraySource",
    "WatchedSource",
    "open_camera",
]

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".mjpg", ".mjpeg", ".webm", ".h264")


class InvalidCameraSpec(HardwareError, ValueError):
    """A camera spec string that names no known backend, or has a bad argument."""


class ReplayFinished(HardwareError, EOFError):
    """A replay source has shown its last frame (and does not loop)."""


@runtime_checkable
class FrameSource(Protocol):
    """Where frames come from. ``read()`` blocks until the next frame and returns it as an
    (H, W, 3) uint8 BGR array; ``close()`` releases the device (and may be called twice)."""

    def read(self) -> np.ndarray: ...

    def close(self) -> None: ...


class _SourceBase:
    """Context-manager plumbing shared by the backends."""

    def read(self) -> np.ndarray:  # pragma: no cover - every backend overrides it
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover
        raise NotImplementedError

    def __enter__(self) -> Any:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __iter__(self) -> Iterator[np.ndarray]:
        """Frames until the source ends (a replay without loop) or fails."""
        while True:
            try:
                yield self.read()
            except ReplayFinished:
                return


def _to_bgr(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        # XRGB8888 from picamera2 is B, G, R, 255 in memory: drop the padding byte.
        return np.ascontiguousarray(frame[:, :, :3])
    return np.ascontiguousarray(frame)


# ----------------------------------------------------------------------------------------------
# Raspberry Pi camera


class PiCameraSource(_SourceBase):
    """A Raspberry Pi camera (Camera Module 3 on the CSI connector) through picamera2.

    Wiring: the ribbon cable in the CSI port, contacts towards the HDMI ports on a Pi 4 (the
    camera connector on a Pi 5 needs the narrow cable). picamera2 comes from apt
    (``sudo apt install python3-picamera2``) into a venv made with ``--system-site-packages``.

    Frames are asked for as ``RGB888``, which picamera2 delivers as numpy B, G, R: what OpenCV
    expects. After ``settle_s`` of automatic exposure and white balance, the settings are read back
    and locked (``lock_exposure``) so the tray's brightness stays put between frames;
    :attr:`locked_controls` holds them (a calibration profile stores them and passes them back as
    ``controls`` to skip the warm-up).

    :raises CameraUnavailable: picamera2 cannot be imported, libcamera sees no camera, or the
        camera fails to start; the message says which.
    """

    def __init__(
        self,
        size: tuple[int, int] = (1280, 960),
        *,
        camera_num: int = 0,
        settle_s: float = 1.0,
        lock_exposure: bool = True,
        controls: Mapping[str, Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.size = (int(size[0]), int(size[1]))
        self.camera_num = camera_num
        self.locked_controls: dict[str, Any] = {}
        self._cam: Any = None
        try:
            from picamera2 import Picamera2  # only on Raspberry Pi OS; imported here so any machine can import us
        except ImportError as exc:
            raise CameraUnavailable(
                f"picamera2 is not importable ({exc}); on Raspberry Pi OS install python3-picamera2 with apt "
                "and make the venv with --system-site-packages"
            ) from exc
        try:
            cameras = Picamera2.global_camera_info()
        except RuntimeError as exc:
            raise CameraUnavailable(f"libcamera could not list cameras: {exc}") from exc
        if not cameras:
            raise CameraUnavailable("libcamera sees no camera (check the ribbon cable and that the camera is enabled)")
        if not 0 <= camera_num < len(cameras):
            raise CameraUnavailable(f"no camera {camera_num}: libcamera sees {len(cameras)} camera(s)")
        try:
            self._cam = Picamera2(camera_num)
            config = self._cam.create_preview_configuration(main={"size": self.size, "format": "RGB888"})
            self._cam.configure(config)
            if controls:
                self._cam.set_controls({"AeEnable": False, "AwbEnable": False, **dict(controls)})
                self.locked_controls = dict(controls)
            self._cam.start()
            if lock_exposure and not controls:
                sleep(settle_s)  # let AE/AWB converge on the tray before freezing them
                meta = self._cam.capture_metadata()
                locked = {k: meta[k] for k in ("ExposureTime", "AnalogueGain", "ColourGains") if k in meta}
                self._cam.set_controls({"AeEnable": False, "AwbEnable": False, **locked})
                self.locked_controls = locked
        except (RuntimeError, OSError, IndexError) as exc:
            self.close()
            raise CameraUnavailable(f"picamera2 could not start camera {camera_num}: {exc}") from exc

    def read(self) -> np.ndarray:
        if self._cam is None:
            raise CameraUnavailable(f"Pi camera {self.camera_num} is closed")
        try:
            frame = self._cam.capture_array("main")
        except (RuntimeError, OSError) as exc:
            raise CameraUnavailable(f"Pi camera {self.camera_num} stopped delivering frames: {exc}") from exc
        return _to_bgr(np.asarray(frame))

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
            except RuntimeError:
                pass  # a camera that failed to start cannot stop; close() still frees it
            cam.close()

    def __repr__(self) -> str:
        return f"PiCameraSource(size={self.size!r}, camera_num={self.camera_num!r})"


# ----------------------------------------------------------------------------------------------
# USB webcam


class OpenCVSource(_SourceBase):
    """A USB (UVC) webcam through OpenCV's VideoCapture, V4L2 backend on Linux.

    ``device`` is an index (``0`` is ``/dev/video0``) or a device path. ``width``/``height``/``fps``
    are requests; the camera may pick the nearest mode it has (see :attr:`frame_size`). ``backend``
    overrides OpenCV's capture backend (V4L2 on Linux). OpenCV does not raise for a missing device,
    so every return value is checked here.

    :raises CameraUnavailable: the device cannot be opened or gives no first frame; the message
        names the device.
    """

    def __init__(
        self,
        device: int | str = 0,
        *,
        width: int | None = None,
        height: int | None = None,
        fps: float | None = None,
        backend: int | None = None,
    ) -> None:
        self.device = device
        self.name = f"/dev/video{device}" if isinstance(device, int) and sys.platform.startswith("linux") else str(device)
        if backend is None:
            backend = cv2.CAP_V4L2 if sys.platform.startswith("linux") else cv2.CAP_ANY
        self._cap: cv2.VideoCapture | None = cv2.VideoCapture(device, backend)
        if not self._cap.isOpened():
            self._cap.release()
            self._cap = None
            raise CameraUnavailable(f"webcam {self.name} could not be opened (is it plugged in, and not in use?)")
        if width and height and width * height >= 1280 * 720:
            # Uncompressed YUYV cannot reach frame rate at 720p and above over USB 2.
            self._cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
        if width:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if fps:
            self._cap.set(cv2.CAP_PROP_FPS, fps)
        self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # prefer the newest frame; not every backend honours it
        try:
            first = self._grab()
        except CameraUnavailable:
            self.close()  # opened but silent: release it so the next attempt can open it again
            raise
        self.frame_size = (first.shape[1], first.shape[0])
        self._pending: np.ndarray | None = first

    def _grab(self) -> np.ndarray:
        if self._cap is None:
            raise CameraUnavailable(f"webcam {self.name} is closed")
        ok, frame = self._cap.read()
        if not ok or frame is None or frame.size == 0:
            raise CameraUnavailable(f"webcam {self.name} gave no frame (unplugged?)")
        return _to_bgr(frame)

    def read(self) -> np.ndarray:
        if self._pending is not None:
            frame, self._pending = self._pending, None
            return frame
        return self._grab()

    def close(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()

    def __repr__(self) -> str:
        return f"OpenCVSource({self.device!r})"


# ----------------------------------------------------------------------------------------------
# Replay


class ReplaySource(_SourceBase):
    """Frames saved earlier: a folder of images (sorted by name; ``labels.json`` and other files are
    ignored) or a video file.

    By default frames come as fast as they are read. With ``realtime=True`` they come at the
    replay's own pace: ``fps`` (default: the video's rate, or 30 for a folder), sleeping between
    frames. ``loop`` starts again after the last frame; otherwise :meth:`read` then raises
    :class:`ReplayFinished`. :attr:`timestamp` is the time of the last frame within the replay,
    :attr:`index` its number and :attr:`current` its file name (folders) or ``None`` (video).

    :raises CameraUnavailable: the path does not exist, holds no frames, or the video cannot be
        opened; the message names it.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        fps: float | None = None,
        realtime: bool = False,
        loop: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.path = Path(path)
        self.loop = loop
        self.realtime = realtime
        self._clock = clock
        self._sleep = sleep
        self._files: list[Path] = []
        self._cap: cv2.VideoCapture | None = None
        self._index = -1
        self._start: float | None = None
        self.current: str | None = None
        self._closed = False
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
            if not self._files:
                raise CameraUnavailable(f"replay folder {str(self.path)!r} holds no image frames")
            self.fps = float(fps) if fps else 30.0
            self.frame_count = len(self._files)
        elif self.path.is_file():
            self._cap = self._open_video()
            native = self._cap.get(cv2.CAP_PROP_FPS)
            self.fps = float(fps) if fps else (float(native) if native and math.isfinite(native) and native > 0 else 30.0)
            count = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT))
            self.frame_count = count if count > 0 else -1
        else:
            raise CameraUnavailable(f"replay source {str(self.path)!r} does not exist")
        if self.fps <= 0:
            raise InvalidCameraSpec(f"replay fps must be positive, got {fps!r}")

    def _open_video(self) -> cv2.VideoCapture:
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise CameraUnavailable(f"replay video {str(self.path)!r} could not be opened (not a video OpenCV can decode?)")
        return cap

    @property
    def index(self) -> int:
        return self._index

    @property
    def timestamp(self) -> float:
        return max(self._index, 0) / self.fps

    def read(self) -> np.ndarray:
        from vision.imageio import load_image

        if self._closed:
            raise CameraUnavailable(f"replay {str(self.path)!r} is closed")
        if self.realtime:
            now = self._clock()
            if self._start is None:
                self._start = now
            due = self._start + (self._index + 1) / self.fps
            if due > now:
                self._sleep(due - now)
        if self._files:
            nxt = self._index + 1
            if nxt >= len(self._files):
                if not self.loop:
                    raise ReplayFinished(f"replay folder {str(self.path)!r} ended after {len(self._files)} frames")
                nxt = 0
                self._start = None if self._start is None else self._clock()
            self._index = nxt
            path = self._files[nxt]
            self.current = path.name
            return load_image(path)
        assert self._cap is not None
        ok, frame = self._cap.read()
        if not ok or frame is None:
            if self._index < 0:
                raise CameraUnavailable(f"replay video {str(self.path)!r} has no decodable frame")
            if not self.loop:
                raise ReplayFinished(f"replay video {str(self.path)!r} ended after {self._index + 1} frames")
            self._cap.release()
            self._cap = self._open_video()
            self._index = -1
            self._start = None if self._start is None else self._clock()
            ok, frame = self._cap.read()
            if not ok or frame is None:
                raise CameraUnavailable(f"replay video {str(self.path)!r} could not be read again")
        self._index += 1
        return _to_bgr(frame)

    def close(self) -> None:
        self._closed = True
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()

    def __repr__(self) -> str:
        return f"ReplaySource({str(self.path)!r}, fps={self.fps!r}, loop={self.loop!r})"


# ----------------------------------------------------------------------------------------------
# A watchdog around any source


class WatchedSource:
    """A frame source opened, read and closed in a capture thread of its own, each call with a limit
    (as Frigate watches each camera): a driver that hangs in ``read()`` (a USB camera's ``VIDIOC_DQBUF``,
    libcamera waiting on a dead CSI link) raises :class:`~hardware.errors.CameraHung` after
    ``read_limit_s`` instead of freezing the tray. The caller then treats the camera as lost and opens
    a new ``WatchedSource``; the hung thread is abandoned (it is a daemon: it never holds up exit).

    Reads stay one for one with the caller's calls (no frame is read ahead or dropped), so replays
    and the simulated tray behave as without the thread. ``stop`` (an Event) cuts a wait short with
    :class:`~hardware.errors.CaptureStopped`, so SIGTERM ends the service within a fraction of a
    second even while a read hangs. Other attributes (``timestamp``, ``current``) are the source's.

    :raises CameraUnavailable: from the source's own opening, or CameraHung when opening hangs.
    """

    def __init__(
        self,
        open_source: Callable[[], FrameSource],
        *,
        read_limit_s: float = 3.0,
        open_limit_s: float = 10.0,
        stop: threading.Event | None = None,
    ) -> None:
        self.read_limit_s = read_limit_s
        self._stop = stop if stop is not None else threading.Event()
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]] | None] = queue.SimpleQueue()
        self._hung: str | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._work, name="capture", daemon=True)
        self._thread.start()
        try:
            self._source: FrameSource = self._call(open_source, "opening", open_limit_s)
        except BaseException:
            self._jobs.put(None)
            raise

    def __repr__(self) -> str:
        state = f" hung ({self._hung})" if self._hung else ""
        return f"<WatchedSource {getattr(self, '_source', None)!r}{state}>"

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes WatchedSource lacks: the source's timestamp, current, index...
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._source, name)

    @property
    def hung(self) -> bool:
        return self._hung is not None

    def read(self) -> np.ndarray:
        """The source's next frame.

        :raises CameraHung: the read took longer than ``read_limit_s`` (and every later call).
        :raises CaptureStopped: ``stop`` was set while waiting.
        """
        frame: np.ndarray = self._call(self._source.read, "read", self.read_limit_s)
        return frame

    def close(self) -> None:
        """Closes the source in the capture thread, waiting at most a second: a hung camera is left
        to its thread rather than holding up the shutdown. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._hung is None:
            try:
                self._call(self._source.close, "close", 1.0, when_stopping=True)
            except CameraUnavailable:
                pass
        else:
            # The capture thread is stuck in the source: close from a thread of its own.
            threading.Thread(target=self._close_quietly, name="capture-close", daemon=True).start()
        self._jobs.put(None)

    def _close_quietly(self) -> None:
        try:
            self._source.close()
        except Exception:  # noqa: BLE001 - a hung driver may fail to close as well
            pass

    def _call(self, job: Callable[[], Any], what: str, limit: float, *, when_stopping: bool = False) -> Any:
        if self._hung is not None:
            raise CameraHung(self._hung)
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._jobs.put((job, future))
        deadline = time.monotonic() + limit
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                return future.result(timeout=min(left, 0.1))
            except concurrent.futures.TimeoutError:
                if self._stop.is_set() and not when_stopping:
                    raise CaptureStopped(f"stopped while waiting for the camera's {what}") from None
        self._hung = f"the camera's {what} hung for more than {limit:g} s"
        raise CameraHung(self._hung)

    def _work(self) -> None:
        while True:
            item = self._jobs.get()
            if item is None:
                return
            job, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(job())
            except BaseException as error:  # noqa: BLE001 - handed to the caller, who decides
                future.set_exception(error)


# ----------------------------------------------------------------------------------------------
# Opening by spec


def open_camera(
    spec: object,
    *,
    width: int | None = None,
    height: int | None = None,
    fps: float | None = None,
    loop: bool = False,
    script: Sequence[ScriptedRoll | Sequence[int | None]] = (),
) -> FrameSource:
    """Open the frame source a spec string names (the config's ``camera`` key):

    ``picamera`` (or ``picamera:N``), ``usb:N`` or ``usb:/dev/videoN``, ``replay:DIR_OR_VIDEO``,
    ``sim`` or ``sim:SEED``. ``spec`` may also be any object whose ``str()`` is such a string, or a
    config with ``camera`` and ``frames`` (width, height, fps) attributes. ``width``/``height``
    default to 640x480 for the simulated tray and to the camera's choice otherwise.

    :raises InvalidCameraSpec: the spec names no backend or has a bad argument.
    :raises CameraUnavailable: the backend cannot open its device.
    """
    frames = getattr(spec, "frames", None)
    if frames is not None and hasattr(spec, "camera"):
        width = width or getattr(frames, "width", None)
        height = height or getattr(frames, "height", None)
        fps = fps or getattr(frames, "fps", None)
        spec = getattr(spec, "camera")
    text = str(spec).strip()
    kind, _, arg = text.partition(":")
    kind = kind.lower()
    if kind == "picamera":
        num = 0
        if arg:
            if not (arg.isascii() and arg.isdigit()):
                raise InvalidCameraSpec(f"camera spec {text!r}: picamera takes a camera number, as in 'picamera:1'")
            num = int(arg)
        size = (width or 1280, height or 960)
        return PiCameraSource(size, camera_num=num)
    if kind == "usb":
        if not arg:
            raise InvalidCameraSpec(f"camera spec {text!r}: usb needs a device, as in 'usb:0' or 'usb:/dev/video2'")
        device: int | str = int(arg) if (arg.isascii() and arg.isdigit()) else arg
        return OpenCVSource(device, width=width, height=height, fps=fps)
    if kind == "replay":
        if not arg:
            raise InvalidCameraSpec(f"camera spec {text!r}: replay needs a folder or video file, as in 'replay:frames/'")
        return ReplaySource(arg, loop=loop)
    if kind == "sim":
        seed = 0
        if arg:
            try:
                seed = int(arg)
            except ValueError:
                raise InvalidCameraSpec(f"camera spec {text!r}: sim takes a seed number, as in 'sim:7'") from None
        return SimulatedTraySource(seed, width=width or 640, height=height or 480, fps=fps or 30.0, script=script)
    raise InvalidCameraSpec(f"camera spec {text!r} is not one of picamera, usb:N, replay:DIR, sim, sim:SEED")
