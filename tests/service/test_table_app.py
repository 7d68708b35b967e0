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
    assert service.shown_screen is not None and service.shown_screen.banner != "PIN 987654"
    web.show_pin()
    service.step()
    assert service.shown_screen.banner == "PIN 987654"
    assert service.shown_screen.lines[:2] == ("127.0.0.1", f":{web.port}")  # where the page is
    assert service.shown_screen.qr == web.url
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
    assert service.shown_screen.banner != "PIN 987654"
    service.close()


def test_a_roll_log_not_saved_still_says_so_while_the_pin_is_shown(make_service, fake_clock, tmp_path: Path) -> None:
    from firmware_host.rolllog import RollLog
    from hardware.camera import SimulatedTraySource
    from tests.service.test_service import press_until_roll

    blocker = tmp_path / "state"
    blocker.write_text("a file where the folder should be")
    sim = SimulatedTraySource(8, auto_roll=False, hold_s=0.5)
    web = TrayWeb("127.0.0.1", 0, pairing=Pairing(pin="246810"))
    web.start()
    service = make_service(
        lambda: sim, roll_log=RollLog(blocker / "rolls.sqlite3"), clock=fake_clock, sleep=fake_clock.sleep,
        roll_log_grace_s=60.0, live=web,
    )  # fmt: skip
    service.start()
    press_until_roll(service)
    sim.roll([6, 6, 6, 6, 6])
    step_until(service, lambda: service.stats.readings == 1)
    assert service.shown_screen is not None and service.shown_screen.prompt == "LOG NOT SAVED"
    web.show_pin()
    service.step()
    assert service.shown_screen.banner == "PIN 246810"
    assert service.shown_screen.prompt == "LOG NOT SAVED"  # pairing does not hide the unsaved log
    assert json.loads(web.state_json())["screen"]["prompt"] == "LOG NOT SAVED"  # nor does the page
    service.close()


def test_the_table_app_the_service_builds_answers_the_configured_names_only(pins, tmp_path: Path) -> None:
    from tests.service.conftest import table_app_service

    service = table_app_service(pins, tmp_path, 'names = ["dice.example.net"]\n')
    try:
        assert isinstance(service.live, TrayWeb)
        with httpx.Client(base_url=f"http://127.0.0.1:{service.live.port}", timeout=10) as http:
            assert http.get("/api/v1/state", headers={"Host": "dice.example.net:8080"}).status_code == 200
            assert http.get("/api/v1/state", headers={"Host": "other.example.net"}).status_code == 421
    finally:
        service.close()
