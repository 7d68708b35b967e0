"""Fixtures for the calibration tests: face photos of simulated hero dice, and profiles built once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.build import build_from_folder, crop_from_image
from calibration.profiles import DieProfile
from hardware.sim import Background, DieDesign, DieStyle, random_scene, render_face, render_tray, write_face_folders
from vision.types import DieStatus

#: The simulated tray's green felt.
FELT = Background("plain", (50, 80, 40), 5)


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


def tray_photos(
    folder: Path, design: DieDesign, die_px: float, seed: int, style: DieStyle | None = None, background: Background = FELT
) -> Path:
    """Five tray frames per face of one die well inside the frame (on ``background``, :data:`FELT`
    unless told), sorted into folders named by face label, with a faces.toml giving each face its
    number and symbol."""
    rng = np.random.default_rng(seed)
    counts: Counter[str] = Counter()
    while min(counts[f.label] for f in design.faces) < 5:
        scene = random_scene(rng, 1, designs=[design], styles=[style or DieStyle()], tilt_deg=0, background=background, die_px=die_px)
        tray = render_tray(scene, rng)
        truth = tray.truth[0]
        x, y, w, h = truth.box
        if truth.status is not DieStatus.OK or counts[truth.face] >= 5 or min(x, y) < 30 or x + w > 600 or y + h > 440:
            continue
        (folder / truth.face).mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / truth.face / f"{counts[truth.face]}.png"), tray.frame)
        counts[truth.face] += 1
    (folder / "faces.toml").write_text(
        "\n".join(
            f"[faces.{f.label}]\nvalue = {f.value}\n" + (f'symbol = "{f.symbol}"\n' if f.symbol else "") for f in design.faces
        )
    )
    return folder


def tray_reads(
    reader, design: DieDesign, background: Background, die_px: float, seed: int, frames: int, style: DieStyle | None = None
) -> list[tuple[str, float]]:
    """The outcome of every whole die in ``frames`` fresh frames of 1-5 dice of ``design`` read by
    ``reader``, with the confidence it stated: right, misread, unreadable (the reader said it
    cannot tell), edge (reported cut by the frame edge), missed."""
    rng = np.random.default_rng(seed)
    outcome: list[tuple[str, float]] = []
    for _ in range(frames):
        count = int(rng.integers(1, 6))
        scene = random_scene(rng, count, designs=[design], styles=[style or DieStyle()], tilt_deg=0, background=background, die_px=die_px)
        tray = render_tray(scene, rng)
        for truth, hit in tray.found_in(reader.read(tray.frame).dice):
            if hit is None:
                outcome.append(("missed", 0.0))
            elif hit.status is DieStatus.OCCLUDED:
                outcome.append(("edge", 0.0))
            elif hit.status is not DieStatus.OK:
                outcome.append(("unreadable", 0.0))
            else:
                outcome.append(("right" if hit.face == truth.face else "misread", hit.confidence))
    return outcome


def write_face_crops(dataset: Any, folder: Path, margin: float, per_face: int = 5) -> set[str]:
    """Crops of the first ``per_face`` labelled dice of each value in ``dataset`` (a
    :class:`vision.dataset.Dataset`), as a player cuts them: the die's box and ``margin`` of its
    size round it, in folders 1-6 of ``folder``. Returns the names of the photos used."""
    counts: Counter[str] = Counter()
    used = set()
    for item in sorted(dataset.images, key=lambda i: i.name):
        if min(counts[str(v)] for v in range(1, 7)) >= per_face:
            break
        frame = None
        for die in item.dice:
            label = str(die.value)
            if counts[label] >= per_face:
                continue
            frame = item.load() if frame is None else frame
            x, y, w, h = die.box
            grow = int(margin * max(w, h))
            crop = frame[max(0, y - grow) : y + h + grow, max(0, x - grow) : x + w + grow]
            (folder / label).mkdir(exist_ok=True)
            cv2.imwrite(str(folder / label / f"{item.name}-{counts[label]}.png"), crop)
            counts[label] += 1
            used.add(item.name)
    return used


def read_back_from_crops(folder: Path, work: Path, *, margin: float, every: int):
    """A profile from a player's five crops per face of the real photos in ``folder`` (the die and
    ``margin`` of its size round it), and the report of every ``every``-th other photo read with it."""
    from vision.dataset import Dataset, load_dataset
    from vision.evaluate import evaluate

    dataset = load_dataset(folder)
    used = write_face_crops(dataset, work, margin=margin)
    profile = build_from_folder(f"{folder.name}-crops", work)
    rest = [i for i in dataset.images if i.name not in used][::every]
    return profile, evaluate(Dataset(dataset.folder, tuple(rest)), profile.reader().read, progress=None)


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


@pytest.fixture(scope="package")
def photos_on_tray():
    """``tray_photos(folder, design, die_px, seed)``: five tray frames per face in face folders."""
    return tray_photos


@pytest.fixture(scope="package")
def crops_read_back():
    """``read_back_from_crops(folder, work, margin=, every=)``: (profile, report of the other photos)."""
    return read_back_from_crops


@pytest.fixture(scope="package")
def reads_on_tray():
    """``tray_reads(reader, design, background, die_px, seed, frames)``: how each whole die read."""
    return tray_reads
