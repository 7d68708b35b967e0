"""The QR code of the table app's address on the 128x64 display: it fits, and it scans (OpenCV's
QR reader on the drawn screen, enlarged 4 times as a phone's camera would see it)."""

from __future__ import annotations

import doctest

import cv2
import numpy as np
import pytest
from PIL import Image

import hardware.qr
from firmware_host.presenters import pairing_screen
from hardware.qr import qr_image, qr_modules, qr_version
from hardware.screens import HEIGHT, InvalidScreenState, ScreenState, render_screen
from tests.hardware.test_screens import assert_same_image


def decoded(image: Image.Image) -> str:
    pixels = np.array(image.convert("L").resize((image.width * 4, image.height * 4), Image.Resampling.NEAREST))
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(pixels)
    return str(text)


def test_a_typical_address_is_a_version_2_code_at_2_pixels_a_module() -> None:
    url = "http://192.168.1.23:8080/"
    assert qr_version(url) == 2 and len(qr_modules(url)) == 25
    image = qr_image(url)
    assert image.size == (62, 62) and image.height <= HEIGHT  # 25 modules and 3 of quiet zone, twice
    assert image.getpixel((0, 0)) == 1 and image.getpixel((6, 6)) == 0  # lit margin, dark finder


@pytest.mark.parametrize(
    "url",
    [
        "http://192.168.1.23:8080/",
        "http://192.168.100.200:8080/",
        "http://dicetray.local:8080/",  # version 3: 29 modules, still 2 pixels each
        "http://127.0.0.1:40123/",
        "http://[fd12:3456:789a::1]:8080/",
    ],
)
def test_the_pairing_screen_scans_to_its_address(url: str) -> None:
    image = render_screen(pairing_screen("123456", url))
    assert decoded(image) == url


def test_a_longer_text_falls_back_to_1_pixel_a_module_and_still_scans() -> None:
    url = "http://dice-tray-in-the-games-room.local:8080/"
    assert len(qr_modules(url)) > 29
    image = qr_image(url)
    assert image.height <= HEIGHT
    assert decoded(render_screen(pairing_screen("123456", url))) == url


def test_text_too_long_for_the_screen_is_refused_with_its_size() -> None:
    with pytest.raises(ValueError, match="needs a QR code of 77 modules, more than 62 pixels hold"):
        qr_image("x" * 400)
    with pytest.raises(InvalidScreenState, match="needs a QR code of 77 modules"):
        ScreenState(qr="x" * 400)


def test_the_pairing_screen_matches_its_reference(tmp_path) -> None:
    assert_same_image(render_screen(pairing_screen("987654", "http://192.168.1.23:8080/")), "pairing", tmp_path)


def test_the_docstring_example_runs() -> None:
    failed, attempted = doctest.testmod(hardware.qr, verbose=False)
    assert attempted > 0 and failed == 0
