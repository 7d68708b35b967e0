"""How long a screen takes from state to the display's bus: part of the settle-to-display latency."""

from __future__ import annotations

from unittest.mock import Mock

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from hardware.display import LumaDisplay
from hardware.screens import DieCell, PlayerStatus, ScreenState, render_screen

BUSY_SCREEN = ScreenState(
    title="Ana: Offense",
    attempt=(1, 3),
    players=(PlayerStatus("Ana", 50, 2, active=True), PlayerStatus("Bob", 48, 3)),
    dice=(DieCell("AXE"), DieCell("AXE"), DieCell("AXE"), DieCell.unknown(), DieCell("POW")),
    lines=("Fortitude\t3x AXE", "Crit Bash\t2x HRT", "Best: Fortitude 6"),
    selected=0,
    prompt="Reroll the marked die",
)


def test_render_screen_speed(benchmark: BenchmarkFixture) -> None:
    image = benchmark(render_screen, BUSY_SCREEN)
    assert image.size == (128, 64)


@pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")
@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_oled_frame_encoding_speed(benchmark: BenchmarkFixture, driver: str) -> None:
    # The bus is fake, so this is luma's packing of the image into bytes; the I2C transfer itself
    # adds about 25 ms at 400 kHz on the Pi.
    serial = Mock(unsafe=True)
    display = LumaDisplay(driver, serial_interface=serial)
    image = render_screen(BUSY_SCREEN)
    benchmark(display.show, image)
    assert serial.data.called
    display.close()
