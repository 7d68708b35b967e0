"""The status LED and the tray light on gpiozero's mock pins."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from threading import Event

import pytest
from gpiozero import LED, Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.errors import HardwareError, PinBusy
from hardware.lights import (
    STATUS_PATTERNS,
    BadPin,
    DeviceClosed,
    GpioUnavailable,
    LightPattern,
    LightSettingError,
    StatusLight,
    TrayLight,
    TrayStatus,
)

RED, GREEN, BLUE, STRIP = 17, 27, 22, 18


def wait_until(condition: Callable[[], bool], limit: float = 5.0) -> bool:
    """Wait for a background blink to get somewhere; the limit only stops a broken test hanging."""
    tick = Event()
    for _ in range(int(limit / 0.01)):
        if condition():
            return True
        tick.wait(0.01)
    return condition()


def rgb(factory: MockFactory) -> tuple[float, float, float]:
    return (float(factory.pin(RED).state), float(factory.pin(GREEN).state), float(factory.pin(BLUE).state))


def test_every_status_has_its_own_look() -> None:
    assert set(STATUS_PATTERNS) == set(TrayStatus)
    assert len(set(STATUS_PATTERNS.values())) == len(TrayStatus)
    assert STATUS_PATTERNS[TrayStatus.OFF].color == (0.0, 0.0, 0.0)


@pytest.mark.parametrize(
    ("status", "color"),
    [
        (TrayStatus.ABILITY_READY, (0.0, 1.0, 0.0)),
        (TrayStatus.NO_ABILITY, (0.3, 0.3, 0.3)),
        (TrayStatus.ERROR, (1.0, 0.0, 0.0)),
    ],
)
def test_steady_statuses_set_the_pins(mock_factory: MockFactory, status: TrayStatus, color: tuple[float, ...]) -> None:
    with StatusLight() as light:
        light.show(status)
        assert rgb(mock_factory) == color
        assert light.status is status and light.color == color
        # The whole history: dark at start, then the colour, nothing in between.
        for pin, value in zip((RED, GREEN, BLUE), color):
            mock_factory.pin(pin).assert_states([0, value] if value else [0])


def test_status_values_are_config_names() -> None:
    assert TrayStatus("reroll-die") is TrayStatus.REROLL_DIE
    assert [status.value for status in TrayStatus] == [
        "off", "rolling", "ability-ready", "no-ability", "reroll-die", "waiting-for-input", "error", "camera-lost",
    ]


def test_reroll_die_blinks_amber(mock_factory: MockFactory) -> None:
    with StatusLight() as light:
        light.show(TrayStatus.REROLL_DIE)
        red = mock_factory.pin(RED)
        assert wait_until(lambda: len(red.states) >= 4)
        values = [state.state for state in red.states]
        assert values[:4] == [0, 1.0, 0.0, 1.0]
        assert {state.state for state in mock_factory.pin(GREEN).states[1:]} <= {0.45, 0.0}
        mock_factory.pin(BLUE).assert_states([0])


def test_camera_lost_blinks_red(mock_factory: MockFactory) -> None:
    with StatusLight() as light:
        light.show(TrayStatus.CAMERA_LOST)
        red = mock_factory.pin(RED)
        assert wait_until(lambda: len(red.states) >= 3)
        assert [state.state for state in red.states[:3]] == [0, 1.0, 0.0]
        mock_factory.pin(GREEN).assert_states([0])


def test_rolling_breathes_blue(mock_factory: MockFactory) -> None:
    with StatusLight() as light:
        light.show(TrayStatus.ROLLING)
        blue = mock_factory.pin(BLUE)
        # A fade passes through levels between off and full.
        assert wait_until(lambda: any(0.0 < state.state < 1.0 for state in blue.states))
        mock_factory.pin(RED).assert_states([0])


def test_showing_the_same_status_again_does_not_restart_the_pattern(mock_factory: MockFactory) -> None:
    with StatusLight() as light:
        light.show(TrayStatus.WAITING_FOR_INPUT)
        thread = light._led._blink_thread
        light.show(TrayStatus.WAITING_FOR_INPUT)
        assert light._led._blink_thread is thread
        light.show(TrayStatus.ABILITY_READY)  # a steady colour stops the breathing
        assert light._led._blink_thread is None
        assert rgb(mock_factory) == (0.0, 1.0, 0.0)


def test_close_turns_off_and_releases_the_pins(mock_factory: MockFactory) -> None:
    light = StatusLight()
    light.show(TrayStatus.REROLL_DIE)
    light.close()
    assert rgb(mock_factory) == (0.0, 0.0, 0.0)
    assert light.status is TrayStatus.OFF
    light.close()  # twice is harmless
    with pytest.raises(DeviceClosed, match=r"^the status LED \(red GPIO17, green GPIO27, blue GPIO22\) is closed$"):
        light.show(TrayStatus.ERROR)
    StatusLight().close()  # the pins are free again


def test_common_anode_inverts_the_pins(mock_factory: MockFactory) -> None:
    with StatusLight(active_high=False) as light:
        light.show(TrayStatus.ABILITY_READY)
        assert rgb(mock_factory) == (1.0, 0.0, 1.0)
        assert light.color == (0.0, 1.0, 0.0)


def test_custom_wiring_and_patterns(mock_factory: MockFactory) -> None:
    patterns = dict(STATUS_PATTERNS) | {TrayStatus.ERROR: LightPattern((1.0, 0.0, 1.0))}
    with StatusLight(5, 6, 13, patterns=patterns) as light:
        light.show(TrayStatus.ERROR)
        assert [mock_factory.pin(pin).state for pin in (5, 6, 13)] == [1.0, 0.0, 1.0]
        assert repr(light) == "<StatusLight red=5, green=6, blue=13 showing ERROR>"
    with pytest.raises(LightSettingError, match="^no light pattern for CAMERA_LOST$"):
        StatusLight(patterns={status: STATUS_PATTERNS[status] for status in TrayStatus if status.name != "CAMERA_LOST"})


def test_busy_pin_names_the_pin_and_its_job(mock_factory: MockFactory) -> None:
    with LED(GREEN):
        with pytest.raises(PinBusy) as caught:
            StatusLight()
    message = str(caught.value)
    assert message.startswith("GPIO27 (status LED green) is busy: pin GPIO27 is already in use by <gpiozero.LED")
    assert isinstance(caught.value, HardwareError) and isinstance(caught.value, RuntimeError)
    # The pins the failed attempt took first are not left reserved.
    StatusLight().close()


@pytest.mark.parametrize("held", [(GREEN,), (RED, BLUE)])
def test_pin_held_by_another_program_is_found_and_named(
    held_elsewhere: Callable[..., MockFactory], held: tuple[int, ...]
) -> None:
    with pytest.raises(PinBusy) as caught:
        StatusLight(pin_factory=held_elsewhere(*held))
    jobs = {RED: "red", GREEN: "green", BLUE: "blue"}
    where = ", ".join(f"GPIO{pin} (status LED {jobs[pin]})" for pin in held)
    assert str(caught.value) == f"{where} is busy: another program holds it ('GPIO busy'); is the tray already running?"


def test_tray_light_pin_held_by_another_program(held_elsewhere: Callable[..., MockFactory]) -> None:
    with pytest.raises(PinBusy) as caught:
        TrayLight(pin_factory=held_elsewhere(STRIP))
    assert str(caught.value) == (
        "GPIO18 (tray light strip) is busy: another program holds it ('GPIO busy'); is the tray already running?"
    )


def test_other_pin_errors_pass_through_untouched() -> None:
    class BrokenPin(MockPWMPin):  # type: ignore[misc]
        def __init__(self, factory: MockFactory, info: object) -> None:
            raise OSError("'bad handle'")

    factory = MockFactory(pin_class=BrokenPin)
    try:
        with pytest.raises(OSError, match="bad handle"):
            TrayLight(pin_factory=factory)
    finally:
        factory.reset()


def test_bad_pin_is_quoted(mock_factory: MockFactory) -> None:
    with pytest.raises(BadPin) as caught:
        StatusLight(red=99)
    assert str(caught.value) == "status LED (red GPIO99, green GPIO27, blue GPIO22): 99 is not a valid pin name"
    assert isinstance(caught.value, ValueError)


@pytest.mark.skipif(Path("/proc/device-tree/model").exists(), reason="a board with real GPIO loads a pin factory")
@pytest.mark.filterwarnings("ignore::gpiozero.PinFactoryFallback")
def test_no_gpio_on_this_machine_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    with pytest.raises(GpioUnavailable, match=r'^tray light: no GPIO on this machine \(.*set gpio = "mock" in the config'):
        TrayLight()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"color": (2.0, 0.0, 0.0)}, "a colour is three values from 0 to 1, got (2.0, 0.0, 0.0)"),
        ({"color": (1.0, 0.0, 0.0), "kind": "strobe"}, "pattern kind must be steady, blink or pulse, got 'strobe'"),
        ({"color": (1.0, 0.0, 0.0), "kind": "blink"}, "a blink needs on_time and off_time above 0, got 0.0, 0.0"),
    ],
)
def test_light_pattern_checks_its_values(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(LightSettingError) as caught:
        LightPattern(**kwargs)  # type: ignore[arg-type]
    assert str(caught.value) == message


# --- tray light --------------------------------------------------------------------------------


def test_tray_light_dims_by_pwm(mock_factory: MockFactory) -> None:
    with TrayLight(brightness=0.8) as light:
        assert mock_factory.pin(STRIP).frequency == 1000
        light.brightness = 0.25
        light.off()
        light.on()
        assert light.brightness == 1.0
        assert repr(light) == "<TrayLight pin=18 brightness=1.00>"
    mock_factory.pin(STRIP).assert_states([0, 0.8, 0.25, 0.0, 1.0, 0.0])


def test_tray_light_brightness_out_of_range(mock_factory: MockFactory) -> None:
    with TrayLight() as light:
        with pytest.raises(LightSettingError, match=r"^tray light brightness must be from 0 to 1, got 1.5$"):
            light.brightness = 1.5
        assert light.brightness == 0.0
    with pytest.raises(LightSettingError, match="got -0.1"):
        TrayLight(brightness=-0.1)


def test_tray_light_close_is_final(mock_factory: MockFactory) -> None:
    light = TrayLight(brightness=0.5)
    light.close()
    light.close()
    assert light.brightness == 0.0 and mock_factory.pin(STRIP).state == 0
    with pytest.raises(DeviceClosed, match=r"^the tray light \(GPIO18\) is closed$"):
        light.on()


def test_tray_light_pin_busy(mock_factory: MockFactory) -> None:
    with StatusLight(red=STRIP):
        with pytest.raises(PinBusy, match=r"^GPIO18 \(tray light strip\) is busy: pin GPIO18 is already in use by"):
            TrayLight()


def test_injected_factory_needs_no_global_state() -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    try:
        with TrayLight(pin_factory=factory) as light, StatusLight(pin_factory=factory) as status:
            light.brightness = 0.5
            status.show(TrayStatus.ERROR)
            assert factory.pin(STRIP).state == 0.5 and factory.pin(RED).state == 1.0
    finally:
        factory.reset()
