"""The calibration wizard through the real server: each face of a simulated hero die shot from the
live camera, the profile built and saved by the calibration package, and every refusal named."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator

import httpx
import numpy as np
import pytest

from calibration.build import report_notes
from calibration.profiles import load_profile
from firmware_host.web import Pairing, TrayWeb
from hardware.sim import DieDesign
from tests.web.dice import FELT, settled_face_frames


class StillCamera:
    """What the camera shows now, published to the server about 20 times a second."""

    def __init__(self, web: TrayWeb) -> None:
        self.frame = np.full((480, 640, 3), FELT.colour, np.uint8)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(web,), daemon=True)
        self._thread.start()

    def _run(self, web: TrayWeb) -> None:
        while not self._stop.is_set():
            web.publish_frame(self.frame)
            time.sleep(0.05)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)


@pytest.fixture(scope="module")
def faces() -> dict[str, list[np.ndarray]]:
    return settled_face_frames(DieDesign.barbarian(), 3)


@pytest.fixture
def camera(web: TrayWeb) -> Iterator[StillCamera]:
    still = StillCamera(web)
    yield still
    still.close()


def test_each_face_is_shot_from_the_camera_and_the_profile_is_built(client, token, camera, faces) -> None:
    # Building fits the matcher on a worker thread: seconds, more on a busy machine, hence the long timeouts.
    auth = {"Authorization": f"Bearer {token}"}
    labels = " ".join(faces)
    assert client.post("/api/v1/calibration", json={"name": "barbarian", "faces": labels}).status_code == 401
    started = client.post("/api/v1/calibration", json={"name": "barbarian", "faces": labels}, headers=auth)
    assert started.status_code == 201
    wizard = started.json()["wizard"]
    assert [(f["label"], f["value"], f["symbol"]) for f in wizard["faces"]][3] == ("heart-4", 4, "heart")
    assert not wizard["ready"]
    for label, frames in faces.items():
        for n, frame in enumerate(frames, 1):
            camera.frame = frame
            time.sleep(0.1)  # the camera moves on to the new frame
            shot = client.post("/api/v1/calibration/shots", json={"label": label}, headers=auth)
            assert shot.status_code == 201, shot.text
            assert shot.json()["shot"].startswith("data:image/jpeg;base64,")
            assert len(shot.json()["wizard"]["faces"][list(faces).index(label)]["shots"]) == n
    state = client.get("/api/v1/calibration").json()["wizard"]
    assert state["ready"] and all(len(f["shots"]) == 3 for f in state["faces"])
    built = client.post("/api/v1/calibration/build", json={}, headers=auth, timeout=120)
    assert built.status_code == 201, built.text
    report = built.json()
    assert report["text"].startswith("saved die profile 'barbarian' to ")
    assert "held out" in report["text"] and report["profile"]["finder"] in ("bodies", "pips+bodies")
    # The saved profile is a real one: it reads a new throw of the die.
    profile = load_profile("barbarian")
    # The page says what the command line says of it (faces hard to tell apart, shots that would help).
    assert report["notes"] == report_notes(profile) and report["notes"]
    assert [f.label for f in profile.faces] == list(faces)
    fresh = settled_face_frames(DieDesign.barbarian(), 1, seed=9)
    (die,) = profile.reader().read(fresh["heart-5"][0]).dice
    assert (die.value, die.face) == (5, "heart-5")
    again = client.post("/api/v1/calibration/build", json={}, headers=auth, timeout=120)
    assert again.status_code == 422 and "saved already" in again.json()["error"]
    assert client.post("/api/v1/calibration/build", json={"replace": True}, headers=auth, timeout=120).status_code == 201


def test_the_wizard_names_what_is_wrong(web, client, token, camera, faces) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    assert client.post("/api/v1/calibration/shots", json={"label": "1"}, headers=auth).status_code == 409
    bad = client.post("/api/v1/calibration", json={"name": "Barbarian!", "faces": "1 2"}, headers=auth)
    assert bad.status_code == 422 and "bad profile name 'Barbarian!'" in bad.json()["error"]
    unnumbered = client.post("/api/v1/calibration", json={"name": "odd", "faces": "1 star"}, headers=auth)
    assert unnumbered.status_code == 422 and "face 'star' has no number" in unnumbered.json()["error"]
    twice = client.post("/api/v1/calibration", json={"name": "odd", "faces": "1 2 1"}, headers=auth)
    assert twice.status_code == 422 and "'1' is named twice" in twice.json()["error"]
    started = client.post("/api/v1/calibration", json={"name": "odd", "faces": "sword-1 star=6"}, headers=auth)
    assert [(f["label"], f["value"]) for f in started.json()["wizard"]["faces"]] == [("sword-1", 1), ("star", 6)]
    unknown = client.post("/api/v1/calibration/shots", json={"label": "moon"}, headers=auth)
    assert unknown.status_code == 422 and "no face 'moon'" in unknown.json()["error"]
    empty = client.post("/api/v1/calibration/shots", json={"label": "star"}, headers=auth)  # the empty tray
    assert empty.status_code == 422 and "no die found" in empty.json()["error"]
    camera.frame = faces["sword-1"][0]
    time.sleep(0.1)
    assert client.post("/api/v1/calibration/shots", json={"label": "sword-1"}, headers=auth).status_code == 201
    missing = client.post("/api/v1/calibration/build", json={}, headers=auth, timeout=120)
    assert missing.status_code == 422 and "face 'star' has no shots yet" in missing.json()["error"]
    dropped = client.post("/api/v1/calibration/drop", json={"label": "sword-1"}, headers=auth)
    assert dropped.status_code == 200 and dropped.json()["wizard"]["faces"][0]["shots"] == []
    nothing = client.post("/api/v1/calibration/drop", json={"label": "sword-1"}, headers=auth)
    assert nothing.status_code == 422 and "no shots to take back" in nothing.json()["error"]


def test_a_shot_without_a_camera_frame_says_so(client, token) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    client.post("/api/v1/calibration", json={"name": "pips", "faces": "1 2 3 4 5 6"}, headers=auth)
    refused = client.post("/api/v1/calibration/shots", json={"label": "3"}, headers=auth)
    assert refused.status_code == 503 and "no camera frame" in refused.json()["error"]


def _tray_with_pip_dice(seed: int) -> np.ndarray:
    from hardware.sim import random_scene, render_tray

    rng = np.random.default_rng(seed)
    frame: np.ndarray = render_tray(random_scene(rng, 4, background=FELT, tilt_deg=0), rng).frame
    return frame


def test_the_tray_is_calibrated_from_the_page_and_saved_for_the_next_start(client, token, camera) -> None:
    from calibration.tray import load_tray_profile

    auth = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/v1/calibration/tray").json() == {"tray": None}
    assert client.post("/api/v1/calibration/tray/empty", json={}).status_code == 401
    empty = client.post("/api/v1/calibration/tray/empty", json={}, headers=auth)
    assert empty.status_code == 201, empty.text
    assert empty.json()["tray"] == {"name": "tray", "empty": 5, "dice": 0, "ready": True}
    for n, seed in enumerate((1, 2), 1):
        camera.frame = _tray_with_pip_dice(seed)
        time.sleep(0.1)
        shot = client.post("/api/v1/calibration/tray/dice", json={}, headers=auth)
        assert shot.status_code == 201, shot.text
        assert shot.json()["dice_seen"] >= 3 and shot.json()["tray"]["dice"] == n
    built = client.post("/api/v1/calibration/tray/build", json={}, headers=auth, timeout=60)
    assert built.status_code == 201, built.text
    report = built.json()
    assert report["text"].startswith("saved tray profile 'tray' to ") and "the camera looks straight down" in report["text"]
    assert report["use"] == "the tray takes it at its next start (restart the service)"
    profile = load_tray_profile()
    assert profile.frame_size == (640, 480) and profile.die_side > 30 and profile.view.value == "overhead"
    assert report["notes"] == profile.notes()
    again = client.post("/api/v1/calibration/tray/build", json={}, headers=auth, timeout=60)
    assert again.status_code == 422 and "saved already" in again.json()["error"]
    assert client.post("/api/v1/calibration/tray/build", json={"replace": True}, headers=auth, timeout=60).status_code == 201


def test_the_tray_calibration_names_what_is_wrong(client, token, camera) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    early = client.post("/api/v1/calibration/tray/dice", json={}, headers=auth)
    assert early.status_code == 409 and "shoot the empty tray first" in early.json()["error"]
    assert client.post("/api/v1/calibration/tray/build", json={}, headers=auth).status_code == 409
    bad = client.post("/api/v1/calibration/tray/empty", json={"name": "My Tray!"}, headers=auth)
    assert bad.status_code == 422 and "bad profile name 'My Tray!'" in bad.json()["error"]
    camera.frame = _tray_with_pip_dice(3)
    time.sleep(0.1)
    full = client.post("/api/v1/calibration/tray/empty", json={}, headers=auth)
    assert full.status_code == 422
    assert re.match(r"the tray is not empty: \d+ dice in shot 1; take everything out and shoot again$", full.json()["error"])
    assert client.get("/api/v1/calibration/tray").json() == {"tray": None}  # nothing kept
    camera.frame = np.full((480, 640, 3), FELT.colour, np.uint8)
    time.sleep(0.1)
    assert client.post("/api/v1/calibration/tray/empty", json={}, headers=auth).status_code == 201
    none = client.post("/api/v1/calibration/tray/dice", json={}, headers=auth)
    assert none.status_code == 422 and "no dice in this shot" in none.json()["error"]
    assert client.get("/api/v1/calibration/tray").json()["tray"]["dice"] == 0
    camera.frame = _tray_with_pip_dice(3)
    time.sleep(0.1)
    for _ in range(10):
        assert client.post("/api/v1/calibration/tray/dice", json={}, headers=auth).status_code == 201
    plenty = client.post("/api/v1/calibration/tray/dice", json={}, headers=auth)
    assert plenty.status_code == 422 and "10 shots with dice are plenty" in plenty.json()["error"]


def test_shooting_the_tray_without_a_camera_frame_says_so(client, token) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    refused = client.post("/api/v1/calibration/tray/empty", json={}, headers=auth)
    assert refused.status_code == 503 and "no camera frame" in refused.json()["error"]
