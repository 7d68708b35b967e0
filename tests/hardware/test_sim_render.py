"""The simulated tray renderer: determinism, ground truth, awkward cases, custom faces, labelled folders."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.sim import (
    GLYPH_NAMES,
    STYLE_PRESETS,
    Background,
    Camera,
    DieDesign,
    DiePose,
    DieStyle,
    FaceArt,
    FaceKind,
    Finish,
    Hand,
    InvalidDieDesign,
    InvalidScene,
    Optics,
    TrayScene,
    random_scene,
    render_face,
    render_tray,
    write_face_folders,
    write_labelled_folder,
)
from hardware.sim.faces import face_texture
from hardware.sim.scene import silhouette
from vision.types import DieStatus


def _render(seed: int, n: int = 5, **kw: object) -> tuple[TrayScene, np.ndarray, tuple]:  # type: ignore[type-arg]
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, n, **kw)  # type: ignore[arg-type]
    tray = render_tray(scene, rng)
    return scene, tray.frame, tray.truth


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(area)


def test_same_seed_same_pixels_and_different_seed_differs() -> None:
    _, f1, t1 = _render(11)
    _, f2, t2 = _render(11)
    _, f3, _ = _render(12)
    assert f1.shape == (480, 640, 3) and f1.dtype == np.uint8
    assert np.array_equal(f1, f2)
    assert t1 == t2
    assert not np.array_equal(f1, f3)


@pytest.mark.parametrize("seed", range(8))
def test_truth_is_consistent_with_the_scene(seed: int) -> None:
    scene, frame, truth = _render(seed, n=int(seed * 3 % 12) + 1)
    assert len(truth) == len(scene.dice)
    h, w = frame.shape[:2]
    for die, t in zip(scene.dice, truth):
        x, y, bw, bh = t.box
        assert 0 <= x and 0 <= y and x + bw <= w and y + bh <= h
        assert bw > 0.5 * scene.camera.die_px and bh > 0.3 * scene.camera.die_px
        assert t.value == die.value
        assert t.status is DieStatus.OK
        assert t.face == str(die.value) and t.kind is FaceKind.PIPS and t.symbol is None
        # The top face sits inside the die's outline box.
        dx, dy, dw, dh = t.die_box
        assert dx <= x and dy <= y and x + bw <= dx + dw and y + bh <= dy + dh
    hulls = [silhouette(scene.camera, d) for d in scene.dice]
    for i in range(len(hulls)):
        for j in range(i + 1, len(hulls)):
            assert _overlap(hulls[i], hulls[j]) < 1.0


def test_top_face_is_where_the_truth_box_says() -> None:
    # A single white die with black pips on a dark plain tray: the bright top face fills its box.
    rng = np.random.default_rng(3)
    scene = random_scene(
        rng, 1, tilt_deg=0, background=Background("plain", (40, 40, 40), 1), styles=[DieStyle.parse("white/black")], values=[1]
    )
    tray = render_tray(scene, rng)
    truth = tray.truth[0]
    grey = cv2.cvtColor(tray.frame, cv2.COLOR_BGR2GRAY)
    quad = np.array(truth.quad)
    centre = quad.mean(axis=0)
    # Halfway from the centre to each corner is white body; the centre is the single pip.
    for corner in quad:
        px, py = np.round((centre + corner) / 2).astype(int)
        assert grey[py, px] > 150
    assert grey[round(centre[1]), round(centre[0])] < 90
    x, y, w, h = truth.box
    assert abs(x + w / 2 - centre[0]) < 1.5 and abs(y + h / 2 - centre[1]) < 1.5
    assert np.median(grey[: max(y - 10, 1)]) < 80  # background well away from the die


def test_values_can_be_fixed_and_show_as_pips() -> None:
    _, _, truth = _render(5, n=6, values=[1, 2, 3, 4, 5, 6])
    assert sorted(t.value for t in truth) == [1, 2, 3, 4, 5, 6]
    with pytest.raises(InvalidScene, match=r"\[1, 2\]"):
        _render(5, n=3, values=[1, 2])


def test_touching_pairs_touch_without_overlapping() -> None:
    scene, _, truth = _render(21, n=4, touching=2, tilt_deg=0)
    for a, b in ((0, 1), (2, 3)):
        da, db = scene.dice[a], scene.dice[b]
        # Side by side on the tray, 0.15 mm apart, squared up with each other.
        gap = np.hypot(da.x_mm - db.x_mm, da.y_mm - db.y_mm) - da.size_mm
        assert 0 < gap < 0.5
        assert da.yaw_deg == db.yaw_deg
        qa, qb = np.array(truth[a].quad), np.array(truth[b].quad)
        assert _overlap(qa, qb) < 1.0
        # Touching in the picture too: the top faces nearly meet.
        nearest = min(float(np.linalg.norm(p - q)) for p in qa for q in qb)
        assert nearest < 0.3 * scene.camera.die_px
    assert all(t.status is DieStatus.OK for t in truth)


def test_cocked_die_is_marked_and_leans() -> None:
    scene, _, truth = _render(2, n=4, cocked=1, tilt_deg=20)
    statuses = [t.status for t in truth]
    assert statuses.count(DieStatus.COCKED) == 1
    cocked = scene.dice[statuses.index(DieStatus.COCKED)]
    assert 20 <= cocked.lean_deg <= 40
    assert cocked.vertices()[:, 2].min() == pytest.approx(0.0, abs=1e-9)


def test_die_cut_by_frame_edge_is_occluded_with_clipped_box() -> None:
    scene, frame, truth = _render(4, n=3, out_of_frame=1)
    cut = [t for t in truth if t.status is DieStatus.OCCLUDED]
    assert len(cut) == 1
    x, y, w, h = cut[0].box
    assert x == 0 or y == 0 or x + w == frame.shape[1] - 1 or y + h == frame.shape[0] - 1


def test_hand_over_dice_occludes_them_and_covers_pixels() -> None:
    rng = np.random.default_rng(9)
    base = random_scene(rng, 6, tilt_deg=0, background=Background("plain", (60, 110, 40), 2))
    without = render_tray(base, np.random.default_rng(1))
    hand = Hand("left", along=0.5, reach=0.9)
    with_hand = render_tray(TrayScene(base.camera, base.background, base.dice, hand, base.lighting, base.optics), np.random.default_rng(1))
    occluded = [t for t in with_hand.truth if t.status is DieStatus.OCCLUDED]
    assert occluded, "a hand reaching 90% across the frame covers at least one of six dice"
    diff = cv2.absdiff(without.frame, with_hand.frame).max(axis=2)
    assert (diff > 40).mean() > 0.1
    # Dice the hand does not touch keep their status.
    for a, b in zip(without.truth, with_hand.truth):
        if b.status is DieStatus.OK:
            assert a.status is DieStatus.OK


def test_symbol_faces_and_hero_designs() -> None:
    design = DieDesign.barbarian()
    assert [design.face(v).label for v in range(1, 7)] == ["sword-1", "sword-2", "sword-3", "heart-4", "heart-5", "strength-6"]
    assert design.face(5).symbol == "heart" and design.face(5).kind is FaceKind.SYMBOL
    _, _, truth = _render(8, n=6, designs=[design], values=[1, 2, 3, 4, 5, 6])
    t = {x.value: x for x in truth}
    assert t[2].face == "sword-2" and t[2].symbol == "sword"
    # Uncalibrated, a symbol face is unreadable; calibrated, it reads as its value.
    assert t[2].reading().status is DieStatus.UNREADABLE and t[2].reading().value is None
    calibrated = t[2].reading(calibrated=True)
    assert calibrated.ok and calibrated.value == 2 and calibrated.symbol == "sword" and calibrated.face == "sword-2"


def test_faces_sharing_a_glyph_differ_only_by_the_small_number() -> None:
    style = DieStyle.parse("red/white")
    design = DieDesign.barbarian()
    one, two, four = (face_texture(design, style, v, 96)[0] for v in (1, 2, 4))
    d12 = cv2.absdiff(one, two).max(axis=2)
    d14 = cv2.absdiff(one, four).max(axis=2)
    # The 1 and the 2 differ in a small corner region; the sword and the heart differ over much more.
    assert 0 < (d12 > 60).sum() < (d14 > 60).sum() / 3
    ys, xs = np.nonzero(d12 > 60)
    assert xs.min() > 96 * 0.6 and ys.min() > 96 * 0.6  # the corner number is at the bottom right


@pytest.mark.parametrize("glyph", GLYPH_NAMES)
def test_every_glyph_draws_ink_on_the_face(glyph: str) -> None:
    design = DieDesign.hero("test", {v: glyph for v in range(1, 7)})
    crop = render_face(design, DieStyle.parse("white/black"), 3, 96, rotation_deg=0.0)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    centre = grey[24:72, 24:72]
    assert (centre < 100).mean() > 0.05  # the dark glyph
    assert (centre > 170).mean() > 0.1  # the white body around it


def test_pip_face_crop_has_the_right_number_of_pips() -> None:
    for value in range(1, 7):
        crop = render_face(DieDesign.pips(), DieStyle.parse("white/black"), value, 128, rotation_deg=10.0)
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        dark = (grey[30:98, 30:98] < 90).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
        blobs = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 20]
        assert len(blobs) == value


def test_hero_dice_from_rules_symbols() -> None:
    from rules.dicethrone.heroes import all_heroes

    for hero in all_heroes():
        design = DieDesign.from_symbols(hero.id, list(hero.faces))
        assert [design.face(v).symbol for v in range(1, 7)] == list(hero.faces)
        # Faces with different symbols never share artwork.
        glyph_of = {design.face(v).symbol: design.face(v).glyph for v in range(1, 7)}
        assert len(set(glyph_of.values())) == len(glyph_of)
    assert DieDesign.barbarian().face(6).glyph == "pow"


def test_emblem_die_and_numerals() -> None:
    emblem = DieDesign.pips_with_emblem(6, "star")
    assert emblem.face(6).kind is FaceKind.SYMBOL and emblem.face(6).label == "star"
    assert emblem.face(5).kind is FaceKind.PIPS
    assert DieDesign.numerals().face(3).kind is FaceKind.NUMERAL
    _, _, truth = _render(30, n=2, designs=[DieDesign.numerals()])
    assert all(t.label()["face"] == "numeral" for t in truth)
    assert all(t.reading().status is DieStatus.UNREADABLE for t in truth)  # a pip reader cannot read numerals
    assert [t.reading(calibrated=True).value for t in truth] == [t.value for t in truth]


def test_bad_designs_are_refused_with_the_input_named() -> None:
    with pytest.raises(InvalidDieDesign, match="'banana'"):
        FaceArt.glyph_face(1, "banana")
    with pytest.raises(InvalidDieDesign, match="7"):
        FaceArt.pips(7)
    with pytest.raises(InvalidDieDesign, match="faces"):
        DieDesign.hero("half", {1: "sword", 2: "heart"})
    with pytest.raises(InvalidDieDesign, match="'mauve'"):
        DieStyle.parse("mauve/white")
    with pytest.raises(InvalidDieDesign, match="not unique"):
        DieDesign("dup", tuple(FaceArt(v, FaceKind.PIPS, label="x") for v in range(1, 7)))
    assert isinstance(InvalidDieDesign("x"), ValueError)


def test_style_notation_round_trips_and_repr_is_a_constructor_call() -> None:
    for style in STYLE_PRESETS:
        assert DieStyle.parse(style.notation()) == style
        assert eval(repr(style), {"DieStyle": DieStyle, "Finish": Finish}) == style
    odd = DieStyle((1, 2, 3), (200, 201, 202), Finish.MARBLED, seed=4)
    assert eval(repr(odd), {"DieStyle": DieStyle, "Finish": Finish}) == odd


@pytest.mark.parametrize("style", ["black/white", "blue/white/translucent", "green/white/marbled", "white/red"])
def test_styles_put_body_and_ink_colours_on_the_top_face(style: str) -> None:
    s = DieStyle.parse(style)
    crop = render_face(DieDesign.pips(), s, 5, 128, rotation_deg=0.0)
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(int)
    body_grey = int(cv2.cvtColor(np.uint8([[s.body]]), cv2.COLOR_BGR2GRAY)[0, 0])
    ink_grey = int(cv2.cvtColor(np.uint8([[s.ink]]), cv2.COLOR_BGR2GRAY)[0, 0])
    centre = grey[64, 64]  # the middle pip of the 5
    between = grey[64, 44]  # body between pips
    assert abs(centre - between) > 40
    assert (centre > between) == (ink_grey > body_grey)


def test_backgrounds_and_frame_sizes() -> None:
    for kind in ("plain", "wood", "pattern"):
        _, frame, truth = _render(40, n=3, background=kind, width=800, height=600)
        assert frame.shape == (600, 800, 3) and len(truth) == 3
    with pytest.raises(InvalidScene, match="13000x13000"):
        Camera(13000, 13000)
    with pytest.raises(InvalidScene, match="'carpet'"):
        Background("carpet")


def test_large_frame_with_many_dice() -> None:
    rng = np.random.default_rng(2)
    scene = random_scene(rng, 25, width=4000, height=3000, optics=Optics(jpeg_quality=None))
    tray = render_tray(scene, rng)
    assert tray.frame.shape == (3000, 4000, 3)
    assert len(tray.truth) == 25
    assert all(t.box[2] > 60 for t in tray.truth)


def test_thirty_dice_fit_and_too_many_are_refused() -> None:
    _, _, truth = _render(6, n=30)
    assert len(truth) == 30
    with pytest.raises(InvalidScene, match="31"):
        random_scene(np.random.default_rng(0), 31)
    with pytest.raises(InvalidScene, match="could not place"):
        random_scene(np.random.default_rng(0), 20, die_px=200)


def test_tilted_camera_shows_side_faces_below_the_top_face() -> None:
    pose = DiePose(1, 0.0, 0.0, 0.0, DieDesign.pips(), DieStyle.parse("white/black"))
    flat = TrayScene(Camera(tilt_deg=0), Background("plain", (40, 40, 40)), (pose,), optics=Optics(0, 0, None))
    tilted = TrayScene(Camera(tilt_deg=40), Background("plain", (40, 40, 40)), (pose,), optics=Optics(0, 0, None))
    t0 = render_tray(flat, np.random.default_rng(0)).truth[0]
    t1 = render_tray(tilted, np.random.default_rng(0)).truth[0]
    # Straight down the die outline is barely bigger than the top face; tilted, a side face shows.
    assert t0.die_box[3] - t0.box[3] < 0.15 * t0.box[3]
    assert t1.die_box[3] - t1.box[3] > 0.4 * t1.box[3]
    assert t1.box[3] < t1.box[2]  # foreshortened top face


def test_labelled_folder_is_readable_json_matching_the_images(tmp_path: Path) -> None:
    trays = write_labelled_folder(tmp_path / "set", 4, seed=3, n_dice=(1, 4), cocked=0)
    labels = json.loads((tmp_path / "set" / "labels.json").read_text())
    assert [e["image"] for e in labels] == [f"sim_{i:04d}.jpg" for i in range(4)]
    for entry, tray in zip(labels, trays):
        img = cv2.imread(str(tmp_path / "set" / entry["image"]))
        assert img is not None and img.shape == tray.frame.shape
        assert sorted(d["value"] for d in entry["dice"]) == sorted(t.value for t in tray.truth)
        for d in entry["dice"]:
            assert d["face"] == "pips" and len(d["box"]) == 4 and 1 <= d["value"] <= 6


def test_labelled_folder_leaves_unreadable_dice_out_and_labels_symbols(tmp_path: Path) -> None:
    write_labelled_folder(tmp_path, 3, seed=1, n_dice=4, cocked=1, designs=[DieDesign.barbarian()])
    labels = json.loads((tmp_path / "labels.json").read_text())
    assert all(len(e["dice"]) == 3 for e in labels)
    d = labels[0]["dice"][0]
    assert d["face"].split("-")[0] in ("sword", "heart", "strength") and d["symbol"] == d["face"].split("-")[0]


def test_face_folders_one_per_label(tmp_path: Path) -> None:
    written = write_face_folders(tmp_path, DieDesign.barbarian(), DieStyle.parse("red/white"), per_face=3, seed=2)
    assert sorted(written) == sorted(["sword-1", "sword-2", "sword-3", "heart-4", "heart-5", "strength-6"])
    for label, paths in written.items():
        assert len(paths) == 3 and all(p.parent.name == label for p in paths)
        img = cv2.imread(str(paths[0]))
        assert img is not None and img.shape == (96, 96, 3)
    a, b = (cv2.imread(str(p)) for p in written["strength-6"][:2])
    assert not np.array_equal(a, b)  # turned and lit differently


def test_glare_brightens_the_top_face_only() -> None:
    from dataclasses import replace

    rng = np.random.default_rng(17)
    scene = random_scene(rng, 3, tilt_deg=0, styles=[DieStyle.parse("red/white")], optics=Optics(0, 0, None))
    matte = render_tray(replace(scene, lighting=replace(scene.lighting, glare=0.0)), np.random.default_rng(0))
    glossy = render_tray(replace(scene, lighting=replace(scene.lighting, glare=0.3)), np.random.default_rng(0))
    diff = cv2.absdiff(glossy.frame, matte.frame).max(axis=2)
    for t in matte.truth:
        x, y, w, h = t.box
        assert diff[y : y + h, x : x + w].max() > 40  # a bright spot on each top face
    outside = np.ones_like(diff, bool)
    for t in matte.truth:
        x, y, w, h = t.box
        outside[y : y + h, x : x + w] = False
    assert diff[outside].max() <= 2  # at most an anti-aliased edge pixel rounds differently


def test_streaks_are_thin_bright_bands_across_top_faces_only() -> None:
    from dataclasses import replace

    rng = np.random.default_rng(17)
    scene = random_scene(rng, 3, tilt_deg=0, styles=[DieStyle.parse("red/white")], optics=Optics(0, 0, None))
    lighting = replace(scene.lighting, glare=0.0, streaks=0.8, streak_angle_deg=30.0, streak_width=0.06)
    matte = render_tray(replace(scene, lighting=replace(lighting, streaks=0.0)), np.random.default_rng(0))
    one = render_tray(replace(scene, lighting=lighting), np.random.default_rng(0))
    three = render_tray(replace(scene, lighting=replace(lighting, streak_count=3)), np.random.default_rng(0))
    diff = cv2.absdiff(one.frame, matte.frame).max(axis=2)
    more = cv2.absdiff(three.frame, matte.frame).max(axis=2)
    outside = np.ones_like(diff, bool)
    for t in matte.truth:
        x, y, w, h = t.box
        face = diff[y : y + h, x : x + w]
        assert face.max() > 100  # a bright band on each top face ...
        lit = int(np.count_nonzero(face > 40))
        assert 0 < lit < 0.25 * w * h  # ... a thin one, not a spot over the face
        assert np.count_nonzero(more[y : y + h, x : x + w] > 40) > 1.5 * lit  # three bands of one light
        outside[y - 1 : y + h + 1, x - 1 : x + w + 1] = False  # the face's anti-aliased rim may round out
    assert diff[outside].max() <= 2 and more[outside].max() <= 2


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 12),
    tilt=st.floats(0, 45),
    cocked=st.integers(0, 1),
    cut=st.integers(0, 1),
)
def test_any_random_scene_keeps_its_invariants(seed: int, n: int, tilt: float, cocked: int, cut: int) -> None:
    cocked, cut = min(cocked, n), min(cut, max(n - cocked, 0))
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, n, tilt_deg=tilt, cocked=cocked, out_of_frame=cut, width=320, height=240)
    tray = render_tray(scene, rng)
    assert len(tray.truth) == n
    statuses = [t.status for t in tray.truth]
    assert statuses.count(DieStatus.COCKED) <= cocked
    assert statuses.count(DieStatus.OK) >= n - cocked - cut
    for t in tray.truth:
        x, y, w, h = t.box
        assert 0 <= x and 0 <= y and x + w <= 320 and y + h <= 240
        assert 1 <= t.value <= 6
    # Dice not asked to touch or lean never overlap on the tray.
    free = [d for d in scene.dice if not d.cocked]
    for i in range(len(free)):
        for j in range(i + 1, len(free)):
            gap = np.hypot(free[i].x_mm - free[j].x_mm, free[i].y_mm - free[j].y_mm)
            assert gap > free[i].size_mm  # footprints at least a die apart centre to centre


def test_writing_into_a_file_path_names_it(tmp_path: Path) -> None:
    from hardware.sim import DatasetWriteError

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(DatasetWriteError, match="not-a-folder") as info:
        write_labelled_folder(blocker, 1)
    assert isinstance(info.value, OSError)
    with pytest.raises(DatasetWriteError, match="not-a-folder"):
        write_face_folders(blocker, DieDesign.pips(), DieStyle(), per_face=1)


def test_distractors_are_drawn_clear_of_the_dice_and_not_in_the_truth() -> None:
    from hardware.sim import DISTRACTOR_KINDS, Distractor, InvalidDistractor
    from hardware.sim.distractors import outline

    rng = np.random.default_rng(23)
    things = [Distractor(kind, 0.2 + 0.2 * i, 0.5, angle_deg=20.0, seed=i) for i, kind in enumerate(DISTRACTOR_KINDS)]
    scene = random_scene(rng, 4, tilt_deg=0, distractors=things, optics=Optics(0, 0, None))
    assert scene.distractors == tuple(things)
    with_things = render_tray(scene, np.random.default_rng(0))
    without = render_tray(TrayScene(scene.camera, scene.background, scene.dice, None, scene.lighting, scene.optics), np.random.default_rng(0))
    assert with_things.truth == without.truth  # not dice
    diff = cv2.absdiff(with_things.frame, without.frame).max(axis=2)
    for thing in things:
        poly = outline(thing, scene.camera.die_px, 640, 480)
        cx, cy = poly.mean(axis=0).astype(int)
        assert diff[cy - 3 : cy + 4, cx - 3 : cx + 4].max() > 30, thing.kind
        for die in scene.dice:
            assert _overlap(poly, silhouette(scene.camera, die)) < 1.0
    with pytest.raises(InvalidDistractor, match="'spoon'"):
        Distractor("spoon", 0.5, 0.5)
    assert len(random_scene(np.random.default_rng(1), 3, distractors=2).distractors) == 2


def test_translucent_dice_show_the_far_pips_faintly() -> None:
    from hardware.sim.faces import PIP_LAYOUT

    tex, _ = face_texture(DieDesign.pips(), DieStyle.parse("blue/white/translucent"), 1, 128)
    grey = cv2.cvtColor(np.ascontiguousarray(tex), cv2.COLOR_BGR2GRAY).astype(int)
    solid, _ = face_texture(DieDesign.pips(), DieStyle.parse("blue/white"), 1, 128)
    ghosts = [grey[int(y * 128), int((1 - x) * 128)] for x, y in PIP_LAYOUT[6] if (x, y) != (0.5, 0.5)]
    between = grey[40, 64]  # plain body above the single pip
    real_pip = grey[64, 65]  # the 1's own pip: white on a blue die
    assert all(g - between > 4 for g in ghosts)  # faint light spots where the 6 shows through
    assert real_pip - between > 80  # far stronger than the ghosts
    assert all(real_pip - g > 60 for g in ghosts)
    assert solid.shape == tex.shape


def test_tray_walls_frame_the_floor_and_keep_the_dice_inside() -> None:
    bg = Background("plain", (60, 110, 40), 2, walls=0.08)
    rng = np.random.default_rng(4)
    scene = random_scene(rng, 8, tilt_deg=0, background=bg, optics=Optics(0, 0, None))
    tray = render_tray(scene, rng)
    rim = bg.wall_px(640, 480)
    assert rim == pytest.approx(38.4)
    for die in scene.dice:
        hull = silhouette(scene.camera, die)
        assert hull.min() >= rim and hull[:, 0].max() <= 640 - rim and hull[:, 1].max() <= 480 - rim
    grey = cv2.cvtColor(tray.frame, cv2.COLOR_BGR2GRAY).astype(int)
    assert np.median(grey[:15, 100:540]) < np.median(grey[240, 200:440]) - 15  # the rim is darker than the floor
    with pytest.raises(InvalidScene, match="0.5"):
        Background(walls=0.5)


def test_docstring_examples_hold() -> None:
    import doctest

    import hardware.sim.faces

    result = doctest.testmod(hardware.sim.faces)
    assert result.attempted >= 3 and result.failed == 0


def test_perfect_reading_of_a_frame() -> None:
    rng = np.random.default_rng(12)
    tray = render_tray(random_scene(rng, 5, cocked=1, designs=[DieDesign.pips()]), rng)
    reading = tray.reading()
    assert len(reading.dice) == 5
    assert reading.values == tray.values and len(reading.values) == 4
    assert [d.status for d in reading.dice].count(DieStatus.COCKED) == 1
    assert [d.box[0] for d in reading.dice] == sorted(d.box[0] for d in reading.dice)
