"""The tray profile tells which way its camera looks, and plain pip dice on a tray seen straight
down are checked by the pip reader only where the learned reader is unsure."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.errors import ProfileError
from calibration.tray import calibrate_tray, load_tray_profile, overhead_frames, save_tray_profile
from firmware_host.cli import main
from firmware_host.commands.vision_cmd import make_reader
from hardware.sim import Background, random_scene, render_tray
from vision.view import View

FELT = Background("plain", (50, 80, 40), 5)
REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"


def _tray_photos(tilt_deg: float, seed: int = 3) -> tuple[np.ndarray, list[np.ndarray]]:
    """An empty tray and four photos of pip dice in it, the camera at ``tilt_deg``."""
    rng = np.random.default_rng(seed)
    empty = render_tray(random_scene(rng, 0, background=FELT, tilt_deg=tilt_deg), rng).frame
    with_dice = [render_tray(random_scene(rng, 6, background=FELT, tilt_deg=tilt_deg), rng).frame for _ in range(4)]
    return empty, with_dice


def test_a_tray_seen_from_above_reads_its_frames_without_the_pip_check() -> None:
    empty, with_dice = _tray_photos(0)
    profile = calibrate_tray("tray", [empty], with_dice)
    assert profile.view is View.OVERHEAD
    assert "looks straight down" in profile.describe()
    save_tray_profile(profile)
    loaded = load_tray_profile()
    assert loaded.view is View.OVERHEAD and loaded.view_seen == profile.view_seen
    assert loaded.view_seen.startswith("the camera looks straight down (") and "pip faces, median squareness 0.9" in loaded.view_seen
    size = (empty.shape[1], empty.shape[0])
    assert overhead_frames() == size
    assert make_reader(None).overhead_frames == size
    # a labelled folder's photos come from other cameras: dicetray eval never takes the tray's view
    assert make_reader(None, overhead=False).overhead_frames is None
    assert make_reader(None, overhead=True).overhead_frames == "any"


def test_a_tray_seen_at_an_angle_keeps_the_pip_check() -> None:
    empty, with_dice = _tray_photos(40)
    profile = calibrate_tray("tray", [empty], with_dice)
    assert profile.view is View.OBLIQUE
    save_tray_profile(profile)
    assert overhead_frames() is None
    reader = make_reader(None)
    assert reader.pip_check and reader.overhead_frames is None


def test_no_dice_photos_and_no_profile_leave_the_view_untold() -> None:
    empty, _ = _tray_photos(0)
    assert overhead_frames() is None  # no tray profile saved
    profile = calibrate_tray("tray", [empty])
    assert profile.view is View.UNKNOWN
    save_tray_profile(profile)
    assert overhead_frames() is None and load_tray_profile().summary()["view"] == "unknown"


def test_a_profile_saved_before_views_were_told_loads_as_untold_and_a_bad_view_is_named() -> None:
    empty, with_dice = _tray_photos(0)
    folder = save_tray_profile(calibrate_tray("tray", [empty], with_dice))
    manifest = folder / "profile.json"
    data = json.loads(manifest.read_text())
    del data["view"]
    manifest.write_text(json.dumps(data))
    assert load_tray_profile().view is View.UNKNOWN
    data["view"] = "sideways"
    manifest.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="profile.json.*sideways"):
        load_tray_profile()
    with pytest.raises(ProfileError, match="sideways"):
        make_reader(None)
    assert json.loads(manifest.read_text())["view"] == "sideways"  # left as it was, for the owner to see


def test_cli_calibrate_tray_says_which_way_the_camera_looks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty, with_dice = _tray_photos(0)
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    dice = []
    for index, frame in enumerate(with_dice):
        dice.append(str(tmp_path / f"dice_{index}.png"))
        cv2.imwrite(dice[-1], frame)
    assert main(["calibrate", "tray", "--from", str(tmp_path / "empty.png"), "--dice", *dice]) == 0
    out = capsys.readouterr().out
    assert "the camera looks straight down (" in out and "0 side faces): pip dice are read by the learned reader, checked by the pip reader only where it is unsure" in out


@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_eval_overhead_reads_without_the_pip_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = json.loads((REAL_D6 / "labels.json").read_text())
    # dice_46: an oblique photo where the learned reader alone reads a side face as a die
    chosen = [e for e in labels if e["image"] == "dice_46.jpg"]
    (tmp_path / "dice_46.jpg").write_bytes((REAL_D6 / "dice_46.jpg").read_bytes())
    (tmp_path / "labels.json").write_text(json.dumps(chosen))
    assert main(["eval", str(tmp_path), "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert main(["eval", str(tmp_path), "--json", "--overhead"]) == 0
    unchecked = json.loads(capsys.readouterr().out)
    assert checked["overhead"] is False and unchecked["overhead"] is True
    assert checked["precision"] == 1.0 and unchecked["precision"] < 1.0
    assert main(["eval", str(tmp_path), "--overhead", "--profile", "any"]) == 2
    assert "--overhead is for plain pip dice" in capsys.readouterr().err



@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_empty_tray_photos_with_dice_in_them_are_named_and_the_old_profile_stays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Real photos of rolls given as the empty tray: their median is a tray with the ghosts of
    dice, against which the body finder finds no die at all. The photo with dice is named."""
    empty, with_dice = _tray_photos(0)
    save_tray_profile(calibrate_tray("tray", [empty], with_dice))
    before = (load_tray_profile().background.copy(), load_tray_profile().die_side)
    names = sorted(p.name for p in REAL_D6.glob("*.jpg"))[59::60][:3]
    code = main(["calibrate", "tray", "--force", "--from", *(str(REAL_D6 / n) for n in names), "--dice", str(REAL_D6 / "valid_71.jpg")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"empty-tray photo {str(REAL_D6 / names[0])!r} shows 1 die: the empty-tray photos are the tray with nothing in it" in err
    after = load_tray_profile()
    assert np.array_equal(after.background, before[0]) and after.die_side == before[1]


def test_a_tray_whose_light_changed_since_its_empty_photos_still_sizes_its_dice() -> None:
    """A light wooden tray photographed empty at a quarter more exposure than the dice: against
    that background alone the body finder measured pips (15 px) for dice 60 px across, and the
    profile then let it take pips for dice. Confirmed by the learned reader's finds, the size holds."""
    from hardware.sim import DieDesign, DieStyle, Lighting, Optics
    from vision.profile_reader import BodyDetector

    wood = Background("plain", (150, 190, 215), 8)
    rng = np.random.default_rng(3)
    same = {"background": wood, "tilt_deg": 0, "die_px": 60, "optics": Optics()}
    dice = {"designs": [DieDesign.pips()], "styles": [DieStyle()], "lighting": Lighting()}
    with_dice = [render_tray(random_scene(rng, 3, **dice, **same), rng).frame for _ in range(2)]
    empty = render_tray(random_scene(rng, 0, lighting=Lighting(exposure=1.25), **same), rng).frame
    profile = calibrate_tray("tray", [empty], with_dice)
    assert 50 <= profile.die_side <= 80, profile.die_side
    test = render_tray(random_scene(rng, 4, **dice, **same), rng).frame
    assert all(max(c.box[2], c.box[3]) > 40 for c in BodyDetector(profile.hint()).find(test))  # dice, not pips


def test_calibrating_the_tray_with_its_camera_takes_the_empty_tray_then_rolls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`calibrate tray --camera`: the config's camera at the config's frame size (the size the
    service reads), five frames of the empty tray, then settled rolls of pip dice."""
    config = tmp_path / "config.toml"
    config.write_text('camera = "sim:3"\n\n[frames]\nwidth = 800\nheight = 600\n')
    assert main(["calibrate", "tray", "--camera", "--config", str(config), "--rolls", "2"]) == 0
    out = capsys.readouterr().out
    assert "took 5 photos of the empty tray (800x600)" in out and "roll 2/2 taken" in out
    profile = load_tray_profile()
    assert profile.frame_size == (800, 600) and profile.view is View.OVERHEAD and profile.die_side > 40
    # a profile of that name is not replaced unless asked, and that is said before the camera opens
    assert main(["calibrate", "tray", "--camera", "usb:97"]) == 2
    assert "tray profile 'tray' exists already" in capsys.readouterr().err
    assert main(["calibrate", "tray", "--name", "other", "--camera", "sim:3", "--dice", "x.png"]) == 2
    assert "--dice names photos" in capsys.readouterr().err


def test_a_camera_that_shows_dice_for_the_empty_tray_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, with_dice = _tray_photos(0)
    frames = tmp_path / "frames"
    frames.mkdir()
    for i in range(12):
        cv2.imwrite(str(frames / f"{i:03d}.png"), with_dice[i % len(with_dice)])
    assert main(["calibrate", "tray", "--camera", f"replay:{frames}", "--rolls", "0"]) == 2
    err = capsys.readouterr().err
    assert f"empty-tray frame 1 from camera 'replay:{frames}' shows " in err and " dice: the empty-tray photos are the tray with nothing in it" in err
    from calibration.paths import profiles_directory

    assert not (profiles_directory() / "tray").exists()
