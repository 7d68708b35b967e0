"""Telling which way the camera looks (vision.view), and reading a straight-down camera's frames
without the pip reader's check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hardware.sim import random_scene, render_tray
from vision.imageio import Frame, load_image
from vision.reader import DiceReader
from vision.types import DieStatus
from vision.view import View, camera_view

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
real_photos = pytest.mark.skipif(not (DATA / "real-d6").is_dir() or not (DATA / "byler-d6-train").is_dir(), reason="real photos not present")


def _rendered(tilt_deg: float, seed: int = 5) -> list[Frame]:
    rng = np.random.default_rng(seed)
    return [render_tray(random_scene(rng, 6, tilt_deg=tilt_deg), rng).frame for _ in range(4)]


@pytest.mark.parametrize(("tilt_deg", "view"), [(0, View.OVERHEAD), (15, View.OVERHEAD), (30, View.OBLIQUE), (45, View.OBLIQUE)])
def test_rendered_trays_tell_the_view_by_their_tilt(tilt_deg: float, view: View) -> None:
    finding = camera_view(_rendered(tilt_deg))
    assert finding.view is view
    assert finding.faces >= 10
    assert (finding.side_faces > 0) == (view is View.OBLIQUE)


def test_frames_without_pip_dice_do_not_tell() -> None:
    finding = camera_view([np.full((480, 640, 3), 90, np.uint8)] * 3)
    assert finding.view is View.UNKNOWN and finding.faces == 0
    assert "not told" in finding.describe()
    assert camera_view([]).view is View.UNKNOWN


@real_photos
def test_a_tray_seen_from_above_is_overhead() -> None:
    names = ["IMG_20191208_111228.jpg", "IMG_20191208_111316.jpg", "IMG_20191208_112332.jpg", "IMG_20191208_112340.jpg"]
    finding = camera_view(load_image(DATA / "byler-d6-train" / name) for name in names)
    assert finding.view is View.OVERHEAD and finding.side_faces == 0
    assert finding.describe().startswith("the camera looks straight down")


@real_photos
def test_a_webcam_at_an_angle_is_oblique() -> None:
    names = ["dice_46.jpg", "three_34.jpg", "two_28.jpg", "six_25.jpg"]
    finding = camera_view(load_image(DATA / "real-d6" / name) for name in names)
    assert finding.view is View.OBLIQUE and finding.side_faces > 0


@real_photos
def test_overhead_frames_are_read_without_the_pip_check() -> None:
    # An oblique photo in which the learned reader alone reads a side face as a sixth die: the
    # check is what drops it, so whether it ran shows in the reading.
    frame = load_image(DATA / "real-d6" / "dice_46.jpg")
    checked = DiceReader(threads=1).read(frame)
    unchecked = DiceReader(threads=1, pip_check=False).read(frame)
    assert len(checked.dice) == 5 and len(unchecked.dice) == 6
    overhead = DiceReader(threads=1, overhead_frames=(640, 480))
    assert overhead.read(frame).dice == unchecked.dice
    other_camera = DiceReader(threads=1, overhead_frames=(1280, 960))
    assert other_camera.read(frame).dice == checked.dice
    assert "overhead_frames=(640, 480)" in repr(overhead)


@real_photos
def test_overhead_frames_with_an_unsure_die_are_checked() -> None:
    # Seen straight down the check has only unsure dice to settle; this tray has one.
    frame = load_image(DATA / "byler-d6-train" / "IMG_20191208_111228.jpg")
    unchecked = DiceReader(threads=1, pip_check=False).read(frame)
    assert any(d.status is DieStatus.UNREADABLE for d in unchecked.dice)
    checked = DiceReader(threads=1).read(frame)
    assert checked.dice != unchecked.dice
    assert DiceReader(threads=1, overhead_frames=(640, 640)).read(frame).dice == checked.dice


def _searched(frame: Frame) -> tuple[list[object], list[tuple[float, float]]]:
    from vision.detect import FaceDetector

    faces, side_faces = FaceDetector().find_with_side_faces(frame, crops=False)
    return list(faces), side_faces


@real_photos
def test_a_watch_tells_a_camera_from_above_after_its_rolls_and_again_at_the_first_side_face() -> None:
    from vision.view import ViewWatch

    watch = ViewWatch(rolls=4, recheck_every=3)
    above = _searched(load_image(DATA / "byler-d6-train" / "IMG_20191208_111316.jpg"))
    for roll in range(3):
        watch.seen((640, 640), *above)  # type: ignore[arg-type]
        assert watch.view is View.UNKNOWN, roll  # too few rolls yet
    watch.seen((640, 640), [], [])  # an empty tray tells nothing
    assert watch.view is View.UNKNOWN
    watch.seen((640, 640), *above)  # type: ignore[arg-type]
    assert watch.view is View.OVERHEAD and watch.finding.side_faces == 0
    # told from above: two rolls in three skip the check, the third is checked
    assert [watch.skips_check((640, 640)) for _ in range(6)] == [True, True, False, True, True, False]
    assert not watch.skips_check((640, 480))  # another camera's frames are not told
    oblique = _searched(load_image(DATA / "real-d6" / "dice_46.jpg"))
    watch.seen((640, 640), *oblique)  # type: ignore[arg-type]
    assert watch.view is View.OBLIQUE and not watch.skips_check((640, 640))
    watch.seen((640, 480), *above)  # type: ignore[arg-type]
    assert watch.view is View.UNKNOWN  # a frame of another size starts again


def test_a_watch_needs_rolls_to_watch() -> None:
    from vision.view import ViewWatch

    with pytest.raises(ValueError, match="rolls and recheck_every of 1 or more"):
        ViewWatch(rolls=0)


@real_photos
def test_a_reader_watching_its_camera_skips_the_check_once_told_from_above_and_checks_again() -> None:
    from vision.view import ViewWatch

    # A tray seen from above, cut to the webcam's 640x480, then the webcam's oblique photo in
    # which the check drops a side face read as a sixth die.
    above = load_image(DATA / "byler-d6-train" / "IMG_20191208_111316.jpg")[:480]
    oblique = load_image(DATA / "real-d6" / "dice_46.jpg")
    checked = DiceReader(threads=1).read(oblique)
    unchecked = DiceReader(threads=1, pip_check=False).read(oblique)
    watch = ViewWatch(rolls=3, recheck_every=2)
    reader = DiceReader(threads=1, view_watch=watch)
    assert "view_watch=ViewWatch(rolls=3, recheck_every=2)" in repr(reader)
    assert reader.read(oblique).dice == checked.dice  # not told yet: checked
    assert watch.view is View.OBLIQUE
    for _ in range(3):
        reader.read(above)
    assert watch.view is View.OVERHEAD
    assert reader.read(oblique).dice == unchecked.dice  # told from above: not checked
    assert reader.read(oblique).dice == checked.dice  # one roll in two checked: the side face seen
    assert watch.view is View.OBLIQUE
    assert reader.read(oblique).dice == checked.dice
    # without the check there is nothing to watch from
    quiet = ViewWatch(rolls=1)
    DiceReader(threads=1, pip_check=False, view_watch=quiet).read(above)
    assert quiet.view is View.UNKNOWN
