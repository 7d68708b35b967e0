"""Calibrating a die from free rolls (``dicetray calibrate die NAME --auto DIR --faces N``).

No labelling up front: the player rolls the die (or several of the set) many times. Every frame's
dice are found, their top faces clustered into ``N`` groups by the same rotation-invariant distance
the reader uses (average-linkage agglomerative clustering), one contact sheet per cluster is
written, and the player names each cluster, at a prompt or from a labels file::

    [clusters]
    1 = "sword-1"
    2 = "sword-2"
    3 = "-"            # not a face (a blurred shot, a hand): left out

    [faces.sword-1]    # numbers and symbols as in faces.toml; labels 1-6 need none
    value = 1
    symbol = "sword"

Two clusters given the same label are one face. Faces that stand apart from every other
(cocked dice, motion blur) are set aside before clustering; clusters that look like one face, or
that mix faces, are reported.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.build import IMAGE_SUFFIXES, build_profile, face_for, read_faces_file
from calibration.errors import ProfileError
from calibration.profiles import DieProfile, check_label
from calibration.tray import saved_tray_hint
from vision.detect import CROP_SIZE, CandidateFlag
from vision.datafile import load_toml_file
from vision.errors import ImageLoadError
from vision.imageio import load_image
from vision.profile_reader import BodyDetector, CalibratedFace, pairwise_distances

Crop = npt.NDArray[np.uint8]

#: Crops per contact sheet, and per row of it.
SHEET_CROPS = 48
SHEET_COLUMNS = 8
#: Exemplars kept per named face: the members closest to the middle of the cluster.
KEEP_PER_FACE = 12


@dataclass(frozen=True)
class Cluster:
    """One group of alike top faces: its number (1-based, as the player names it), its members
    (indexes into :attr:`Clustering.crops`, most typical first) and its contact sheet."""

    number: int
    members: tuple[int, ...]
    sheet: Path | None = None
    spread: float = 0.0  # mean distance between members


@dataclass(frozen=True, eq=False)
class Clustering:
    """The result of clustering free rolls."""

    crops: tuple[Crop, ...] = field(repr=False)
    clusters: tuple[Cluster, ...]
    frame_count: int
    set_aside: tuple[int, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def crop_count(self) -> int:
        return len(self.crops)

    def cluster(self, number: int) -> Cluster:
        for cluster in self.clusters:
            if cluster.number == number:
                return cluster
        raise ProfileError(f"no cluster {number!r}: there are {len(self.clusters)}")


def faces_in_frames(frames: Iterable[Crop], detector: BodyDetector | None = None) -> tuple[list[Crop], int]:
    """The top-face crops of every die in the frames (dice cut by the frame edge left out) and
    the number of frames."""
    detector = detector or BodyDetector(saved_tray_hint())
    crops: list[Crop] = []
    count = 0
    for frame in frames:
        count += 1
        crops.extend(c.crop for c in detector.find(frame) if not c.flags & CandidateFlag.TOUCHES_FRAME_EDGE)
    return crops, count


def average_linkage(distances: npt.NDArray[np.float64], count: int) -> tuple[list[list[int]], list[float]]:
    """Agglomerative clustering with average linkage down to ``count`` clusters.

    Returns the clusters (lists of indexes) and the linkage distance of every merge, in order.
    """
    n = len(distances)
    groups: list[list[int]] = [[i] for i in range(n)]
    d = distances.astype(np.float64).copy()
    np.fill_diagonal(d, np.inf)
    alive = np.ones(n, bool)
    heights: list[float] = []
    while alive.sum() > max(count, 1):
        masked = np.where(alive[:, None] & alive[None, :], d, np.inf)
        i, j = np.unravel_index(int(np.argmin(masked)), masked.shape)
        i, j = (int(i), int(j)) if i < j else (int(j), int(i))
        heights.append(float(masked[i, j]))
        ni, nj = len(groups[i]), len(groups[j])
        merged = (ni * d[i] + nj * d[j]) / (ni + nj)  # Lance-Williams for average linkage
        d[i, :], d[:, i] = merged, merged
        d[i, i] = np.inf
        alive[j] = False
        d[j, :], d[:, j] = np.inf, np.inf
        groups[i] = groups[i] + groups[j]
        groups[j] = []
    return [g for g, a in zip(groups, alive) if a], heights


def cluster_crops(crops: Sequence[Crop], faces: int, frame_count: int = 0) -> Clustering:
    """Clusters top-face crops into ``faces`` groups, numbered largest first.

    :raises ProfileError: fewer crops than faces.
    """
    if faces < 1:
        raise ProfileError(f"--faces must be at least 1, not {faces!r}")
    if len(crops) < faces:
        raise ProfileError(f"found {len(crops)} top faces; clustering into {faces} faces needs more rolls")
    distances = pairwise_distances(crops)
    warnings: list[str] = []
    # Faces unlike every other (a cocked die, a blurred one) would take a cluster of their own.
    masked = distances + np.diag(np.full(len(crops), np.inf))
    nearest = masked.min(axis=1)
    typical = float(np.median(nearest))
    spread = 1.4826 * float(np.median(np.abs(nearest - typical)))
    limit = max(3.0 * typical, typical + 8.0 * spread)
    kept = [i for i in range(len(crops)) if nearest[i] <= limit]
    aside = tuple(i for i in range(len(crops)) if nearest[i] > limit)
    if len(kept) < faces:
        kept, aside = list(range(len(crops))), ()
    if aside:
        warnings.append(f"set aside {len(aside)} faces that look like no other (cocked, blurred or not a die)")
    sub = distances[np.ix_(kept, kept)]
    # A stray face or two would each hold a cluster while two real faces share one: cluster into
    # more groups until ``faces`` of them are of a real face's size, and set the small ones aside.
    fair = len(kept) / faces
    for extra in range(0, faces + 1):
        groups, heights = average_linkage(sub, min(len(kept), faces + extra))
        big = [g for g in groups if len(g) >= max(2.0, 0.3 * fair)]
        if len(big) >= faces:
            break
    groups = sorted(groups, key=len, reverse=True)
    small = [i for g in groups[faces:] for i in g]
    groups = groups[:faces]
    if small:
        aside = tuple(sorted(aside + tuple(kept[i] for i in small)))
        warnings.append(f"set aside {len(small)} faces in groups too small to be a face")
    clusters: list[Cluster] = []
    for group in sorted(groups, key=lambda g: (-len(g), min(g))):
        inner = sub[np.ix_(group, group)]
        centrality = inner.mean(axis=1)
        ordered = [kept[group[k]] for k in np.argsort(centrality, kind="stable")]
        mean_inner = float(inner[np.triu_indices(len(group), 1)].mean()) if len(group) > 1 else 0.0
        clusters.append(Cluster(len(clusters) + 1, tuple(ordered), None, mean_inner))
    # Separations: the last merge made (joining two true faces, if there were more than asked)
    # against how tight the clusters are.
    tight = float(np.median([c.spread for c in clusters if len(c.members) > 1] or [typical]))
    fair_share = fair
    for c in clusters:
        if len(c.members) >= 1.8 * fair_share and faces > 1:
            share = len(c.members) / fair_share
            warnings.append(
                f"cluster {c.number} holds {share:.1f} faces' share of the rolls: it may mix faces it could not "
                "separate (same symbol, different small numbers?); check its sheet"
            )
        if len(c.members) < 3:
            warnings.append(f"cluster {c.number} has only {len(c.members)} faces: roll more, or it may not be a face")
        if c.spread > 3.0 * max(tight, typical):
            warnings.append(f"cluster {c.number} mixes faces it could not separate (spread {c.spread:.3f}); check its sheet")
    for a in range(len(clusters)):
        for b in range(a + 1, len(clusters)):
            ia = [kept.index(i) for i in clusters[a].members]
            ib = [kept.index(i) for i in clusters[b].members]
            between = float(sub[np.ix_(ia, ib)].mean())
            # Faces that differ by a small number lie about 2.5x their spread apart; one face split
            # in two, under 2x.
            if between < 2.0 * max(clusters[a].spread, clusters[b].spread, typical):
                warnings.append(
                    f"clusters {clusters[a].number} and {clusters[b].number} look alike and may be one face; "
                    "give them the same label if so"
                )
    return Clustering(tuple(crops), tuple(clusters), frame_count, aside, tuple(warnings))


def contact_sheet(crops: Sequence[Crop]) -> Crop:
    """Up to :data:`SHEET_CROPS` crops side by side, :data:`SHEET_COLUMNS` to a row."""
    shown = list(crops)[:SHEET_CROPS]
    columns = min(SHEET_COLUMNS, max(1, len(shown)))
    rows = max(1, -(-len(shown) // columns))
    sheet = np.full((rows * (CROP_SIZE + 2), columns * (CROP_SIZE + 2), 3), 255, np.uint8)
    for k, crop in enumerate(shown):
        tile = cv2.resize(crop, (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_AREA) if crop.shape[:2] != (CROP_SIZE, CROP_SIZE) else crop
        if tile.ndim == 2:
            tile = cv2.cvtColor(tile, cv2.COLOR_GRAY2BGR)
        r, c = divmod(k, columns)
        y, x = r * (CROP_SIZE + 2) + 1, c * (CROP_SIZE + 2) + 1
        sheet[y : y + CROP_SIZE, x : x + CROP_SIZE] = tile
    return sheet


def write_sheets(clustering: Clustering, folder: Path) -> Clustering:
    """Writes ``cluster-N.png`` per cluster into ``folder``; returns the clustering with the paths."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ProfileError(f"cannot create folder {str(folder)!r}: {error.strerror or error}") from None
    clusters = []
    for cluster in clustering.clusters:
        path = folder / f"cluster-{cluster.number}.png"
        ok, buffer = cv2.imencode(".png", contact_sheet([clustering.crops[i] for i in cluster.members]))
        try:
            if not ok:
                raise OSError("cannot encode PNG")
            path.write_bytes(buffer.tobytes())
        except OSError as error:
            raise ProfileError(f"cannot write contact sheet {str(path)!r}: {error}") from None
        clusters.append(Cluster(cluster.number, cluster.members, path, cluster.spread))
    return Clustering(clustering.crops, tuple(clusters), clustering.frame_count, clustering.set_aside, clustering.warnings)


def frames_in_folder(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise ProfileError(f"not a folder: {str(folder)!r}")
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise ProfileError(f"{str(folder)!r}: no images of rolls in it")
    return files


def _load(paths: Iterable[Path]) -> Iterable[Crop]:
    for path in paths:
        try:
            yield load_image(path)
        except ImageLoadError as error:
            raise ProfileError(f"corrupt frame: {error}") from None


def cluster_folder(folder: str | os.PathLike[str], faces: int, sheets: Path | None = None) -> Clustering:
    """Finds, clusters and (when ``sheets`` is given) writes the contact sheets for a folder of
    frames of free rolls."""
    crops, count = faces_in_frames(_load(frames_in_folder(Path(folder))))
    clustering = cluster_crops(crops, faces, count)
    return write_sheets(clustering, sheets) if sheets is not None else clustering


class FrameSourceLike(Protocol):
    """What the live flow needs of a camera: :class:`hardware.camera.FrameSource`'s ``read()``."""

    def read(self) -> Crop: ...


def settled_frames(source: FrameSourceLike, rolls: int, fps: float = 30.0, max_frames: int = 100_000) -> Iterator[Crop]:
    """One frame per settled roll from a live camera: the frame on which the settle detector says
    the dice have come to rest. Stops after ``rolls`` settles (or ``max_frames`` frames).

    Time is the frame count over ``fps``, so a recorded or simulated source runs at any speed.
    """
    from vision.settle import SettleDetector

    detector = SettleDetector()
    seen = 0
    for index in range(max_frames):
        frame = source.read()
        if detector.update(frame, now=index / fps).settled:
            seen += 1
            yield frame
            if seen >= rolls:
                return


def cluster_frames(frames: Iterable[Crop], faces: int, sheets: Path | None = None) -> Clustering:
    """The same from live frames, e.g. ``settled_frames(camera, 30)``."""
    crops, count = faces_in_frames(frames)
    clustering = cluster_crops(crops, faces, count)
    return write_sheets(clustering, sheets) if sheets is not None else clustering


Names = Mapping[int, CalibratedFace | None]


def names_from_file(path: Path, clustering: Clustering) -> dict[int, CalibratedFace | None]:
    """The face each cluster is, from a labels file (see the module docstring); ``None`` for a
    cluster named ``-``.

    :raises ProfileError: a cluster left unnamed, an unknown cluster, a label without a number.
    """
    if not path.is_file():
        raise ProfileError(f"labels file not found: {str(path)!r}")
    entries = read_faces_file(path)
    table = load_toml_file(path, ProfileError, "labels file").get("clusters", {})
    if not isinstance(table, dict) or not table:
        raise ProfileError(f"{str(path)!r}: needs a [clusters] table naming each cluster: 1 = \"label\"")
    names: dict[int, CalibratedFace | None] = {}
    numbers = {c.number for c in clustering.clusters}
    for key, label in table.items():
        try:
            number = int(key)
        except ValueError:
            raise ProfileError(f"{str(path)!r}: clusters.{key}: cluster numbers are 1..{len(numbers)}") from None
        if number not in numbers:
            raise ProfileError(f"{str(path)!r}: clusters.{key}: there is no cluster {number} (there are {len(numbers)})")
        if not isinstance(label, str):
            raise ProfileError(f"{str(path)!r}: clusters.{key}: the label must be text, not {label!r}")
        names[number] = None if label.strip() == "-" else face_for(check_label(label.strip()), entries.get(label.strip()), str(path))
    missing = sorted(numbers - set(names))
    if missing:
        raise ProfileError(f"{str(path)!r}: clusters {missing} have no name (use \"-\" to leave one out)")
    return names


def ask_names(
    clustering: Clustering, ask: Callable[[str], str], tell: Callable[[str], None]
) -> dict[int, CalibratedFace | None]:
    """Asks the player to name each cluster, looking at its contact sheet."""
    names: dict[int, CalibratedFace | None] = {}
    known: dict[str, CalibratedFace] = {}
    for cluster in clustering.clusters:
        where = f" ({str(cluster.sheet)!r})" if cluster.sheet else ""
        while True:
            label = ask(f"cluster {cluster.number}, {len(cluster.members)} faces{where}: face label (- to leave out)? ").strip()
            if label == "-":
                names[cluster.number] = None
                break
            try:
                check_label(label)
                if label in known:
                    names[cluster.number] = known[label]
                    break
                entry: dict[str, object] = {}
                if label not in {"1", "2", "3", "4", "5", "6"}:
                    entry["value"] = int(ask(f"  number 1-6 of {label}? ").strip())
                symbol = ask(f"  symbol of {label} (blank for none)? ").strip()
                if symbol:
                    entry["symbol"] = symbol
                face = face_for(label, entry, "answer")
            except (ProfileError, ValueError) as error:
                tell(f"  {error}")
                continue
            known[label] = face
            names[cluster.number] = face
            break
    return names


def profile_from_clusters(name: str, clustering: Clustering, names: Names, *, source: str = "") -> DieProfile:
    """The profile from named clusters: each face's exemplars are the most typical members of
    its clusters. Checks as for labelled photos (a face without examples, two faces alike)."""
    faces: dict[str, CalibratedFace] = {}
    members: dict[str, list[int]] = {}
    for cluster in clustering.clusters:
        face = names.get(cluster.number)
        if face is None:
            continue
        if face.label in faces and faces[face.label] != face:
            raise ProfileError(f"face {face.label!r} is named twice with different numbers or symbols")
        faces[face.label] = face
        members.setdefault(face.label, []).extend(cluster.members[:KEEP_PER_FACE])
    if not faces:
        raise ProfileError(f"{source or name!r}: no cluster was named; nothing to calibrate")
    exemplars = {label: [clustering.crops[i] for i in idx[:KEEP_PER_FACE]] for label, idx in members.items()}
    ordered = sorted(faces.values(), key=lambda f: (f.value, f.label))
    return build_profile(name, ordered, exemplars, source=source)
