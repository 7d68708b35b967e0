"""Reading with a calibrated profile against reading pips, on the same real photos.

The profile is calibrated exactly as a player would: faces 1-6 from the first five labelled dice of
each (a fixed calibration split of real-d6). Both readers find the same top faces; the profile's
reader then matches each against the exemplars instead of counting pips. Target: within 2x the
time of pip reading (compare the two means in one ``scripts/bench.sh`` run).
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
