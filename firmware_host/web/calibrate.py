"""The table app's calibration wizard: a die set's faces shot one by one with the live camera, then
built into a die profile and saved, through the calibration package's public functions
(:func:`calibration.build.build_profile`, :func:`calibration.profiles.save_profile`); and the tray
shot empty and with dice, saved as the tray profile (:class:`TrayShots`).

Faces are written as a player says them, separated by spaces or commas: ``1`` to ``6`` count as
themselves; ``sword-1`` counts 1 with the symbol ``sword`` (the labels' usual shape,
docs/calibration.md); anything else takes its number after ``=``: ``blank=6``.
"""

from __future__ import annotations

import base64
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.build import MAX_EXEMPLARS, build_profile, face_for, report_notes, shot_from_image, with_pip_faces
from calibration.finding import Shot
from calibration.errors import ProfileError
from calibration.paths import profiles_directory
from calibration.profiles import DieProfile, check_label, check_name, save_profile
from calibration.tray import DEFAULT_TRAY, TrayProfile, calibrate_tray, dice_on_empty_tray, save_tray_profile
from vision.learned import LearnedReader
from vision.profile_reader import CalibratedFace

Frame = npt.NDArray[np.uint8]

SOURCE = "the table app's calibration wizard"
SUGGESTED_SHOTS = 3
"""Shots per face the page asks for (turn the die between them); one is enough to build."""
_SYMBOL_AND_VALUE = re.compile(r"^([A-Za-z][A-Za-z_.+]*)-([1-6])$")


def parse_faces(text: str) -> list[CalibratedFace]:
    """The faces in ``text`` (see the module docstring), in the order given.

    :raises ProfileError: a bad label, a label without a number, a number outside 1-6, a repeat.
    """
    faces: list[CalibratedFace] = []
    for word in text.replace(",", " ").split():
        label, _, number = word.partition("=")
        entry: dict[str, Any] = {}
        if number:
            if not number.isdigit():
                raise ProfileError(f"face {word!r}: the number after '=' must be 1-6, not {number!r}")
            entry["value"] = int(number)
        shaped = _SYMBOL_AND_VALUE.match(label)
        if shaped is not None:
            entry.setdefault("value", int(shaped.group(2)))
            entry["symbol"] = shaped.group(1)
        faces.append(face_for(check_label(label), entry, SOURCE))
    labels = [face.label for face in faces]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ProfileError(f"face {repeated[0]!r} is named twice")
    if not faces:
        raise ProfileError("name the die's faces, for example: 1 2 3 4 5 6, or sword-1 sword-2 heart-4")
    return faces


def jpeg_data_url(image: Frame) -> str:
    """``image`` as a ``data:image/jpeg`` URL, for the page to show without another request."""
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise ValueError(f"OpenCV could not encode a {image.shape} crop as JPEG")
    return "data:image/jpeg;base64," + base64.b64encode(buffer.tobytes()).decode("ascii")


class CalibrationWizard:
    """One die set being calibrated: its name, its faces, and the top-face crops shot of each.

    :raises ProfileError: a bad profile name or bad faces (the message names them).
    """

    def __init__(self, name: str, faces: Sequence[CalibratedFace]) -> None:
        self.name = check_name(name)
        if not faces:
            raise ProfileError(f"profile {name!r}: name the die's faces")
        self.faces = tuple(faces)
        self._shots: dict[str, list[Shot]] = {face.label: [] for face in self.faces}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"CalibrationWizard({self.name!r}, faces={[f.label for f in self.faces]!r})"

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> CalibrationWizard:
        """From ``{"name": "barbarian", "faces": "sword-1 sword-2 ..."}``.

        :raises ProfileError: a missing or bad name or faces.
        """
        name, faces = body.get("name"), body.get("faces")
        if not isinstance(name, str) or not isinstance(faces, str):
            raise ProfileError('the wizard takes {"name": "barbarian", "faces": "sword-1 sword-2 heart-4 ..."}')
        return cls(name.strip(), parse_faces(faces))

    def face(self, label: Any) -> CalibratedFace:
        """:raises ProfileError: this die has no face ``label``."""
        for face in self.faces:
            if face.label == label:
                return face
        raise ProfileError(f"profile {self.name!r} has no face {label!r} (its faces: {', '.join(self._shots)})")

    def shoot(self, label: str, frame: Frame) -> Frame:
        """Finds the one die in a camera ``frame`` and keeps its top face as a shot of ``label``.

        :raises ProfileError: no such face, too many shots of it, no die in the frame or several.
        """
        face = self.face(label)
        with self._lock:
            taken = len(self._shots[face.label])
        if taken >= MAX_EXEMPLARS:
            raise ProfileError(f"face {label!r} has {taken} shots, as many as a profile keeps")
        shot = shot_from_image(frame, f"shot {taken + 1} of face {label!r}")
        with self._lock:
            self._shots[face.label].append(shot)
        return shot.crop

    def drop_last(self, label: str) -> int:
        """Forgets the last shot of ``label`` (a wrong face, a blurred one); returns the shots left.

        :raises ProfileError: no such face, or it has no shots.
        """
        face = self.face(label)
        with self._lock:
            shots = self._shots[face.label]
            if not shots:
                raise ProfileError(f"face {label!r} has no shots to take back")
            shots.pop()
            return len(shots)

    def build(self, *, replace: bool = False, folder: Path | None = None) -> tuple[DieProfile, Path]:
        """Builds the profile from the shots and saves it (in the profiles folder by default).

        :raises ProfileError: a face without shots, two faces that look the same, a profile of this
            name saved already (unless ``replace``).
        """
        target = folder if folder is not None else profiles_directory() / self.name
        if target.exists() and not replace:
            raise ProfileError(f"a profile {self.name!r} is saved already at {str(target)!r}; tick replace to overwrite it")
        with self._lock:
            exemplars = {label: [shot.crop for shot in shots] for label, shots in self._shots.items()}
            counted = {label: [shot.counted for shot in shots] for label, shots in self._shots.items()}
        missing = [face.label for face in self.faces if not exemplars[face.label]]
        if missing:
            raise ProfileError(f"profile {self.name!r}: face {missing[0]!r} has no shots yet")
        faces, finder = with_pip_faces(self.faces, exemplars, counted=counted)
        profile = build_profile(self.name, faces, exemplars, source=SOURCE, finder=finder)
        return profile, save_profile(profile, folder, overwrite=replace)

    def to_json(self) -> dict[str, Any]:
        """``{"name", "faces": [{"label", "value", "symbol", "shots": [data URL, ...]}], "ready"}``."""
        with self._lock:
            shots = {label: [shot.crop for shot in taken] for label, taken in self._shots.items()}
        return {
            "name": self.name,
            "faces": [
                {
                    "label": face.label,
                    "value": face.value,
                    "symbol": face.symbol,
                    "shots": [jpeg_data_url(crop) for crop in shots[face.label]],
                }
                for face in self.faces
            ],
            "suggested_shots": SUGGESTED_SHOTS,
            "ready": all(shots[face.label] for face in self.faces),
        }


def profile_report(profile: DieProfile, path: Path) -> dict[str, Any]:
    """What the page shows once a profile is saved: where, its faces, how its held-out reads went,
    and what the command line says of it too (:func:`calibration.build.report_notes`: faces hard
    to tell apart and the shots that would help, faces no photo cross-checked)."""
    fit = profile.fit
    right, reads = int(fit.get("held_out_right", 0)), int(fit.get("held_out_reads", 0))
    return {
        "profile": profile.summary(),
        "path": str(path),
        "text": (
            f"saved die profile {profile.name!r} to {str(path)!r}: {len(profile.faces)} faces, "
            f"{profile.exemplar_count()} examples; held out {right}/{reads} read right; found by {profile.finder}"
        ),
        "notes": report_notes(profile),
        "use": f'set profile = "{profile.name}" in the config, or: dicetray read IMAGE --profile {profile.name}',
    }


#: Shots with dice a tray calibration keeps: a few measure the dice and tell the view; more would
#: only hold frames in memory.
MAX_DICE_SHOTS = 10


class TrayShots:
    """The tray being calibrated from the page (``dicetray calibrate tray --camera`` by hand):
    shots of the empty tray, then shots of pip dice rolled into it, saved as the tray profile
    (:func:`calibration.tray.calibrate_tray`), which the running service then reads with.

    :raises ProfileError: a bad profile name.
    """

    def __init__(self, name: str = DEFAULT_TRAY) -> None:
        self.name = check_name(name)
        self._empty: list[Frame] = []
        self._dice: list[Frame] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"TrayShots({self.name!r}, empty={len(self._empty)}, dice={len(self._dice)})"

    def shoot_empty(self, frames: Sequence[Frame]) -> None:
        """Keeps ``frames`` (:data:`~calibration.tray.EMPTY_SHOTS` of them, one after another) as
        the empty tray, in the place of any taken before.

        :raises ProfileError: a frame with a die in it (named by its place).
        """
        for index, frame in enumerate(frames):
            dice = dice_on_empty_tray(frame)
            if dice:
                raise ProfileError(
                    f"the tray is not empty: {dice} {'die' if dice == 1 else 'dice'} in shot {index + 1}; take everything out and shoot again"
                )
        with self._lock:
            self._empty = list(frames)

    def shoot_dice(self, frame: Frame) -> int:
        """Keeps ``frame`` as a shot of pip dice in the tray; returns how many dice it shows.

        :raises ProfileError: the empty tray is not shot yet, :data:`MAX_DICE_SHOTS` are taken
            already, or no die is in the frame.
        """
        with self._lock:
            if not self._empty:
                raise ProfileError("shoot the empty tray first")
            if len(self._dice) >= MAX_DICE_SHOTS:
                raise ProfileError(f"{MAX_DICE_SHOTS} shots with dice are plenty: save the tray profile")
        dice = len(LearnedReader().read(frame).dice)
        if not dice:
            raise ProfileError("no dice in this shot: roll a few pip dice into the tray, then shoot")
        with self._lock:
            self._dice.append(frame)
        return dice

    def build(self, *, replace: bool = False) -> tuple[TrayProfile, Path]:
        """Builds the tray profile from the shots and saves it.

        :raises ProfileError: no shot of the empty tray, or a tray profile of the name saved
            already (unless ``replace``).
        """
        target = profiles_directory() / self.name
        if target.exists() and not replace:
            raise ProfileError(f"a tray profile {self.name!r} is saved already at {str(target)!r}; tick replace to overwrite it")
        with self._lock:
            empty, dice = list(self._empty), list(self._dice)
        if not empty:
            raise ProfileError("shoot the empty tray first")
        names = [f"empty-tray shot {i + 1}" for i in range(len(empty))]
        profile = calibrate_tray(self.name, empty, dice, empty_names=names)
        return profile, save_tray_profile(profile, overwrite=replace)

    def to_json(self) -> dict[str, Any]:
        """``{"name", "empty", "dice", "ready"}``: the shots taken of each kind."""
        with self._lock:
            return {"name": self.name, "empty": len(self._empty), "dice": len(self._dice), "ready": bool(self._empty)}


def tray_report(profile: TrayProfile, path: Path, *, taken_now: bool = False) -> dict[str, Any]:
    """What the page shows once a tray profile is saved: what the command line prints of it, and
    when the tray reads with it (``taken_now``: the running service takes it at once)."""
    return {
        "profile": profile.summary(),
        "path": str(path),
        "text": f"saved tray profile {profile.name!r} to {str(path)!r}: {profile.describe()}",
        "notes": profile.notes(),
        "use": "the tray reads with it from the next roll" if taken_now else "the tray takes it at its next start (restart the service)",
    }
