"""Reading with a calibrated profile against reading pips, on the same real photos.

The profile is calibrated exactly as a player would: faces 1-6 from the first five labelled dice of
each (a fixed calibration split of real-d6). Six pip faces, one for each number, are read by the
plain reader (:mod:`vision.pip_set`), so on these photos the profile costs only the naming of its
faces. Hero dice show what reading by exemplars costs: on simulated trays, a calibrated hero set's
reader (the learned detector, each die cut as calibration cut its exemplars and read from them,
the body and pip finders adding the dice the detector missed) against pip dice read by the plain
reader. Target: within 2x the time of pip reading (compare the means of each group in one
``scripts/bench.sh`` run).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.build import build_from_labelled_frames
from vision.imageio import load_image
from vision.reader import DiceReader

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"
pytestmark = pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")


@pytest.fixture(scope="module")
def frames():
    names = sorted(p.name for p in REAL_D6.glob("valid_*.jpg"))[:12]
    return [load_image(REAL_D6 / name) for name in names]


@pytest.fixture(scope="module")
def profile_reader():
    return build_from_labelled_frames("real-d6", REAL_D6).reader()


def _read_all(reader, frames):
    return sum(len(reader.read(frame).dice) for frame in frames)


@pytest.mark.benchmark(group="reading: pips vs calibrated profile")
def test_bench_pip_reading(benchmark, frames):
    assert benchmark(_read_all, DiceReader(), frames) > 0


@pytest.mark.benchmark(group="reading: pips vs calibrated profile")
def test_bench_profile_reading(benchmark, frames, profile_reader):
    assert benchmark(_read_all, profile_reader, frames) > 0


def _tray_frames(design, seed):
    import numpy as np

    from hardware.sim import Background, DieStyle, random_scene, render_tray

    rng = np.random.default_rng(seed)
    felt = Background("plain", (50, 80, 40), 5)
    return [
        render_tray(random_scene(rng, 4, designs=[design], styles=[DieStyle()], tilt_deg=0, background=felt, die_px=60), rng).frame
        for _ in range(6)
    ]


@pytest.fixture(scope="module")
def hero_reader(tmp_path_factory):
    from calibration.build import build_from_folder
    from hardware.sim import DieDesign, DieStyle, write_face_folders

    folder = tmp_path_factory.mktemp("hero-photos")
    design = DieDesign.barbarian()
    write_face_folders(folder, design, DieStyle(), per_face=5, seed=1, size=96)
    (folder / "faces.toml").write_text(
        "\n".join(f'[faces.{f.label}]\nvalue = {f.value}\nsymbol = "{f.symbol}"\n' for f in design.faces)
    )
    return build_from_folder("barbarian", folder).reader()


@pytest.mark.benchmark(group="simulated tray: pip dice vs calibrated hero dice")
def test_bench_pip_dice_on_simulated_tray(benchmark):
    from hardware.sim import DieDesign

    assert benchmark(_read_all, DiceReader(), _tray_frames(DieDesign.pips(), 3)) > 0


@pytest.mark.benchmark(group="simulated tray: pip dice vs calibrated hero dice")
def test_bench_hero_dice_on_simulated_tray(benchmark, hero_reader):
    from hardware.sim import DieDesign

    assert benchmark(_read_all, hero_reader, _tray_frames(DieDesign.barbarian(), 3)) > 0
