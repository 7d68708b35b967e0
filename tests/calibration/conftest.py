"""Fixtures for the calibration tests: face photos of simulated hero dice, and profiles built once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.build import build_from_folder, crop_from_image
from calibration.profiles import DieProfile
from hardware.sim import DieDesign, DieStyle, render_face, write_face_folders


def write_faces_toml(folder: Path, design: DieDesign) -> None:
    """A faces.toml giving each face of ``design`` its number and symbol."""
    lines = [f'[faces.{f.label}]\nvalue = {f.value}\nsymbol = "{f.symbol}"\n' for f in design.faces]
    (folder / "faces.toml").write_text("\n".join(lines))


def hero_folder(folder: Path, design: DieDesign | None = None, per_face: int = 5, seed: int = 1) -> Path:
    """Labelled face photos of a simulated hero die set, as a player would take them."""
    design = design or DieDesign.barbarian()
    write_face_folders(folder, design, DieStyle(), per_face=per_face, seed=seed, size=96)
    write_faces_toml(folder, design)
    return folder


def face_crops(design: DieDesign, count: int, seed: int) -> list[tuple[int, np.ndarray]]:
    """``count`` fresh shots of random faces of ``design`` (value, top-face crop), at varied sizes."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        value = i % 6 + 1
        photo = render_face(design, DieStyle(), value, int(rng.integers(72, 120)), rng=rng)
        out.append((value, crop_from_image(photo, f"shot {i}")))
    return out


@pytest.fixture(scope="package")
def barbarian_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hero_folder(tmp_path_factory.mktemp("barbarian-photos"))


@pytest.fixture(scope="package")
def barbarian(barbarian_dir: Path) -> DieProfile:
    return build_from_folder("barbarian", barbarian_dir)


@pytest.fixture()
def make_hero_folder():
    """``hero_folder(folder, design=None, per_face=5, seed=1)``: writes labelled face photos."""
    return hero_folder


@pytest.fixture()
def shots():
    """``face_crops(design, count, seed)``: fresh shots of random faces as (value, crop)."""
    return face_crops
