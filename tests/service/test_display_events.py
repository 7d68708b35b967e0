"""The display and the LED are subscribers of the service's event stream: an event that says
something changed redraws them, and nothing else does (counted on luma's dummy device)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from firmware_host.events import TrayEvent, TrayEventKind
from firmware_host.presenters import pairing_screen
from firmware_host.service import phone_url
from firmware_host.web import Pairing, TrayWeb
from hardware.buttons import ButtonEvent
from hardware.camera import SimulatedTraySource
from hardware.lights import TrayStatus
from hardware.screens import render_screen
from tests.service.test_service import press_until_roll, same_image, step_until


def decoded_qr(image: Image.Image) -> str:
    """What a QR reader makes of the display's image, enlarged 4 times as a camera would see it.
    OpenCV's first QR reader misses about one valid code in 400 (a matter of the code's pattern,
    here the URL's port); its second reader, where this OpenCV has one, reads those."""
    pixels = np.array(image.convert("L").resize((image.width * 4, image.height * 4), Image.Resampling.NEAREST))
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(pixels)
    if not text and hasattr(cv2, "QRCodeDetectorAruco"):
        text, _, _ = cv2.QRCodeDetectorAruco().detectAndDecode(pixels)
    return str(text)


def test_no_event_no_redraw_and_an_event_shows_the_new_screen(make_service) -> None:
    sim = SimulatedTraySource(5, auto_roll=False, hold_s=0.5)
    service = make_service(lambda: sim)
    service.start()
    drawn = service.display.frames_shown
    for _ in range(30):  # frames of a still, empty tray: nothing happened
        service.step()
    assert service.display.frames_shown == drawn
    before = service.display.image.copy()
    # The game changes without telling the stream: the display keeps what it had...
    events = service.flow.on_button(ButtonEvent.SELECT)
    for _ in range(5):
        service.step()
    assert service.display.frames_shown == drawn
    assert same_image(service.display.image, before)
    assert not same_image(render_screen(service.flow.screen()), before)
    # ...until an event says so: then the new screen, drawn once.
    service.events.publish(TrayEvent(TrayEventKind.PRESSED, {"button": "select"}))
    assert service.display.frames_shown == drawn + 1
    assert same_image(service.display.image, render_screen(service.flow.screen()))
    assert service.shown_screen == service.flow.screen()
    del events


def test_a_roll_read_redraws_the_display_and_the_led_follows(make_service) -> None:
    sim = SimulatedTraySource(6, auto_roll=False, hold_s=0.5)
    service = make_service(lambda: sim)
    service.start()
    press_until_roll(service)
    drawn = service.display.frames_shown
    seen: list[object] = []
    service.events.subscribe(seen.append)
    sim.roll([2, 2, 2, 5, 6])
    step_until(service, lambda: service.stats.readings == 1)
    kinds = [getattr(event, "kind", None) for event in seen]
    assert TrayEventKind.READ in kinds
    assert service.display.frames_shown > drawn
    assert same_image(service.display.image, render_screen(service.flow.screen()))
    assert service.light.status is service.flow.status()


def test_tray_events_reach_no_game_output(make_service) -> None:
    """The roll log, the journal and the table app record the game; a tray event is not a row."""
    sim = SimulatedTraySource(7, auto_roll=False, hold_s=0.5)
    service = make_service(lambda: sim)
    service.start()
    service.events.publish(TrayEvent(TrayEventKind.CAMERA_LOST, {"reason": "unplugged"}))
    assert service.shown_screen is not None and service.shown_screen.banner == "CAMERA LOST"
    assert service.light.status is TrayStatus.CAMERA_LOST
    service.events.publish(TrayEvent(TrayEventKind.CAMERA_BACK))
    assert service.shown_screen == service.flow.screen()
    assert service.roll_log.scores() == [] and service.roll_log.corrections() == []


def test_the_pin_screen_shows_the_address_and_a_qr_code_that_scans_to_it(make_service) -> None:
    web = TrayWeb("127.0.0.1", 0, pairing=Pairing(pin="135790"))
    web.start()
    sim = SimulatedTraySource(9, auto_roll=False, hold_s=0.5)
    service = make_service(lambda: sim, live=web)
    service.start()
    assert service.shown_screen is not None and service.shown_screen.qr == ""
    web.show_pin()
    service.step()
    assert service.shown_screen == pairing_screen("135790", web.url)
    assert service.shown_screen.banner == "PIN 135790"
    assert service.shown_screen.lines[:2] == ("127.0.0.1", f":{web.port}")
    assert decoded_qr(service.display.image) == web.url
    # The page goes on seeing the game's screen, not the PIN.
    assert json.loads(web.state_json())["screen"]["qr"] == ""
    web.show_pin(seconds=-1)
    service.step()
    assert service.shown_screen == service.flow.screen()
    service.close()


def test_the_pairing_screen_at_the_start_goes_with_the_first_press(make_service) -> None:
    web = TrayWeb("127.0.0.1", 0, pairing=Pairing(pin="112233"))
    web.start()
    sim = SimulatedTraySource(10, auto_roll=False, hold_s=0.5)
    service = make_service(lambda: sim, live=web, pairing_at_start_s=30.0)
    service.start()
    assert service.shown_screen is not None and service.shown_screen.banner == "PIN 112233"
    step_before = service.flow.step
    selected_before = service.flow.selected
    service.buttons.press(ButtonEvent.NEXT)
    service.step()
    # The press took the screen down and did nothing else: the game is where it was.
    assert service.shown_screen == service.flow.screen()
    assert (service.flow.step, service.flow.selected) == (step_before, selected_before)
    service.buttons.press(ButtonEvent.SELECT)
    service.step()
    assert service.flow.selected != selected_before  # the next press plays
    service.close()


class _Web:
    """What the service reads of the table app's addresses."""

    def __init__(self, *urls: str) -> None:
        self.urls = list(urls)


def test_the_phone_gets_an_ip_address_it_can_open() -> None:
    assert phone_url(_Web("http://tray.local:8080/", "http://192.168.1.23:8080/")) == "http://192.168.1.23:8080/"
    assert phone_url(_Web("http://127.0.0.1:8080/")) == "http://127.0.0.1:8080/"
    assert phone_url(_Web("http://tray.local:8080/", "http://127.0.0.1:8080/")) == "http://tray.local:8080/"
    assert phone_url(_Web()) == "" and phone_url(None) == ""


def test_dicetray_run_with_the_table_app_starts_on_the_pairing_screen(pins, tmp_path: Path) -> None:
    from tests.service.conftest import table_app_service

    service = table_app_service(pins, tmp_path)
    try:
        service.start()
        url = phone_url(service.live)
        assert url == f"http://127.0.0.1:{service.live.port}/"
        assert service.shown_screen == pairing_screen(service.live.pairing.pin, url)
        assert decoded_qr(service.display.image) == url
    finally:
        service.close()
