"""MQTT against a real Mosquitto broker started by the test: availability with the last will,
events per roll, state per player, Home Assistant discovery."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from firmware_host.game_flow import GameFlow
from firmware_host.mqtt import TrayMqtt
from firmware_host.transcript import Transcript
from rules.dicethrone.game import Game
from tests.game.test_game_flow import reading, to_offense

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[int]:
    if not Path(MOSQUITTO).exists():
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    process = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    yield port
    process.terminate()
    process.wait(10)


class Listener:
    """A client that keeps every message it sees (retained ones too)."""

    def __init__(self, port: int, topics: tuple[str, ...] = ("#",)) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self._lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        subscribed = threading.Event()
        self.client.on_subscribe = lambda *args: subscribed.set()
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.client.subscribe([(topic, 1) for topic in topics])
        assert subscribed.wait(5)

    def _on_message(self, client, userdata, message) -> None:
        with self._lock:
            self.messages.append((message.topic, message.payload, bool(message.retain)))

    def last(self, topic: str, seconds: float = 5.0) -> bytes:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self._lock:
                found = [payload for t, payload, _ in self.messages if t == topic]
            if found:
                return found[-1]
            time.sleep(0.02)
        raise AssertionError(f"nothing on {topic}; saw {sorted({t for t, _, _ in self.messages})}")

    def wait_for(self, topic: str, payload: bytes, seconds: float = 10.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self._lock:
                if any(t == topic and p == payload for t, p, _ in self.messages):
                    return
            time.sleep(0.02)
        raise AssertionError(f"{payload!r} never on {topic}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def game_flow() -> tuple[GameFlow, Transcript]:
    transcript = Transcript()
    return GameFlow(Game.new(["barbarian", "moon-elf"], names=["Ana", "Ben"]), on_event=transcript), transcript


def test_the_tray_is_online_publishes_each_roll_and_each_player_and_is_discovered(broker: int) -> None:
    flow, transcript = game_flow()
    tray = TrayMqtt(flow, host="127.0.0.1", port=broker, node_id="tray1")
    tray.start()
    listener = Listener(broker)
    try:
        listener.wait_for("dicetray/availability", b"online")
        tray.publish_state()
        player = json.loads(listener.last("dicetray/player/1"))
        assert player["name"] == "Ana" and player["health"] == 50 and player["cp"] == 2
        assert json.loads(listener.last("dicetray/player/2"))["hero"] == "moon-elf"
        health = json.loads(listener.last("homeassistant/sensor/tray1/player1_health/config"))
        assert health["state_topic"] == "dicetray/player/1"
        assert health["availability_topic"] == "dicetray/availability"
        assert health["value_template"] == "{{ value_json.health }}"
        assert health["device"]["identifiers"] == ["tray1"]
        json.loads(listener.last("homeassistant/sensor/tray1/last_roll/config"))
        to_offense(flow)
        for event in flow.on_reading(reading(1, 1, 4, 5, 6)):
            tray.on_event(event)
        roll = json.loads(listener.last("dicetray/roll"))
        assert roll["kind"] == "roll" and roll["data"]["roll"] == "1 1 4 5 6" and "activations" in roll["data"]
        assert json.loads(listener.last("dicetray/game"))["phase"] == "offensive roll"
    finally:
        listener.close()
        tray.close()
    # A late subscriber gets the retained state: offline now, the players as they were.
    late = Listener(broker)
    try:
        assert late.last("dicetray/availability") == b"offline"
        assert json.loads(late.last("dicetray/player/1"))["name"] == "Ana"
    finally:
        late.close()


def test_the_last_will_says_offline_when_the_tray_drops_off(broker: int) -> None:
    flow, _ = game_flow()
    tray = TrayMqtt(flow, host="127.0.0.1", port=broker, keepalive_s=1)
    tray.start()
    listener = Listener(broker, ("dicetray/availability",))
    try:
        listener.wait_for("dicetray/availability", b"online")
        # Drop off without a word: the socket closes under paho, no DISCONNECT is sent.
        tray._client.loop_stop()
        tray._client.socket().close()
        listener.wait_for("dicetray/availability", b"offline", seconds=15)
    finally:
        listener.close()


def test_a_broker_that_comes_later_is_reached_and_the_state_sent_again(tmp_path: Path, caplog) -> None:
    if not Path(MOSQUITTO).exists():
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    flow, _ = game_flow()
    port = free_port()
    tray = TrayMqtt(flow, host="127.0.0.1", port=port)
    with caplog.at_level("WARNING", logger="dicetray.mqtt"):
        tray.start()  # nothing listens yet: the tray plays on
        tray.publish_state()
        deadline = time.monotonic() + 10
        while "cannot be reached yet" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.05)
    assert f"127.0.0.1:{port} cannot be reached yet" in caplog.text
    conf = tmp_path / "later.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    broker = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        listener = None
        deadline = time.monotonic() + 10
        while listener is None and time.monotonic() < deadline:
            try:
                listener = Listener(port)
            except OSError:
                time.sleep(0.1)
        assert listener is not None
        try:
            listener.wait_for("dicetray/availability", b"online", seconds=90)
            assert json.loads(listener.last("dicetray/player/1"))["name"] == "Ana"  # sent again on connecting
        finally:
            listener.close()
    finally:
        tray.close()
        broker.terminate()
        broker.wait(10)


def test_the_service_publishes_to_mqtt_when_the_config_says_so(broker: int, pins, tmp_path: Path) -> None:
    from firmware_host.config import parse_config
    from firmware_host.service import build_service

    config = parse_config(
        f'camera = "sim"\ngpio = "mock"\ndisplay = "dummy"\nroll_log = "{tmp_path / "rolls.sqlite3"}"\n'
        f'[mqtt]\nenabled = true\nhost = "127.0.0.1"\nport = {broker}\nnode_id = "table"\n'
    )
    listener = Listener(broker)
    try:
        service = build_service(config, pin_factory=pins)
        try:
            listener.wait_for("dicetray/availability", b"online")
            assert json.loads(listener.last("dicetray/player/1"))["hero"] == "barbarian"
            assert json.loads(listener.last("homeassistant/sensor/table/turn/config"))["state_topic"] == "dicetray/game"
        finally:
            service.close()
        listener.wait_for("dicetray/availability", b"offline")
    finally:
        listener.close()


def test_a_settled_roll_sends_the_camera_picture_for_home_assistant(broker: int) -> None:
    import numpy as np

    from firmware_host.web.frames import FrameHub

    hub = FrameHub()
    hub.publish(np.full((48, 64, 3), 120, np.uint8))
    flow, _ = game_flow()
    tray = TrayMqtt(flow, host="127.0.0.1", port=broker, node_id="cam", snapshot=lambda: hub.snapshot(timeout=1.0))
    tray.start()
    listener = Listener(broker)
    try:
        listener.wait_for("dicetray/availability", b"online")
        to_offense(flow)
        for event in flow.on_reading(reading(1, 1, 4, 5, 6)):
            tray.on_event(event)
        assert listener.last("dicetray/camera")[:2] == b"\xff\xd8"  # a JPEG
        camera = json.loads(listener.last("homeassistant/camera/cam/tray/config"))
        assert camera["topic"] == "dicetray/camera" and camera["availability_topic"] == "dicetray/availability"
    finally:
        listener.close()
        tray.close()
        hub.close()
