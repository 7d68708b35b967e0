"""`dicetray demo --web`: the demo plays with the table app on 127.0.0.1:N and serves on after the
game until stopped."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_demo_web_serves_the_game_until_stopped(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "firmware_host", "demo", "--web", "--port", str(port), "--turns", "1", "--out", str(tmp_path / "out")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        first = process.stdout.readline()
        assert f"table app at http://127.0.0.1:{port}/" in first and "PIN" in first
        kinds: set[str] = set()
        with connect(f"ws://127.0.0.1:{port}/api/v1/stream", open_timeout=10) as stream:
            deadline = time.monotonic() + 120
            while "game_over" not in kinds and time.monotonic() < deadline:
                message = json.loads(stream.recv(timeout=60))
                if message["type"] == "event":
                    kinds.add(message["data"]["kind"])
        assert {"reading", "roll", "game_over"} <= kinds  # the game, pushed as it was played
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            time.sleep(0.5)
            assert http.get("/api/v1/state").json()["table"]["step"] == "over"  # still served after the game
            assert http.get("/").status_code == 200
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "played in" in err
    assert (tmp_path / "out" / "game.dtr").exists()
