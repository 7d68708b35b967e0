"""The REST API, the event stream and the camera against the real server (uvicorn on a socket)."""

from __future__ import annotations

import json
import socket
import time

import httpx
import numpy as np
import pytest
from websockets.sync.client import connect

from firmware_host.web.server import PortInUse
from firmware_host.transcript import FlowEvent, FlowEventKind
from firmware_host.web import Pairing, TrayWeb
from firmware_host.web.access import HostCheck, host_name
from hardware.buttons import ButtonEvent


def test_the_api_says_its_version_and_describes_itself_in_openapi(client: httpx.Client) -> None:
    index = client.get("/api/v1").json()
    assert index["api_version"] == "1"
    spec = client.get(index["openapi"]).json()
    assert spec["openapi"].startswith("3.1")
    assert {"/api/v1/state", "/api/v1/pair", "/api/v1/buttons", "/api/v1/stream"} <= set(spec["paths"])
    assert spec["paths"]["/api/v1/buttons"]["post"]["security"] == [{"pairedToken": []}]


def test_a_write_without_pairing_is_refused_and_a_paired_one_reaches_the_game(web: TrayWeb, client: httpx.Client, token: str) -> None:
    refused = client.post("/api/v1/buttons", json={"button": "next"})
    assert refused.status_code == 401
    assert "pair" in refused.json()["error"]
    assert list(web.drain()) == []
    wrong = client.post("/api/v1/buttons", json={"button": "next"}, headers={"Authorization": "Bearer not-a-token"})
    assert wrong.status_code == 401
    ok = client.post("/api/v1/buttons", json={"button": "select-held"}, headers={"Authorization": f"Bearer {token}"})
    assert ok.status_code == 202
    assert list(web.drain()) == [ButtonEvent.SELECT_HELD]


def test_a_wrong_pin_gets_no_token_and_five_in_a_row_draw_a_new_pin(web: TrayWeb, client: httpx.Client) -> None:
    for _ in range(5):
        assert client.post("/api/v1/pair", json={"pin": "000000"}).status_code == 403
    assert web.pairing.pin != "424242"
    assert client.post("/api/v1/pair", json={"pin": "424242"}).status_code == 403
    assert client.post("/api/v1/pair", json={"pin": web.pairing.pin}).status_code == 201


def test_a_write_from_another_site_is_refused_even_with_a_token(client: httpx.Client, token: str, web: TrayWeb) -> None:
    headers = {"Authorization": f"Bearer {token}", "Origin": "http://evil.example"}
    response = client.post("/api/v1/buttons", json={"button": "next"}, headers=headers)
    assert response.status_code == 403
    assert "another site" in response.json()["error"]
    own = {"Authorization": f"Bearer {token}", "Origin": f"http://127.0.0.1:{web.port}"}
    assert client.post("/api/v1/buttons", json={"button": "next"}, headers=own).status_code == 202


def test_an_unknown_host_name_is_refused_against_dns_rebinding(client: httpx.Client) -> None:
    response = client.get("/api/v1/state", headers={"Host": "attacker.example"})
    assert response.status_code == 421
    assert client.get("/api/v1/state", headers={"Host": "localhost:8080"}).status_code == 200
    assert client.get("/api/v1/state", headers={"Host": "192.168.1.20:8080"}).status_code == 200


def test_host_names_are_read_without_port_or_trailing_dot() -> None:
    assert host_name("[::1]:8080") == "::1"
    assert host_name("Tray.local.:80") == "tray.local"
    check = HostCheck(names=("dice.lan",), machine="pi")
    assert check.allows_host("pi.local") and check.allows_host("DICE.LAN:8080") and check.allows_host("10.0.0.2")
    assert not check.allows_host("pi.local.evil.example")


def test_a_body_over_the_limit_is_refused_before_the_route_reads_it(client: httpx.Client, token: str, web: TrayWeb) -> None:
    big = json.dumps({"button": "next", "pad": "x" * (web.max_body_bytes + 10)})
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    assert client.post("/api/v1/buttons", content=big, headers=headers).status_code == 413

    def chunks():  # no Content-Length: chunked, counted as it arrives
        for _ in range(40):
            yield b"x" * 1024

    assert client.post("/api/v1/buttons", content=chunks(), headers=headers).status_code == 413
    assert list(web.drain()) == []


def test_bad_bodies_are_named(client: httpx.Client, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    assert "not JSON" in client.post("/api/v1/buttons", content=b"{", headers=headers).json()["error"]
    assert "press takes a button" in client.post("/api/v1/buttons", json={"button": "jump"}, headers=headers).json()["error"]


def test_the_event_stream_says_hello_then_pushes_state_readings_and_game_events(web: TrayWeb) -> None:
    web.publish_state({"status": "ready", "table": {"step": "prompt"}})
    with connect(f"ws://127.0.0.1:{web.port}/api/v1/stream") as stream:
        hello = json.loads(stream.recv(timeout=5))
        assert hello["type"] == "hello"
        assert hello["data"]["state"]["table"] == {"step": "prompt"}
        web.on_event(FlowEvent(FlowEventKind.ROLL, "Ana rolls 1 2 3 4 5", {"dice": [1, 2, 3, 4, 5]}))
        pushed = json.loads(stream.recv(timeout=5))
        assert pushed == {"type": "event", "data": {"kind": "roll", "text": "Ana rolls 1 2 3 4 5", "data": {"dice": [1, 2, 3, 4, 5]}}}
        from vision.types import DieReading, DieStatus, FrameReading

        die = DieReading(value=3, confidence=0.9, box=(10, 20, 30, 30), status=DieStatus.OK)
        web.publish_frame(np.zeros((240, 320, 3), np.uint8), FrameReading(dice=(die,)))
        reading = json.loads(stream.recv(timeout=5))
        assert reading["type"] == "reading"
        assert reading["data"]["width"] == 320 and reading["data"]["reading"]["dice"][0]["value"] == 3


def test_a_stream_client_too_far_behind_is_dropped_and_others_go_on(web: TrayWeb) -> None:
    # The slow client is a bare socket that upgrades and then reads nothing; the quick one reads
    # everything. The slow one's send blocks once the socket buffers are full, its queue fills,
    # and it alone is dropped.
    slow = socket.create_connection(("127.0.0.1", web.port))
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.sendall(
        b"GET /api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    try:
        with connect(f"ws://127.0.0.1:{web.port}/api/v1/stream") as quick:
            quick.recv(timeout=5)
            payload = "x" * 4000
            for index in range(20_000):
                web.on_event(FlowEvent(FlowEventKind.PROMPT, f"{index} {payload}"))
                quick.recv(timeout=5)
                if web.slow_dropped:
                    break
            assert web.slow_dropped == 1
            web.on_event(FlowEvent(FlowEventKind.PROMPT, "still here"))
            assert "still here" in quick.recv(timeout=5)
    finally:
        slow.close()


def test_the_camera_streams_as_mjpeg_and_snapshots(web: TrayWeb, client: httpx.Client) -> None:
    assert client.get("/api/v1/camera/snapshot.jpg").status_code == 503
    web.publish_frame(np.full((120, 160, 3), 90, np.uint8))
    snap = client.get("/api/v1/camera/snapshot.jpg")
    assert snap.headers["content-type"] == "image/jpeg" and snap.content[:2] == b"\xff\xd8"
    with client.stream("GET", "/api/v1/camera/stream.mjpg") as stream:
        assert stream.headers["content-type"].startswith("multipart/x-mixed-replace")
        got = b""
        for chunk in stream.iter_bytes():
            got += chunk
            if got.count(b"\xff\xd9") >= 1:
                break
        assert got.startswith(b"--dicetrayframe") and b"\xff\xd8" in got


def test_a_stalled_viewer_gives_way_to_a_new_one(tmp_path) -> None:
    web = TrayWeb("127.0.0.1", 0, stream_clients=1, keepalive_s=0.2, write_timeout_s=30)
    web.start()
    try:
        big = np.random.default_rng(0).integers(0, 255, (720, 960, 3), dtype=np.uint8)  # ~500 KB JPEGs
        stalled = socket.create_connection(("127.0.0.1", web.port))
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.sendall(b"GET /api/v1/camera/stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(slot.stalled(time.monotonic()) for slot in list(web.streams)):
            web.publish_frame(big)
            time.sleep(0.1)
        assert web.streams and web.streams[0].stalled(time.monotonic())
        with httpx.Client(base_url=f"http://127.0.0.1:{web.port}", timeout=10) as http:
            with http.stream("GET", "/api/v1/camera/stream.mjpg") as fresh:
                assert fresh.status_code == 200
        assert web.stalled_dropped == 1
        stalled.close()
    finally:
        web.close()


def test_a_connection_that_sends_no_request_is_closed_after_the_request_timeout() -> None:
    web = TrayWeb("127.0.0.1", 0, request_timeout_s=0.3)
    web.start()
    try:
        silent = socket.create_connection(("127.0.0.1", web.port))
        silent.settimeout(10)
        silent.sendall(b"GET /api/v1 HTTP/1.1\r\nHo")  # never finished
        assert silent.recv(100) == b""  # closed by the server
        silent.close()
    finally:
        web.close()


def test_a_taken_port_is_named() -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        with pytest.raises(PortInUse, match=str(port)):
            TrayWeb("127.0.0.1", port).start()


def test_reading_can_be_made_to_need_pairing_too() -> None:
    web = TrayWeb("127.0.0.1", 0, read_needs_pairing=True, pairing=Pairing(pin="111111"))
    web.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{web.port}", timeout=10) as http:
            assert http.get("/api/v1/state").status_code == 401
            token = http.post("/api/v1/pair", json={"pin": "111111"}).json()["token"]
            assert http.get("/api/v1/state", headers={"Authorization": f"Bearer {token}"}).status_code == 200
            assert http.get(f"/api/v1/state?token={token}").status_code == 200
    finally:
        web.close()


def test_a_wildcard_host_logs_addresses_a_person_can_open() -> None:
    from firmware_host.web import tray_urls

    urls = tray_urls("0.0.0.0", 8080)
    assert urls and not any("0.0.0.0" in url for url in urls)
    assert urls[0].endswith(".local:8080/")
    assert tray_urls("127.0.0.1", 8080) == ["http://127.0.0.1:8080/"]


def test_the_games_in_the_roll_log_are_listed_and_their_records_downloaded(web: TrayWeb, client: httpx.Client, tmp_path) -> None:
    from firmware_host.game_store import GameStore
    from rules.dicethrone.game import Game
    from rules.records import GameRecord

    assert client.get("/api/v1/games").json() == {"games": []}
    path = tmp_path / "rolls.sqlite3"
    game = Game.new(["barbarian", "moon-elf"], names=["Ana", "Ben"])
    store = GameStore(path)
    store.sync(game)
    store.close()
    web.games_path = path
    games = client.get("/api/v1/games").json()["games"]
    assert [g["number"] for g in games] == [1]
    record = client.get("/api/v1/games/1.dtr")
    assert record.headers["content-disposition"] == 'attachment; filename="game-1.dtr"'
    assert record.text == GameRecord.of(game).notation()
    missing = client.get("/api/v1/games/7.dtr")
    assert missing.status_code == 404 and "no game 7" in missing.json()["error"]


def test_fairness_tells_a_loaded_set_of_dice_from_a_fair_one(web: TrayWeb, client: httpx.Client, tmp_path) -> None:
    from tests.web.rolls import log_fair_and_loaded

    empty = client.get("/api/v1/fairness").json()
    assert empty["sets"] == [] and empty["all"]["throws"] == 0 and "too few" in empty["all"]["verdict"]
    path = tmp_path / "rolls.sqlite3"
    log_fair_and_loaded(path)
    web.games_path = path
    report = client.get("/api/v1/fairness").json()
    fair, loaded = report["sets"]
    assert fair["dice_set"] == "barbarian" and fair["throws"] == 600
    assert fair["finding"] == "no-sign" and fair["verdict"] == "no sign of bias" and fair["p_value"] > 0.05
    assert loaded["dice_set"] == "moon-elf" and loaded["counts"][5] == max(loaded["counts"])
    assert loaded["finding"] in ("looks-biased", "biased") and loaded["p_value"] < 0.05
    assert report["all"]["throws"] == 1200 and report["kept_left_out"] == 0
    spec = client.get("/api/v1/openapi.json").json()
    assert spec["paths"]["/api/v1/fairness"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Fairness"
    }
    assert set(spec["components"]["schemas"]["FairnessReport"]["properties"]) == set(fair)


def test_fairness_of_a_roll_log_that_cannot_be_read_is_a_503_naming_it(web: TrayWeb, client: httpx.Client, tmp_path) -> None:
    path = tmp_path / "rolls.sqlite3"
    path.write_text("not a roll log")
    web.games_path = path
    refused = client.get("/api/v1/fairness")
    assert refused.status_code == 503 and "rolls.sqlite3" in refused.json()["error"]
