"""Tray calibration: what the empty tray looks like (``dicetray calibrate tray``).

From a few photos of the empty tray it learns the background (their per-pixel median), the
region of interest (inside the ArUco markers at the tray's corners when there are any, else the
whole frame) and, from photos with dice in them, the expected side of a die's top face in pixels
(the dice the learned reader finds, outlined against the empty tray) and, where they show pip
dice, which way the camera looks (:mod:`vision.view`). "Empty" photos with dice in them are
refused (:func:`dice_on_empty_tray`).
It is saved like a die profile, in ``profiles_directory()/NAME/`` (default name ``tray``)::

    profile.json     {"format": "dicetray-tray-profile", "version": 1, "kind": "tray", "name": "tray",
                      "frame_size": [w, h], "roi": [x, y, w, h], "die_side": 52.0, "view": "overhead",
                      "markers": [{"id": 0, "corners": [[x, y], ...]}], "background": "background.png"}
    background.png   the empty tray

The reader for calibrated dice (:class:`vision.profile_reader.BodyDetector`) takes it as a
:class:`~vision.profile_reader.TrayHint`: dice are then found against the real tray instead of a
guess from the frame's border, only inside the region, and only at about the right size. The pip
reader (:class:`vision.detect.FaceDetector`) takes no tray hint yet. Plain pip dice on a tray whose
camera looks straight down are checked by the pip reader only where the learned reader is
unsure (:func:`overhead_frames`). Without a tray profile everything still works.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import CalibrationMissing, ProfileError
from calibration.paths import profiles_directory
from calibration.profiles import (
    FORMAT_VERSION,
    MANIFEST,
    _now,
    check_name,
    profile_path,
    read_manifest,
    repair_profile,
    write_profile_folder,
)
from vision.errors import ImageLoadError
from vision.imageio import load_image
from vision.learned import LearnedReader
from vision.profile_reader import BodyDetector, TrayHint
from vision.square_fit import mean_side
from vision.types import DieStatus
from vision.view import SAID, View, camera_view

Frame = npt.NDArray[np.uint8]

TRAY_FORMAT = "dicetray-tray-profile"
DEFAULT_TRAY = "tray"
_DICTIONARY = cv2.aruco.DICT_4X4_50


@dataclass(frozen=True)
class Marker:
    """An ArUco marker found on the tray: its id and four corners in frame pixels."""

    id: int
    corners: tuple[tuple[float, float], ...]


#: Frames of the empty tray a camera takes for a tray profile (their median is the background).
EMPTY_SHOTS = 5

#: The die side (px, top face) from which calibrated dice whose faces differ only in a corner
#: number are read to the number (docs/calibration.md: at 48 px about 1 in 110 is not, at 40 px
#: Dice Masters dice are misread about one read in ten).
NUMBERS_NEED_SIDE = 60.0


@dataclass(frozen=True, eq=False)
class TrayProfile:
    """The empty tray: background image, region of interest, die size and corner markers."""

    name: str
    background: Frame
    roi: tuple[int, int, int, int]
    die_side: float = 0.0
    markers: tuple[Marker, ...] = ()
    created: str = ""
    view: View = View.UNKNOWN
    view_seen: str = ""  # what the view was told from (ViewFinding.describe), for the owner to read

    def __post_init__(self) -> None:
        check_name(self.name)
        if not self.created:
            object.__setattr__(self, "created", _now())

    @property
    def frame_size(self) -> tuple[int, int]:
        return (int(self.background.shape[1]), int(self.background.shape[0]))

    def hint(self) -> TrayHint:
        """What the calibrated-dice reader takes."""
        return TrayHint(self.background, self.roi, self.die_side)

    def describe(self) -> str:
        w, h = self.frame_size
        side = f"die side {self.die_side:.0f} px" if self.die_side else "die side not measured"
        seen = self.view_seen or SAID[self.view]
        return f"{w}x{h} frames, region {list(self.roi)}, {len(self.markers)} ArUco markers, {side}; {seen}: {_READ[self.view]}"

    def notes(self) -> list[str]:
        """What the owner should know of the tray as calibrated: dice too small in its frames for
        the small numbers of custom dice (docs/calibration.md, Limits)."""
        if 0 < self.die_side < NUMBERS_NEED_SIDE:
            w, h = self.frame_size
            return [
                f"dice are {self.die_side:.0f} px across in these {w}x{h} frames: pip dice read well, but custom dice whose "
                f"faces differ in a small number want {NUMBERS_NEED_SIDE:.0f} px or more (bigger [frames] in the config, "
                "or the camera nearer the tray), or they are read as their symbol and asked for the number"
            ]
        return []

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": "tray",
            "created": self.created,
            "frame_size": list(self.frame_size),
            "roi": list(self.roi),
            "die_side": self.die_side,
            "view": self.view.value,
            "view_seen": self.view_seen,
            "markers": [{"id": m.id, "corners": [list(c) for c in m.corners]} for m in self.markers],
        }


_READ = {
    View.OVERHEAD: "pip dice are read by the learned reader, checked by the pip reader only where it is unsure",
    View.OBLIQUE: "pip dice are read with the pip reader's check",
    View.UNKNOWN: "pip dice are read with the pip reader's check",
}


def find_markers(frame: Frame) -> tuple[Marker, ...]:
    """The ArUco markers (4x4, ids 0-49) in a frame, by id."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(_DICTIONARY), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return ()
    found = [
        Marker(int(i), tuple((float(x), float(y)) for x, y in c.reshape(4, 2)))
        for c, i in zip(corners, ids.ravel())
    ]
    return tuple(sorted(found, key=lambda m: m.id))


def _region(markers: Sequence[Marker], width: int, height: int) -> tuple[int, int, int, int]:
    """Inside the markers when at least three mark the corners; else the whole frame."""
    if len(markers) < 3:
        return (0, 0, width, height)
    centres = np.array([np.mean(m.corners, axis=0) for m in markers])
    x0, y0 = np.floor(centres.min(axis=0)).astype(int)
    x1, y1 = np.ceil(centres.max(axis=0)).astype(int)
    x0, y0 = max(0, int(x0)), max(0, int(y0))
    x1, y1 = min(width, int(x1)), min(height, int(y1))
    if x1 - x0 < 32 or y1 - y0 < 32:
        return (0, 0, width, height)
    return (x0, y0, x1 - x0, y1 - y0)


def calibrate_tray(
    name: str, empty: Sequence[Frame], with_dice: Iterable[Frame] = (), *, empty_names: Sequence[str] = ()
) -> TrayProfile:
    """A tray profile from frames of the empty tray (and, to measure dice and tell the camera's
    view, frames with dice). ``empty_names``: what to call the empty frames in an error (their
    files), else their places ("empty-tray photo 2").

    :raises ProfileError: no frames, frames of different sizes, or an "empty" frame with dice in it.
    """
    check_name(name)
    if not empty:
        raise ProfileError("tray calibration needs at least one photo of the empty tray")
    names = list(empty_names) if len(empty_names) == len(empty) else [f"empty-tray photo {i + 1}" for i in range(len(empty))]
    shape = empty[0].shape
    for index, frame in enumerate(empty):
        if frame.shape != shape:
            raise ProfileError(f"{names[index]} is {frame.shape[1]}x{frame.shape[0]}, the first is {shape[1]}x{shape[0]}")
    reader = LearnedReader()
    for frame, called in zip(empty, names):
        dice = dice_on_empty_tray(frame, reader)
        if dice:
            raise ProfileError(
                f"{called} shows {dice} {'die' if dice == 1 else 'dice'}: the empty-tray photos are the tray with nothing in it "
                "(the dice found against it later are what differs from them)"
            )
    background: Frame = np.median(np.stack(empty), axis=0).astype(np.uint8)
    markers = find_markers(background)
    roi = _region(markers, shape[1], shape[0])
    dice_frames = list(with_dice)
    for frame in dice_frames:
        if frame.shape != shape:
            raise ProfileError(f"a photo with dice is {frame.shape[1]}x{frame.shape[0]}, the empty tray {shape[1]}x{shape[0]}")
    die_side = _die_side(dice_frames, BodyDetector(TrayHint(background, roi)), reader) if dice_frames else 0.0
    finding = camera_view(dice_frames)
    return TrayProfile(name, background, roi, die_side, markers, view=finding.view, view_seen=finding.describe())


def dice_on_empty_tray(frame: Frame, reader: LearnedReader | None = None) -> int:
    """How many dice the learned reader finds in a photo of the empty tray, leaving out what lies
    on an ArUco marker (a marker's black and white square can pass for a die's face)."""
    reader = reader if reader is not None else LearnedReader()
    boxes = [np.array(m.corners) for m in find_markers(frame)]
    on_marker = [(b.min(axis=0), b.max(axis=0)) for b in boxes]
    count = 0
    for die in reader.read(frame).dice:
        x, y, w, h = die.box
        centre = np.array([x + w / 2, y + h / 2])
        if not any(bool(np.all(low <= centre) and np.all(centre <= high)) for low, high in on_marker):
            count += 1
    return count


def _die_side(frames: Sequence[Frame], detector: BodyDetector, reader: LearnedReader) -> float:
    """The median side (px) of the dice's top faces in ``frames`` (0 for none found).

    Each die body the body finder outlines against the empty tray counts where the learned reader
    (which finds dice whatever their faces show, and needs no background) finds a die there of
    about its size; where no body is confirmed so, the learned reader's own faces count. Alone,
    the body finder took pips for dice where the light had changed since the empty photos (15 px
    for dice 60 px across on a light tray), and the profile then hid the real dice from it and
    offered it pips; the learned reader alone sizes some dice up to 1.4 times too big."""
    bodies: list[float] = []
    faces: list[float] = []
    for frame in frames:
        found = [d.box for d in reader.read(frame).dice if d.status in (DieStatus.OK, DieStatus.UNREADABLE)]
        faces += [(w + h) / 2.0 for _x, _y, w, h in found]
        for candidate in detector.find(frame):
            quad = np.array(candidate.quad)
            side = mean_side(quad)
            cx, cy = quad.mean(axis=0)
            if any(x <= cx <= x + w and y <= cy <= y + h and 0.5 * w <= side <= 1.5 * w for x, y, w, h in found):
                bodies.append(side)
    sides = bodies or faces
    return float(np.median(sides)) if sides else 0.0


def _load_all(paths: Sequence[str | os.PathLike[str]], what: str) -> list[Frame]:
    frames = []
    for path in paths:
        try:
            frames.append(load_image(path))
        except ImageLoadError as error:
            raise ProfileError(f"{what}: {error}") from None
    return frames


def calibrate_tray_from_files(
    name: str, empty: Sequence[str | os.PathLike[str]], with_dice: Sequence[str | os.PathLike[str]] = ()
) -> TrayProfile:
    """:func:`calibrate_tray` from image files; a bad file is named."""
    return calibrate_tray(
        name, _load_all(empty, "empty-tray photo"), _load_all(with_dice, "photo with dice"),
        empty_names=[f"empty-tray photo {str(path)!r}" for path in empty],
    )  # fmt: skip


def save_tray_profile(profile: TrayProfile, folder: str | os.PathLike[str] | None = None, *, overwrite: bool = False) -> Path:
    """Writes a tray profile (see the module docstring) and returns its folder."""
    target = Path(folder) if folder is not None else profiles_directory() / profile.name
    summary = profile.summary()
    manifest = {"format": TRAY_FORMAT, "version": FORMAT_VERSION, **summary, "background": "background.png"}
    manifest["detail"] = profile.describe()

    def write(staging: Path) -> None:
        ok, buffer = cv2.imencode(".png", profile.background)
        if not ok:
            raise ProfileError(f"cannot encode the background of tray profile {profile.name!r}")
        (staging / "background.png").write_bytes(buffer.tobytes())

    return write_profile_folder(target, manifest, write, overwrite=overwrite, loads=load_tray_profile)


def load_tray_profile(name_or_path: str | os.PathLike[str] = DEFAULT_TRAY) -> TrayProfile:
    """Loads a tray profile by saved name or path.

    :raises CalibrationMissing: no such profile.
    :raises ProfileError: a corrupt manifest or background image; the message names the file.
    """
    folder = profile_path(name_or_path)
    repair_profile(folder)
    data = read_manifest(folder)
    where = str(folder / MANIFEST)
    if data.get("format") != TRAY_FORMAT:
        raise ProfileError(f"{where!r}: not a tray profile (format {data.get('format')!r})")
    try:
        background = load_image(folder / str(data.get("background", "background.png")))
    except ImageLoadError as error:
        raise ProfileError(f"tray profile {folder.name!r}: corrupt background: {error}") from None
    try:
        roi_list = [int(v) for v in data["roi"]]
        if len(roi_list) != 4:
            raise ValueError(f"roi needs 4 numbers, not {len(roi_list)}")
        roi = (roi_list[0], roi_list[1], roi_list[2], roi_list[3])
        markers = tuple(
            Marker(int(m["id"]), tuple((float(x), float(y)) for x, y in m["corners"])) for m in data.get("markers", [])
        )
        # a profile saved before views were told has none: the camera's view is not known
        view = View(data.get("view", View.UNKNOWN.value))
        seen = str(data.get("view_seen", ""))
        return TrayProfile(str(data["name"]), background, roi, float(data.get("die_side", 0.0)), markers, str(data.get("created", "")), view, seen)
    except (KeyError, TypeError, ValueError) as error:
        raise ProfileError(f"{where!r}: bad tray profile: {error}") from None


def saved_tray_hint(name: str = DEFAULT_TRAY) -> TrayHint | None:
    """The saved tray profile's hint, or ``None`` when there is no tray profile."""
    try:
        return load_tray_profile(name).hint()
    except CalibrationMissing:
        return None


def overhead_frames(name: str = DEFAULT_TRAY) -> tuple[int, int] | None:
    """The frame size (width, height) of the saved tray profile's camera when it looks straight
    down (:mod:`vision.view`), for :class:`vision.reader.DiceReader`'s ``overhead_frames``; ``None``
    when there is no tray profile or its camera's view is oblique or not told.

    :raises ProfileError: the saved tray profile is corrupt (named).
    """
    try:
        tray = load_tray_profile(name)
    except CalibrationMissing:
        return None
    return tray.frame_size if tray.view is View.OVERHEAD else None
