"""Fixtures for the hardware tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """A fresh gpiozero mock pin factory (PWM-capable pins) per test; the previous one is restored after.

    It is also installed as the default factory, so devices made without ``pin_factory=`` use it too.
    """
    previous = Device.pin_factory
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()  # releases every reserved pin, so a leaked device cannot block the next test
        Device.pin_factory = previous


class LgpioError(Exception):
    """Stands in for ``lgpio.error``, the bare Exception subclass lgpio raises."""


@pytest.fixture
def held_elsewhere() -> Iterator[Callable[..., MockFactory]]:
    """Makes mock pin factories whose given BCM pins are held by another process.

    Claiming one of them raises ``'GPIO busy'`` the way lgpio does on the Pi when, say, a second
    copy of the tray is running; gpiozero passes that error through unchanged.
    """
    factories: list[MockFactory] = []

    def make(*numbers: int) -> MockFactory:
        names = {f"GPIO{number}" for number in numbers}

        class HeldPin(MockPWMPin):  # type: ignore[misc]
            def __init__(self, factory: MockFactory, info: object) -> None:
                if getattr(info, "name", None) in names:
                    raise LgpioError("'GPIO busy'")
                super().__init__(factory, info)

        factory = MockFactory(pin_class=HeldPin)
        factories.append(factory)
        return factory

    try:
        yield make
    finally:
        for factory in factories:
            factory.reset()
