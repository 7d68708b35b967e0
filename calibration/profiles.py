"""Die and tray profiles on disk: a versioned JSON manifest plus images, one folder per profile.

A die profile lives in ``profiles_directory()/NAME/``::

    profile.json                   the manifest (below)
    exemplars/LABEL/00.png ...     the example crops of each face, square, as the reader sees them

``profile.json``::

    {"format": "dicetray-die-profile", "version": 1, "kind": "die", "name": "barbarian",
     "created": "2026-11-29T11:20:00Z",
     "faces": [{"label": "sword-1", "value": 1, "symbol": "sword", "pips": false,
                "exemplars": ["exemplars/sword-1/00.png", ...]}, ...],
     "matcher": {"accept_distance": 0.06, "min_confidence": 0.5,
                 "confidence": {"edges": [...], "values": [...]}},
     "fit": {...}}

A tray profile (``kind: "tray"``) is described in :mod:`calibration.tray`; both kinds share the
folder, the manifest name and :func:`list_profiles` / :func:`remove_profile`.

Loading checks everything and names the file and the problem (:class:`ProfileError`); a missing
profile is :class:`CalibrationMissing`.

Saving is crash-safe: the new profile is written into a staging folder beside the old one, every
file and the folder are fsynced, and the staged profile is loaded back before anything is replaced;
then the old folder is renamed to ``.NAME.old``, the new one into place, and the parent folder is
fsynced after each rename. Only then is the old one removed. A save cut short between the two renames
(a crash, a pulled plug) leaves ``.NAME.old`` and no ``NAME``: the next use of the profiles
(:func:`repair_profile`, run by every load, list and save) renames it back, so the previous profile
is never lost, and removes staging folders a crash left behind.
"""

from __future__ import annotations

import datetime as _dt
import glob
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import CalibrationMissing, ProfileError
from calibration.paths import profiles_directory
from vision.datafile import fsync_path, load_json_file
from vision.errors import ImageLoadError
from vision.imageio import load_image
from vision.face_embedding import shared_embedding
from vision.detect import FaceDetector
from vision.pip_set import PipSetReader, is_pip_set
from vision.profile_reader import (
    BodyDetector,
    CalibratedFace,
    ConfidenceTable,
    LearnedFaceFinder,
    MatcherSettings,
    ProfileClassifier,
    TrayHint,
    paper_colour,
)
from vision.learned import CLASSES, CROP_CONTEXT, TOP_FACE, FoundDie, LearnedReader
from vision.reader import DiceReader

MANIFEST = "profile.json"
#: What a profile's faces show, which decides the rule-based finders that add the dice the learned
#: detector misses: their bodies (faces without pips), their pips, or both.
FINDERS = ("bodies", "pips", "pips+bodies")
DIE_FORMAT = "dicetray-die-profile"
FORMAT_VERSION = 1

#: Limits on what a profile may hold, checked before any exemplar is loaded: a die set has a few
#: dozen faces at most, and calibration keeps 24 exemplars per face.
MAX_PROFILE_FACES = 64
MAX_FACE_EXEMPLARS = 64

Crop = npt.NDArray[np.uint8]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")


def check_name(name: str) -> str:
    """A profile name: lowercase letters, digits, ``-``, ``_``, ``.``; at most 64 characters."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ProfileError(
            f"bad profile name {name!r}: use lowercase letters, digits, '-', '_' or '.', starting with a letter or digit"
        )
    return name


def check_label(label: str) -> str:
    """A face label: letters, digits, ``-``, ``_``, ``.``, ``+``; it names a folder on disk."""
    if not isinstance(label, str) or not _LABEL.match(label):
        raise ProfileError(f"bad face label {label!r}: use letters, digits, '-', '_', '.' or '+'")
    return label


@dataclass(frozen=True, eq=False)
class DieProfile:
    """A calibrated die set: its faces, example crops of each, and the fitted matcher settings.

    ``exemplars`` maps each face label to its crops (square BGR uint8). ``fit`` records how the
    settings were fitted (held-out reads, accuracy), for ``dicetray profiles show``.
    """

    name: str
    faces: tuple[CalibratedFace, ...]
    exemplars: Mapping[str, tuple[Crop, ...]] = field(repr=False)
    settings: MatcherSettings = field(default_factory=MatcherSettings)
    created: str = ""
    fit: Mapping[str, Any] = field(default_factory=dict, repr=False)
    finder: str = "bodies"

    def __post_init__(self) -> None:
        check_name(self.name)
        if self.finder not in FINDERS:
            raise ProfileError(f"profile {self.name!r}: unknown finder {self.finder!r} (known: {', '.join(FINDERS)})")
        labels = [face.label for face in self.faces]
        for label in labels:
            check_label(label)
        if len(set(labels)) != len(labels):
            raise ProfileError(f"profile {self.name!r}: face labels repeat: {labels!r}")
        unknown = sorted(set(self.exemplars) - set(labels))
        if unknown:
            raise ProfileError(f"profile {self.name!r}: exemplars for unknown faces {unknown!r}")
        if not self.created:
            object.__setattr__(self, "created", _now())

    def face(self, label: str) -> CalibratedFace:
        """The face with this label.

        :raises LookupError: (``CalibrationMissing``) no such face.
        """
        for face in self.faces:
            if face.label == label:
                return face
        raise CalibrationMissing(f"profile {self.name!r} has no face {label!r}")

    def classifier(self, pip_reader: Any = None) -> ProfileClassifier:
        """A :class:`~vision.profile_reader.ProfileClassifier` reading this die set, with the
        shipped face embedding's opinion (:mod:`vision.face_embedding`)."""
        pairs = [(face, self.exemplars.get(face.label, ())) for face in self.faces]
        return ProfileClassifier(pairs, self.settings, pip_reader=pip_reader, embedding=shared_embedding())

    def reader(self, tray: TrayHint | None = None) -> DiceReader | PipSetReader:
        """A reader for this die set. A set of six pip faces, one for each count (:func:`is_pip_set`),
        is read by the plain reader, each die named as the set names its face
        (:class:`~vision.pip_set.PipSetReader`: it reads such dice better than their exemplars
        do). Any other set: a :class:`~vision.reader.DiceReader` whose dice are found by the
        learned detector and by their bodies (against ``tray``, the caller's
        :func:`calibration.tray.saved_tray_hint` for the saved tray profile; None: no tray
        known), faces read by :meth:`classifier`; faces marked ``pips`` may also be read by the
        pip reader. A value reads no files: the tray is the caller's to load."""
        if is_pip_set(self.faces):
            return PipSetReader(self.faces)
        paper = paper_colour([crop for crops in self.exemplars.values() for crop in crops])
        classifier = self.classifier(pip_reader=read_pips)
        finder = LearnedFaceFinder(
            bodies=BodyDetector(tray, paper=paper),
            # Bodies the detector missed add dice of artwork sets, and cost pip sets precision.
            bodies_alone=self.finder != "pips",
            pips_alone=self.finder != "bodies",
            pip_counts=[count for count in range(1, 7) if classifier.reads_by_pips(count)],
        )
        return DiceReader(classifier=classifier, detector=finder)

    def exemplar_count(self) -> int:
        return sum(len(crops) for crops in self.exemplars.values())

    def summary(self) -> dict[str, Any]:
        """A JSON-ready description (``dicetray profiles show --json``)."""
        return {
            "name": self.name,
            "kind": "die",
            "created": self.created,
            "faces": [
                {
                    "label": f.label,
                    "value": f.value,
                    "symbol": f.symbol,
                    "pips": f.pips,
                    "exemplars": len(self.exemplars.get(f.label, ())),
                }
                for f in self.faces
            ],
            "matcher": _settings_json(self.settings),
            "fit": dict(self.fit),
            "finder": self.finder,
        }


def read_pips(crop: Crop) -> tuple[int, float] | None:
    """Reads a rectified face crop as pips with the pip reader: (value, confidence) or ``None``."""
    # The pip finder wants a die on a tray: frame the face with a darker band, as the tray would.
    rim = np.median(np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]]), axis=0) * 0.6
    pad = crop.shape[0] // 2
    framed = cv2.copyMakeBorder(crop, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=[float(v) for v in rim])
    faces = [c for c in FaceDetector().find(framed) if c.layout is not None]
    if len(faces) != 1 or faces[0].layout is None:
        return None
    return int(faces[0].layout.value), float(faces[0].quality)


def read_pips_learned(crops: Sequence[Crop], reader: LearnedReader | None = None) -> list[tuple[int, float] | None]:
    """Reads rectified face crops as pips with the learned face network: for each, (value,
    probability) where it reads a pip count surely, else ``None``.

    The network sees a die with tray round it (:func:`vision.learned.crop_transform`): each face is
    framed as :func:`read_pips` frames it, the top face :data:`~vision.profile_reader.TOP_FACE` of
    the die."""
    reader = reader if reader is not None else LearnedReader()
    if not crops:
        return []
    model = reader.model
    inputs = []
    for crop in crops:
        side = float(max(crop.shape[:2]))
        pad = int(np.ceil(side / TOP_FACE * CROP_CONTEXT / 2.0))
        rim = np.median(np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]]), axis=0) * 0.6
        framed: Crop = np.asarray(cv2.copyMakeBorder(crop, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=[float(v) for v in rim]), np.uint8)
        h, w = crop.shape[:2]
        inputs.append(model.crops(framed, [FoundDie(pad + w / 2.0, pad + h / 2.0, side / TOP_FACE, 0.0)])[0])
    out: list[tuple[int, float] | None] = []
    for p in model.face_probabilities(np.stack(inputs)):
        best = int(np.argmax(p))
        name = CLASSES[best]
        out.append((int(name), float(p[best])) if name.isdigit() and float(p[best]) >= reader.min_confidence else None)
    return out


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _settings_json(settings: MatcherSettings) -> dict[str, Any]:
    return {
        # Full precision: a saved profile reads exactly as the one in memory.
        "accept_distance": float(settings.accept_distance),
        "min_confidence": float(settings.min_confidence),
        "confidence": {
            "edges": [float(e) for e in settings.confidence.edges],
            "values": [float(v) for v in settings.confidence.values],
        },
    }


# -- where profiles are -----------------------------------------------------------------------


def profile_path(name_or_path: str | os.PathLike[str]) -> Path:
    """The folder of a profile given by saved name or by path (a folder or its ``profile.json``)."""
    text = os.fspath(name_or_path)
    candidate = Path(text)
    if os.sep in text or text.startswith(".") or candidate.suffix == ".json" or candidate.is_dir():
        if candidate.name == MANIFEST or candidate.suffix == ".json":
            return candidate.parent
        return candidate
    return profiles_directory() / check_name(text)


def read_manifest(folder: Path) -> dict[str, Any]:
    """The parsed manifest of the profile in ``folder``.

    :raises CalibrationMissing: there is no profile there.
    :raises ProfileError: the manifest is not readable JSON of a known format and version.
    """
    manifest = folder / MANIFEST
    if not folder.is_dir() or not manifest.is_file():
        raise CalibrationMissing(f"no profile at {str(folder)!r} (no {MANIFEST} there)")
    data = load_json_file(manifest, ProfileError, "profile manifest")
    if not isinstance(data, dict):
        raise ProfileError(f"{str(manifest)!r}: must hold a JSON object, not {type(data).__name__}")
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise ProfileError(f"{str(manifest)!r}: unsupported version {version!r} (this build reads {FORMAT_VERSION})")
    return data


# -- loading ----------------------------------------------------------------------------------


def load_profile(name_or_path: str | os.PathLike[str]) -> DieProfile:
    """Loads a die profile by saved name or path, checking every field and exemplar.

    :raises CalibrationMissing: no such profile.
    :raises ProfileError: a corrupt manifest or exemplar; the message names the file.
    """
    folder = profile_path(name_or_path)
    repair_profile(folder)
    data = read_manifest(folder)
    where = str(folder / MANIFEST)
    if data.get("format") != DIE_FORMAT:
        raise ProfileError(f"{where!r}: not a die profile (format {data.get('format')!r})")
    name = _field(data, "name", str, where)
    faces_data = _field(data, "faces", list, where)
    if not faces_data:
        raise ProfileError(f"{where!r}: 'faces' is empty")
    if len(faces_data) > MAX_PROFILE_FACES:
        raise ProfileError(f"{where!r}: {len(faces_data)} faces, more than the {MAX_PROFILE_FACES} a profile may hold")
    faces: list[CalibratedFace] = []
    exemplars: dict[str, tuple[Crop, ...]] = {}
    for index, entry in enumerate(faces_data):
        at = f"{where}: faces[{index}]"
        if not isinstance(entry, dict):
            raise ProfileError(f"{at!r}: must be an object")
        label = check_label(_field(entry, "label", str, at))
        value = _field(entry, "value", int, at)
        symbol = entry.get("symbol")
        if symbol is not None and not isinstance(symbol, str):
            raise ProfileError(f"{at!r}: 'symbol' must be a string or null, not {symbol!r}")
        pips = entry.get("pips", False)
        if not isinstance(pips, bool):
            raise ProfileError(f"{at!r}: 'pips' must be true or false, not {pips!r}")
        try:
            faces.append(CalibratedFace(label, value, symbol, pips))
        except ValueError as error:
            raise ProfileError(f"{at!r}: {error}") from None
        crops: list[Crop] = []
        listed = _field(entry, "exemplars", list, at)
        if len(listed) > MAX_FACE_EXEMPLARS:
            raise ProfileError(f"{at!r}: {len(listed)} exemplars, more than the {MAX_FACE_EXEMPLARS} a face may hold")
        for relative in listed:
            if not isinstance(relative, str) or Path(relative).is_absolute() or ".." in Path(relative).parts:
                raise ProfileError(f"{at!r}: bad exemplar path {relative!r}")
            path = folder / relative
            try:
                crops.append(load_image(path))
            except ImageLoadError as error:
                raise ProfileError(f"profile {name!r}: corrupt exemplar: {error}") from None
        if not crops and not pips:
            raise ProfileError(f"{at!r}: face {label!r} has no exemplars")
        exemplars[label] = tuple(crops)
    settings = _settings_from(_field(data, "matcher", dict, where), where)
    fit = data.get("fit", {})
    try:
        return DieProfile(
            name=name,
            faces=tuple(faces),
            exemplars=exemplars,
            settings=settings,
            created=str(data.get("created", "")),
            fit=fit if isinstance(fit, dict) else {},
            finder=str(data.get("finder", "bodies")),
        )
    except ProfileError as error:
        raise ProfileError(f"{where!r}: {error}") from None


def _field(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in data:
        raise ProfileError(f"{where!r}: missing {key!r}")
    value = data[key]
    if kind is int and isinstance(value, bool) or not isinstance(value, kind):
        raise ProfileError(f"{where!r}: {key!r} must be {kind.__name__}, not {value!r}")
    return value


def _settings_from(data: Mapping[str, Any], where: str) -> MatcherSettings:
    try:
        table = data.get("confidence", {})
        confidence = ConfidenceTable(
            tuple(float(e) for e in table.get("edges", (0.0,))),
            tuple(float(v) for v in table.get("values", (0.5,))),
        )
        return MatcherSettings(
            accept_distance=float(data["accept_distance"]),
            min_confidence=float(data.get("min_confidence", 0.5)),
            confidence=confidence,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ProfileError(f"{where!r}: bad 'matcher' settings: {error}") from None


# -- saving -----------------------------------------------------------------------------------


def save_profile(profile: DieProfile, folder: str | os.PathLike[str] | None = None, *, overwrite: bool = False) -> Path:
    """Writes ``profile`` to ``folder`` (default: its saved-name folder) and returns the folder.

    :raises ProfileError: the folder holds a profile already and ``overwrite`` is false, or it
        cannot be written (the old profile, if any, is left as it was).
    """
    target = Path(folder) if folder is not None else profiles_directory() / check_name(profile.name)
    entries = []
    files: dict[str, Crop] = {}
    for face in profile.faces:
        names = []
        for index, crop in enumerate(profile.exemplars.get(face.label, ())):
            relative = f"exemplars/{face.label}/{index:02d}.png"
            files[relative] = crop
            names.append(relative)
        entries.append({"label": face.label, "value": face.value, "symbol": face.symbol, "pips": face.pips, "exemplars": names})
    manifest = {
        "format": DIE_FORMAT,
        "version": FORMAT_VERSION,
        "kind": "die",
        "name": profile.name,
        "created": profile.created,
        "faces": entries,
        "matcher": _settings_json(profile.settings),
        "fit": dict(profile.fit),
        "finder": profile.finder,
    }

    def write(staging: Path) -> None:
        for relative, crop in files.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            ok, buffer = cv2.imencode(".png", crop)
            if not ok:
                raise ProfileError(f"cannot encode exemplar {relative!r} of profile {profile.name!r}")
            path.write_bytes(buffer.tobytes())

    return write_profile_folder(target, manifest, write, overwrite=overwrite, loads=load_profile)


def write_profile_folder(
    target: Path, manifest: Mapping[str, Any], write_files: Any, *, overwrite: bool, loads: Callable[[Path], object]
) -> Path:
    """Writes a profile folder through a staging folder next to it, checks that ``loads`` (the
    loader of its kind, the caller's: this module does not import :mod:`calibration.tray`) loads
    it, then swaps it in crash-safely (see the module docstring)."""
    repair_profile(target)
    if target.exists() and not overwrite:
        raise ProfileError(f"a profile already exists at {str(target)!r}; remove it first or pass --force")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}{_STAGING}", dir=target.parent))
    except OSError as error:
        raise ProfileError(f"cannot write profile at {str(target)!r}: {error.strerror or error}") from None
    try:
        write_files(staging)
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        _fsync_tree(staging)
        _check_loads(staging, target, loads)
        if target.exists():
            old = _old_folder(target)
            shutil.rmtree(old, ignore_errors=True)
            target.rename(old)
            fsync_path(target.parent)
            staging.rename(target)  # a crash before this line is repaired from ``old``
            fsync_path(target.parent)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(target)
            fsync_path(target.parent)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise ProfileError(f"cannot write profile at {str(target)!r}: {error.strerror or error}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


_STAGING = ".new-"
"""Marks a staging folder: ``.NAME.new-XXXXXX``."""


def _old_folder(target: Path) -> Path:
    return target.with_name(f".{target.name}.old")


def repair_profile(target: Path) -> None:
    """Finishes or undoes a save of the profile at ``target`` that was cut short: ``.NAME.old`` without
    ``NAME`` is renamed back (the new one never got in place); ``.NAME.old`` beside ``NAME`` is
    removed (the swap was done); staging folders left by a crash are removed."""
    old = _old_folder(target)
    try:
        if old.is_dir():
            if not target.exists():
                old.rename(target)
                fsync_path(target.parent)
            else:
                shutil.rmtree(old, ignore_errors=True)
        for staging in target.parent.glob(f".{glob.escape(target.name)}{_STAGING}*"):
            shutil.rmtree(staging, ignore_errors=True)
    except OSError as error:
        raise ProfileError(f"cannot repair the half-saved profile at {str(target)!r}: {error.strerror or error}") from None


def repair_profiles() -> None:
    """:func:`repair_profile` for every saved profile a cut-short save may have left."""
    root = profiles_directory()
    if not root.is_dir():
        return
    for entry in root.iterdir():
        name = entry.name
        if name.startswith(".") and name.endswith(".old"):
            repair_profile(root / name[1:-4])
        elif name.startswith(".") and _STAGING in name:
            repair_profile(root / name[1:].split(_STAGING)[0])


def _check_loads(staging: Path, target: Path, loads: Callable[[Path], object]) -> None:
    """The staged profile must load before it replaces anything."""
    try:
        loads(staging)
    except (ProfileError, CalibrationMissing) as error:
        raise ProfileError(f"the new profile for {str(target)!r} does not load, the old one is kept: {error}") from None


def _fsync_tree(folder: Path) -> None:
    for path in sorted(folder.rglob("*"), reverse=True):  # files before the folders holding them
        fsync_path(path)
    fsync_path(folder)


# -- listing and removing ---------------------------------------------------------------------


@dataclass(frozen=True)
class ProfileInfo:
    """One saved profile as ``dicetray profiles list`` shows it; ``problem`` is set when it is
    damaged (it is still listed, so it can be removed)."""

    name: str
    kind: str
    path: Path
    created: str = ""
    detail: str = ""
    problem: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "path": str(self.path),
            "created": self.created,
            "detail": self.detail,
            "problem": self.problem,
        }


def list_profiles() -> list[ProfileInfo]:
    """Every saved profile, by name; damaged ones too, with their problem."""
    root = profiles_directory()
    if not root.is_dir():
        return []
    repair_profiles()
    found: list[ProfileInfo] = []
    for folder in sorted(root.iterdir()):
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        try:
            data = read_manifest(folder)
        except CalibrationMissing:
            continue
        except ProfileError as error:
            found.append(ProfileInfo(folder.name, "?", folder, problem=str(error)))
            continue
        kind = str(data.get("kind", "?"))
        faces = data.get("faces")
        if kind == "die" and isinstance(faces, list):
            labels = [str(f.get("label")) for f in faces if isinstance(f, dict)]
            detail = f"{len(labels)} faces: {', '.join(labels)}"
        else:
            detail = str(data.get("detail", ""))
        found.append(ProfileInfo(folder.name, kind, folder, str(data.get("created", "")), detail))
    return found


def remove_profile(name: str) -> Path:
    """Deletes the saved profile ``name`` and returns where it was.

    :raises CalibrationMissing: no saved profile of that name.
    """
    folder = profiles_directory() / check_name(name)
    if not folder.is_dir() or not (folder / MANIFEST).exists():
        raise CalibrationMissing(f"no saved profile {name!r} in {str(profiles_directory())!r}")
    shutil.rmtree(folder)
    return folder

