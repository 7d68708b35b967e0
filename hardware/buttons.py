"""The tray's three buttons: NEXT advances the phase, SELECT cycles choices, BACK undoes a step.

Presses arrive as :class:`ButtonEvent` values on a thread-safe queue: gpiozero calls back from its
own threads, and those callbacks only put an event on the queue; the game loop takes them with
:meth:`TrayButtons.get` or :meth:`TrayButtons.drain`. Holding a button (``hold_time`` seconds) gives
the button's ``*_HELD`` event instead of the short one.

:class:`SimulatedButtons` drives gpiozero's own mock pins low and high, so the demo goes through the
same gpiozero devices and callbacks as the tray does.
"""

from __future__ import annotations

import enum
import queue
import threading
from collections.abc import Mapping
from typing import Any, Self

from hardware.lights import DeviceClosed, LightSettingError, gpio_errors, pin_name

__all__ = ["ButtonEvent", "TrayButtons", "SimulatedButtons", "BUTTON_NAMES", "ButtonSettingError"]

BUTTON_NAMES = ("next", "select", "back")


class ButtonSettingError(LightSettingError):
    """A button setting out of range (hold time, bounce time); the message quotes it.

    (A :class:`~hardware.lights.LightSettingError`, so one except clause covers GPIO settings.)
    """


class ButtonEvent(enum.Enum):
    """One press of a tray button; the values are the names used in logs and transcripts."""

    NEXT = "next"
    SELECT = "select"
    BACK = "back"
    NEXT_HELD = "next-held"
    SELECT_HELD = "select-held"
    BACK_HELD = "back-held"

    @property
    def button(self) -> str:
        """Which button: ``"next"``, ``"select"`` or ``"back"``."""
        return self.value.removesuffix("-held")

    @property
    def held(self) -> bool:
        """True for a long press."""
        return self.value.endswith("-held")

    @classmethod
    def of(cls, button: str, held: bool = False) -> ButtonEvent:
        """The event of ``button`` (``"next"``...), short or held."""
        if button not in BUTTON_NAMES:
            raise ButtonSettingError(f"no button {button!r}: the buttons are {', '.join(BUTTON_NAMES)}")
        return cls(f"{button}-held" if held else button)


class TrayButtons:
    """The NEXT, SELECT and BACK buttons, giving :class:`ButtonEvent` values on a queue.

    Wiring (defaults, BCM numbering): each button between its pin and ground, no resistor (the
    Pi's internal pull-ups are used, so a pressed button reads low): NEXT to GPIO5, SELECT to
    GPIO6, BACK to GPIO13::

        buttons = TrayButtons()                     # next 5, select 6, back 13
        event = buttons.get(timeout=1.0)            # ButtonEvent.NEXT, or None after 1 s
        buttons.close()

    :param hold_time: seconds a button must stay down to count as held (``*_HELD`` events; the
        short event then comes on release). None disables held events and the short event comes
        as soon as the button goes down.
    :param bounce_time: seconds of contact bounce to ignore (None: no filtering).
    :param pull_up: True for buttons to ground (the default); False for buttons to 3.3 V with
        external pull-downs.
    :param pin_factory: gpiozero pin factory; None uses gpiozero's default.
    :raises PinBusy: a pin is in use; the message names it and its button.
    :raises BadPin: a pin does not exist.
    :raises GpioUnavailable: no GPIO on this machine.
    """

    def __init__(
        self,
        next: int | str = 5,  # noqa: A002 - the button's name on the tray
        select: int | str = 6,
        back: int | str = 13,
        *,
        hold_time: float | None = 1.0,
        bounce_time: float | None = 0.02,
        pull_up: bool = True,
        pin_factory: Any = None,
    ) -> None:
        from gpiozero import Button

        if hold_time is not None and not hold_time > 0:
            raise ButtonSettingError(f"hold_time must be above 0 seconds or None, got {hold_time!r}")
        if bounce_time is not None and not bounce_time > 0:
            raise ButtonSettingError(f"bounce_time must be above 0 seconds or None, got {bounce_time!r}")
        self.pins: Mapping[str, int | str] = {"next": next, "select": select, "back": back}
        self.hold_time = hold_time
        self._queue: queue.Queue[ButtonEvent] = queue.Queue()
        self._lock = threading.Lock()
        self._down: dict[str, bool] = dict.fromkeys(BUTTON_NAMES, False)
        self._buttons: dict[str, Any] = {}
        self._closed = False
        try:
            for name, pin in self.pins.items():
                with gpio_errors("buttons", {name: pin}, pin_factory):
                    button = Button(
                        pin,
                        pull_up=pull_up,
                        bounce_time=bounce_time,
                        hold_time=hold_time if hold_time is not None else 1.0,
                        pin_factory=pin_factory,
                    )
                    self._buttons[name] = button
                    # Bind the name now: the callbacks run on gpiozero's threads and only queue.
                    button.when_pressed = lambda name=name: self._on_pressed(name)
                    button.when_released = lambda name=name: self._on_released(name)
                    if hold_time is not None:
                        button.when_held = lambda name=name: self._on_held(name)
        except BaseException:
            self._close_buttons()  # release the pins already taken before a later one failed
            raise

    def __repr__(self) -> str:
        pins = ", ".join(f"{name}={pin!r}" for name, pin in self.pins.items())
        return f"<{type(self).__name__} {pins}>"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # gpiozero callbacks: state under the lock so a release racing a hold never gives two events.

    def _on_pressed(self, name: str) -> None:
        with self._lock:
            self._down[name] = True
            if self.hold_time is None:
                self._queue.put(ButtonEvent.of(name))

    def _on_held(self, name: str) -> None:
        with self._lock:
            if self._down[name]:
                self._down[name] = False
                self._queue.put(ButtonEvent.of(name, held=True))

    def _on_released(self, name: str) -> None:
        with self._lock:
            if self._down[name] and self.hold_time is not None:
                self._queue.put(ButtonEvent.of(name))
            self._down[name] = False

    def get(self, timeout: float | None = None) -> ButtonEvent | None:
        """The next press, waiting up to ``timeout`` seconds (None: until one comes); None on timeout."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self) -> list[ButtonEvent]:
        """Every press waiting, oldest first, without waiting for more."""
        events: list[ButtonEvent] = []
        while True:
            try:
                events.append(self._queue.get_nowait())
            except queue.Empty:
                return events

    def is_pressed(self, button: str) -> bool:
        """Whether ``button`` (``"next"``, ``"select"`` or ``"back"``) is down right now."""
        if self._closed:
            raise DeviceClosed(f"the buttons ({self._wiring()}) are closed")
        ButtonEvent.of(button)  # checks the name
        return bool(self._buttons[button].is_pressed)

    def close(self) -> None:
        """Release the pins. Presses already queued can still be read. Safe to call twice."""
        if not self._closed:
            self._close_buttons()
            self._closed = True

    def _close_buttons(self) -> None:
        for button in self._buttons.values():
            button.close()

    def _wiring(self) -> str:
        return ", ".join(f"{name} {pin_name(pin)}" for name, pin in self.pins.items())


class SimulatedButtons(TrayButtons):
    """The tray buttons on gpiozero mock pins, pressed from code: for the demo and tests.

    ``press`` drives the button's mock pin low and high again, so each press goes through
    gpiozero's ``Button`` and its callbacks exactly as on the tray::

        buttons = SimulatedButtons()
        buttons.press(ButtonEvent.NEXT)
        buttons.get(timeout=0)                      # ButtonEvent.NEXT

    :param pin_factory: a gpiozero ``MockFactory`` to share with other simulated devices; None
        makes a private one (never the machine's real pins).
    :param hold_time: how long ``press`` of a ``*_HELD`` event holds the button; short by default
        so the demo does not wait.
    """

    def __init__(
        self,
        next: int | str = 5,  # noqa: A002 - the button's name on the tray
        select: int | str = 6,
        back: int | str = 13,
        *,
        hold_time: float | None = 0.05,
        pin_factory: Any = None,
    ) -> None:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        if pin_factory is None:
            pin_factory = MockFactory(pin_class=MockPWMPin)
        if not isinstance(pin_factory, MockFactory):
            raise ButtonSettingError(f"simulated buttons need a gpiozero MockFactory, got {pin_factory!r}")
        self._factory = pin_factory
        self._held_signals = {name: threading.Event() for name in BUTTON_NAMES}
        # Mock pins do not bounce, and a debounce window would swallow an instant release.
        super().__init__(next, select, back, hold_time=hold_time, bounce_time=None, pin_factory=pin_factory)

    def _on_held(self, name: str) -> None:
        super()._on_held(name)
        self._held_signals[name].set()

    def press(self, event: ButtonEvent, timeout: float = 5.0) -> None:
        """Press and release the button of ``event``; for a ``*_HELD`` event, hold it until it counts.

        When this returns, the event is on the queue.

        :raises ButtonSettingError: a held press with held events disabled (``hold_time=None``),
            or the hold did not register within ``timeout`` seconds.
        """
        if self._closed:
            raise DeviceClosed(f"the buttons ({self._wiring()}) are closed")
        event = ButtonEvent(event)
        if event.held and self.hold_time is None:
            raise ButtonSettingError(f"cannot press {event.name}: held events are off (hold_time=None)")
        pin = self._factory.pin(self.pins[event.button])
        signal = self._held_signals[event.button]
        signal.clear()
        pin.drive_low()  # gpiozero runs when_pressed on this thread, before drive_low returns
        try:
            if event.held and not signal.wait(timeout):
                raise ButtonSettingError(f"{event.name} did not register within {timeout} s")
        finally:
            pin.drive_high()
