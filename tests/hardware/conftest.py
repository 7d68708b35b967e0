"""Fixtures for the hardware tests."""

from __future__ import annotations

from collections.abc import Iterator

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
