"""MQTT for Home Assistant and the rest of the house (``[mqtt]`` in the config, off by default).

Topics, under ``topic`` (``dicetray`` by default):

==============================  ==========================================================  ========
``T/availability``              ``online`` / ``offline`` (the broker sends ``offline`` as the  retained
                                last will when the tray drops off the network)
``T/event``                     every game event ``{"kind", "text", "data"}``                   no
``T/roll``                      each scored roll: dice, activations, odds                      no
``T/correction``                each die set by hand                                           no
``T/game``                      turn, phase, active player, winner                             retained
``T/player/N``                  player N (1-4): name, hero, health, CP, cards, statuses        retained
``T/camera``                    the tray as the dice settled (JPEG), with the table app on     retained
==============================  ==========================================================  ========

Home Assistant discovery (``homeassistant/sensor/NODE/.../config``, retained): per player a health
and a CP sensor, and sensors for the turn, the phase, the active player and the last roll, all
with the availability topic, grouped as one device; and a camera entity for ``T/camera``.

The events come from the service's event stream; this module is one more subscriber
(:meth:`TrayMqtt.on_event`). It is called on the service's thread, where the game may be read, and
paho's network loop runs on its own thread, so a slow broker never holds up the tray.
"""

from __future__ import annotations

import json
import logging
import re
import socket
from typing import Any

import paho.mqtt.client as mqtt

from firmware_host.web.state import table_state

log = logging.getLogger("dicetray.mqtt")

EVENT_TOPICS = {"roll": "roll", "correction": "correction"}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


class TrayMqtt:
    """Publishes the tray to an MQTT broker.

    :param flow: the game flow whose state is published (read on the service's thread only).
    :param node_id: this tray's id in Home Assistant (default: from the machine's name).
    """

    def __init__(
        self,
        flow: Any,
        *,
        host: str = "localhost",
        port: int = 1883,
        topic: str = "dicetray",
        username: str = "",
        password: str = "",
        discovery_prefix: str = "homeassistant",
        node_id: str | None = None,
        keepalive_s: int = 30,
        snapshot: Any = None,
    ) -> None:
        self.flow = flow
        self.snapshot = snapshot
        """Gives the newest camera frame as JPEG bytes (or None), for the camera entity; None: no
        camera entity (the service wires the table app's frames in when both are enabled)."""
        self.host = host
        self.port = port
        self.topic = topic.rstrip("/")
        self.discovery_prefix = discovery_prefix.rstrip("/")
        self.node_id = _slug(node_id or f"dicetray_{socket.gethostname()}")
        self.keepalive_s = keepalive_s
        self.availability = f"{self.topic}/availability"
        self._client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{self.node_id}-{id(self):x}")
        if username:
            self._client.username_pw_set(username, password or None)
        self._client.will_set(self.availability, "offline", qos=1, retain=True)
        self._client.on_connect = self._on_connect
        self._published: dict[str, str] = {}  # retained topic -> the payload last sent
        self._warned = False
        self.messages_sent = 0

    @classmethod
    def from_config(cls, config: Any, flow: Any) -> TrayMqtt:
        return cls(
            flow,
            host=config.host,
            port=config.port,
            topic=config.topic,
            username=config.username,
            password=config.password,
            discovery_prefix=config.discovery_prefix,
            node_id=config.node_id or None,
        )

    def start(self) -> None:
        """Starts paho's network thread, which connects and reconnects on its own (every 1 s to
        60 s): a tray that boots before the network, or a broker restarted, needs nothing done.
        Until then the tray plays on; what it publishes is queued (paho's queue) or, for the
        retained state, sent again on connecting."""
        self._client.reconnect_delay_set(min_delay=1, max_delay=60)
        self._client.on_connect_fail = self._on_connect_fail
        self._client.connect_async(self.host, self.port, keepalive=self.keepalive_s)
        self._client.loop_start()
        log.info("MQTT to %s:%d under %s/", self.host, self.port, self.topic)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        if not self._warned:
            log.warning("MQTT broker %s:%d cannot be reached yet; retrying", self.host, self.port)
            self._warned = True

    def close(self) -> None:
        """``offline`` on purpose (the last will is for going away without saying so), then stop."""
        info = self._client.publish(self.availability, "offline", qos=1, retain=True)
        try:
            info.wait_for_publish(timeout=2.0)
        except (RuntimeError, ValueError):
            pass  # not connected: the broker sends the last will instead
        self._client.disconnect()
        self._client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("the MQTT broker refused the connection: %s", reason)
            return
        if self._warned:
            log.info("MQTT broker %s:%d reached", self.host, self.port)
            self._warned = False
        client.publish(self.availability, "online", qos=1, retain=True)
        # After a reconnect the broker may have lost what it kept: send the retained topics again
        # (from what was sent: this is paho's thread, which does not read the game).
        for topic, payload in list(self._published.items()):
            client.publish(topic, payload, qos=1, retain=True)

    # -- the event stream's subscriber ------------------------------------------------------------

    def on_event(self, event: Any) -> None:
        body = event.to_json() if hasattr(event, "to_json") else {"kind": "", "text": str(event), "data": {}}
        payload = json.dumps(body, default=str, sort_keys=True)
        self._send(f"{self.topic}/event", payload)
        sub = EVENT_TOPICS.get(str(body.get("kind", "")))
        if sub is not None:
            self._send(f"{self.topic}/{sub}", payload)
        if body.get("kind") == "reading":
            self.publish_camera()
        self.publish_state()

    def publish_camera(self) -> None:
        """The tray as the camera saw the dice settle, for Home Assistant's MQTT camera (retained,
        so the picture is there when Home Assistant starts)."""
        if self.snapshot is None:
            return
        frame = self.snapshot()
        if frame is None:
            return
        jpeg = getattr(frame, "jpeg", frame)
        topic = f"{self.topic}/camera"
        self._retain(
            f"{self.discovery_prefix}/camera/{self.node_id}/tray/config",
            {
                "name": "Tray",
                "unique_id": f"{self.node_id}_tray",
                "topic": topic,
                "availability_topic": self.availability,
                "device": self._device(),
            },
        )
        self._client.publish(topic, bytes(jpeg), qos=0, retain=True)
        self.messages_sent += 1

    def publish_state(self) -> None:
        """The game and each player, retained, sent only when changed; discovery for new players."""
        state = table_state(self.flow)
        if state is None:
            return
        game = state["game"]
        self._retain(
            f"{self.topic}/game",
            {
                "turn": game["turn"],
                "phase": game["phase"],
                "active": game["active"],
                "winner": game["winner"],
                "mode": game["mode"],
                "step": state["step"],
            },
        )
        for number, player in enumerate(game["players"], start=1):
            self._discover_player(number)
            self._retain(f"{self.topic}/player/{number}", player)
        self._discover_game()

    # -- Home Assistant discovery -----------------------------------------------------------------

    def _device(self) -> dict[str, Any]:
        return {"identifiers": [self.node_id], "name": "Dice tray", "manufacturer": "dicetray", "model": "smart dice tray"}

    def _sensor(self, object_id: str, name: str, state_topic: str, template: str, **extra: Any) -> None:
        config = {
            "name": name,
            "unique_id": f"{self.node_id}_{object_id}",
            "object_id": f"{self.node_id}_{object_id}",
            "state_topic": state_topic,
            "value_template": template,
            "availability_topic": self.availability,
            "device": self._device(),
            **extra,
        }
        self._retain(f"{self.discovery_prefix}/sensor/{self.node_id}/{object_id}/config", config)

    def _discover_player(self, number: int) -> None:
        topic = f"{self.topic}/player/{number}"
        self._sensor(f"player{number}_health", f"Player {number} health", topic, "{{ value_json.health }}", icon="mdi:heart", state_class="measurement")
        self._sensor(f"player{number}_cp", f"Player {number} CP", topic, "{{ value_json.cp }}", icon="mdi:star-four-points", state_class="measurement")
        self._sensor(
            f"player{number}_name", f"Player {number}", topic, "{{ value_json.name }}",
            json_attributes_topic=topic, icon="mdi:account",
        )  # fmt: skip

    def _discover_game(self) -> None:
        topic = f"{self.topic}/game"
        self._sensor("turn", "Turn", topic, "{{ value_json.turn }}", icon="mdi:counter")
        self._sensor("phase", "Phase", topic, "{{ value_json.phase }}", icon="mdi:timeline-clock")
        self._sensor("active_player", "Active player", topic, "{{ value_json.active }}", icon="mdi:account-arrow-right")
        self._sensor(
            "last_roll", "Last roll", f"{self.topic}/roll", "{{ value_json.text[:250] }}",
            json_attributes_topic=f"{self.topic}/roll", json_attributes_template="{{ value_json.data | tojson }}", icon="mdi:dice-5",
        )  # fmt: skip

    # -- sending ----------------------------------------------------------------------------------

    def _retain(self, topic: str, body: Any) -> None:
        payload = json.dumps(body, default=str, sort_keys=True)
        if self._published.get(topic) == payload:
            return
        self._published[topic] = payload
        self._client.publish(topic, payload, qos=1, retain=True)
        self.messages_sent += 1

    def _send(self, topic: str, payload: str) -> None:
        self._client.publish(topic, payload, qos=0, retain=False)
        self.messages_sent += 1
