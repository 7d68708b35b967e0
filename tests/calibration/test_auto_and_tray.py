"""Calibrating from free rolls (clustering, contact sheets, a labels file), the tray profile, and
reading a tray of calibrated hero dice from the command line."""

from __future__ import annotations

import json
from collections import Counter

import cv2
import numpy as np
import pytest

from calibration.auto import cluster_crops, cluster_folder, names_from_file, profile_from_clusters
from calibration.errors import ProfileError
from calibration.profiles import save_profile
from calibration.tray import calibrate_tray, find_markers, load_tray_profile, save_tray_profile
from firmware_host.cli import main
from hardware.sim import Background, DieDesign, DieStyle, FaceArt, FaceKind, Lighting, Optics, random_scene, render_tray
from rules.dicethrone.heroes import load_hero
from vision.profile_reader import BodyDetector, TrayHint
from vision.types import DieStatus

FELT = Background("plain", (50, 80, 40), 5)
DIE_PX = 80
# Six faces with six different symbols: free rolls of it cluster cleanly.
EMBLEMS = DieDesign.hero("emblems", {1: "sword", 2: "heart", 3: "star", 4: "skull", 5: "moon", 6: "bolt"})


def _rolls(folder, design, frames, seed, dice=3, die_px=60):
    """Frames of free rolls on a felt tray, written as PNGs; returns the truth per frame."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    truths = []
    for i in range(frames):
        scene = random_scene(rng, dice, designs=[design], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=die_px)
        tray = render_tray(scene, rng)
        cv2.imwrite(str(folder / f"roll_{i:03d}.png"), tray.frame)
        truths.append(tray)
    return truths


def _faces_by_crop(trays):
    """The true face label of each crop the body detector finds, in the order it finds them."""
    labels = []
    detector = BodyDetector()
    for tray in trays:
        for candidate in detector.find(tray.frame):
            if candidate.touches_frame_edge:
                continue
            cx, cy = candidate.center
            hits = [t.face for t in tray.truth if t.box[0] <= cx <= t.box[0] + t.box[2] and t.box[1] <= cy <= t.box[1] + t.box[3]]
            labels.append(hits[0] if hits else "?")
    return labels


@pytest.fixture(scope="module")
def emblem_rolls(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rolls")
    return folder, _rolls(folder, EMBLEMS, 24, seed=4)


@pytest.fixture(scope="module")
def emblem_clusters(emblem_rolls, tmp_path_factory):
    folder, trays = emblem_rolls
    return cluster_folder(folder, 6, tmp_path_factory.mktemp("sheets")), _faces_by_crop(trays)


def test_free_rolls_cluster_into_faces_and_sheets_are_written(emblem_clusters):
    clustering, truth = emblem_clusters
    assert clustering.frame_count == 24 and clustering.crop_count == len(truth)
    assert len(clustering.clusters) == 6
    purity = sum(Counter(truth[i] for i in c.members).most_common(1)[0][1] for c in clustering.clusters)
    assert purity >= 0.95 * sum(len(c.members) for c in clustering.clusters)
    for cluster in clustering.clusters:
        sheet = cv2.imread(str(cluster.sheet))
        assert sheet is not None and sheet.shape[0] >= 64
        # The sheet's first tile is the cluster's most typical face, pixel for pixel.
        assert np.array_equal(sheet[1:65, 1:65], clustering.crops[cluster.members[0]])


def test_labels_file_names_the_clusters_and_builds_a_profile(emblem_rolls, emblem_clusters, tmp_path):
    folder, _ = emblem_rolls
    clustering, truth = emblem_clusters
    majority = {c.number: Counter(truth[i] for i in c.members).most_common(1)[0][0] for c in clustering.clusters}
    lines = ["[clusters]"] + [f'{n} = "{label}"' for n, label in majority.items()]
    for face in EMBLEMS.faces:
        lines.append(f'[faces.{face.label}]\nvalue = {face.value}\nsymbol = "{face.symbol}"')
    labels = tmp_path / "labels.toml"
    labels.write_text("\n".join(lines) + "\n")
    names = names_from_file(labels, clustering)
    profile = profile_from_clusters("emblems", clustering, names)
    assert sorted((f.label, f.value) for f in profile.faces) == sorted((f.label, f.value) for f in EMBLEMS.faces)

    # The command line does the same, from the frames to a saved profile.
    assert main(["calibrate", "die", "emblems", "--auto", str(folder), "--faces", "6", "--labels", str(labels),
                 "--sheets", str(tmp_path / "sheets")]) == 0
    assert (tmp_path / "sheets" / "cluster-1.png").is_file()
    assert main(["profiles", "show", "emblems", "--json"]) == 0


def test_labels_file_must_name_every_cluster(emblem_clusters, tmp_path):
    clustering, _ = emblem_clusters
    labels = tmp_path / "labels.toml"
    labels.write_text('[clusters]\n1 = "1"\n2 = "-"\n')
    with pytest.raises(ProfileError, match=r"clusters \[3, 4, 5, 6\] have no name"):
        names_from_file(labels, clustering)
    labels.write_text('[clusters]\n9 = "1"\n')
    with pytest.raises(ProfileError, match="there is no cluster 9"):
        names_from_file(labels, clustering)


def test_faces_sharing_a_symbol_separate_by_their_small_numbers(tmp_path):
    trays = _rolls(tmp_path / "rolls", DieDesign.barbarian(), 20, seed=4, die_px=DIE_PX)
    crops = [c.crop for t in trays for c in BodyDetector().find(t.frame) if not c.touches_frame_edge]
    truth = _faces_by_crop(trays)
    clustering = cluster_crops(crops, 6)
    majority = [Counter(truth[i] for i in c.members).most_common(1)[0] for c in clustering.clusters]
    assert sorted(label for label, _ in majority) == sorted(f.label for f in DieDesign.barbarian().faces)
    assert sum(n for _, n in majority) >= 0.95 * sum(len(c.members) for c in clustering.clusters)


def test_two_faces_that_look_the_same_are_reported(tmp_path):
    sword = [FaceArt(v, FaceKind.SYMBOL, glyph="sword", label=f"sword-{v}") for v in (1, 2)]
    twins = DieDesign("twins", tuple(sword) + tuple(FaceArt.glyph_face(v, g) for v, g in zip((3, 4, 5, 6), ("heart", "star", "skull", "moon"))))
    trays = _rolls(tmp_path / "rolls", twins, 20, seed=6, die_px=DIE_PX)
    crops = [c.crop for t in trays for c in BodyDetector().find(t.frame) if not c.touches_frame_edge]
    clustering = cluster_crops(crops, 6)
    assert any("look alike" in w or "could not separate" in w for w in clustering.warnings), clustering.warnings


def test_too_few_faces_to_cluster():
    with pytest.raises(ProfileError, match="needs more rolls"):
        cluster_crops([np.zeros((64, 64, 3), np.uint8)] * 2, 6)


def _with_markers(frame):
    """The frame with ArUco markers 0-3 (white-bordered) at its corners, as stuck on a tray."""
    out = frame.copy()
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    h, w = out.shape[:2]
    for marker_id, (x, y) in enumerate([(10, 10), (w - 70, 10), (w - 70, h - 70), (10, h - 70)]):
        out[y : y + 60, x : x + 60] = 255
        tag = cv2.aruco.generateImageMarker(dictionary, marker_id, 50)
        out[y + 5 : y + 55, x + 5 : x + 55] = cv2.cvtColor(tag, cv2.COLOR_GRAY2BGR)
    return out


def test_tray_profile_finds_markers_and_die_size(tmp_path):
    rng = np.random.default_rng(9)
    same = {"background": FELT, "tilt_deg": 0, "die_px": 60, "lighting": Lighting(), "optics": Optics()}
    empty = _with_markers(render_tray(random_scene(rng, 0, **same), rng).frame)
    assert [m.id for m in find_markers(empty)] == [0, 1, 2, 3]
    with_dice = [
        _with_markers(render_tray(random_scene(rng, 3, designs=[EMBLEMS], styles=[DieStyle()], **same), rng).frame)
        for _ in range(3)
    ]
    profile = calibrate_tray("tray", [empty, empty], with_dice)
    h, w = empty.shape[:2]
    x, y, rw, rh = profile.roi
    assert 30 <= x <= 50 and 30 <= y <= 50 and rw > w - 120 and rh > h - 120
    assert 50 <= profile.die_side <= 75
    assert profile.view.value == "unknown"  # hero dice show no pips to tell the camera's view by
    folder = save_tray_profile(profile)
    loaded = load_tray_profile()
    assert loaded.roi == profile.roi and loaded.die_side == profile.die_side
    assert [m.id for m in loaded.markers] == [0, 1, 2, 3]
    assert np.array_equal(loaded.background, profile.background)
    assert main(["profiles", "show", "tray", "--json"]) == 0
    (folder / "background.png").write_bytes(b"broken")
    with pytest.raises(ProfileError, match="background.png"):
        load_tray_profile()


def test_tray_without_markers_uses_the_whole_frame():
    rng = np.random.default_rng(1)
    empty = render_tray(random_scene(rng, 0, background=FELT, tilt_deg=0), rng).frame
    profile = calibrate_tray("tray", [empty])
    assert profile.roi == (0, 0, empty.shape[1], empty.shape[0]) and profile.die_side == 0.0
    assert isinstance(profile.hint(), TrayHint)


def test_cli_calibrate_tray_bad_image_exits_2(tmp_path, capsys):
    bad = tmp_path / "empty.png"
    bad.write_bytes(b"not an image")
    assert main(["calibrate", "tray", "--from", str(bad)]) == 2
    assert "empty.png" in capsys.readouterr().err


def test_read_with_profile_and_hero_gives_values_and_symbols(tmp_path, capsys):
    # Calibrate from photos of single dice taken in the tray, as a player would. The small corner
    # numbers need the die about 80 px wide to be told apart (a 1280x960 camera over a 30 cm tray).
    rng = np.random.default_rng(21)
    design = DieDesign.barbarian()
    photos = tmp_path / "photos"
    counts: Counter[str] = Counter()
    while min(counts[f.label] for f in design.faces) < 5:
        tray = render_tray(random_scene(rng, 1, designs=[design], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=DIE_PX), rng)
        truth = tray.truth[0]
        x, y, bw, bh = truth.box
        if truth.status is not DieStatus.OK or counts[truth.face] >= 5 or x < 30 or y < 30 or x + bw > 600 or y + bh > 440:
            continue
        (photos / truth.face).mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(photos / truth.face / f"{counts[truth.face]}.png"), tray.frame)
        counts[truth.face] += 1
    (photos / "faces.toml").write_text(
        "\n".join(f'[faces.{f.label}]\nvalue = {f.value}\nsymbol = "{f.symbol}"\n' for f in design.faces)
    )
    assert main(["calibrate", "die", "barbarian", "--from", str(photos)]) == 0
    capsys.readouterr()
    tray = render_tray(random_scene(rng, 4, designs=[design], styles=[DieStyle()], tilt_deg=0, background=FELT, die_px=DIE_PX), rng)
    image = tmp_path / "tray.png"
    cv2.imwrite(str(image), tray.frame)
    assert main(["read", str(image), "--profile", "barbarian", "--hero", "barbarian", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    hero = load_hero("barbarian")
    ok = [d for d in out["dice"] if d["status"] == "ok"]
    assert ok, out
    truth_values = Counter(t.value for t in tray.truth if t.status is DieStatus.OK)
    assert not Counter(d["value"] for d in ok) - truth_values  # nothing misread
    for die in ok:
        assert die["symbol"] == hero.symbol_for(die["value"])
        assert die["face"] in {f.label for f in design.faces}
    # The text says each die's face label, number and symbol.
    assert main(["read", str(image), "--profile", "barbarian"]) == 0
    text = capsys.readouterr().out
    for die in ok:
        assert f"{die['face']}:{die['value']}:{die['symbol']}" in text
    assert main(["read", str(image), "--profile", "barbarian", "--hero", "nobody"]) == 2


def test_live_calibration_from_a_simulated_camera(tmp_path):
    from calibration.auto import cluster_frames, settled_frames
    from hardware.sim.live import SimulatedTraySource

    camera = SimulatedTraySource(
        3, n_dice=3, design=EMBLEMS, style=DieStyle(), background=FELT, die_px=60, pickup=False, hold_s=0.5, fps=10
    )
    frames = list(settled_frames(camera, 8, fps=10))
    assert len(frames) == 8
    clustering = cluster_frames(frames, 6, tmp_path / "sheets")
    assert clustering.frame_count == 8 and len(clustering.clusters) == 6
    assert all(c.sheet is not None and c.sheet.is_file() for c in clustering.clusters)


def test_asking_at_a_prompt(emblem_clusters):
    from calibration.auto import ask_names

    clustering, _ = emblem_clusters
    answers = iter(["sword", "x", "sword", "1", "", "-", "2", "", "3", "", "4", "", "5", "star"])
    said: list[str] = []
    names = ask_names(clustering, lambda prompt: next(answers), said.append)
    assert names[1] is not None and (names[1].label, names[1].value) == ("sword", 1)
    assert names[2] is None
    assert [names[n].value for n in (3, 4, 5, 6)] == [2, 3, 4, 5] and names[6].symbol == "star"
    assert len(said) == 1 and "x" in said[0]  # a bad number is said, then the face asked again


def test_a_tray_whose_dice_are_small_says_what_small_numbers_need(tmp_path, capsys, monkeypatch):
    """Dice 30 px across in the tray's frames: pip dice read well, but a custom set's corner
    numbers want 60 px; the tray calibration says so, and what to change. Dice 60 px across: nothing to say."""
    from calibration.tray import NUMBERS_NEED_SIDE

    rng = np.random.default_rng(5)
    monkeypatch.setenv("DICETRAY_STATE_DIR", str(tmp_path / "state"))
    for die_px, small in ((30.0, True), (60.0, False)):
        same = {"background": FELT, "tilt_deg": 0, "die_px": die_px, "lighting": Lighting(), "optics": Optics()}
        empty = render_tray(random_scene(rng, 0, **same), rng).frame
        with_dice = [render_tray(random_scene(rng, 3, designs=[DieDesign.pips()], styles=[DieStyle()], **same), rng).frame for _ in range(2)]
        profile = calibrate_tray("tray", [empty], with_dice)
        assert (0 < profile.die_side < NUMBERS_NEED_SIDE) == small, profile.die_side
        notes = profile.notes()
        assert bool(notes) == small
        if small:
            assert f"dice are {profile.die_side:.0f} px across in these 640x480 frames" in notes[0]
            assert "want 60 px or more (bigger [frames] in the config, or the camera nearer the tray)" in notes[0]
        cv2.imwrite(str(tmp_path / "empty.png"), empty)
        cv2.imwrite(str(tmp_path / "dice.png"), with_dice[0])
        name = f"tray{int(die_px)}"
        assert main(["calibrate", "tray", "--name", name, "--from", str(tmp_path / "empty.png"), "--dice", str(tmp_path / "dice.png")]) == 0
        assert ("note: dice are" in capsys.readouterr().out) == small
        assert main(["profiles", "show", name]) == 0  # said again where the profile is looked at
        shown = capsys.readouterr().out
        assert "  view: " in shown and ("note: dice are" in shown) == small
    assert calibrate_tray("tray", [empty]).notes() == []  # no dice photographed: the die side is not known
