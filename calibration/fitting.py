"""Fitting a profile's matcher settings on its own exemplars, and checking the faces apart.

Every exemplar is read *held out*: against all the other exemplars, as itself, in a few
perturbed copies (another gain and offset, a shading gradient, sensor noise, a little blur, a
small turn, shift and scale as an imperfect crop would have, any quarter turn), and drawn as a
small die (48-90 px) at any turn on a plain tray, then found and cut out again by the body finder
(:func:`on_tray`, about 240 such reads in all). From those reads:

* ``accept_distance``: 1.5x the 99.5th percentile distance of the right reads. A face from another
  die set lies farther from every exemplar than that and is ``unreadable``.
* the confidence table, from the tray reads (clean photos are read right with margins a tray frame
  rarely gives): the reads sorted by margin (how much closer the best face is than the next), in
  groups of about 20, and the fraction right in each group made monotone (pool adjacent
  violators; groups as often right pooled too), with one right and one wrong read added at margin
  0 (a tie is a coin toss) and half a read each way in every group (so no group claims certainty).
  So a confidence of 0.9 means about 9 in 10 tray reads with that margin were right.
* faces that look alike: two faces whose exemplars are, held out, often nearest the other face.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.profile_reader import (
    BodyDetector,
    CalibratedFace,
    ConfidenceTable,
    MatcherSettings,
    ProfileClassifier,
    face_descriptor,
    pairwise_distances,
)

Crop = npt.NDArray[np.uint8]

#: Perturbed copies read per exemplar, besides the exemplar itself.
PERTURBATIONS = 6
#: Reads of faces placed on a tray and found again, as the camera would see them: about this many
#: in all, and no more than ``TRAY_READS_EACH`` per exemplar.
TRAY_READS = 240
TRAY_READS_EACH = 8
#: Fewest tray reads the confidence is fitted on; with fewer (a finder that cannot find the
#: placed faces) it is fitted on all held-out reads.
MIN_TRAY_READS = 50
#: Die sides in pixels a tray read is drawn at: the small dice the tray camera sees.
TRAY_SIDES = (48.0, 90.0)


@dataclass(frozen=True)
class HeldOutRead:
    """One held-out read: the face it was, the face read, the distance and the margin."""

    truth: int
    read: int
    distance: float
    margin: float

    @property
    def right(self) -> bool:
        return self.truth == self.read


@dataclass(frozen=True)
class Fit:
    """The fitted settings, the pairs of faces that look alike, and figures for the record."""

    settings: MatcherSettings
    alike: tuple[tuple[str, str, int, int], ...]  # label a, label b, confusions, reads of the pair
    report: Mapping[str, Any]
    #: Every pair of faces the cross-check confused at least once: label a, label b, held-out reads
    #: of either read as the other, held-out reads of the pair (alike pairs among them).
    confused: tuple[tuple[str, str, int, int], ...] = ()


def perturb(crop: Crop, rng: np.random.Generator) -> Crop:
    """A copy of ``crop`` as another shot of the same face might look."""
    size = crop.shape[0]
    image = np.ascontiguousarray(np.rot90(crop, int(rng.integers(4))))
    centre = (size / 2.0 + rng.uniform(-0.02, 0.02) * size, size / 2.0 + rng.uniform(-0.02, 0.02) * size)
    matrix = cv2.getRotationMatrix2D(centre, float(rng.uniform(-5, 5)), float(rng.uniform(0.96, 1.04)))
    image = cv2.warpAffine(image, matrix, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    out = image.astype(np.float32)
    h, w = out.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gradient = 1.0 + float(rng.uniform(-0.25, 0.25)) * (xx / w - 0.5) + float(rng.uniform(-0.25, 0.25)) * (yy / h - 0.5)
    if out.ndim == 3:
        gradient = gradient[..., None]
    out = out * float(rng.uniform(0.7, 1.25)) * gradient + float(rng.uniform(-20, 20))
    sigma = float(rng.uniform(0.0, 0.9))
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out = out + rng.normal(0.0, float(rng.uniform(1.0, 4.0)), out.shape).astype(np.float32)
    result: Crop = np.clip(out, 0, 255).astype(np.uint8)
    return result


def on_tray(crop: Crop, rng: np.random.Generator, detector: BodyDetector | None = None) -> Crop | None:
    """``crop`` as a tray camera would give it back: the face drawn as a small die at any turn on a
    plain tray, a little blurred and noisy, then found and cut out again by the reader's own body
    finder. ``None`` when the finder does not find it.

    Reads of such copies carry what a tray frame does to a face and clean photos do not: the
    outline of a small die found a pixel or two off, and the face resampled twice."""
    detector = detector or BodyDetector()
    image = perturb(crop, rng)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    side = float(rng.uniform(*TRAY_SIDES))
    size = int(side * 1.7)
    tray = np.array([rng.uniform(25, 70), rng.uniform(50, 100), rng.uniform(25, 60)])
    frame = np.empty((size, size, 3), np.float32)
    frame[:] = tray
    # The crop is the face inside the finder's inset: drawn that much larger, the die's edge in
    # the crop's own rim colour around it.
    inset = detector.inset
    rim = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]]).astype(np.float32)
    body = np.median(rim, axis=0)
    centre = size / 2.0 + rng.uniform(-2.0, 2.0, 2)
    angle = float(rng.uniform(0.0, 360.0))
    outer = cv2.boxPoints(((float(centre[0]), float(centre[1])), (side, side), angle))
    cv2.fillConvexPoly(frame, np.round(outer * 16).astype(np.int32), body.tolist(), cv2.LINE_AA, 4)
    scale = side * (1.0 - 2.0 * inset) / image.shape[0]
    matrix = cv2.getRotationMatrix2D(((image.shape[1] - 1) / 2.0, (image.shape[0] - 1) / 2.0), -angle, scale)
    matrix[:, 2] += centre - (np.array([image.shape[1], image.shape[0]]) - 1) / 2.0
    face = cv2.warpAffine(image.astype(np.float32), matrix, (size, size), flags=cv2.INTER_AREA)
    cover = cv2.warpAffine(np.ones(image.shape[:2], np.float32), matrix, (size, size), flags=cv2.INTER_LINEAR)
    frame = frame * (1.0 - cover[..., None]) + face
    frame = cv2.GaussianBlur(frame, (0, 0), float(rng.uniform(0.4, 0.9)))
    frame = frame + rng.normal(0.0, 2.0, frame.shape).astype(np.float32)
    found = [c for c in detector.find(np.clip(frame, 0, 255).astype(np.uint8)) if not c.touches_frame_edge]
    return found[0].crop if len(found) == 1 else None


def held_out_reads(
    classifier: ProfileClassifier,
    crops: Sequence[Crop],
    perturbations: int = PERTURBATIONS,
    seed: int = 0,
    tray_reads: int = TRAY_READS,
) -> tuple[list[HeldOutRead], list[HeldOutRead], list[HeldOutRead]]:
    """Reads every exemplar held out: ``(plain reads, perturbed reads, tray reads)`` (see
    :func:`on_tray`).

    ``crops`` are the classifier's exemplars in the order it was given them. Faces with a single
    exemplar cannot be read held out and are skipped.
    """
    rng = np.random.default_rng(seed)
    owners = classifier.exemplar_faces
    counts = np.bincount(np.asarray(owners, dtype=np.intp), minlength=len(classifier.faces))
    detector = BodyDetector()
    plain: list[HeldOutRead] = []
    perturbed: list[HeldOutRead] = []
    tray: list[HeldOutRead] = []

    def read(image: Crop, index: int, truth: int) -> HeldOutRead:
        distances = classifier.descriptor_distances(face_descriptor(image), exclude=index)
        order = np.argsort(distances)
        first = int(order[0])
        second = float(distances[order[1]]) if len(order) > 1 and np.isfinite(distances[order[1]]) else 2.0
        return HeldOutRead(truth, first, float(distances[first]), second - float(distances[first]))

    each = int(np.clip(round(tray_reads / max(1, len(crops))), 1, TRAY_READS_EACH)) if tray_reads else 0
    for index, (crop, truth) in enumerate(zip(crops, owners)):
        if counts[truth] < 2:
            continue
        plain.append(read(crop, index, truth))
        perturbed.extend(read(perturb(crop, rng), index, truth) for _ in range(perturbations))
        for _ in range(each):
            placed = on_tray(crop, rng, detector)
            if placed is not None:
                tray.append(read(placed, index, truth))
    return plain, perturbed, tray


def confidence_table(reads: Sequence[HeldOutRead], groups: int = 8) -> ConfidenceTable:
    """The monotone map from margin to the fraction of reads right (see the module docstring)."""
    margins = [0.0, 0.0] + [r.margin for r in reads]
    right = [1.0, 0.0] + [1.0 if r.right else 0.0 for r in reads]
    order = np.argsort(margins, kind="stable")
    m = np.asarray(margins)[order]
    y = np.asarray(right)[order]
    chunks = np.array_split(np.arange(len(m)), min(groups, len(m)))
    edges = [float(m[c[0]]) for c in chunks if len(c)]
    sums = [float(y[c].sum()) for c in chunks if len(c)]
    sizes = [float(len(c)) for c in chunks if len(c)]
    # Pool adjacent violators: merge groups until the fraction right rises as margin grows.
    blocks = [[e, s, n] for e, s, n in zip(edges, sums, sizes)]
    merged: list[list[float]] = []
    for block in blocks:
        merged.append(block)
        # Groups as often right are pooled too: a run of right reads is one group, not many.
        while len(merged) > 1 and merged[-2][1] / merged[-2][2] >= merged[-1][1] / merged[-1][2]:
            last = merged.pop()
            merged[-1][1] += last[1]
            merged[-1][2] += last[2]
    edges_out = [0.0] + [b[0] for b in merged[1:]]
    # Half a read each way per group: a group of 50 right reads says 0.99, never certainty.
    values = [round((b[1] + 0.5) / (b[2] + 1.0), 4) for b in merged]
    return ConfidenceTable(tuple(edges_out), tuple(values))


def fit(faces: Sequence[CalibratedFace], exemplars: Mapping[str, Sequence[Crop]], seed: int = 0) -> Fit:
    """Fits the matcher settings for these faces and finds faces that look alike."""
    pairs = [(face, tuple(exemplars.get(face.label, ()))) for face in faces]
    crops = [crop for _, face_crops in pairs for crop in face_crops]
    probe = ProfileClassifier(pairs, MatcherSettings(accept_distance=2.0, min_confidence=0.0))
    plain, perturbed, tray = held_out_reads(probe, crops, seed=seed)
    reads = plain + perturbed + tray
    right = [r.distance for r in reads if r.right]
    if right:
        accept = float(np.clip(1.5 * np.quantile(right, 0.995), 0.01, 2.0))
    else:
        accept = MatcherSettings().accept_distance
    accepted = [r for r in reads if r.distance <= accept]
    # The confidence is fitted on the tray reads: clean photos read right with margins a tray
    # frame rarely gives, and a table fitted on them says too little on the tray. Groups of about
    # 20 reads; groups as often right are pooled, so a long run of right reads may say 0.99.
    on_tray_accepted = [r for r in tray if r.distance <= accept]
    basis = on_tray_accepted if len(on_tray_accepted) >= MIN_TRAY_READS else accepted
    table = confidence_table(basis, groups=max(8, len(basis) // 20))
    settings = MatcherSettings(accept_distance=accept, min_confidence=0.5, confidence=table)

    confusions: dict[tuple[int, int], int] = {}
    totals: dict[tuple[int, int], int] = {}
    per_face = np.bincount(np.asarray(probe.exemplar_faces, dtype=np.intp), minlength=len(faces))
    for r in plain:
        if not r.right:
            key = (min(r.truth, r.read), max(r.truth, r.read))
            confusions[key] = confusions.get(key, 0) + 1
    alike = []
    owners = np.asarray(probe.exemplar_faces, dtype=np.intp)
    distances = pairwise_distances(crops) if confusions else np.zeros((0, 0))
    for (a, b), count in sorted(confusions.items()):
        total = int(per_face[a] + per_face[b])
        totals[(a, b)] = total
        if count < 2 or count < 0.25 * total:
            continue
        # Often confused, but two faces that differ only in a small number are confused too when
        # the photos are poor: they are alike only if their examples are no farther apart across
        # the pair than within each face.
        ia, ib = np.flatnonzero(owners == a), np.flatnonzero(owners == b)
        within = [distances[np.ix_(g, g)][np.triu_indices(len(g), 1)].mean() for g in (ia, ib) if len(g) > 1]
        across = float(distances[np.ix_(ia, ib)].mean())
        if not within or across < 1.15 * float(np.mean(within)):
            alike.append((faces[a].label, faces[b].label, count, total))
    report = {
        "held_out_reads": len(reads),
        "held_out_right": sum(1 for r in reads if r.right),
        "held_out_accepted": len(accepted),
        "exemplars": len(crops),
    }
    confused = tuple(
        (faces[a].label, faces[b].label, count, int(per_face[a] + per_face[b])) for (a, b), count in sorted(confusions.items())
    )
    return Fit(settings, tuple(alike), report, confused)
