"""The tray's lights: a status RGB LED that tells the table what the tray wants, and the tray light.

Both are gpiozero devices and take ``pin_factory=None`` like gpiozero's own: pass
``MockFactory(pin_class=MockPWMPin)`` to run without a Pi (the demo and the tests do).

The status LED's colour and pattern per :class:`TrayStatus` (:data:`STATUS_PATTERNS`):

=====================  ===========  =====================================================
status                 colour       pattern
=====================  ===========  =====================================================
``OFF``                off          the tray is idle or stopped
``ROLLING``            blue         breathing (0.5 s up, 0.5 s down): dice are moving
``ABILITY_READY``      green        steady: the roll activates an ability
``NO_ABILITY``         white (dim)  steady: read, but nothing activates
``REROLL_DIE``         amber        fast blink (0.25 s on, 0.25 s off): reroll the marked die
``WAITING_FOR_INPUT``  cyan         slow breathing (1 s up, 1 s down): press a button
``ERROR``              red          steady: something failed; the display says what
``CAMERA_LOST``        red          blink (0.5 s on, 0.5 s off): the camera stopped; retrying
=====================  ===========  =====================================================
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, Self

from hardware.errors import HardwareError, PinBusy

__all__ = [
    "TrayStatus",
    "LightPattern",
    "STATUS_PATTERNS",
    "StatusLight",
    "TrayLight",
    "BadPin",
    "LightSettingError",
    "DeviceClosed",
    "GpioUnavailable",
    "gpio_errors",
]


class BadPin(HardwareError, ValueError):
    """A pin number or name that does not exist; the message quotes it."""


class LightSettingError(HardwareError, ValueError):
    """A colour, pattern or brightness out of range; the message quotes it."""


class DeviceClosed(HardwareError, RuntimeError):
    """A light or the buttons were used after ``close()``."""


class GpioUnavailable(HardwareError, RuntimeError):
    """No GPIO pin factory could be loaded (not on a Pi, or no lgpio); run with mock pins instead."""


def pin_name(pin: int | str) -> str:
    """How gpiozero names a pin: BCM numbers as ``GPIO17``, names as given (``BOARD11``)."""
    return f"GPIO{pin}" if isinstance(pin, int) else str(pin)


_PIN_IN_MESSAGE = re.compile(r"\bpin (\S+) is already in use")


def _held_elsewhere(pin: int | str, pin_factory: Any) -> bool:
    """Whether another process holds ``pin``: ask the pin factory for the pin itself.

    The factory claims the line (as a plain input, what gpiozero leaves a closed pin as) without
    gpiozero's in-process reservations, which a half-built device may still hold while its error
    is being handled.
    """
    from gpiozero import Device

    factory = pin_factory if pin_factory is not None else Device.pin_factory
    if factory is None:
        return False
    try:
        factory.pin(pin)
    except Exception as error:  # lgpio raises its own bare error class; its text is the only sign
        return _LGPIO_BUSY in str(error)
    return False


# lgpio's text when the kernel has the line claimed by another process; gpiozero passes it through.
_LGPIO_BUSY = "GPIO busy"


@contextmanager
def gpio_errors(device: str, pins: Mapping[str, Any], pin_factory: Any = None) -> Iterator[None]:
    """Turn gpiozero's errors while opening ``device`` into ours, naming the pin and its job.

    :param device: what is being opened (``"status LED"``).
    :param pins: each pin's job and number (``{"red": 17, ...}``), for the messages.
    :param pin_factory: the factory the device uses, to find which pin another process holds.
    :raises PinBusy: a pin is already in use, by this program (gpiozero's ``GPIOPinInUse``) or by
        another one (lgpio's ``'GPIO busy'``, e.g. a second copy of the tray running).
    :raises BadPin: a pin does not exist.
    :raises GpioUnavailable: no pin factory can be loaded on this machine.
    """
    from gpiozero.exc import BadPinFactory, GPIOPinInUse, GPIOZeroError, PinInvalidPin

    wiring = ", ".join(f"{job} {pin_name(pin)}" for job, pin in pins.items())
    try:
        yield
    except GPIOPinInUse as error:
        found = _PIN_IN_MESSAGE.search(str(error))
        busy = found.group(1) if found else "a pin"
        jobs = [job for job, pin in pins.items() if pin_name(pin) == busy]
        role = f" ({device} {jobs[0]})" if jobs else f" ({device}: {wiring})"
        raise PinBusy(f"{busy}{role} is busy: {error}") from error
    except PinInvalidPin as error:
        raise BadPin(f"{device} ({wiring}): {error}") from error
    except BadPinFactory as error:
        raise GpioUnavailable(
            f"{device}: no GPIO on this machine ({error}); "
            'set gpio = "mock" in the config (or pass --config with it) to run without one'
        ) from error
    except Exception as error:
        if isinstance(error, GPIOZeroError) or _LGPIO_BUSY not in str(error):
            raise
        held = [job for job, pin in pins.items() if len(pins) == 1 or _held_elsewhere(pin, pin_factory)]
        where = ", ".join(f"{pin_name(pins[job])} ({device} {job})" for job in held) or f"a pin of the {device} ({wiring})"
        raise PinBusy(
            f"{where} is busy: another program holds it ({error}); is the tray already running?"
        ) from error


class TrayStatus(enum.Enum):
    """What the status LED tells the table; the values are the names used in config and logs."""

    OFF = "off"
    ROLLING = "rolling"
    ABILITY_READY = "ability-ready"
    NO_ABILITY = "no-ability"
    REROLL_DIE = "reroll-die"
    WAITING_FOR_INPUT = "waiting-for-input"
    ERROR = "error"
    CAMERA_LOST = "camera-lost"


Color = tuple[float, float, float]


@dataclass(frozen=True)
class LightPattern:
    """A colour (red, green, blue, each 0-1) and how it is shown.

    ``steady`` holds the colour; ``blink`` switches it on for ``on_time`` and off for ``off_time``
    seconds; ``pulse`` fades up over ``on_time`` and down over ``off_time`` seconds.
    """

    color: Color
    kind: Literal["steady", "blink", "pulse"] = "steady"
    on_time: float = 0.0
    off_time: float = 0.0

    def __post_init__(self) -> None:
        if len(self.color) != 3 or not all(0.0 <= part <= 1.0 for part in self.color):
            raise LightSettingError(f"a colour is three values from 0 to 1, got {self.color!r}")
        if self.kind not in ("steady", "blink", "pulse"):
            raise LightSettingError(f"pattern kind must be steady, blink or pulse, got {self.kind!r}")
        if self.kind != "steady" and (self.on_time <= 0 or self.off_time <= 0):
            raise LightSettingError(f"a {self.kind} needs on_time and off_time above 0, got {self.on_time!r}, {self.off_time!r}")


_OFF: Color = (0.0, 0.0, 0.0)
_AMBER: Color = (1.0, 0.45, 0.0)

STATUS_PATTERNS: Mapping[TrayStatus, LightPattern] = MappingProxyType(
    {
        TrayStatus.OFF: LightPattern(_OFF),
        TrayStatus.ROLLING: LightPattern((0.0, 0.0, 1.0), "pulse", 0.5, 0.5),
        TrayStatus.ABILITY_READY: LightPattern((0.0, 1.0, 0.0)),
        TrayStatus.NO_ABILITY: LightPattern((0.3, 0.3, 0.3)),
        TrayStatus.REROLL_DIE: LightPattern(_AMBER, "blink", 0.25, 0.25),
        TrayStatus.WAITING_FOR_INPUT: LightPattern((0.0, 1.0, 1.0), "pulse", 1.0, 1.0),
        TrayStatus.ERROR: LightPattern((1.0, 0.0, 0.0)),
        TrayStatus.CAMERA_LOST: LightPattern((1.0, 0.0, 0.0), "blink", 0.5, 0.5),
    }
)
"""The colour and pattern shown for each status (the table in the module docstring)."""


class StatusLight:
    """The status RGB LED, showing one :class:`TrayStatus` at a time.

    Wiring (defaults, BCM numbering): a common-cathode RGB LED, the cathode (longest leg) to
    ground; red to GPIO17, green to GPIO27, blue to GPIO22, each through a resistor (about 220 Ω).
    For a common-anode LED, wire the anode to 3.3 V and pass ``active_high=False``::

        light = StatusLight()                       # red 17, green 27, blue 22
        light.show(TrayStatus.ABILITY_READY)        # steady green
        light.close()                               # off, pins released

    :param pin_factory: gpiozero pin factory; None uses gpiozero's default (or
        ``GPIOZERO_PIN_FACTORY``).
    :param patterns: a colour and pattern per status, to override :data:`STATUS_PATTERNS`.
    :raises LightSettingError: ``patterns`` lacks a status.
    :raises PinBusy: a pin is in use; the message names it.
    :raises BadPin: a pin does not exist.
    :raises GpioUnavailable: no GPIO on this machine.
    """

    def __init__(
        self,
        red: int | str = 17,
        green: int | str = 27,
        blue: int | str = 22,
        *,
        active_high: bool = True,
        pin_factory: Any = None,
        patterns: Mapping[TrayStatus, LightPattern] = STATUS_PATTERNS,
    ) -> None:
        from gpiozero import RGBLED

        missing = [status.name for status in TrayStatus if status not in patterns]
        if missing:
            raise LightSettingError(f"no light pattern for {', '.join(missing)}")
        self.pins = {"red": red, "green": green, "blue": blue}
        self._patterns = patterns
        with gpio_errors("status LED", self.pins, pin_factory):
            self._led = RGBLED(red, green, blue, active_high=active_high, pin_factory=pin_factory)
        self._status = TrayStatus.OFF
        self._closed = False

    def __repr__(self) -> str:
        pins = ", ".join(f"{job}={pin!r}" for job, pin in self.pins.items())
        return f"<StatusLight {pins} showing {self._status.name}>"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def status(self) -> TrayStatus:
        """The status being shown."""
        return self._status

    @property
    def color(self) -> Color:
        """The LED's colour at this instant (changes while blinking or breathing)."""
        red, green, blue = self._led.value
        return (float(red), float(green), float(blue))

    def pattern(self, status: TrayStatus | None = None) -> LightPattern:
        """The colour and pattern for ``status`` (default: the one shown)."""
        return self._patterns[self._status if status is None else status]

    def show(self, status: TrayStatus) -> None:
        """Show ``status``; showing the status already shown keeps its pattern running undisturbed."""
        if self._closed:
            raise DeviceClosed(f"the status LED ({self._wiring()}) is closed")
        status = TrayStatus(status)
        if status is self._status and status is not TrayStatus.OFF:
            return
        pattern = self._patterns[status]
        self._status = status
        if pattern.kind == "blink":
            self._led.blink(on_time=pattern.on_time, off_time=pattern.off_time, on_color=pattern.color)
        elif pattern.kind == "pulse":
            self._led.pulse(fade_in_time=pattern.on_time, fade_out_time=pattern.off_time, on_color=pattern.color)
        else:
            self._led.color = pattern.color  # setting a colour also stops a running blink

    def off(self) -> None:
        """Switch the LED off (the ``OFF`` status)."""
        self.show(TrayStatus.OFF)

    def close(self) -> None:
        """Switch off and release the pins. Safe to call twice."""
        if self._closed:
            return
        self._led.off()
        self._status = TrayStatus.OFF
        self._led.close()
        self._closed = True

    def _wiring(self) -> str:
        return ", ".join(f"{job} {pin_name(pin)}" for job, pin in self.pins.items())


class TrayLight:
    """The light over the tray: an LED strip switched by a MOSFET, dimmed by PWM.

    Wiring (default): a logic-level N-channel MOSFET (e.g. IRLZ44N) gate to GPIO18 through about
    100 Ω, with a 10 kΩ pull-down to ground; source to ground; drain to the strip's negative lead;
    the strip's positive lead to its own supply, whose ground is shared with the Pi::

        light = TrayLight()                         # GPIO18
        light.brightness = 0.8                      # 80 %
        light.close()                               # off, pin released

    The PWM runs at ``frequency`` hertz, well above the camera's frame rate, so the light does not
    beat with the exposure and put bands across the frames.

    :param brightness: the brightness to start at, 0 (off) to 1 (full).
    :param pin_factory: gpiozero pin factory; None uses gpiozero's default.
    :raises PinBusy: the pin is in use; the message names it.
    :raises BadPin: the pin does not exist.
    :raises LightSettingError: ``brightness`` is outside 0-1.
    :raises GpioUnavailable: no GPIO on this machine.
    """

    def __init__(
        self, pin: int | str = 18, *, brightness: float = 0.0, frequency: int = 1000, pin_factory: Any = None
    ) -> None:
        from gpiozero import PWMLED

        self.pin = pin
        self._check(brightness)
        with gpio_errors("tray light", {"strip": pin}, pin_factory):
            self._led = PWMLED(pin, frequency=frequency, pin_factory=pin_factory)
        self._led.value = brightness
        self._closed = False

    def __repr__(self) -> str:
        return f"<TrayLight pin={self.pin!r} brightness={self.brightness:.2f}>"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _check(self, value: float) -> None:
        if not 0.0 <= value <= 1.0:
            raise LightSettingError(f"tray light brightness must be from 0 to 1, got {value!r}")

    @property
    def brightness(self) -> float:
        """Brightness from 0 (off) to 1 (full)."""
        return 0.0 if self._closed else float(self._led.value)

    @brightness.setter
    def brightness(self, value: float) -> None:
        self._check(value)
        if self._closed:
            raise DeviceClosed(f"the tray light ({pin_name(self.pin)}) is closed")
        self._led.value = value

    def on(self, brightness: float = 1.0) -> None:
        """Light the tray at ``brightness``."""
        self.brightness = brightness

    def off(self) -> None:
        self.brightness = 0.0

    def close(self) -> None:
        """Switch off and release the pin. Safe to call twice."""
        if self._closed:
            return
        self._led.off()
        self._led.close()
        self._closed = True
