"""The tray's display: one narrow seam (:class:`Display`) with a real OLED backend and three stand-ins.

- :class:`LumaDisplay`: a 128x64 SSD1306 or SH1106 OLED on I2C through luma.oled (imported lazily,
  so this module imports on any machine).
- :class:`DummyDisplay`: luma's in-memory ``dummy`` device; keeps the last image, for tests.
- :class:`CaptureDisplay`: writes every frame shown as ``frame_000001.png``... into a folder (the demo).
- :class:`NullDisplay`: shows nothing; what the tray runs with when the display is missing.

:func:`open_display` picks one by name and, when the OLED is missing from the bus, logs one warning
and falls back to :class:`NullDisplay`, so the tray still plays without its screen.

Every backend's ``close()`` leaves :data:`hardware.screens.OFFLINE_SCREEN` showing (or the screen
passed as ``leave``, such as the service's "LOG FAILED"); the OLED keeps it after the process ends (luma would otherwise blank the panel at exit).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from PIL import Image

from hardware.errors import DisplayUnavailable, HardwareError
from hardware.screens import HEIGHT, OFFLINE_SCREEN, WIDTH, ScreenState, render_screen

__all__ = [
    "Display",
    "LumaDisplay",
    "DummyDisplay",
    "CaptureDisplay",
    "NullDisplay",
    "open_display",
    "DISPLAY_KINDS",
    "BadDisplayImage",
    "DisplaySettingError",
    "UnknownDisplay",
]

log = logging.getLogger(__name__)

DISPLAY_KINDS = ("ssd1306", "sh1106", "dummy", "capture", "none")
"""Names :func:`open_display` accepts (and the config's ``display.kind``)."""

SIZE = (WIDTH, HEIGHT)


class BadDisplayImage(HardwareError, ValueError):
    """An image of the wrong size or mode was given to a display."""


class DisplaySettingError(HardwareError, ValueError):
    """A display option is out of range or missing (a capture display without a folder, scale 0)."""


class UnknownDisplay(HardwareError, LookupError):
    """A display kind that does not exist was asked for; the message names it and the choices."""


@runtime_checkable
class Display(Protocol):
    """Where screens go: ``show`` a 128x64 mode "1" image; ``close`` leaves "offline" showing."""

    @property
    def size(self) -> tuple[int, int]: ...

    def show(self, image: Image.Image) -> None: ...

    def close(self, leave: ScreenState = OFFLINE_SCREEN) -> None: ...


def _checked(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    if image.size != size:
        raise BadDisplayImage(f"the display is {size[0]}x{size[1]}, got a {image.size[0]}x{image.size[1]} image")
    if image.mode != "1":
        # Screens are drawn in mode "1"; anything else (a photo, a debug image) is thresholded.
        image = image.convert("1")
    return image


class LumaDisplay:
    """A 128x64 monochrome OLED (SSD1306 or SH1106) on I2C, driven by luma.oled.

    Wiring (defaults): VCC to 3.3 V, GND to ground, SDA to GPIO2 (pin 3), SCL to GPIO3 (pin 5);
    I2C bus 1, address 0x3C (some modules use 0x3D). Most 0.96" modules are SSD1306, most 1.3"
    ones SH1106. Enable I2C first (``raspi-config nonint do_i2c 0``)::

        display = LumaDisplay()                     # SSD1306 on bus 1 at 0x3C
        display.show(render_screen(ScreenState(title="Hello")))
        display.close()                             # "OFFLINE" stays on the panel

    :param driver: ``"ssd1306"`` or ``"sh1106"``.
    :param port: the I2C bus number (``/dev/i2c-<port>``).
    :param address: the display's I2C address.
    :param rotate: 0-3 quarter turns clockwise, for a panel mounted upside down (2) or on its side.
    :param serial_interface: a luma serial interface to use instead of opening the I2C bus
        (tests pass a fake bus here).
    :raises DisplayUnavailable: the bus or the display is missing or not accessible; the message
        names the bus and the address.

    If the panel stops answering while the tray runs, one warning is logged and later frames are
    dropped, so a loose cable never stops a game.

    A frame is 1 KB on the bus: about 90 ms at the Pi's default 100 kHz I2C clock, about 25 ms
    with ``dtparam=i2c_arm_baudrate=400000`` in ``/boot/firmware/config.txt`` (which these panels
    support), so set that for a quick display.
    """

    def __init__(
        self,
        driver: str = "ssd1306",
        port: int = 1,
        address: int = 0x3C,
        rotate: int = 0,
        serial_interface: Any = None,
    ) -> None:
        if driver not in ("ssd1306", "sh1106"):
            raise UnknownDisplay(f"unknown OLED driver {driver!r}: choose ssd1306 or sh1106")
        self.driver = driver
        self.port = port
        self.address = address
        self._where = f"{driver} display on I2C bus {port} at 0x{address:02X}"
        self._lost = False
        self._closed = False
        # Lazy: luma pulls smbus2 and touches /dev only when a real display is wanted.
        from luma.core.error import DevicePermissionError
        from luma.core.error import Error as LumaError
        from luma.oled import device as oled

        self._luma_errors: tuple[type[BaseException], ...] = (LumaError, OSError)
        try:
            if serial_interface is None:
                from luma.core.interface.serial import i2c

                serial_interface = i2c(port=port, address=address)
            factory: Callable[..., Any] = getattr(oled, driver)
            self._device = factory(serial_interface, width=WIDTH, height=HEIGHT, rotate=rotate)
        except self._luma_errors as error:
            hint = " (add the user to the i2c group)" if isinstance(error, DevicePermissionError) else ""
            raise DisplayUnavailable(f"no {self._where}: {error}{hint}") from error

    def __repr__(self) -> str:
        return f"LumaDisplay(driver={self.driver!r}, port={self.port}, address=0x{self.address:02X})"

    @property
    def size(self) -> tuple[int, int]:
        return SIZE

    def show(self, image: Image.Image) -> None:
        """Send ``image`` to the panel (about 1 KB over I2C)."""
        image = _checked(image, SIZE)
        if self._lost or self._closed:
            return
        try:
            self._device.display(image)
        except self._luma_errors as error:
            # Once lost, an SSD1306 needs its init sequence again; stop sending rather than spam the bus.
            self._lost = True
            log.warning("%s stopped answering (%s); running on without the display", self._where, error)

    def close(self, leave: ScreenState = OFFLINE_SCREEN) -> None:
        """Leave ``leave`` ("OFFLINE") on the panel and release the bus. Safe to call twice."""
        if self._closed:
            return
        self.show(render_screen(leave))
        self._closed = True
        # luma's exit hook blanks and switches off the panel unless persist is set.
        self._device.persist = True
        try:
            self._device.cleanup()
        except self._luma_errors as error:
            log.warning("closing the %s failed: %s", self._where, error)


class DummyDisplay:
    """A display in memory (luma's ``dummy`` device): keeps the last image shown, for tests.

    ::

        display = DummyDisplay()
        display.show(render_screen(ScreenState(title="Hello")))
        display.image                                  # the 128x64 image on "screen"
    """

    def __init__(self) -> None:
        from luma.core.device import dummy

        self._device = dummy(width=WIDTH, height=HEIGHT, mode="1")
        self.frames_shown = 0
        self.closed = False

    def __repr__(self) -> str:
        return "DummyDisplay()"

    @property
    def size(self) -> tuple[int, int]:
        return SIZE

    @property
    def image(self) -> Image.Image | None:
        """The image currently on the display, or None before the first ``show``."""
        shown: Image.Image | None = self._device.image
        return shown

    def show(self, image: Image.Image) -> None:
        self._device.display(_checked(image, SIZE))
        self.frames_shown += 1

    def close(self, leave: ScreenState = OFFLINE_SCREEN) -> None:
        if not self.closed:
            self.show(render_screen(leave))
            self.closed = True


class CaptureDisplay:
    """Writes every frame shown as a PNG (``frame_000001.png``, ``frame_000002.png``...) into a folder.

    The demo uses it to leave a record of the display; frames are 128x64 1-bit PNGs, or enlarged by
    ``scale`` (nearest neighbour, so pixels stay crisp) for viewing on a computer::

        display = CaptureDisplay("demo-out")
        display.show(render_screen(ScreenState(title="Hello")))   # demo-out/frame_000001.png

    :param directory: created if missing. Existing ``frame_*.png`` files in it are left alone and
        numbering continues after the highest one, so nothing earlier is overwritten...
    :param replace_existing: ...unless this is set: then the folder's ``frame_*.png`` files (and
        no other files) are deleted first, so it holds exactly one run.
    :param offline_on_close: write a last "OFFLINE" frame on ``close()``, as the real panel shows.
    :raises DisplayUnavailable: the folder cannot be created or cleared.
    """

    def __init__(
        self, directory: str | Path, scale: int = 1, offline_on_close: bool = True, replace_existing: bool = False
    ) -> None:
        self.directory = Path(directory)
        if scale < 1:
            raise DisplaySettingError(f"scale must be 1 or more, got {scale!r}")
        self.scale = scale
        self.offline_on_close = offline_on_close
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise DisplayUnavailable(f"cannot write display frames to {str(self.directory)!r}: {error}") from error
        frames = [path for path in self.directory.glob("frame_*.png") if path.stem[6:].isdigit()]
        if replace_existing:
            try:
                for path in frames:
                    path.unlink()
            except OSError as error:
                raise DisplayUnavailable(f"cannot clear old frames from {str(self.directory)!r}: {error}") from error
            frames = []
        numbers = [int(path.stem[6:]) for path in frames]
        self.frames_written = 0
        self._next = max(numbers, default=0) + 1
        self.paths: list[Path] = []
        self.closed = False

    def __repr__(self) -> str:
        return f"CaptureDisplay({str(self.directory)!r}, scale={self.scale})"

    @property
    def size(self) -> tuple[int, int]:
        return SIZE

    def show(self, image: Image.Image) -> None:
        image = _checked(image, SIZE)
        if self.scale != 1:
            image = image.resize((WIDTH * self.scale, HEIGHT * self.scale), Image.Resampling.NEAREST)
        path = self.directory / f"frame_{self._next:06d}.png"
        try:
            image.save(path)
        except OSError as error:
            raise DisplayUnavailable(f"cannot write display frame {str(path)!r}: {error}") from error
        self._next += 1
        self.frames_written += 1
        self.paths.append(path)

    def close(self, leave: ScreenState = OFFLINE_SCREEN) -> None:
        if not self.closed:
            if self.offline_on_close:
                self.show(render_screen(leave))
            self.closed = True


class NullDisplay:
    """No display: frames are dropped. ``reason`` says why (for logs and ``repr``)."""

    def __init__(self, reason: str = "no display configured") -> None:
        self.reason = reason
        self.frames_dropped = 0

    def __repr__(self) -> str:
        return f"NullDisplay({self.reason!r})"

    @property
    def size(self) -> tuple[int, int]:
        return SIZE

    def show(self, image: Image.Image) -> None:
        _checked(image, SIZE)  # a wrong image is still a bug worth hearing about
        self.frames_dropped += 1

    def close(self, leave: ScreenState = OFFLINE_SCREEN) -> None:
        pass


def open_display(
    kind: str = "ssd1306",
    *,
    port: int = 1,
    address: int = 0x3C,
    rotate: int = 0,
    directory: str | Path | None = None,
    scale: int = 1,
    replace_existing: bool = False,
    serial_interface: Any = None,
) -> Display:
    """The display named ``kind`` (one of :data:`DISPLAY_KINDS`).

    An OLED missing from the bus does not stop the tray: one warning is logged and a
    :class:`NullDisplay` is returned.

    :raises UnknownDisplay: ``kind`` is not a display kind.
    :raises DisplaySettingError: ``kind="capture"`` without a ``directory``.
    :raises DisplayUnavailable: the capture folder cannot be created.
    """
    if kind in ("ssd1306", "sh1106"):
        try:
            return LumaDisplay(kind, port=port, address=address, rotate=rotate, serial_interface=serial_interface)
        except DisplayUnavailable as error:
            log.warning("%s; running without a display", error)
            return NullDisplay(str(error))
    if kind == "dummy":
        return DummyDisplay()
    if kind == "capture":
        if directory is None:
            raise DisplaySettingError("the capture display needs a directory to write frames into")
        return CaptureDisplay(directory, scale=scale, replace_existing=replace_existing)
    if kind == "none":
        return NullDisplay()
    raise UnknownDisplay(f"unknown display kind {kind!r}: choose one of {', '.join(DISPLAY_KINDS)}")
