"""Rendered faces that know which face they show: the data the face embedding learns from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hardware.sim import DieDesign, DieStyle, render_face
from hardware.sim.dataset import DatasetWriteError
from hardware.sim.faces import FaceArt, FaceKind, InvalidDieDesign
from hardware.sim.glyphs import is_glyph
from hardware.sim.identity import CROP, MISCUT, face_identity, identity_crops, random_artwork_design


def test_made_up_artwork_is_drawn_from_its_seed() -> None:
    design = DieDesign("doodles", tuple(FaceArt.glyph_face(v, f"doodle-{40 + v}") for v in range(1, 7)))
    rng = np.random.default_rng(0)
    one = render_face(design, DieStyle(), 3, 96, rng=np.random.default_rng(1), rotation_deg=0)
    again = render_face(design, DieStyle(), 3, 96, rng=np.random.default_rng(1), rotation_deg=0)
    other = render_face(design, DieStyle(), 4, 96, rng=np.random.default_rng(1), rotation_deg=0)
    assert np.array_equal(one, again)
    assert np.abs(one.astype(int) - other.astype(int)).mean() > 2  # another seed, other artwork
    # ink is drawn: the face is not a blank body
    assert one[30:66, 30:66].std() > 15
    del rng


@pytest.mark.parametrize("name", ["doodle-", "doodle-x1", "doodle-1234567890123", "doodles-1", "", None])
def test_malformed_made_up_glyph_names_are_refused(name: object) -> None:
    assert not is_glyph(name)
    if isinstance(name, str):
        with pytest.raises(InvalidDieDesign, match="unknown glyph"):
            FaceArt.glyph_face(1, name)


def test_identity_says_what_a_face_looks_like_whatever_the_die() -> None:
    barbarian = DieDesign.barbarian()
    assert face_identity(barbarian.face(2)) == f"{barbarian.face(2).glyph}-2"
    assert face_identity(DieDesign.pips().face(3)) == "pips-3"
    assert face_identity(DieDesign.numerals().face(6)) == "numeral-6"
    assert face_identity(FaceArt.glyph_face(6, "star", number=False)) == "star"


def test_random_sets_have_faces_that_share_a_symbol() -> None:
    rng = np.random.default_rng(5)
    designs = [random_artwork_design(rng) for _ in range(200)]
    shared = 0
    for design in designs:
        glyphs = [f.glyph for f in design.faces if f.kind is FaceKind.SYMBOL]
        assert len({face_identity(f) for f in design.faces}) == 6  # six faces, six looks
        shared += len(set(glyphs)) < len(glyphs)
    assert 0.4 < shared / len(designs) < 0.75
    assert any(f.kind is FaceKind.PIPS for d in designs for f in d.faces)


def test_crops_of_every_face_with_identities(tmp_path: Path) -> None:
    crops = identity_crops(4, views=2, seed=3)
    assert crops.crops.shape[1:] == (CROP, CROP) and crops.crops.dtype == np.uint8
    assert len(crops.crops) == len(crops.identity) == len(crops.design)
    assert set(crops.design.tolist()) == {0, 1, 2, 3}
    # each set's six faces, each seen on (nearly) every tray
    for d in range(4):
        ids = crops.identity[crops.design == d]
        assert len(set(ids.tolist())) == 6
        assert len(ids) >= 9
    again = identity_crops(2, views=2, seed=3, start=2)
    first_of_set_2 = np.flatnonzero(crops.design == 2)[0]
    assert np.array_equal(again.crops[0], crops.crops[first_of_set_2])
    saved = crops.save(tmp_path / "shots.npz")
    with np.load(saved) as data:
        assert data["crops"].shape == crops.crops.shape
        assert tuple(data["names"]) == crops.names


def test_unwritable_file_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(DatasetWriteError, match="shots.npz"):
        identity_crops(1, views=1).save(blocker / "shots.npz")


def test_badly_cut_crops_are_marked_as_no_face() -> None:
    plain = identity_crops(3, views=1, seed=4)
    with_miscuts = identity_crops(3, views=1, seed=4, miscut=1.0)
    faces = with_miscuts.identity != MISCUT
    assert (~faces).sum() == faces.sum() == len(plain.crops)
    # a badly cut crop is not the face: far from its own face's crop
    first_face = np.flatnonzero(faces)[0]
    assert np.abs(with_miscuts.crops[first_face + 1].astype(int) - with_miscuts.crops[first_face].astype(int)).mean() > 8
