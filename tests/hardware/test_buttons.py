"""The tray buttons on gpiozero's mock pins: presses become events on a queue, held presses too."""

from __future__ import annotations

import threading
from collections.abc import Callable
from threading import Event

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.buttons import BUTTON_NAMES, ButtonEvent, ButtonSettingError, SimulatedButtons, TrayButtons
from hardware.errors import PinBusy
from hardware.lights import BadPin, DeviceClosed, StatusLight, TrayStatus

NEXT, SELECT, BACK = 5, 6, 13


def tap(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()  # pull-up wiring: pressed reads low
    factory.pin(pin).drive_high()


def test_short_presses_arrive_in_order(mock_factory: MockFactory) -> None:
    with TrayButtons() as buttons:
        tap(mock_factory, NEXT)
        tap(mock_factory, SELECT)
        tap(mock_factory, SELECT)
        tap(mock_factory, BACK)
        assert buttons.drain() == [ButtonEvent.NEXT, ButtonEvent.SELECT, ButtonEvent.SELECT, ButtonEvent.BACK]
        assert buttons.drain() == []


def test_short_press_counts_on_release_when_holds_are_on(mock_factory: MockFactory) -> None:
    with TrayButtons() as buttons:
        mock_factory.pin(NEXT).drive_low()
        assert buttons.is_pressed("next")
        assert buttons.get(timeout=0) is None  # it might still become a hold
        mock_factory.pin(NEXT).drive_high()
        assert buttons.get(timeout=0) is ButtonEvent.NEXT
        assert not buttons.is_pressed("next")


def test_held_button_gives_the_held_event_only(mock_factory: MockFactory) -> None:
    with TrayButtons(hold_time=0.05) as buttons:
        mock_factory.pin(BACK).drive_low()
        assert buttons.get(timeout=5) is ButtonEvent.BACK_HELD  # from gpiozero's hold thread
        mock_factory.pin(BACK).drive_high()
        assert buttons.drain() == []


def test_without_holds_a_press_counts_at_once(mock_factory: MockFactory) -> None:
    with TrayButtons(hold_time=None) as buttons:
        mock_factory.pin(SELECT).drive_low()
        assert buttons.get(timeout=0) is ButtonEvent.SELECT
        mock_factory.pin(SELECT).drive_high()
        assert buttons.drain() == []


def test_get_waits_for_a_press_from_another_thread(mock_factory: MockFactory) -> None:
    with TrayButtons() as buttons:
        started = Event()

        def press_later() -> None:
            started.wait(5)
            tap(mock_factory, NEXT)

        thread = threading.Thread(target=press_later)
        thread.start()
        started.set()
        assert buttons.get(timeout=5) is ButtonEvent.NEXT
        thread.join(5)


def test_get_times_out_with_none(mock_factory: MockFactory) -> None:
    with TrayButtons() as buttons:
        assert buttons.get(timeout=0.01) is None


def test_custom_pins_and_pull_down_wiring(mock_factory: MockFactory) -> None:
    with TrayButtons(20, 21, 26, pull_up=False, hold_time=None) as buttons:
        mock_factory.pin(21).drive_high()  # to 3.3 V: pressed reads high
        assert buttons.drain() == [ButtonEvent.SELECT]
        mock_factory.pin(21).drive_low()
        assert buttons.drain() == []
        assert repr(buttons) == "<TrayButtons next=20, select=21, back=26>"


def test_close_releases_pins_and_keeps_queued_presses(mock_factory: MockFactory) -> None:
    buttons = TrayButtons()
    tap(mock_factory, NEXT)
    buttons.close()
    buttons.close()
    assert buttons.drain() == [ButtonEvent.NEXT]
    with pytest.raises(DeviceClosed, match=r"^the buttons \(next GPIO5, select GPIO6, back GPIO13\) are closed$"):
        buttons.is_pressed("next")
    TrayButtons().close()  # the pins are free again


def test_busy_pin_names_the_button_and_frees_the_others(mock_factory: MockFactory) -> None:
    with LED(BACK):
        with pytest.raises(PinBusy) as caught:
            TrayButtons()
        assert str(caught.value).startswith("GPIO13 (buttons back) is busy: pin GPIO13 is already in use by <gpiozero.LED")
        # NEXT and SELECT were taken before BACK failed; they must be free again.
        with LED(NEXT), LED(SELECT):
            pass


def test_pin_held_by_another_program_is_named(held_elsewhere: Callable[..., MockFactory]) -> None:
    with pytest.raises(PinBusy) as caught:
        TrayButtons(pin_factory=held_elsewhere(SELECT))
    assert str(caught.value) == (
        "GPIO6 (buttons select) is busy: another program holds it ('GPIO busy'); is the tray already running?"
    )


def test_bad_pin_and_settings(mock_factory: MockFactory) -> None:
    with pytest.raises(BadPin, match=r"^buttons \(select GPIO77\): 77 is not a valid pin"):
        TrayButtons(select=77)
    with pytest.raises(ButtonSettingError, match=r"^hold_time must be above 0 seconds or None, got 0$"):
        TrayButtons(hold_time=0)
    with pytest.raises(ButtonSettingError, match=r"^bounce_time must be above 0 seconds or None, got -1$"):
        TrayButtons(bounce_time=-1)
    with TrayButtons() as buttons, pytest.raises(ButtonSettingError, match="no button 'ok'"):
        buttons.is_pressed("ok")


def test_button_event_names() -> None:
    assert [event.value for event in ButtonEvent] == [
        "next", "select", "back", "next-held", "select-held", "back-held",
    ]
    assert ButtonEvent.SELECT_HELD.button == "select" and ButtonEvent.SELECT_HELD.held
    assert ButtonEvent.of("back") is ButtonEvent.BACK and not ButtonEvent.BACK.held
    assert ButtonEvent.of("next", held=True) is ButtonEvent.NEXT_HELD
    assert set(BUTTON_NAMES) == {event.button for event in ButtonEvent}


# --- simulated buttons: the same gpiozero devices, pressed from code ---------------------------


def test_simulated_presses_go_through_gpiozero() -> None:
    with SimulatedButtons() as buttons:
        for event in (ButtonEvent.NEXT, ButtonEvent.SELECT, ButtonEvent.BACK_HELD, ButtonEvent.NEXT_HELD):
            buttons.press(event)
        assert buttons.drain() == [ButtonEvent.NEXT, ButtonEvent.SELECT, ButtonEvent.BACK_HELD, ButtonEvent.NEXT_HELD]
        # The press really moved the pin: low while down, high after.
        pin = buttons._factory.pin(NEXT)
        assert [state.state for state in pin.states] == [False, True, False, True, False, True]  # pull-up first


def test_simulated_buttons_share_a_factory_with_the_lights() -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    try:
        with SimulatedButtons(pin_factory=factory) as buttons, StatusLight(pin_factory=factory) as light:
            buttons.press(ButtonEvent.SELECT)
            light.show(TrayStatus.WAITING_FOR_INPUT)
            assert buttons.get(timeout=0) is ButtonEvent.SELECT
    finally:
        factory.reset()


def test_simulated_buttons_refuse_real_pins_and_impossible_presses() -> None:
    with pytest.raises(ButtonSettingError, match="need a gpiozero MockFactory"):
        SimulatedButtons(pin_factory=object())
    with SimulatedButtons(hold_time=None) as buttons:
        with pytest.raises(ButtonSettingError, match=r"^cannot press NEXT_HELD: held events are off"):
            buttons.press(ButtonEvent.NEXT_HELD)
        assert buttons.drain() == []
    with pytest.raises(DeviceClosed):
        buttons.press(ButtonEvent.NEXT)
