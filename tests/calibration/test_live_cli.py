"""`dicetray calibrate die NAME --camera SPEC`: free rolls taken live from a frame source."""

from __future__ import annotations

import cv2
import pytest

from calibration.auto import cluster_frames, settled_frames
from calibration.profiles import load_profile
from firmware_host.cli import main
from hardware.camera import open_camera
from hardware.sim import Background, DieDesign, DieStyle
from hardware.sim.live import SimulatedTraySource

ROLLS = 8
FELT = Background("plain", (50, 80, 40), 5)
EMBLEMS = DieDesign.hero("emblems", {1: "sword", 2: "heart", 3: "star", 4: "skull", 5: "moon", 6: "bolt"})


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """Frames of the simulated tray rolling three hero dice, as a camera recording (replay:DIR)."""
    folder = tmp_path_factory.mktemp("recording")
    camera = SimulatedTraySource(
        3, n_dice=3, design=EMBLEMS, style=DieStyle(), background=FELT, die_px=60, pickup=False, hold_s=1.5, fps=10
    )
    index = 0
    while camera.rolls_settled < ROLLS + 1:
        cv2.imwrite(str(folder / f"frame_{index:04d}.png"), camera.read())
        index += 1
    return folder


def test_calibrate_from_a_camera_recording(recording, tmp_path, capsys):
    spec = f"replay:{recording}"
    camera = open_camera(spec)
    try:
        clustering = cluster_frames(settled_frames(camera, ROLLS, fps=camera.fps), 6)
    finally:
        camera.close()
    labels = tmp_path / "labels.toml"
    labels.write_text("[clusters]\n" + "".join(f'{c.number} = "{c.number}"\n' for c in clustering.clusters))
    code = main(["calibrate", "die", "emblems", "--camera", spec, "--faces", "6", "--rolls", str(ROLLS),
                 "--labels", str(labels), "--sheets", str(tmp_path / "sheets")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"roll {ROLLS}/{ROLLS} taken" in out
    assert (tmp_path / "sheets" / "cluster-1.png").is_file()
    profile = load_profile("emblems")
    assert sorted(face.value for face in profile.faces) == [c.number for c in clustering.clusters]
    assert all(len(profile.exemplars[face.label]) >= 1 for face in profile.faces)


def test_calibrate_from_the_simulated_camera_takes_its_rolls(tmp_path, capsys):
    labels = tmp_path / "labels.toml"
    labels.write_text("[clusters]\n")
    # The config's camera, the plain simulated one (white pip dice on light wood), at the config's
    # frame size (the dice as the tray reads them): the rolls are taken live; with three rolls and
    # no clusters named the command stops with one line, saving nothing.
    config = tmp_path / "config.toml"
    config.write_text('camera = "sim:5"\n\n[frames]\nwidth = 800\nheight = 600\n')
    code = main(["calibrate", "die", "x", "--camera", "--config", str(config), "--faces", "2", "--rolls", "3",
                 "--labels", str(labels), "--sheets", str(tmp_path / "sheets")])
    captured = capsys.readouterr()
    assert "in front of 'sim:5'" in captured.out and "roll 3/3 taken (800x600)" in captured.out
    assert code == 2 and captured.err.startswith("dicetray calibrate: error:")
    assert main(["profiles", "show", "x"]) == 2


def test_camera_needs_labels_without_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert main(["calibrate", "die", "x", "--camera", "sim:1", "--faces", "6"]) == 2
    assert "--camera needs --labels FILE" in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["nonsense:3", "sim:abc"])
def test_bad_camera_spec_exits_2_naming_it(spec, tmp_path, capsys):
    labels = tmp_path / "labels.toml"
    labels.write_text("[clusters]\n")
    assert main(["calibrate", "die", "x", "--camera", spec, "--labels", str(labels)]) == 2
    assert spec in capsys.readouterr().err


def test_replay_that_ends_early_clusters_what_it_had(tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    labels = tmp_path / "labels.toml"
    labels.write_text("[clusters]\n")
    # An empty recording: no rolls at all, so there is nothing to cluster, said plainly.
    assert main(["calibrate", "die", "x", "--camera", f"replay:{folder}", "--labels", str(labels)]) in (1, 2)
    assert "dicetray calibrate: error:" in capsys.readouterr().err
