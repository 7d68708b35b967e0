"""TrayWatch: the simulated tray shown on a live view, read each time the dice settle."""

from __future__ import annotations

import json
import urllib.request

from firmware_host.liveview import FrameHub, LiveView, TrayWatch, main
from hardware.camera import SimulatedTraySource
from vision.reader import DiceReader
from vision.settle import SettleDetector


def test_watch_reads_the_settled_dice_and_clears_them_when_they_roll() -> None:
    # Short throws, no hand, nothing before the first throw: few frames to render.
    source = SimulatedTraySource(4, script=[[1, 2, 3, 4, 5]], auto_roll=False, start_s=0.0, roll_s=(0.3, 0.4),
                                 hold_s=60.0, pickup=False)
    with LiveView(port=0, hub=FrameHub(clock=lambda: 0.0)) as live:
        shown = 0
        watch = TrayWatch(live, reader=DiceReader(), detector=SettleDetector())
        while json.loads(live.state_json())["state"].get("reads", 0) < 1 and shown < 150:
            shown += watch.run(source, frames=1)
        settled = json.loads(live.state_json())
        source.roll([6, 6, 6, 6, 6])
        while json.loads(live.state_json())["state"]["tray"] != "rolling" and shown < 200:
            shown += watch.run(source, frames=1)
        rolling = json.loads(live.state_json())
        with urllib.request.urlopen(live.url + "api/state", timeout=5) as response:
            served = json.loads(response.read())
    source.close()
    assert settled["state"] == {"tray": "settled", "reads": 1}
    values = sorted(d["value"] for d in settled["reading"]["dice"] if d["status"] == "ok")
    assert values == [1, 2, 3, 4, 5]
    assert rolling["reading"] is None and rolling["state"] == {"tray": "rolling", "reads": 1}
    assert served == rolling


def test_main_names_a_bad_camera_and_exits_2(capsys: object) -> None:
    assert main(["--camera", "tripod:9", "--port", "0"]) == 2
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert "tripod:9" in err and "Traceback" not in err


def test_main_serves_the_simulated_tray_for_a_few_frames(capsys: object) -> None:
    assert main(["--camera", "sim:2", "--port", "0", "--frames", "3"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert out.startswith("live view at http://127.0.0.1:")


def test_main_names_a_port_in_use_and_exits_1(capsys: object) -> None:
    with LiveView(port=0) as taken:
        assert main(["--camera", "sim", "--port", str(taken.port), "--frames", "1"]) == 1
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert f"port {taken.port} is already in use" in err
