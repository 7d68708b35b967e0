"""The service with the table app: the page sees the game from the game model, its events as they
happen, and its button presses reach the game on the service's thread."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from websockets.sync.client import connect

from firmware_host.web import Pairing, TrayWeb
from hardware.camera import ReplaySource
from tests.service.test_service import step_until


def test_the_page_sees_the_game_and_its_presses_play_it(make_service, replay_scenes: Path) -> None:
    web = TrayWeb("127.0.0.1", 0, pairing=Pairing(pin="123456"))
    web.start()
    service = make_service(lambda: ReplaySource(replay_scenes), live=web)
    service.start()
    base = f"http://127.0.0.1:{web.port}"
    with httpx.Client(base_url=base, timeout=10) as http, connect(f"ws://127.0.0.1:{web.port}/api/v1/stream") as stream:
        assert json.loads(stream.recv(timeout=5))["type"] == "hello"
        step_until(service, lambda: service.stats.readings == 1)
        state = http.get("/api/v1/state").json()
        players = state["table"]["game"]["players"]
        assert [p["name"] for p in players] == ["Ana", "Ben"]
        assert players[0]["health"] > 0 and "cp" in players[0] and "statuses" in players[0]
        kinds = set()
        while "reading" not in kinds:
            kinds.add(json.loads(stream.recv(timeout=5))["type"])
        step_before = state["table"]["step"]
        token = http.post("/api/v1/pair", json={"pin": "123456"}).json()["token"]
        presses = service.stats.buttons
        assert http.post("/api/v1/buttons", json={"button": "back"}, headers={"Authorization": f"Bearer {token}"}).status_code == 202
        step_until(service, lambda: service.stats.buttons > presses)
        assert service.stats.buttons == presses + 1
        assert step_before  # the flow took the press on its own thread (a BACK: undo or nothing)
    service.close()
    assert web.closed


def test_the_pin_goes_on_the_tray_display_while_a_phone_pairs(make_service, replay_scenes: Path) -> None:
    web = TrayWeb("127.0.0.1", 0, pairing=Pairing(pin="987654"))
    web.start()
    service = make_service(lambda: ReplaySource(replay_scenes), live=web)
    service.start()
    service.step()
    assert service._shown_screen is not None and service._shown_screen.banner != "PIN 987654"
    web.show_pin()
    service.step()
    assert service._shown_screen.banner == "PIN 987654"
    assert service._shown_screen.lines == (f"127.0.0.1:{web.port}",)  # where the page is
    # The page goes on seeing the game, not the PIN screen, and every change of it.
    before = json.loads(web.state_json())
    assert before["screen"]["banner"] != "PIN 987654"
    from hardware.buttons import ButtonEvent

    web.press(ButtonEvent.SELECT)
    service.step()
    after = json.loads(web.state_json())
    assert after["table"]["selected"] != before["table"]["selected"]
    web.show_pin(seconds=-1)
    service.step()
    assert service._shown_screen.banner != "PIN 987654"
    service.close()
