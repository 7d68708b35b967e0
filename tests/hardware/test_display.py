"""The display backends: luma's real SSD1306/SH1106 drivers on a fake I2C bus, dummy, capture, none."""

from __future__ import annotations

import logging
from pathlib import Path
from unittest.mock import Mock

import pytest
from luma.core.error import DeviceNotFoundError, DevicePermissionError
from PIL import Image, ImageChops

from hardware.display import (
    BadDisplayImage,
    CaptureDisplay,
    Display,
    DisplaySettingError,
    DummyDisplay,
    LumaDisplay,
    NullDisplay,
    UnknownDisplay,
    open_display,
)
from hardware.errors import DisplayUnavailable, HardwareError
from hardware.screens import OFFLINE_SCREEN, DieCell, PlayerStatus, ScreenState, render_screen

SCREEN = render_screen(
    ScreenState(
        title="Ana: Offense",
        attempt=(2, 3),
        players=(PlayerStatus("Ana", 50, 2, active=True), PlayerStatus("Bob", 48, 3)),
        dice=(DieCell("1", keep=True), DieCell.unknown(), DieCell("6")),
        lines=("Sm straight\t67%",),
        prompt="Reroll the marked die",
    )
)
OFFLINE = render_screen(OFFLINE_SCREEN)
DISPLAYOFF = 0xAE

# luma.oled 3.16 still calls Image.getdata(), deprecated in Pillow 13; not ours to fix here.
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")


def same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and ImageChops.logical_xor(a.convert("1"), b.convert("1")).getbbox() is None


def ssd1306_frame(data: list[int]) -> Image.Image:
    """Decode the 1024 bytes an SSD1306 receives back into the picture: 8 pages of 8 rows, LSB on top."""
    assert len(data) == 128 * 64 // 8
    image = Image.new("1", (128, 64))
    for index, byte in enumerate(data):
        page, x = divmod(index, 128)
        for bit in range(8):
            if byte >> bit & 1:
                image.putpixel((x, page * 8 + bit), 1)
    return image


def sh1106_frame(serial: Mock) -> Image.Image:
    """The SH1106 gets one 128-byte data write per page; the last 8 writes are the last frame."""
    pages = [call.args[0] for call in serial.data.call_args_list[-8:]]
    return ssd1306_frame([byte for page in pages for byte in page])


def sent_commands(serial: Mock) -> list[int]:
    return [byte for call in serial.command.call_args_list for byte in call.args]


def test_ssd1306_sends_the_rendered_screen_over_the_bus() -> None:
    serial = Mock(unsafe=True)
    display = LumaDisplay(serial_interface=serial)
    serial.reset_mock()
    display.show(SCREEN)
    assert serial.data.call_count == 1
    assert same(ssd1306_frame(serial.data.call_args.args[0]), SCREEN)
    display.close()


def test_sh1106_sends_the_rendered_screen_page_by_page() -> None:
    serial = Mock(unsafe=True)
    display = LumaDisplay("sh1106", serial_interface=serial)
    serial.reset_mock()
    display.show(SCREEN)
    assert serial.data.call_count == 8
    assert same(sh1106_frame(serial), SCREEN)
    display.close()


def test_rotated_panel_receives_the_turned_picture() -> None:
    serial = Mock(unsafe=True)
    display = LumaDisplay(rotate=2, serial_interface=serial)
    display.show(SCREEN)
    assert same(ssd1306_frame(serial.data.call_args.args[0]), SCREEN.rotate(180))
    display.close()


def test_close_leaves_offline_on_the_panel_and_does_not_switch_it_off() -> None:
    serial = Mock(unsafe=True)
    display = LumaDisplay(serial_interface=serial)
    display.show(SCREEN)
    serial.reset_mock()
    display.close()
    assert same(ssd1306_frame(serial.data.call_args.args[0]), OFFLINE)
    assert DISPLAYOFF not in sent_commands(serial)
    assert display._device.persist is True
    serial.cleanup.assert_called_once_with()
    display.close()  # twice is harmless
    serial.cleanup.assert_called_once_with()
    display.show(SCREEN)  # after close nothing more is sent
    assert serial.data.call_count == 1


def test_missing_bus_names_bus_and_address() -> None:
    # A real luma i2c on a bus that does not exist on this machine.
    with pytest.raises(DisplayUnavailable) as caught:
        LumaDisplay(port=97, address=0x3D)
    assert str(caught.value) == "no ssd1306 display on I2C bus 97 at 0x3D: I2C device not found: /dev/i2c-97"
    assert isinstance(caught.value, HardwareError) and isinstance(caught.value, RuntimeError)


def test_nothing_answering_at_the_address_is_unavailable() -> None:
    serial = Mock(unsafe=True)
    serial.command.side_effect = DeviceNotFoundError("I2C device not found on address: 0x3C")
    with pytest.raises(DisplayUnavailable, match=r"^no sh1106 display on I2C bus 1 at 0x3C: I2C device not found"):
        LumaDisplay("sh1106", serial_interface=serial)


def test_display_missing_falls_back_to_null_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="hardware.display"):
        display = open_display("ssd1306", port=97)
        for _ in range(3):
            display.show(SCREEN)
        display.close()
    assert isinstance(display, NullDisplay)
    assert display.frames_dropped == 3
    assert [record.getMessage() for record in caplog.records] == [
        "no ssd1306 display on I2C bus 97 at 0x3C: I2C device not found: /dev/i2c-97; running without a display"
    ]


def test_display_lost_mid_game_warns_once_and_keeps_going(caplog: pytest.LogCaptureFixture) -> None:
    serial = Mock(unsafe=True)
    display = LumaDisplay(serial_interface=serial)
    serial.data.side_effect = DeviceNotFoundError("I2C device not found on address: 0x3C")
    with caplog.at_level(logging.WARNING, logger="hardware.display"):
        for _ in range(3):
            display.show(SCREEN)
        display.close()
    assert serial.data.call_count == 2  # the init clear and the first lost frame; then nothing
    assert [record.levelname for record in caplog.records] == ["WARNING"]
    assert "ssd1306 display on I2C bus 1 at 0x3C stopped answering" in caplog.records[0].getMessage()


def test_unknown_driver_and_kind() -> None:
    with pytest.raises(UnknownDisplay, match=r"^unknown OLED driver 'ssd1309': choose ssd1306 or sh1106$"):
        LumaDisplay("ssd1309", serial_interface=Mock(unsafe=True))
    with pytest.raises(UnknownDisplay) as caught:
        open_display("lcd")
    assert str(caught.value) == "unknown display kind 'lcd': choose one of ssd1306, sh1106, dummy, capture, none"
    assert isinstance(caught.value, LookupError)


def test_open_display_real_driver_with_given_bus() -> None:
    display = open_display("sh1106", serial_interface=Mock(unsafe=True))
    assert isinstance(display, LumaDisplay) and display.driver == "sh1106"
    assert repr(display) == "LumaDisplay(driver='sh1106', port=1, address=0x3C)"
    display.close()


def test_dummy_keeps_the_last_image_and_shows_offline_on_close() -> None:
    display = DummyDisplay()
    assert display.image is None
    display.show(SCREEN)
    assert display.image is not None and same(display.image, SCREEN)
    display.close()
    assert same(display.image, OFFLINE)
    assert display.frames_shown == 2


def test_capture_writes_numbered_pngs(tmp_path: Path) -> None:
    out = tmp_path / "frames"
    display = CaptureDisplay(out)
    display.show(SCREEN)
    display.show(OFFLINE)
    display.close()
    assert sorted(path.name for path in out.iterdir()) == ["frame_000001.png", "frame_000002.png", "frame_000003.png"]
    first = Image.open(out / "frame_000001.png")
    assert first.mode == "1" and same(first, SCREEN)
    assert same(Image.open(out / "frame_000003.png"), OFFLINE)


def test_capture_never_overwrites_earlier_frames(tmp_path: Path) -> None:
    first = CaptureDisplay(tmp_path, offline_on_close=False)
    first.show(SCREEN)
    first.close()
    second = CaptureDisplay(tmp_path, scale=2, offline_on_close=False)
    second.show(OFFLINE)
    assert second.paths == [tmp_path / "frame_000002.png"]
    enlarged = Image.open(second.paths[0])
    assert enlarged.size == (256, 128) and same(enlarged.resize((128, 64), Image.Resampling.NEAREST), OFFLINE)
    assert same(Image.open(tmp_path / "frame_000001.png"), SCREEN)


def test_capture_can_replace_an_earlier_run(tmp_path: Path) -> None:
    first = CaptureDisplay(tmp_path)
    for _ in range(3):
        first.show(SCREEN)
    first.close()
    (tmp_path / "notes.txt").write_text("keep me")
    second = open_display("capture", directory=tmp_path, replace_existing=True)
    second.show(OFFLINE)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["frame_000001.png", "notes.txt"]
    assert same(Image.open(tmp_path / "frame_000001.png"), OFFLINE)


def test_permission_denied_on_the_bus_says_what_to_do() -> None:
    serial = Mock(unsafe=True)
    serial.command.side_effect = DevicePermissionError("I2C device permission denied: /dev/i2c-1")
    with pytest.raises(DisplayUnavailable) as caught:
        LumaDisplay(serial_interface=serial)
    assert str(caught.value) == (
        "no ssd1306 display on I2C bus 1 at 0x3C: I2C device permission denied: /dev/i2c-1 (add the user to the i2c group)"
    )


def test_capture_into_an_unusable_folder_names_it(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(DisplayUnavailable, match=r"cannot write display frames to '.*not-a-folder/out'"):
        CaptureDisplay(blocker / "out")
    with pytest.raises(DisplaySettingError, match="needs a directory"):
        open_display("capture")
    with pytest.raises(DisplaySettingError, match="scale must be 1 or more, got 0"):
        CaptureDisplay(tmp_path, scale=0)


def test_wrong_image_size_is_refused_and_other_modes_converted() -> None:
    display = DummyDisplay()
    with pytest.raises(BadDisplayImage) as caught:
        display.show(Image.new("1", (128, 32)))
    assert str(caught.value) == "the display is 128x64, got a 128x32 image"
    assert isinstance(caught.value, ValueError)
    display.show(SCREEN.convert("L"))
    assert display.image is not None and display.image.mode == "1" and same(display.image, SCREEN)


def test_every_backend_is_a_display(tmp_path: Path) -> None:
    backends = [LumaDisplay(serial_interface=Mock(unsafe=True)), DummyDisplay(), CaptureDisplay(tmp_path), NullDisplay()]
    for backend in backends:
        assert isinstance(backend, Display)
        assert backend.size == (128, 64)
        backend.close()
    assert open_display("none").size == (128, 64)
    assert isinstance(open_display("dummy"), DummyDisplay)
