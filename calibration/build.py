"""Building a die profile from labelled example photos (``dicetray calibrate die NAME --from DIR``).

``DIR`` holds one subfolder per face label with photos of that face up: single-die crops or frames
with one die in them. Folders named 1-6 mean that number. Any other label needs an entry in
``DIR/faces.toml``::

    [faces.sword-1]
    value = 1
    symbol = "sword"

    [faces.6]
    pips = true        # this face shows pips: the pip reader may read it too

A face marked ``pips = true`` may have no folder at all. Every problem is a :class:`ProfileError`
that names the folder or file: an empty folder, a face without examples, an unreadable image, a
face none of whose photos shows one die. A photo without a die or with several (how many) is left
out and named in the profile's ``fit["left_out"]``; the face's other photos build it. Two faces
that look alike do not stop a build either: the profile says which and how many more shots would
help (:class:`UnsurePair`).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import ProfileError
from calibration.finding import Shot, die_shot
from calibration.fitting import Fit, fit
from calibration.profiles import DieProfile, check_label, check_name, read_pips, read_pips_learned
from vision.dataset import LABELS_FILE, Dataset, LabelledDie, load_dataset
from vision.detect import CROP_SIZE, CandidateFlag, FaceCandidate, FaceDetector
from vision.datafile import load_toml_file
from vision.errors import DatasetError, ImageLoadError
from vision.imageio import load_image
from vision.profile_reader import BodyDetector, CalibratedFace, square_crop

Crop = npt.NDArray[np.uint8]

FACES_FILE = "faces.toml"
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})

#: Most example crops kept per face: more add little and slow the reader down.
MAX_EXEMPLARS = 24

def read_faces_file(path: Path) -> dict[str, dict[str, Any]]:
    """The ``[faces.LABEL]`` tables of a ``faces.toml``; problems name the file and the key."""
    data = load_toml_file(path, ProfileError, "faces file")
    unknown = sorted(set(data) - {"faces", "clusters"})
    if unknown:
        raise ProfileError(f"{str(path)!r}: unknown table {unknown[0]!r} (expected [faces.LABEL])")
    faces = data.get("faces", {})
    if not isinstance(faces, dict):
        raise ProfileError(f"{str(path)!r}: 'faces' must be a table of [faces.LABEL] tables")
    out: dict[str, dict[str, Any]] = {}
    for label, entry in faces.items():
        where = f"{path}: faces.{label}"
        check_label(str(label))
        if not isinstance(entry, dict):
            raise ProfileError(f"{where!r}: must be a table")
        extra = sorted(set(entry) - {"value", "symbol", "pips"})
        if extra:
            raise ProfileError(f"{where!r}: unknown key {extra[0]!r} (expected value, symbol, pips)")
        out[str(label)] = dict(entry)
    return out


def face_for(label: str, entry: Mapping[str, Any] | None, where: str) -> CalibratedFace:
    """The face a label stands for, from its ``faces.toml`` entry or its name (1-6)."""
    entry = entry or {}
    value = entry.get("value")
    if value is None:
        if label in {"1", "2", "3", "4", "5", "6"}:
            value = int(label)
        else:
            raise ProfileError(
                f"{where!r}: face {label!r} has no number: add [faces.{label}] value = 1..6 to {FACES_FILE}"
            )
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise ProfileError(f"{where!r}: face {label!r}: value must be a number 1-6, not {value!r}")
    symbol = entry.get("symbol")
    if symbol is not None and not isinstance(symbol, str):
        raise ProfileError(f"{where!r}: face {label!r}: symbol must be text, not {symbol!r}")
    pips = entry.get("pips", False)
    if not isinstance(pips, bool):
        raise ProfileError(f"{where!r}: face {label!r}: pips must be true or false, not {pips!r}")
    return CalibratedFace(label, value, symbol, pips)


def crop_from_image(image: Crop, source: str, detector: BodyDetector | None = None) -> Crop:
    """The square top-face crop of the one die in a calibration photo: a crop of the die at any
    margin, a single-die photo or a tray photo with one die (:func:`calibration.finding.die_crop`).

    :raises ProfileError: no die, or several, in the photo (the message names it and what was seen).
    """
    return shot_from_image(image, source, detector).crop


def shot_from_image(image: Crop, source: str, detector: BodyDetector | None = None) -> Shot:
    """The one die of a calibration photo as :func:`crop_from_image` cuts it, with the pip count
    the face network reads on it in the photo (:func:`calibration.finding.die_shot`).

    :raises ProfileError: no die, or several, in the photo (the message names it and what was seen).
    """
    return die_shot(image, source, bodies=detector)


def images_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)


def build_profile(
    name: str,
    faces: Sequence[CalibratedFace],
    exemplars: Mapping[str, Sequence[Crop]],
    *,
    source: str = "",
    seed: int = 0,
    finder: str = "bodies",
) -> DieProfile:
    """A profile from faces and their crops: checks every face has examples (pip faces excepted),
    then fits the matcher. Faces that look alike do not stop it: the profile's ``fit["unsure"]``
    says which pairs the cross-check confused and how many more shots would help
    (:func:`unsure_pairs`), and at the table such a face reads ``unreadable`` with both as candidates.

    :raises ProfileError: naming the face without examples.
    """
    check_name(name)
    if not faces:
        raise ProfileError(f"{source or name!r}: no faces to calibrate")
    for face in faces:
        if not exemplars.get(face.label) and not face.pips:
            raise ProfileError(f"{source or name!r}: face {face.label!r} has no examples")
    kept = {face.label: tuple(exemplars.get(face.label, ()))[:MAX_EXEMPLARS] for face in faces}
    fitted = fit(faces, kept, seed=seed)
    report = dict(fitted.report)
    report["unsure"] = [pair.to_json() for pair in unsure_pairs(fitted, kept)]
    # A face of one photo is never read held out: nothing says how sure its reads are.
    report["unchecked"] = [face.label for face in faces if not face.pips and len(kept[face.label]) == 1]
    return DieProfile(
        name=name, faces=tuple(faces), exemplars=kept, settings=fitted.settings, fit=report, finder=finder
    )


@dataclass(frozen=True)
class UnsurePair:
    """Two faces the cross-check of the shots confused: how often (held-out reads of either read
    as the other, of all held-out reads of the two), whether they look alike (their shots no
    farther apart across the pair than within each face), and how many more shots of each would
    help."""

    faces: tuple[str, str]
    confused: int
    reads: int
    alike: bool
    more_shots: Mapping[str, int]

    def describe(self) -> str:
        a, b = self.faces
        kind = "look alike" if self.alike else "were confused"
        more = " and ".join(f"{n} of {label!r}" for label, n in self.more_shots.items() if n)
        advice = f"; {more} more sharp shots would help" if more else ""
        return f"{a!r} and {b!r} {kind}: {self.confused} of {self.reads} cross-checked shots read as the other{advice}"

    def to_json(self) -> dict[str, Any]:
        return {
            "faces": list(self.faces),
            "confused": self.confused,
            "reads": self.reads,
            "alike": self.alike,
            "more_shots": dict(self.more_shots),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> UnsurePair:
        a, b = data["faces"]
        return cls((str(a), str(b)), int(data["confused"]), int(data["reads"]), bool(data["alike"]), dict(data["more_shots"]))


def unsure_pairs(fitted: Fit, exemplars: Mapping[str, Sequence[Crop]]) -> list[UnsurePair]:
    """The pairs of faces a profile may mix up, from the fit's cross-check, most confused first.

    More shots: as many again of each face of the pair (at least five), up to the
    :data:`MAX_EXEMPLARS` a face keeps; a pair confused only once or twice needs five."""
    alike = {(a, b) for a, b, _, _ in fitted.alike}
    out = []
    for a, b, count, total in fitted.confused:
        more = {}
        for label in (a, b):
            have = len(exemplars.get(label, ()))
            more[label] = max(0, min(MAX_EXEMPLARS - have, max(5, have) if (a, b) in alike or count > 2 else 5))
        out.append(UnsurePair((a, b), count, total, (a, b) in alike, more))
    out.sort(key=lambda p: (-p.alike, -p.confused / max(1, p.reads), p.faces))
    return out


def build_from_folder(name: str, folder: str | os.PathLike[str], *, seed: int = 0) -> DieProfile:
    """Builds a die profile from a folder of labelled photos (see the module docstring).

    :raises ProfileError: naming the folder, file or faces at fault.
    """
    check_name(name)
    root = Path(folder)
    if not root.is_dir():
        raise ProfileError(f"not a folder: {str(root)!r}")
    if (root / LABELS_FILE).is_file():
        return build_from_labelled_frames(name, root, seed=seed)
    faces_file = root / FACES_FILE
    entries = read_faces_file(faces_file) if faces_file.is_file() else {}
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders and not any(e.get("pips") for e in entries.values()):
        raise ProfileError(f"{str(root)!r}: no face folders (expected one subfolder of photos per face label)")
    labels = [p.name for p in folders]
    for label in labels:
        check_label(label)
    faces: list[CalibratedFace] = []
    exemplars: dict[str, list[Crop]] = {}
    counted: dict[str, list[tuple[int, float] | None]] = {}
    photographs: dict[str, list[Path]] = {}
    left_out: list[dict[str, str]] = []
    detector = BodyDetector()
    for sub in folders:
        where = str(faces_file if sub.name in entries else sub)
        face = face_for(sub.name, entries.get(sub.name), where)
        photos = images_in(sub)
        if not photos:
            raise ProfileError(f"{str(sub)!r}: face {sub.name!r} has no examples (no photos in its folder)")
        shots, used, missing = [], [], []
        for photo in photos:
            try:
                image = load_image(photo)
            except ImageLoadError as error:
                raise ProfileError(f"corrupt example photo: {error}") from None
            try:
                shots.append(shot_from_image(image, str(photo), detector))
            except ProfileError as error:
                # One shot of many whose die is not found (blurred, a hand in it) stops nothing:
                # the others build the face, and the report names the shot.
                missing.append(str(error))
                continue
            used.append(photo)
        if not shots:
            raise ProfileError(f"{str(sub)!r}: face {sub.name!r} has no photo whose die was found: {missing[0]}")
        left_out += [{"face": sub.name, "why": why} for why in missing]
        faces.append(face)
        exemplars[face.label] = [shot.crop for shot in shots]
        counted[face.label] = [shot.counted for shot in shots]
        photographs[face.label] = used
    for label, entry in entries.items():
        if label in exemplars:
            continue
        face = face_for(label, entry, str(faces_file))
        if not face.pips:
            raise ProfileError(f"{str(faces_file)!r}: face {label!r} has no examples (no folder {label!r} in {str(root)!r})")
        faces.append(face)
    faces.sort(key=lambda f: (f.value, f.label))
    given = {label for label, entry in entries.items() if "pips" in entry}
    faces, finder = with_pip_faces(faces, exemplars, given, counted)
    profile = build_profile(name, faces, exemplars, source=str(root), seed=seed, finder=finder)
    notes = {"misfiled": misfiled_photos(faces, photographs, counted), "left_out": left_out}
    notes = {key: value for key, value in notes.items() if value}
    return dataclasses.replace(profile, fit={**profile.fit, **notes}) if notes else profile


def misfiled_photos(
    faces: Sequence[CalibratedFace], photos: Mapping[str, Sequence[Path]], counted: Mapping[str, Sequence[tuple[int, float] | None]]
) -> list[dict[str, Any]]:
    """The photos of pip faces (or faces named by their number) whose die the face network counts
    surely as another number: most often a photo sorted into the wrong folder. The profile is built
    all the same; the player is told which (``{"photo", "face", "reads"}`` each)."""
    out: list[dict[str, Any]] = []
    for face in faces:
        if not (face.pips or face.label == str(face.value)):
            continue
        for photo, read in zip(photos.get(face.label, ()), counted.get(face.label, ())):
            if read is not None and read[0] != face.value:
                out.append({"photo": str(photo), "face": face.label, "reads": read[0]})
    return out


#: Share of a face's example crops the pip reader must read as the face's own number for the face
#: to count as showing pips.
PIP_FACE_SHARE = 0.6


def with_pip_faces(
    faces: Sequence[CalibratedFace],
    exemplars: Mapping[str, Sequence[Crop]],
    given: Collection[str] = (),
    counted: Mapping[str, Sequence[tuple[int, float] | None]] | None = None,
) -> tuple[list[CalibratedFace], str]:
    """The faces, those whose examples show their own number in pips marked ``pips`` (unless
    ``given`` says the faces file decided; :func:`shows_pips`, with ``counted``, the face
    network's sure counts of each example's die in its photo, where known), and the finder for
    the set: ``pips`` when every face shows pips, ``pips+bodies`` when some do (a pip die with an
    emblem), else ``bodies``.

    Every set is found at the table by the learned detector; the finder says which rule-based
    finder adds the dice it misses: the pip finder (square-on from the pips, at any angle and on
    any tray) for sets with pip faces, the body finder (where the die stands out from the tray)
    for sets with faces without pips."""
    out: list[CalibratedFace] = []
    for face in faces:
        crops = exemplars.get(face.label, ())
        if face.label not in given and not face.pips and crops and shows_pips(face, crops, (counted or {}).get(face.label, ())):
            face = dataclasses.replace(face, pips=True)
        out.append(face)
    shown = sum(1 for face in out if face.pips)
    finder = "pips" if shown == len(out) else "pips+bodies" if shown else "bodies"
    return out, finder


#: How many photos a face a player is asked for when its pips could not be read in fewer.
SHOTS_FOR_HARD_PIPS = 5


def pip_reads(face: CalibratedFace, crops: Sequence[Crop]) -> int:
    """How many of ``crops`` a pip reader reads as ``face``'s own number. A shot read by either
    counts: the rule-based one reads clean pips on any body, the learned one the pips of coloured,
    marbled or small dice it cannot."""
    return _pip_counts(face, crops)[0]


def shows_pips(face: CalibratedFace, crops: Sequence[Crop], counted: Sequence[tuple[int, float] | None] = ()) -> bool:
    """Whether ``face`` shows its own number in pips, by its shots ``crops`` (and ``counted``,
    the face network's sure counts of their dice in their photos, where known): a pip reader
    reads that number in :data:`PIP_FACE_SHARE` of them; or, for a face named by its number
    (``4``), in at least one, with the face network reading no shot surely as another number. A
    player's few shots of a coloured set include dice the pip readers miss (small, low contrast,
    cut close by a neighbour); the name already says which number the face shows."""
    own, other = _pip_counts(face, crops, counted)
    return own >= PIP_FACE_SHARE * len(crops) or (face.label == str(face.value) and own >= 1 and other == 0)


def _pip_counts(face: CalibratedFace, crops: Sequence[Crop], counted: Sequence[tuple[int, float] | None] = ()) -> tuple[int, int]:
    """How many shots a pip reader reads as ``face``'s number (the rule-based one or the face
    network on the crop, or the face network on the die in its photo), and how many the face
    network reads surely as another number."""
    ruled, learned = [read_pips(crop) for crop in crops], read_pips_learned(crops)
    in_photo = list(counted) + [None] * (len(crops) - len(counted))
    reads = list(zip(ruled, learned, in_photo))
    own = sum(1 for shot in reads if any(r is not None and r[0] == face.value for r in shot))
    other = sum(1 for _, *network in reads if any(r is not None and r[0] != face.value for r in network))
    return own, other


def numbered_faces_without_pips(profile: DieProfile) -> str | None:
    """What to tell the player when faces of a set with pip faces are named by their number (``4``)
    yet were not read as pips in enough of their photos, so are read by their photos alone (which
    do not carry over to dice of other colours): which, how many of their photos were read as
    pips, and what to do if they show pips. ``None`` when there are none, or in a profile loaded
    without its shots."""
    if profile.finder != "pips+bodies":
        return None
    unread = [
        (face.label, pip_reads(face, crops), len(crops))
        for face in profile.faces
        if not face.pips and face.label == str(face.value) and (crops := profile.exemplars.get(face.label, ()))
    ]
    if not unread:
        return None
    listed = ", ".join(f"{label!r} (pips read in {shown} of {total} photos)" for label, shown, total in unread)
    return (
        f"read by their photos alone, not as pips: {listed}; if they show pips, give {SHOTS_FOR_HARD_PIPS} photos of each "
        f"or add pips = true under [faces.N] in {FACES_FILE}"
    )



#: Faces given per face label when calibrating from a labelled folder of frames.
PER_FACE = 5
_KINDS = frozenset({"pips", "numeral", "symbol"})


def labelled_crops(
    dataset: Dataset, per_face: int = PER_FACE
) -> tuple[dict[str, list[Crop]], dict[str, int], list[str], str]:
    """The first ``per_face`` dice of each face label in a labelled folder (images in file order):
    their crops, each label's number, the images used, and the finder that found them.

    A die's label is its ``face`` key when that is a profile's face label, else its value. Each
    labelled die is found where its box is: a die labelled as pips by its pips, any other by its
    body, or, when no body is found there (a light die on a light table), cut out of the frame at
    its box, as the label puts it.
    """
    kinds = {d.face == "pips" for item in dataset.images for d in item.dice}
    finder = "pips" if kinds == {True} else "pips+bodies" if True in kinds else "bodies"
    bodies = BodyDetector()
    crops: dict[str, list[Crop]] = {}
    values: dict[str, int] = {}
    used: list[str] = []
    for item in sorted(dataset.images, key=lambda i: i.name):
        wanted = [d for d in item.dice if len(crops.get(_label_of(d), [])) < per_face]
        if not wanted:
            continue
        frame = item.load()
        by_pips = FaceDetector().find(frame) if any(d.face == "pips" for d in wanted) else []
        by_body = bodies.find(frame) if any(d.face != "pips" for d in wanted) else []
        took = False
        for die in wanted:
            candidate = _at(by_pips if die.face == "pips" else by_body, die.box)
            if candidate is None and die.face == "pips":
                continue
            label = _label_of(die)
            if len(crops.setdefault(label, [])) < per_face:
                crops[label].append(candidate.crop if candidate is not None else _cut(frame, die.box))
                values[label] = die.value
                took = True
        if took:
            used.append(item.name)
    return crops, values, used, finder


def _cut(frame: Crop, box: tuple[int, int, int, int]) -> Crop:
    """The square of the frame around a labelled box, as a face crop."""
    x, y, w, h = box
    half = max(w, h) / 2.0
    cx, cy = x + w / 2.0, y + h / 2.0
    return square_crop(frame, np.array([[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half], [cx - half, cy + half]]))


def _label_of(die: LabelledDie) -> str:
    return die.face if die.face and die.face not in _KINDS else str(die.value)


def _at(found: Sequence[FaceCandidate], box: tuple[int, int, int, int]) -> FaceCandidate | None:
    """The found face whose centre is nearest the labelled box's, if close enough to be that die."""
    x, y, w, h = box
    cx, cy = x + w / 2.0, y + h / 2.0
    best, best_distance = None, float("inf")
    for candidate in found:
        fx, fy = candidate.center
        distance = float(np.hypot(fx - cx, fy - cy))
        reach = 0.75 * max(w, h, candidate.box[2], candidate.box[3])
        if distance < reach and distance < best_distance:
            best, best_distance = candidate, distance
    return best


def build_from_labelled_frames(name: str, folder: Path, *, per_face: int = PER_FACE, seed: int = 0) -> DieProfile:
    """A profile from a labelled folder of frames (``labels.json``, DESIGN.md format): the first
    ``per_face`` dice of each face, found where the labels put them."""
    try:
        dataset = load_dataset(folder)
    except DatasetError as error:
        raise ProfileError(str(error)) from None
    crops, values, _, finder = labelled_crops(dataset, per_face)
    entries = read_faces_file(folder / FACES_FILE) if (folder / FACES_FILE).is_file() else {}
    faces = []
    for label in sorted(values, key=lambda lab: (values[lab], lab)):
        entry = dict(entries.get(label, {}))
        entry.setdefault("value", values[label])
        faces.append(face_for(label, entry, str(folder / LABELS_FILE)))
    if not faces:
        raise ProfileError(f"{str(folder)!r}: no labelled die was found where its label puts it")
    faces, _ = with_pip_faces(faces, crops, {label for label, entry in entries.items() if "pips" in entry})
    return build_profile(name, faces, crops, source=str(folder), seed=seed, finder=finder)


#: Photos of a face that let the cross-check read some of them held out against the rest.
CHECKED_SHOTS = 5


def report_notes(profile: DieProfile) -> list[str]:
    """What a player is told about a profile just built, line by line (the command line and the
    table app's calibration say the same): photos left out and why, faces that may be in the wrong
    folder or are read by their photos alone, faces of a single photo that nothing cross-checked,
    and the faces the cross-check of the shots confused, with the shots that would help; lines
    of a list are indented by two spaces."""
    from vision.pip_set import is_pip_set

    notes: list[str] = []
    if is_pip_set(profile.faces):
        notes.append("six pip faces, one for each number: read at the table as any pip dice are, named as this set names its faces")
    unread = numbered_faces_without_pips(profile)
    if unread:
        notes.append(f"note: {unread}")
    fitted = profile.fit
    for left_out in fitted.get("left_out", ()):
        notes.append(f"left out (face {left_out['face']!r}): {left_out['why']}")
    for misfiled in fitted.get("misfiled", ()):
        notes.append(f"note: {misfiled['photo']!r} (face {misfiled['face']!r}) reads as {misfiled['reads']} pips: is it in the right folder?")
    unchecked = [str(label) for label in fitted.get("unchecked", ())]
    if unchecked:
        listed = ", ".join(repr(label) for label in unchecked)
        more = CHECKED_SHOTS - 1
        if len(unchecked) == 1:
            said = f"{listed} has one photo, so how sure a read of it is cannot be told; {more} more photos of it"
        else:
            said = f"{listed} have one photo each, so how sure a read of them is cannot be told; {more} more photos of each"
        notes.append(f"not cross-checked: {said} would let the tray check")
    pip_faces = {face.label for face in profile.faces if face.pips}
    pairs = [UnsurePair.from_json(entry) for entry in fitted.get("unsure", ())]
    # Two pip faces are read by counting their pips; their photos decide only a die whose pips
    # cannot be counted, where the reader says unreadable anyway.
    by_pips = [pair for pair in pairs if set(pair.faces) <= pip_faces]
    pairs = [pair for pair in pairs if pair not in by_pips]
    if by_pips:
        notes.append(
            f"pip faces are read by counting their pips (the cross-check of their photos confused {len(by_pips)} pairs of them, "
            "which matters only where the pips cannot be counted)"
        )
    if pairs:
        notes.append("hard to tell apart (a die showing one of these may be read as either, and then asked for when it matters):")
        notes.extend(f"  {pair.describe()}" for pair in pairs)
    elif not by_pips and not unchecked:
        notes.append("every face told apart from every other in the cross-check of the shots")
    return notes
