"""Reading calibrated faces: a nearest-exemplar matcher built from a die profile's example crops.

A calibrated die is known only by a few example crops per face (see :mod:`calibration.profiles`).
:class:`ProfileClassifier` compares the rectified top-face crop of a die against every exemplar in
every quarter turn (and a few degrees either side, for imperfect rectification) and answers with a
:class:`FaceMatch`: the face, a calibrated confidence, or ``unreadable`` when nothing matches well
enough or two faces match about equally.

The descriptor is lighting-tolerant by construction: the grey crop is normalised to zero mean and
unit variance after removing its slow shading, and paired with a normalised gradient-magnitude map,
so a gain, an offset or a soft shadow across the face changes it little.

Confidence is calibrated when the profile is built (:func:`calibration.fitting`): held-out,
perturbed exemplars are read against the others, and a monotone table maps the matcher's margin to
the fraction read right. A confidence of 0.9 means about 9 in 10 such reads were right.

At the table the dice of a calibrated set are found by the learned detector
(:class:`LearnedFaceFinder`), which finds dice whatever their faces show, and each is cut as
calibration cut its exemplars (:func:`outline_found_die`); the rule-based finders
(:class:`BodyDetector`, :class:`~vision.detect.FaceDetector`) add only the dice it misses that are
read surely.

Only numpy, OpenCV and :mod:`vision` are imported here.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import functools
import math
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from vision.beside import ThreadBeside
from vision.classify import FaceResult, PipClassifier
from vision.detect import CROP_SIZE, CandidateFlag, FaceCandidate, FaceDetector
from vision.errors import InvalidFrameError
from vision.face_embedding import EmbeddingOpinion, FaceEmbedding, turned_embeddings
from vision.imageio import MIN_FRAME_SIDE, Frame, check_frame
from vision.combine import ON_SIDE_FACE, settled_count
from vision.learned import CLASSES, CLOSER_CLASSES, TOP_FACE, FoundDie, LearnedReader, lies_on
from vision.square_fit import FIT_STRENGTH, fit_face_square, mean_side
from vision.types import DieStatus

FloatArray = npt.NDArray[np.float32]

#: Side in pixels of the square every crop is resized to before comparing.
DESCRIPTOR_SIZE = 48

#: Small turns tried on top of the four quarter turns; rectified crops are rarely off by more.
#: Small turns (degrees) and zooms tried on top of the four quarter turns: rectified crops are
#: rarely off by more, and two ways of outlining a die differ by about that much in scale.
_POSES = ((0.0, 1.0), (-6.0, 1.0), (6.0, 1.0), (0.0, 0.88), (0.0, 1.12))


@dataclass(frozen=True)
class CalibratedFace:
    """One face of a calibrated die: its label, the number 1-6 it counts as, an optional symbol, and
    whether it shows pips (then the pip reader may read it when no exemplar matches)."""

    label: str
    value: int
    symbol: str | None = None
    pips: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 6:
            raise ValueError(f"face {self.label!r}: value must be 1-6, not {self.value!r}")


@dataclass(frozen=True)
class ConfidenceTable:
    """A monotone step map from the matcher's margin to the probability the read is right.

    ``edges`` are increasing margins; ``values[i]`` holds for margins in ``[edges[i], edges[i+1])``
    (the first value below ``edges[0]`` too, the last above the last edge).
    """

    edges: tuple[float, ...] = (0.0,)
    values: tuple[float, ...] = (0.5,)

    def __post_init__(self) -> None:
        if len(self.edges) != len(self.values) or not self.edges:
            raise ValueError(f"confidence table needs as many edges as values: {self!r}")
        if any(b < a for a, b in zip(self.edges, self.edges[1:])):
            raise ValueError(f"confidence table edges must increase: {self.edges!r}")
        if any(not 0.0 <= v <= 1.0 for v in self.values):
            raise ValueError(f"confidence table values must be in [0, 1]: {self.values!r}")

    def __call__(self, margin: float) -> float:
        index = max(0, bisect.bisect_right(self.edges, margin) - 1)
        return self.values[index]


@dataclass(frozen=True)
class MatcherSettings:
    """Thresholds of the matcher, fitted per profile when it is built.

    ``accept_distance``: a crop farther than this from every exemplar is ``unreadable`` (a face of
    another die set, a hand, a smudge). ``min_confidence``: a read less sure than this is
    ``unreadable`` rather than a guess.
    """

    accept_distance: float = 0.05
    min_confidence: float = 0.5
    confidence: ConfidenceTable = field(default_factory=ConfidenceTable)

    def __post_init__(self) -> None:
        if not 0.0 < self.accept_distance <= 2.0:
            raise ValueError(f"accept_distance must be in (0, 2]: {self.accept_distance!r}")
        if not 0.0 <= self.min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be in [0, 1]: {self.min_confidence!r}")


@dataclass(frozen=True)
class FaceMatch:
    """What the matcher made of one crop.

    ``face`` is the best face (``None`` only when the profile has no exemplars); ``status`` is
    ``ok`` or ``unreadable``; ``distance`` is 1 - cosine similarity to the closest exemplar (0 is
    identical); ``margin`` is how much farther the closest exemplar of any other face is.
    ``candidates`` are the faces an ``unreadable`` crop may show, closest first, when it is close
    to faces of this die set but not clearly one of them (empty for a crop like none of them).
    """

    face: CalibratedFace | None
    status: DieStatus
    confidence: float
    distance: float
    margin: float
    runner_up: str | None = None
    candidates: tuple[CalibratedFace, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is DieStatus.OK and self.face is not None

    @property
    def shared_symbol(self) -> str | None:
        """The symbol every candidate shows, if they share one."""
        symbols = {face.symbol for face in self.candidates}
        return self.candidates[0].symbol if len(symbols) == 1 else None

    @property
    def reason(self) -> str | None:
        """Why the crop is not read, naming the candidates: ``"sword 1 or 3"``, ``"heart-4 or sword-3"``."""
        if self.ok:
            return None
        if not self.candidates:
            return "like no calibrated face"
        symbol = self.shared_symbol
        if symbol is not None:
            return f"{symbol} {_either(str(face.value) for face in self.candidates)}"
        return _either(face.label for face in self.candidates)


def _either(names: Iterable[str]) -> str:
    """``"1 or 3"``, ``"1, 2 or 3"``."""
    listed = list(names)
    return listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} or {listed[-1]}"


class PipFallback(Protocol):
    """Reads a crop as pips: the number of pips 1-6 and a confidence, or ``None`` when it cannot."""

    def __call__(self, crop_bgr: npt.NDArray[np.uint8]) -> tuple[int, float] | None: ...


def _as_grey(crop: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    if not isinstance(crop, np.ndarray) or crop.dtype != np.uint8 or crop.size == 0:
        raise InvalidFrameError(f"a face crop must be a non-empty uint8 array, not {_describe(crop)}")
    if crop.ndim == 2:
        return crop
    if crop.ndim == 3 and crop.shape[2] == 3:
        return np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    raise InvalidFrameError(f"a face crop must be HxW or HxWx3, not shape {crop.shape!r}")


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype} array of shape {value.shape!r}"
    return repr(type(value).__name__)


def _normalised(image: FloatArray) -> FloatArray:
    centred = image - float(image.mean())
    norm = float(np.linalg.norm(centred))
    if norm < 1e-6:
        return np.zeros_like(centred)
    return np.asarray(centred / norm, dtype=np.float32)


def _descriptor_of_square(grey: FloatArray) -> FloatArray:
    """The descriptor of an already resized DESCRIPTOR_SIZE square, grey float32 in 0-255."""
    size = grey.shape[0]
    # Remove slow shading (a shadow across the face, uneven tray light) before normalising.
    shading = cv2.GaussianBlur(grey, (0, 0), size / 4.0)
    detail = cv2.GaussianBlur(grey - shading, (0, 0), 0.8)
    gx = cv2.Sobel(detail, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(detail, cv2.CV_32F, 0, 1, ksize=3)
    # Blurred so a shift of a pixel or two between a crop and an exemplar costs little.
    magnitude = cv2.GaussianBlur(cv2.magnitude(gx, gy), (0, 0), 1.0)
    parts = np.concatenate([_normalised(np.asarray(detail, np.float32)).ravel(), _normalised(np.asarray(magnitude, np.float32)).ravel()])
    norm = float(np.linalg.norm(parts))
    if norm < 1e-6:
        return np.zeros(parts.shape, dtype=np.float32)
    return np.asarray(parts / norm, dtype=np.float32)


_GRID = 4
_PER_FACE = 2  # exemplars per face compared in full at first: the two most alike at first sight
_ALIGNED_FACES = 3  # closest faces compared again, every exemplar, aligned cell by cell
_LOCAL_REACH = 2  # pixels each cell may move on its own, beyond the whole crop's shift
_MAX_ALIGNED = 4  # at most this many exemplars per face aligned: more examples must not slow reading
_TIE = 0.05  # a margin below this fraction of the accept distance is a tie: unreadable
_REACH = 5  # pixels (of 48) the crop may move to fit an exemplar: a 60 px die's outline is off by that much
#: Least cosine similarity to the faces of one symbol at which a crop like no face to the
#: exemplars is read as that symbol, where those faces lead every other symbol's by the
#: embedding's ``rescue``: chosen on rendered hero dice read at tables unlike the calibration's
#: (at 0.4 a few took a wrong symbol; docs/calibration.md).
SYMBOL_FLOOR = 0.6


_STEP = DESCRIPTOR_SIZE // _GRID
_CELLS = 2 * _GRID * _GRID  # each map's cells, the grey map's first


def _cell_order() -> npt.NDArray[np.intp]:
    """The positions of a descriptor grouped by map and cell of the grid, in cell order."""
    maps, rows, cols = np.meshgrid(np.arange(2), np.arange(DESCRIPTOR_SIZE), np.arange(DESCRIPTOR_SIZE), indexing="ij")
    cell = maps * _GRID * _GRID + (rows // _STEP) * _GRID + cols // _STEP
    out: npt.NDArray[np.intp] = np.argsort(cell.ravel(), kind="stable")
    return out


_CELL_ORDER = _cell_order()


def _by_cell(descriptors: FloatArray) -> FloatArray:
    """(N, D) descriptors -> (N, cells, pixels of a cell): each cell's pixels side by side."""
    out: FloatArray = np.ascontiguousarray(descriptors[:, _CELL_ORDER]).reshape(len(descriptors), _CELLS, -1)
    return out


def _coarse(descriptors: FloatArray) -> FloatArray:
    """Half-resolution copies of descriptors, unit length: cheap to compare in every turn."""
    half = DESCRIPTOR_SIZE // 2
    shaped = descriptors.reshape(len(descriptors), 2, half, 2, half, 2).sum(axis=5).sum(axis=3)
    flat = shaped.reshape(len(descriptors), -1)
    norms = np.linalg.norm(flat, axis=1, keepdims=True)
    out: FloatArray = (flat / np.maximum(norms, 1e-6)).astype(np.float32)
    return out


#: Fraction of the crop cut from each side: the die's edge and bevel, which every face shares and
#: every way of outlining a die places a little differently.
_MARGIN = 0.07


def face_square(crop: npt.NDArray[np.uint8]) -> FloatArray:
    """The crop grey, its rim cut off and resized to ``DESCRIPTOR_SIZE`` square (float32, 0-255):
    what every comparison of faces starts from.

    :raises InvalidFrameError: when ``crop`` is not a non-empty uint8 image.
    """
    grey = _as_grey(crop)
    h, w = grey.shape
    dy, dx = int(round(h * _MARGIN)), int(round(w * _MARGIN))
    if h - 2 * dy >= 8 and w - 2 * dx >= 8:
        grey = grey[dy : h - dy, dx : w - dx]
    resized = cv2.resize(grey, (DESCRIPTOR_SIZE, DESCRIPTOR_SIZE), interpolation=cv2.INTER_AREA)
    return np.asarray(resized, dtype=np.float32)


def face_descriptor(crop: npt.NDArray[np.uint8]) -> FloatArray:
    """The unit-length descriptor of a face crop (BGR or grey, any size, ideally square).

    :raises InvalidFrameError: when ``crop`` is not a non-empty uint8 image.
    """
    return _descriptor_of_square(face_square(crop))


def rotated_descriptors(crop: npt.NDArray[np.uint8], poses: Sequence[tuple[float, float]] = _POSES) -> FloatArray:
    """Descriptors of the crop in the four quarter turns, each also in ``poses`` (a small turn in
    degrees and a zoom).

    Row 0 is the crop as given. Shape ``(4 * len(poses), D)``.
    """
    square = face_square(crop)
    centre = ((DESCRIPTOR_SIZE - 1) / 2.0, (DESCRIPTOR_SIZE - 1) / 2.0)
    rows: list[FloatArray] = []
    for quarter in range(4):
        turned = np.ascontiguousarray(np.rot90(square, quarter))
        for tilt, zoom in poses:
            if tilt == 0.0 and zoom == 1.0:
                rows.append(_descriptor_of_square(turned))
                continue
            matrix = cv2.getRotationMatrix2D(centre, tilt, zoom)
            tilted = cv2.warpAffine(
                turned, matrix, (DESCRIPTOR_SIZE, DESCRIPTOR_SIZE), borderMode=cv2.BORDER_REPLICATE
            )
            rows.append(_descriptor_of_square(np.asarray(tilted, dtype=np.float32)))
    return np.stack(rows)


def _dot(matrix: FloatArray, vector: FloatArray) -> FloatArray:
    """``matrix @ vector`` without BLAS: a multithreaded BLAS answers this small product slower
    than one core does whenever the other cores are busy (as on a Pi running the whole service)."""
    out: FloatArray = np.einsum("ij,j->i", matrix, vector)
    return out


def _turns(similarity: FloatArray, rows: npt.NDArray[np.intp], turns: int) -> npt.NDArray[np.intp]:
    """Bank rows of each exemplar's ``turns`` best turns by coarse cosine, exemplar by exemplar."""
    variants = similarity.shape[1]
    turns = min(turns, variants)
    best = np.argpartition(-similarity[rows], turns - 1, axis=1)[:, :turns]
    out: npt.NDArray[np.intp] = (best + (rows * variants)[:, None]).ravel()
    return out


def _exemplar_distances(
    cells: FloatArray, similarity: FloatArray, descriptor: FloatArray, rows: npt.NDArray[np.intp], turns: int = 2
) -> npt.NDArray[np.float64]:
    """Distance from ``descriptor`` (by cell) to exemplars ``rows`` of a bank by cell (one row per
    turn of each exemplar; ``similarity`` is their coarse cosine to the descriptor, exemplars by
    turns): the exemplar's few best turns by coarse cosine, then the smallest of their largest
    per-cell squared differences at full resolution, as the crop lies.

    More than one turn is tried because a nearly symmetric symbol (a burst, a star) fits about as
    well in several turns, and only the full comparison sees where its small number is."""
    chosen = _turns(similarity, rows, turns)
    per_map = np.square(cells[chosen] - descriptor).sum(axis=2)
    energy = (per_map[:, : _CELLS // 2] + per_map[:, _CELLS // 2 :]).max(axis=1).reshape(len(rows), -1)
    out: npt.NDArray[np.float64] = energy.min(axis=1).astype(np.float64)
    return out


@dataclass(frozen=True)
class _Shifted:
    """A crop's descriptor moved by up to ``reach`` pixels each way, by cell: ``cells`` is
    (cells, pixels of a cell, shifts), ``norms`` each cell's squared norm per shift."""

    cells: FloatArray
    norms: FloatArray

    @classmethod
    def of(cls, descriptor: FloatArray, reach: int = _REACH) -> _Shifted:
        size, span = DESCRIPTOR_SIZE, 2 * reach + 1
        padded = np.zeros((2, size + 2 * reach, size + 2 * reach), np.float32)  # np.pad costs 20x this
        padded[:, reach : reach + size, reach : reach + size] = descriptor.reshape(2, size, size)
        # Every window at once (a view: map, dy, dx, y, x), laid out by cell in a single copy.
        windows = sliding_window_view(padded, (size, size), axis=(1, 2))
        by_cell = windows.reshape(2, span, span, _GRID, _STEP, _GRID, _STEP).transpose(0, 3, 5, 4, 6, 1, 2)
        cells = np.ascontiguousarray(by_cell, dtype=np.float32).reshape(_CELLS, _STEP * _STEP, span * span)
        # Each cell's squared norm at every shift is a box sum of the squared maps: a fraction of
        # the time of summing the windows just laid out.
        squared = cv2.multiply(padded.reshape(-1, padded.shape[2]), padded.reshape(-1, padded.shape[2]))
        sums = cv2.boxFilter(squared, cv2.CV_32F, (_STEP, _STEP), anchor=(0, 0), normalize=False, borderType=cv2.BORDER_CONSTANT)
        return cls(cells, np.asarray(sums, np.float32).ravel()[_norm_places(reach)])


@functools.cache
def _norm_places(reach: int) -> npt.NDArray[np.intp]:
    """Where, in the box sums of :meth:`_Shifted.of` (both maps stacked, flattened), each cell's
    window at each shift starts: (cells, shifts), in the order of its ``cells``."""
    side, span = DESCRIPTOR_SIZE + 2 * reach, 2 * reach + 1
    maps, cy, cx, dy, dx = np.meshgrid(
        np.arange(2), np.arange(_GRID), np.arange(_GRID), np.arange(span), np.arange(span), indexing="ij"
    )
    rows = maps * side + cy * _STEP + dy
    out: npt.NDArray[np.intp] = (rows * side + cx * _STEP + dx).reshape(_CELLS, span * span)
    return out


def _aligned_distances(
    cells: FloatArray,
    norms: FloatArray,
    similarity: FloatArray,
    query: _Shifted,
    rows: npt.NDArray[np.intp],
    turns: int = 2,
    reach: int = _LOCAL_REACH,
) -> npt.NDArray[np.float64]:
    """:func:`_exemplar_distances` with the crop aligned to each exemplar: moved as a whole to fit
    it best (on the grey map), then each cell of the grid up to ``reach`` pixels more on its own.

    Two crops of one face are rarely outlined to the pixel, and the outline of a small die is off
    by a few pixels, not by the same amount at every corner: a corner number decides only when its
    own cell lines up. Every cell against every shift is one batched product per cell
    (|a - b|^2 = |a|^2 + |b|^2 - 2ab), rather than a moved copy of the crop per shift."""
    chosen = _turns(similarity, rows, turns)
    # Both operands contiguous: given strided views, numpy's product is many times slower
    # whenever other processes keep the cores busy.
    candidates = np.ascontiguousarray(cells[chosen].transpose(1, 0, 2))
    half = _CELLS // 2
    if reach == 0:
        # The crop moved as a whole only: the grey map finds the shift, then one difference.
        fit = np.matmul(candidates[:half], query.cells[:half]).sum(axis=0)
        moved = query.cells[:, :, np.argmax(fit, axis=1)].transpose(0, 2, 1)
        whole = np.square(candidates - moved).sum(axis=2)
        flat: npt.NDArray[np.float64] = (whole[:half] + whole[half:]).max(axis=0).reshape(len(rows), -1).min(axis=1).astype(np.float64)
        return flat
    cross = np.matmul(candidates, query.cells)  # cells x candidates x shifts
    best_shift = np.argmax(cross[:half].sum(axis=0), axis=1)
    around = _nearby_shifts(cross.shape[2], best_shift, reach)
    picked = np.take_along_axis(cross, around[None], axis=2)
    energy = norms[chosen].T[:, :, None] + query.norms[:, around] - 2.0 * picked
    per_cell = (energy[:half] + energy[half:]).min(axis=2)
    out: npt.NDArray[np.float64] = per_cell.max(axis=0).reshape(len(rows), -1).min(axis=1).astype(np.float64)
    return out


def _nearby_shifts(count: int, centre: npt.NDArray[np.intp], reach: int = 2) -> npt.NDArray[np.intp]:
    """For each index into a square grid of ``count`` shifts (as :meth:`_Shifted.of` orders them: dy, then dx),
    the indices of the shifts up to ``reach`` pixels from it each way, clipped to the grid."""
    side = int(round(np.sqrt(count)))
    row, col = np.divmod(centre, side)
    steps = np.arange(-reach, reach + 1)
    rows = np.clip(row[:, None, None] + steps[None, :, None], 0, side - 1)
    cols = np.clip(col[:, None, None] + steps[None, None, :], 0, side - 1)
    out: npt.NDArray[np.intp] = (rows * side + cols).reshape(len(centre), -1)
    return out


def _coarse_similarity(coarse_bank: FloatArray, variants: int, descriptor: FloatArray) -> FloatArray:
    return _dot(coarse_bank, _coarse(descriptor[None, :])[0]).reshape(-1, variants)


def pairwise_distances(crops: Sequence[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float64]:
    """The symmetric matrix of distances between face crops, each pair in its best turn, by the
    same measure the classifier uses to tell its closest faces apart, aligned cell by cell (0 on
    the diagonal).

    Used to cluster the top faces of free rolls: two crops of the same face in any turn are close.
    """
    count = len(crops)
    if not count:
        return np.zeros((0, 0))
    plain = np.stack([face_descriptor(c) for c in crops])
    turned = np.concatenate([rotated_descriptors(c) for c in crops])
    coarse = _coarse(turned)
    variants = len(turned) // count
    cells = _by_cell(turned)
    norms = np.square(cells).sum(axis=2)
    rows = np.arange(count)
    distances = np.stack(
        [
            _aligned_distances(cells, norms, _coarse_similarity(coarse, variants, plain[i]), _Shifted.of(plain[i]), rows, turns=4)
            for i in range(count)
        ]
    )
    distances = np.minimum(distances, distances.T)
    np.fill_diagonal(distances, 0.0)
    return distances


class ProfileClassifier:
    """A face classifier built from a profile's exemplar crops.

    ``faces`` pairs each :class:`CalibratedFace` with its exemplar crops (BGR or grey uint8 squares).
    A face marked ``pips`` may have no exemplars; then ``pip_reader`` (when given) reads crops that
    match no exemplar, and its answer is kept only if the profile has a pip face of that value.

    >>> classifier = ProfileClassifier(faces)            # doctest: +SKIP
    >>> classifier.match(crop).face.label                # doctest: +SKIP
    'axe-1'
    """

    def __init__(
        self,
        faces: Sequence[tuple[CalibratedFace, Sequence[npt.NDArray[np.uint8]]]],
        settings: MatcherSettings | None = None,
        pip_reader: PipFallback | None = None,
        embedding: FaceEmbedding | None = None,
        symbol_floor: float = SYMBOL_FLOOR,
    ) -> None:
        self.settings = settings if settings is not None else MatcherSettings()
        #: How alike (the embedding's cosine) a crop like no face to the exemplars must be to the
        #: faces of one symbol for that symbol to be read (:meth:`_by_symbol`).
        self.symbol_floor = symbol_floor
        self.pip_reader = pip_reader
        self.embedding = embedding
        self.faces: tuple[CalibratedFace, ...] = tuple(face for face, _ in faces)
        labels = [face.label for face in self.faces]
        if len(set(labels)) != len(labels):
            raise ValueError(f"face labels must be unique: {labels!r}")
        rows: list[FloatArray] = []
        owners: list[int] = []
        for index, (_face, crops) in enumerate(faces):
            for crop in crops:
                rows.append(rotated_descriptors(crop))
                owners.append(index)
        dim = 2 * DESCRIPTOR_SIZE * DESCRIPTOR_SIZE
        self._variants = 4 * len(_POSES)
        # One row per turn of each exemplar; exemplar k owns rows k*variants .. (k+1)*variants-1.
        bank: FloatArray = np.concatenate(rows) if rows else np.zeros((0, dim), np.float32)
        self._owner = np.asarray(owners, dtype=np.intp)
        self._coarse_bank: FloatArray = _coarse(bank)
        # Kept cell by cell: the comparisons are made per cell of the grid.
        self._cells: FloatArray = _by_cell(bank)
        self._norms: FloatArray = np.square(self._cells).sum(axis=2)
        self._pip_values = {face.value: face for face in self.faces if face.pips}
        self._has_artwork = any(not face.pips for face in self.faces)
        self._pip_classifier = PipClassifier()
        # Each exemplar's embedding in its four quarter turns: exemplars x 4 x D.
        self._embedded: FloatArray | None = None
        if embedding is not None and len(self._owner):
            squares = np.stack([face_square(crop) for _face, crops in faces for crop in crops])
            self._embedded = turned_embeddings(embedding.embed, squares)

    def __repr__(self) -> str:
        labels = ", ".join(face.label for face in self.faces)
        return f"<ProfileClassifier faces=[{labels}] settings={self.settings!r}>"

    def distances(self, crop: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
        """Distance from the crop to the closest exemplar of each face (``inf`` for a face without
        exemplars), in the order of :attr:`faces`.

        Each exemplar is first turned to its best fit (the largest cosine over its turns); the
        distance is then the worst 1/16 of the face: the largest squared difference in any cell of
        a 4x4 grid. A small corner number is one cell, so it counts as much as the big symbol.
        """
        return self.descriptor_distances(face_descriptor(crop))

    def descriptor_distances(self, descriptor: FloatArray, exclude: int | None = None) -> npt.NDArray[np.float64]:
        """:meth:`distances` for a ready descriptor; ``exclude`` leaves out one exemplar (by its
        index in the order given), to read it held out."""
        best = np.full(len(self.faces), np.inf)
        if not len(self._cells):
            return best
        owner = self._owner
        rows = np.arange(len(owner))
        if exclude is not None:
            rows = rows[rows != exclude]
        similarity = _coarse_similarity(self._coarse_bank, self._variants, descriptor)
        every = rows
        first = similarity.max(axis=1)
        # Compare in full only the few exemplars per face most alike at first sight, so more
        # examples never make reading slow.
        rows = self._most_alike(every, first, _PER_FACE)
        residual = _exemplar_distances(self._cells, similarity, _by_cell(descriptor[None, :])[0], rows)
        np.minimum.at(best, owner[rows], residual)
        # The few closest faces are compared again, each of their exemplars, with the crop aligned
        # cell by cell: that is where a small number decides, and the exemplar most alike at first
        # sight is often not the one that lines up best.
        close = np.argsort(best)[:_ALIGNED_FACES]
        again = self._most_alike(every[np.isin(owner[every], close)], first, _MAX_ALIGNED)
        aligned = _aligned_distances(self._cells, self._norms, similarity, _Shifted.of(descriptor), again)
        np.minimum.at(best, owner[again], aligned)
        return best

    def _most_alike(self, rows: npt.NDArray[np.intp], first: FloatArray, limit: int) -> npt.NDArray[np.intp]:
        """Of exemplars ``rows``, at most ``limit`` per face: those with the best coarse cosine."""
        owner = self._owner[rows]
        if len(rows) <= limit:
            return rows
        order = np.lexsort((-first[rows], owner))
        rank = np.arange(len(order)) - np.searchsorted(owner[order], owner[order])
        out: npt.NDArray[np.intp] = np.sort(rows[order][rank < limit])
        return out

    @property
    def exemplar_faces(self) -> tuple[int, ...]:
        """For each exemplar, in the order given, the index of its face in :attr:`faces`."""
        return tuple(int(i) for i in self._owner)

    def similarities(self, crop: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64] | None:
        """The learned embedding's cosine similarity of the crop to the closest exemplar of each
        face (``-inf`` for a face without exemplars), in the order of :attr:`faces`; ``None``
        without an embedding."""
        return self._similarities(face_square(crop))

    def _similarities(self, square: FloatArray) -> npt.NDArray[np.float64] | None:
        if self._embedded is None or self.embedding is None:
            return None
        vector = self.embedding.embed(square[None])[0]
        per_exemplar = np.einsum("etd,d->et", self._embedded, vector).max(axis=1)
        best = np.full(len(self.faces), -np.inf)
        np.maximum.at(best, self._owner, per_exemplar.astype(np.float64))
        return best

    def match(self, crop: npt.NDArray[np.uint8], *, by_symbol: bool = True) -> FaceMatch:
        """The face this crop shows, with a calibrated confidence, or ``unreadable``.

        With an embedding, its opinion weighs in (:class:`~vision.face_embedding.EmbeddingOpinion`):
        a read it surely places on another face is ``unreadable`` with both as candidates, and an
        unsure read it surely places on one face (one of the candidates, if there are any) is read
        as that face, and a crop like no face to the exemplars that it finds very alike to a few
        faces and far from the rest is ``unreadable`` with those few as candidates. With
        ``by_symbol``, a crop like no face whose symbol it tells surely is read as that symbol
        (:meth:`_by_symbol`): only for a crop of a die seen whole (:attr:`DetectedFace.whole`),
        as a die's corner number cut out alone may pass for the face of another set that bears
        the same number.

        :raises InvalidFrameError: when ``crop`` is not a non-empty uint8 image.
        """
        square = face_square(crop)
        found = self._exemplar_match(crop, self.descriptor_distances(_descriptor_of_square(square)))
        similarities = self._similarities(square)
        if similarities is None or self.embedding is None or found.face is None:
            return found
        return self._weigh(found, similarities, self.embedding.opinion, by_symbol)

    def _weigh(
        self, found: FaceMatch, similarities: npt.NDArray[np.float64], opinion: EmbeddingOpinion, by_symbol: bool = True
    ) -> FaceMatch:
        """The exemplars' match with the embedding's opinion (see :meth:`match`)."""
        weighed = self._weigh_faces(found, similarities, opinion)
        if not by_symbol or weighed.ok or weighed.candidates or found.distance <= self.settings.accept_distance:
            return weighed
        return self._by_symbol(found, similarities, opinion) or weighed

    def _by_symbol(self, found: FaceMatch, similarities: npt.NDArray[np.float64], opinion: EmbeddingOpinion) -> FaceMatch | None:
        """A crop like no face to the exemplars (another table's light, blur, tray) whose symbol the
        embedding tells surely though no face is :attr:`EmbeddingOpinion.floor` alike: the faces
        with the symbol it finds likeliest lead every face with another symbol by the opinion's
        ``rescue`` and reach :attr:`symbol_floor`. The one face with that symbol is read; where
        several share it, they are the candidates (the symbol is known, the number is not)."""
        order = [int(i) for i in np.argsort(-similarities) if np.isfinite(similarities[int(i)])]
        if not order:
            return None
        top = self.faces[order[0]]
        best = float(similarities[order[0]])
        rivals = [float(similarities[i]) for i in order if self.faces[i].symbol != top.symbol]
        if top.symbol is None or top.pips or not rivals or best < self.symbol_floor or best - max(rivals) < opinion.rescue:
            return None
        same = tuple(self.faces[i] for i in order if self.faces[i].symbol == top.symbol)
        if len(same) == 1:
            return FaceMatch(top, DieStatus.OK, opinion.rescue_confidence, found.distance, found.margin, found.runner_up)
        return dataclasses.replace(found, face=top, status=DieStatus.UNREADABLE, candidates=same, runner_up=same[1].label)

    def _weigh_faces(self, found: FaceMatch, similarities: npt.NDArray[np.float64], opinion: EmbeddingOpinion) -> FaceMatch:
        """The exemplars' match with the embedding's opinion of each face."""
        order = np.argsort(-similarities)
        if len(order) < 2 or not np.isfinite(similarities[order[1]]):
            return found
        preferred = self.faces[int(order[0])]
        lead = float(similarities[order[0]] - similarities[order[1]])
        if found.ok and found.face is not None and self._stranger(found.face, similarities, opinion):
            return dataclasses.replace(found, status=DieStatus.UNREADABLE, candidates=(), runner_up=None)
        if found.ok and found.face is not None and preferred != found.face:
            own = float(similarities[self.faces.index(found.face)])
            # A face without exemplars (a pip face the pip reader read) is not the embedding's to judge.
            if np.isfinite(own) and float(similarities[order[0]]) - own >= opinion.veto:
                return dataclasses.replace(found, status=DieStatus.UNREADABLE, candidates=(found.face, preferred), runner_up=preferred.label)
            return found
        if found.ok:
            return found
        found = self._without_strangers(found, similarities, opinion)
        best = float(similarities[order[0]])
        if lead < opinion.rescue:
            if found.candidates or best < opinion.floor:
                return found
            # Like no face to the exemplars, very alike to a few faces to the embedding and far
            # from the rest: one of those few (a symbol whose number is blurred, say), not unknown.
            close = tuple(self.faces[int(i)] for i in order if similarities[int(i)] > best - opinion.rescue)
            if len(close) == int(np.isfinite(similarities).sum()):
                return found  # alike to every face: that says nothing
            return dataclasses.replace(found, face=preferred, candidates=close, runner_up=close[1].label)
        if found.candidates and preferred not in found.candidates:
            return found
        # Unsure between faces, one of them the face it surely prefers; or like none of them to
        # the exemplars (other light, another tray) while the embedding finds one face very alike,
        # as a face of another set or a badly cut crop rarely is (docs/calibration.md).
        if self._stranger(preferred, similarities, opinion):
            return found
        if found.distance <= self.settings.accept_distance or float(similarities[order[0]]) >= opinion.floor:
            return FaceMatch(preferred, DieStatus.OK, opinion.rescue_confidence, found.distance, found.margin, found.runner_up)
        return found

    def _without_strangers(self, found: FaceMatch, similarities: npt.NDArray[np.float64], opinion: EmbeddingOpinion) -> FaceMatch:
        """An unsure match without the candidates the embedding finds the crop like none of
        (:meth:`_stranger`): a crop cut off its die's corner number (a burst read by the exemplars
        as a heart 4 or 5, which would have told the rules "heart"). With fewer than two left it
        has none: like no calibrated face, unless the embedding then surely tells the face."""
        kept = tuple(face for face in found.candidates if not self._stranger(face, similarities, opinion))
        if len(kept) == len(found.candidates):
            return found
        if len(kept) < 2:
            return dataclasses.replace(found, candidates=(), runner_up=None)
        return dataclasses.replace(found, face=kept[0], candidates=kept, runner_up=kept[1].label)

    def _stranger(self, face: CalibratedFace, similarities: npt.NDArray[np.float64], opinion: EmbeddingOpinion) -> bool:
        """Whether the embedding finds the crop less alike than :attr:`EmbeddingOpinion.stranger`
        to ``face`` (a face without exemplars, read by its pips, is not the embedding's to judge)."""
        own = float(similarities[self.faces.index(face)])
        return bool(np.isfinite(own)) and own < opinion.stranger

    def _exemplar_match(self, crop: npt.NDArray[np.uint8], distances: npt.NDArray[np.float64]) -> FaceMatch:
        order = np.argsort(distances)
        if not len(order) or not np.isfinite(distances[order[0]]):
            return self._pips_or_unreadable(crop, None, float("inf"), 0.0, None)
        first = int(order[0])
        distance = float(distances[first])
        second = int(order[1]) if len(order) > 1 else None
        second_distance = float(distances[second]) if second is not None else 2.0
        if not np.isfinite(second_distance):
            second_distance = 2.0
        margin = second_distance - distance
        runner_up = self.faces[second].label if second is not None else None
        confidence = float(self.settings.confidence(margin))
        face = self.faces[first]
        if distance > self.settings.accept_distance:
            return self._pips_or_unreadable(crop, face, distance, margin, runner_up)
        if confidence < self.settings.min_confidence or margin < _TIE * self.settings.accept_distance:
            # Two faces about equally close is a guess, whatever the table says: the table pools
            # its reads in groups, and a group reaching down to a tie is mostly wider margins.
            # The faces about as close as the runner-up are what the die may show.
            reach = min(self.settings.accept_distance, second_distance + _TIE * self.settings.accept_distance)
            candidates = tuple(self.faces[int(i)] for i in order if distances[int(i)] <= reach)
            if len(candidates) < 2:
                candidates = ()
            return FaceMatch(face, DieStatus.UNREADABLE, confidence, distance, margin, runner_up, candidates)
        return FaceMatch(face, DieStatus.OK, confidence, distance, margin, runner_up)

    def _pips_or_unreadable(
        self,
        crop: npt.NDArray[np.uint8],
        nearest: CalibratedFace | None,
        distance: float,
        margin: float,
        runner_up: str | None,
    ) -> FaceMatch:
        if self.pip_reader is not None and self._pip_values:
            read = self.pip_reader(crop)
            if read is not None and read[0] in self._pip_values:
                value, confidence = read
                return FaceMatch(self._pip_values[value], DieStatus.OK, confidence, distance, margin)
        return FaceMatch(nearest, DieStatus.UNREADABLE, 0.0, distance, margin, runner_up)

    def classify(self, candidate: FaceCandidate) -> FaceResult:
        """Reads one top face (the :class:`~vision.classify.FaceClassifier` protocol).

        A face of the profile marked ``pips`` is read from its pips: as the face network counts
        them surely (on a die the learned detector found, :class:`DetectedFace`), checked against
        the pip finder's layout of the die as the plain reader checks it (:meth:`_checked_count`),
        else as the pip finder found them (more than a single mark), where the network does not
        count otherwise. Every other face is read
        from its exemplars, the network's count a second opinion: where it counts other pips
        (surely, or at all on a pip face), the face is ``unreadable`` with both as candidates; where
        it sees no pips on a pip face, ``unreadable`` too; where the exemplars are torn between
        faces and it surely counts the number of one of them, that one. The pip finder's single
        round mark is never read as a one when the profile has faces without pips: an emblem looks
        like a one to it."""
        detected = candidate if isinstance(candidate, DetectedFace) else None
        counted = detected.learned_pips if detected is not None else None
        layout = candidate.layout
        if counted is not None and counted[0] in self._pip_values:
            if layout is not None and layout.value != counted[0] and self._by_pips(layout.value):
                checked = self._checked_count(candidate, counted, layout.value)
                if checked is not None:
                    return checked
            # The network tells a one from an emblem, as the pip finder's single round mark cannot.
            return self._pip_result(counted[0], counted[1])
        # The network's likeliest pip count, sure or not: a second opinion on every pip face.
        leaning = detected.leaning_pips if detected is not None else None
        # A single round mark is read as a one only where the network counts it surely (above):
        # on its own it may be anything round (a key's print, a screw head).
        if layout is not None and layout.value != 1 and self._by_pips(layout.value) and leaning in (None, layout.value):
            pips = self._pip_classifier.classify(candidate)
            if pips.status is DieStatus.OK:
                return self._pip_result(layout.value, pips.confidence)
        found = self.match(candidate.crop, by_symbol=detected is None or detected.whole)
        face = found.face
        sure = counted[0] if counted is not None else None
        if found.ok and face is not None:
            # The network counting other pips than the exemplars show (surely, or on a pip face at
            # all) is a second opinion against them: either may be right.
            other = sure if sure is not None else leaning if face.pips else None
            if face.pips and detected is not None and detected.learned is not None and detected.learned[0] == "other":
                # The network sees no pips where the exemplars name a pip face: a key, a side face.
                return FaceResult(None, None, found.confidence, DieStatus.UNREADABLE, reason="not a pip face")
            if other is not None and other != face.value:
                either = (face, *[f for f in self.faces if f.value == other][:1])
                return FaceResult(
                    None, None, found.confidence, DieStatus.UNREADABLE, reason=_either(f.label for f in either),
                    candidates=tuple(f.label for f in either) if len(either) > 1 else (),
                    candidate_values=tuple(f.value for f in either) if len(either) > 1 else (),
                )  # fmt: skip
            return FaceResult(face.value, face.label, found.confidence, DieStatus.OK, face.symbol)
        among = [f for f in found.candidates or ((face,) if face is not None else ()) if f.value == sure]
        if counted is not None and len(among) == 1 and found.distance <= self.settings.accept_distance:
            # Unsure between faces, one of them the face whose number the network counts surely.
            return FaceResult(among[0].value, among[0].label, counted[1], DieStatus.OK, among[0].symbol)
        return FaceResult(
            None, None, found.confidence, DieStatus.UNREADABLE, symbol=found.shared_symbol, reason=found.reason,
            candidates=tuple(face.label for face in found.candidates),
            candidate_values=tuple(face.value for face in found.candidates),
        )  # fmt: skip

    def _checked_count(self, candidate: FaceCandidate, counted: tuple[int, float], laid_out: int) -> FaceResult | None:
        """The network's sure count ``counted`` checked against the pip finder's layout of
        ``laid_out`` pips on the same die, as the plain reader checks it
        (:func:`vision.combine.settled_count`): the layout's face where it stands, ``unreadable``
        where neither does; ``None`` where the layout is not read surely (the count stands)."""
        pips = self._pip_classifier.classify(candidate)
        if pips.status is not DieStatus.OK:
            return None
        settled = settled_count(counted[0], counted[1], laid_out)
        if settled == laid_out:
            return self._pip_result(laid_out, pips.confidence)
        if settled is not None:
            return None
        either = (self._pip_values[counted[0]], self._pip_values[laid_out])
        return FaceResult(
            None, None, counted[1], DieStatus.UNREADABLE, reason=f"readings differ: {_either(f.label for f in either)}",
            candidates=tuple(f.label for f in either), candidate_values=tuple(f.value for f in either),
        )  # fmt: skip

    def reads_by_pips(self, count: int) -> bool:
        """Whether a face whose pips the face network counts surely as ``count`` is read as that
        face from its pips (not from its crop)."""
        return count in self._pip_values

    def _by_pips(self, count: int) -> bool:
        """Whether a face showing ``count`` pips is read as the profile's pip face of that number."""
        return count in self._pip_values and not (count == 1 and self._has_artwork)

    def _pip_result(self, count: int, confidence: float) -> FaceResult:
        face = self._pip_values[count]
        return FaceResult(face.value, face.label, confidence, DieStatus.OK, face.symbol)


@dataclass(frozen=True)
class TrayHint:
    """What a tray calibration knows: the empty tray (BGR, same size as the frames), the region of
    interest (x, y, w, h) and the expected side of a die's top face in pixels (0 when unknown)."""

    background: Frame | None = None
    roi: tuple[int, int, int, int] | None = None
    die_side: float = 0.0


@dataclass(frozen=True)
class PaperColour:
    """The colour of a die set's faces (CIE Lab as OpenCV scales it, 0-255 each) and how far, at
    most, its own faces stray from it (the 90th percentile distance, as :func:`paper_colour`
    measures it). Dice are found by it where the tray is about as light as the dice."""

    lab: tuple[float, float, float]
    reach: float


#: Lightness counts this much of a colour difference when a pixel is compared with the dice's
#: colour: light and shade change it most, while the wood or cloth under white dice differs in hue.
_PAPER_LIGHTNESS = 0.1
_SPECK = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))


def _paper_squared(lab: npt.NDArray[np.uint8] | npt.NDArray[np.float32], colour: tuple[float, float, float]) -> npt.NDArray[np.float32]:
    """The squared distance of each pixel of an HxWx3 Lab image from the dice's colour, lightness
    counting :data:`_PAPER_LIGHTNESS` of it. OpenCV's own element-wise passes: numpy's took several
    times as long on a whole frame."""
    difference = cv2.subtract(lab, np.array([*colour, 0.0]).reshape(4, 1), dtype=cv2.CV_32F)
    squared = cv2.transform(cv2.multiply(difference, difference), np.array([[_PAPER_LIGHTNESS, 1.0, 1.0]], np.float32))
    return np.asarray(squared, np.float32)


def paper_colour(crops: Sequence[npt.NDArray[np.uint8]]) -> PaperColour | None:
    """The colour of the faces in ``crops`` (square BGR face crops): the lighter half of the middle
    of each crop is its paper (the ink is darker). ``None`` without colour crops."""
    samples: list[npt.NDArray[np.float32]] = []
    for crop in crops:
        if crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 5:
            continue
        h, w = crop.shape[:2]
        middle = np.ascontiguousarray(crop[h // 5 : h - h // 5, w // 5 : w - w // 5])
        lab = cv2.cvtColor(middle, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
        samples.append(lab[lab[:, 0] >= np.median(lab[:, 0])])
    if not samples:
        return None
    paper = np.concatenate(samples)
    colour = np.median(paper, axis=0)
    lab_colour = (float(colour[0]), float(colour[1]), float(colour[2]))
    reach = float(np.sqrt(np.percentile(_paper_squared(paper.reshape(-1, 1, 3), lab_colour), 90)))
    return PaperColour(lab_colour, reach)


def _rim_colour(lab: Frame) -> list[float]:
    """The median colour of a frame's rim (a twentieth of its size all round), channel by channel."""
    h, w = lab.shape[:2]
    rim = max(2, min(h, w) // 20)
    border = np.concatenate(
        [lab[:rim].reshape(-1, 3), lab[-rim:].reshape(-1, 3), lab[rim:-rim, :rim].reshape(-1, 3), lab[rim:-rim, -rim:].reshape(-1, 3)]
    )
    return [_median_u8(np.ascontiguousarray(border[:, channel])) for channel in range(3)]


def _blurred_lab(frame: Frame) -> Frame:
    return np.asarray(cv2.cvtColor(cv2.GaussianBlur(frame, (0, 0), 1.0), cv2.COLOR_BGR2LAB), np.uint8)


def _median_u8(values: npt.NDArray[np.uint8]) -> float:
    """``np.median`` of 8-bit values, from their histogram: a fraction of the time of sorting."""
    counts = np.cumsum(np.bincount(values, minlength=256))
    count = int(counts[-1])
    low, high = np.searchsorted(counts, [(count - 1) // 2 + 1, count // 2 + 1])
    return (float(low) + float(high)) / 2.0


def square_crop(frame: Frame, corners: npt.NDArray[np.floating[Any]]) -> Frame:
    """The quadrilateral ``corners`` of ``frame`` (top left, then clockwise as the image shows it)
    warped to a ``CROP_SIZE`` square: a face crop as the reader compares it."""
    target = np.array([[0, 0], [CROP_SIZE - 1, 0], [CROP_SIZE - 1, CROP_SIZE - 1], [0, CROP_SIZE - 1]], np.float32)
    matrix = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), target)
    warped = cv2.warpPerspective(frame, matrix, (CROP_SIZE, CROP_SIZE), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(warped, dtype=np.uint8)


#: A side face seen beside the top (a die away from under the camera) is darker than the top by at
#: least ``_SIDE_CONTRAST`` grey levels, the squared gap is ``_SIDE_SEPARATION`` times the two
#: surfaces' variances or more, and the top is at most ``_SIDE_SHARE`` of the paper's outline.
#: One face in uneven light is split by none of these (a gradient halved scores 6).
_SIDE_CONTRAST = 28.0
_SIDE_SEPARATION = 9.0
_SIDE_SHARE = 0.92


def _two_surfaces(bright: npt.NDArray[np.generic], dim: npt.NDArray[np.generic]) -> bool:
    """Whether two sets of paper pixels are two surfaces (a top and a side face) rather than one
    face in uneven light: much apart, and each much tighter than the gap (a shading gradient split
    in two is as wide as the gap between its halves)."""
    gap = float(bright.mean()) - float(dim.mean())
    spread = float(bright.var()) + float(dim.var())
    return gap >= _SIDE_CONTRAST and gap * gap >= _SIDE_SEPARATION * max(spread, 1.0)


def _solid_square(mask: npt.NDArray[np.uint8], min_area: float) -> tuple[npt.NDArray[np.float64], float] | None:
    """The corners and area of the biggest blob of ``mask`` (0/255) when it is a solid square of
    at least ``min_area`` pixels, else ``None``."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    biggest = cv2.convexHull(max(contours, key=cv2.contourArea))
    area = float(cv2.contourArea(biggest))
    rect = cv2.minAreaRect(biggest)
    rw, rh = rect[1]
    if area < min_area or min(rw, rh) < 0.75 * max(rw, rh) or area < 0.8 * rw * rh:
        return None
    return cv2.boxPoints(rect).astype(np.float64), area


class BodyDetector(FaceDetector):
    """Finds dice by their bodies, not their pips: for dice whose faces carry artwork.

    A die body differs from the tray in colour or brightness. The tray is the calibrated empty
    tray when a :class:`TrayHint` has one, else the median colour of the frame's border. Each
    blob about the size and shape of a die becomes a :class:`FaceCandidate` whose crop is the body
    seen square-on (a top-down camera sees little of the sides).
    """

    def __init__(
        self,
        hint: TrayHint | None = None,
        min_side: float = 12.0,
        inset: float = 0.04,
        min_contrast: float = 25.0,
        paper: PaperColour | None = None,
    ) -> None:
        super().__init__()
        self.hint = hint if hint is not None else TrayHint()
        self.paper = paper
        self.min_side = min_side
        self.inset = inset
        self.min_contrast = min_contrast

    def __repr__(self) -> str:
        return f"BodyDetector(min_side={self.min_side!r}, inset={self.inset!r})"

    def _distance(
        self, frame: Frame, background: Frame | None, lab: Frame | None = None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """How far each pixel's colour is from the tray's, and those distances for pixels known to
        be tray (the frame's rim; the whole frame when the empty tray is known). ``lab`` is the
        frame in Lab, lightly blurred, when already worked out."""
        lab = _blurred_lab(frame) if lab is None else lab
        h, w = frame.shape[:2]
        rim = max(2, min(h, w) // 20)
        if background is not None and background.shape == frame.shape:
            reference = cv2.cvtColor(cv2.GaussianBlur(background, (0, 0), 1.0), cv2.COLOR_BGR2LAB)
            difference = cv2.subtract(lab, reference, dtype=cv2.CV_32F)
        else:
            median = _rim_colour(lab)
            # A (4, 1) array is how OpenCV takes a per-channel scalar.
            difference = cv2.subtract(lab, np.array([*median, 0.0]).reshape(4, 1), dtype=cv2.CV_32F)
        # Lightness counts less than colour (0.7 of it): shadows and light falloff change it most.
        # OpenCV's own element-wise passes: numpy's took several times as long on a whole frame.
        squared = cv2.transform(cv2.multiply(difference, difference), np.array([[0.49, 1.0, 1.0]], np.float32))
        distance = np.asarray(cv2.sqrt(squared), np.float32)
        if background is not None and background.shape == frame.shape:
            tray = distance.ravel()  # with the empty tray known, the whole frame tells how much the tray varies
        else:
            tray = np.concatenate(
                [distance[:rim].ravel(), distance[-rim:].ravel(), distance[rim:-rim, :rim].ravel(), distance[rim:-rim, -rim:].ravel()]
            )
        return distance, tray

    def foreground(self, frame: Frame) -> npt.NDArray[np.uint8]:
        """The mask (0/255) of whatever is not tray, at the frame's size.

        Only the tray's region of interest is looked at, when the hint has one. Worked out on a copy
        about 240 pixels high: a die is still dozens of pixels there, and the mask costs a quarter
        as much or less.
        """
        return self._in_region(frame, lambda image, reference: [self._mask(image, reference)])[0]

    def masks(self, frame: Frame) -> list[npt.NDArray[np.uint8]]:
        """:meth:`foreground` and, when :attr:`paper` is known, the mask of whatever has the dice's
        own colour: dice about as light as the tray stand out by it instead."""
        return self._in_region(frame, self._masks)

    def _masks(self, image: Frame, reference: Frame | None) -> list[npt.NDArray[np.uint8]]:
        lab = _blurred_lab(image)
        out = [self._mask(image, reference, lab)]
        if self.paper is not None and self._alike(self.paper.lab, _rim_colour(lab)):
            squared = _paper_squared(lab, self.paper.lab)
            mask = np.asarray(cv2.threshold(squared, self.paper.reach**2, 255, cv2.THRESH_BINARY_INV)[1], np.uint8)
            out.append(np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, _SPECK), np.uint8))
        return out

    def _alike(self, paper: tuple[float, float, float], tray: Sequence[float]) -> bool:
        """Whether dice of colour ``paper`` may fail to stand out from a tray of colour ``tray`` (both
        Lab): closer than three times the contrast a die needs, as the tray's distance measures it."""
        gap = 0.49 * (paper[0] - tray[0]) ** 2 + (paper[1] - tray[1]) ** 2 + (paper[2] - tray[2]) ** 2
        return gap < (3.0 * self.min_contrast) ** 2

    def _in_region(
        self, frame: Frame, masker: Callable[[Frame, Frame | None], list[npt.NDArray[np.uint8]]]
    ) -> list[npt.NDArray[np.uint8]]:
        h, w = frame.shape[:2]
        background = self.hint.background
        same_camera = background is not None and background.shape == frame.shape
        reference = background if same_camera else None
        roi = self.hint.roi if (background is None or same_camera) else None
        x0, y0, x1, y1 = 0, 0, w, h
        if roi is not None:
            x0, y0 = max(0, roi[0]), max(0, roi[1])
            x1, y1 = min(w, roi[0] + roi[2]), min(h, roi[1] + roi[3])
        if x1 - x0 < 8 or y1 - y0 < 8:
            return [np.zeros((h, w), np.uint8)]
        region = frame[y0:y1, x0:x1]
        region_reference = reference[y0:y1, x0:x1] if reference is not None else None
        masks = self._region_masks(region, region_reference, masker)
        if (x0, y0, x1, y1) == (0, 0, w, h):
            return masks
        out = []
        for mask in masks:
            full = np.zeros((h, w), np.uint8)
            full[y0:y1, x0:x1] = mask
            out.append(full)
        return out

    def _region_masks(
        self, region: Frame, reference: Frame | None, masker: Callable[[Frame, Frame | None], list[npt.NDArray[np.uint8]]]
    ) -> list[npt.NDArray[np.uint8]]:
        h, w = region.shape[:2]
        factor = max(1, min(h, w) // 240)
        if factor == 1:
            return masker(region, reference)
        size = (w // factor, h // factor)
        small = np.asarray(cv2.resize(region, size, interpolation=cv2.INTER_AREA), np.uint8)
        small_reference = (
            np.asarray(cv2.resize(reference, size, interpolation=cv2.INTER_AREA), np.uint8) if reference is not None else None
        )
        out = []
        for mask in masker(small, small_reference):
            # Linear, then halfway: a smooth outline at full size rather than blocks of pixels.
            full = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
            out.append(np.asarray(cv2.threshold(full, 127, 255, cv2.THRESH_BINARY)[1], np.uint8))
        return out

    def _mask(self, frame: Frame, background: Frame | None, lab: Frame | None = None) -> npt.NDArray[np.uint8]:
        distance, tray = self._distance(frame, background, lab)
        # A die stands out far beyond the tray's own spread of colours (a patterned cloth varies,
        # but much less than a die differs from it); the rim of the frame is taken to be tray.
        median = float(np.median(tray))
        spread = 1.4826 * float(np.median(np.abs(tray - median)))
        strict = max(self.min_contrast, median + 6.0 * spread)
        scaled = np.clip(distance, 0, 255).astype(np.uint8)
        otsu, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        # The outline follows the lenient level; a blob counts only if it also reaches the strict
        # one somewhere (a die's face and ink do, a cloth's darker squares do not).
        level = max(self.min_contrast, min(float(otsu), strict))
        mask = np.asarray(cv2.threshold(distance, level, 255, cv2.THRESH_BINARY)[1], np.uint8)
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel), np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        if count > 1:
            hits = np.bincount(labels[distance > strict], minlength=count)
            keep = hits >= 0.15 * stats[:, cv2.CC_STAT_AREA]
            keep[0] = False
            if keep[1:].all():
                return mask
            table = np.zeros(max(256, count), np.uint8)
            table[:count][keep] = 255
            # A table lookup on 8-bit labels is several times faster than numpy's fancy indexing.
            mask = table[labels] if count > 256 else np.asarray(cv2.LUT(labels.astype(np.uint8), table), np.uint8)
        return np.asarray(mask, dtype=np.uint8)

    def find_single(self, image: Frame) -> FaceCandidate | None:
        """The one die of a calibration photo: centred, with tray all round it. ``None`` when the
        middle of the photo is not a die."""
        image = check_frame(image)
        distance, tray_values = self._distance(image, self.hint.background)
        h, w = image.shape[:2]
        middle = distance[h * 2 // 5 : h * 3 // 5, w * 2 // 5 : w * 3 // 5]
        tray, die = float(np.median(tray_values)), float(np.median(middle))
        if die - tray < self.min_contrast:
            return None
        mask = np.where(distance > (tray + die) / 2.0, 255, 0).astype(np.uint8)
        mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))), np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        inside = [c for c in contours if cv2.pointPolygonTest(c, (w / 2.0, h / 2.0), False) >= 0]
        if not inside:
            return None
        hull = cv2.convexHull(inside[0])
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(hull)
        if min(rw, rh) < max(self.min_side, 0.75 * max(rw, rh), 0.3 * min(h, w)):
            return None  # not a die filling the middle of the photo: leave it to find()
        if cv2.contourArea(hull) < 0.8 * rw * rh:
            return None  # not square: the die and its shadow, say
        quad = cv2.boxPoints(((cx, cy), (rw, rh), angle)).astype(np.float64)
        return self._candidate(image, quad, w, h, outline=np.asarray(hull, np.int32))

    def find(self, frame: Frame) -> list[FaceCandidate]:
        """Every die body in ``frame``, as candidates with a rectified crop and no pips."""
        frame = check_frame(frame)
        contours = [c for mask in self.masks(frame) for c in cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]]
        h, w = frame.shape[:2]
        same_camera = self.hint.background is None or self.hint.background.shape == frame.shape
        expected = self.hint.die_side if same_camera else 0.0
        found: list[FaceCandidate] = []
        for contour in contours:
            # The hull: ink touching the edge of a face notches the blob but not the die.
            hull = cv2.convexHull(contour)
            area = float(cv2.contourArea(hull))
            if area < self.min_side**2:
                continue
            (cx, cy), (rw, rh), angle = cv2.minAreaRect(hull)
            side = max(rw, rh)
            if min(rw, rh) < 0.75 * side or area < 0.8 * rw * rh:
                continue  # not square and solid: two dice touching, a hand, a shadow
            if expected > 0 and not 0.6 * expected <= side <= 1.6 * expected:
                continue
            if any(_covers(c, (cx, cy)) for c in found):
                continue  # found by both masks
            quad = cv2.boxPoints(((cx, cy), (rw, rh), angle)).astype(np.float64)
            top = self._top_face(frame, np.asarray(hull, np.int32), side)
            found.append(self._candidate(frame, top if top is not None else quad, w, h, outline=np.asarray(hull, np.int32)))
        return found

    @staticmethod
    def _top_face(frame: Frame, hull: npt.NDArray[np.int32], side: float) -> npt.NDArray[np.float64] | None:
        """The top face within a die body seen at an angle: lit from above, it is the brightest
        side; its ink is bridged by a closing. ``None`` when no clear top face stands out."""
        x, y, bw, bh = cv2.boundingRect(hull)
        patch = cv2.cvtColor(frame[y : y + bh, x : x + bw], cv2.COLOR_BGR2GRAY)
        body = np.zeros((bh, bw), np.uint8)
        cv2.fillConvexPoly(body, hull - np.array([x, y], np.int32), (255,))
        values = patch[body > 0]
        if len(values) < 16:
            return None
        level, _ = cv2.threshold(values.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        bright = np.where((patch > level) & (body > 0), 255, 0).astype(np.uint8)
        # Bright specks on a side face (its lit bevel, glints between its ink) would be bridged to
        # the top by the closing and widen it by a strip of the side: only sizeable parts stay.
        count, labels, stats, _ = cv2.connectedComponentsWithStats(bright)
        if count > 2:
            areas = stats[1:, cv2.CC_STAT_AREA]
            keep = np.concatenate([[0], np.where(areas >= 0.1 * areas.max(), 255, 0)]).astype(np.uint8)
            bright = keep[labels]
        size = max(3, int(side / 4) | 1)
        closing = cv2.getStructuringElement(cv2.MORPH_RECT, (size, size))
        bright = np.asarray(cv2.bitwise_and(cv2.morphologyEx(bright, cv2.MORPH_CLOSE, closing), body), np.uint8)
        found = _solid_square(bright, 0.45 * float(cv2.contourArea(hull)))
        if found is None:
            return None
        square, area = found
        # A side face lit a little less than the top is paper too at the split against ink. When
        # the paper's darker part is much darker and leaves a smaller square, that is the top.
        paper = patch[(bright > 0) & (patch > level)]
        if len(paper) >= 16:
            top_level, _ = cv2.threshold(paper.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
            darker = paper <= top_level
            if darker.any() and (~darker).any() and _two_surfaces(paper[~darker], paper[darker]):
                lit = np.where((bright > 0) & (patch > top_level), 255, 0).astype(np.uint8)
                lit = np.asarray(cv2.bitwise_and(cv2.morphologyEx(lit, cv2.MORPH_CLOSE, closing), body), np.uint8)
                top = _solid_square(lit, 0.45 * float(cv2.contourArea(hull)))
                if top is not None and 0.55 * area <= top[1] <= _SIDE_SHARE * area:
                    square = top[0]
        out: npt.NDArray[np.float64] = square + np.array([x, y], np.float64)
        return out

    def _candidate(
        self, frame: Frame, quad: npt.NDArray[np.float64], w: int, h: int, outline: npt.NDArray[np.int32] | None = None
    ) -> FaceCandidate:
        centre = quad.mean(axis=0)
        inner = centre + (quad - centre) * (1.0 - 2.0 * self.inset)
        # Corners in a fixed turning order so that the crop is never mirrored.
        angles = np.arctan2(inner[:, 1] - centre[1], inner[:, 0] - centre[0])
        crop = square_crop(frame, inner[np.argsort(angles)])
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
        flags = CandidateFlag.NONE
        # Cut by the frame only if the die's own pixels reach its edge: the corners of the square
        # fitted to a turned die with rounded corners stick out past the die.
        ex0, ey0, ex1, ey1 = (x0, y0, x1, y1)
        if outline is not None:
            bx, by, bw, bh = cv2.boundingRect(outline)
            ex0, ey0, ex1, ey1 = bx, by, bx + bw - 1, by + bh - 1
        if ex0 < 1 or ey0 < 1 or ex1 > w - 2 or ey1 > h - 2:
            flags |= CandidateFlag.TOUCHES_FRAME_EDGE
        bx0, by0 = max(0, int(x0)), max(0, int(y0))
        bx1, by1 = min(w, int(x1)), min(h, int(y1))
        return FaceCandidate(
            box=(bx0, by0, max(1, bx1 - bx0), max(1, by1 - by0)),
            quad=tuple((float(x), float(y)) for x, y in quad),
            crop=np.ascontiguousarray(crop, dtype=np.uint8),
            pips=(),
            layout=None,
            flags=flags,
            quality=1.0,
        )


#: Two dice lie at least this share of the bigger one's size apart, centre to centre.
OVERLAP = 0.6


def _overlap(a: FoundDie, b: FoundDie) -> bool:
    """Whether the top faces of ``a`` and ``b`` would overlap: two dice lie at least a top face apart."""
    return math.hypot(a.cx - b.cx, a.cy - b.cy) < OVERLAP * max(a.size, b.size)


def _as_outlined(die: FoundDie, outlined: FaceCandidate) -> FoundDie:
    """``die`` sized and placed as its outline says: a whole die as large as the outlined top face
    (:data:`~vision.learned.TOP_FACE` of it), where that is smaller than the detector's size."""
    side = mean_side(outlined.quad) if len(outlined.quad) == 4 else float(max(outlined.box[2:]))
    size = side / TOP_FACE
    if not 0.0 < size < die.size:
        return die
    cx, cy = outlined.center
    return dataclasses.replace(die, cx=float(cx), cy=float(cy), size=size)


def _shrunk(die: FoundDie) -> FoundDie:
    return FoundDie(die.cx, die.cy, 0.6 * die.size, die.score)


def _part_of(small: FaceCandidate, big: FaceCandidate) -> bool:
    """Whether ``small`` lies on ``big`` and is much smaller: a pip or a part of its face."""
    return _covers(big, small.center) and max(small.box[2], small.box[3]) < 0.8 * max(big.box[2], big.box[3])


#: A find the face network reads as anything but a one at this probability or more is a die, not a
#: pip of a bigger die.
PIP_LIKE_BELOW = 0.9


def _pip_like(face: FaceCandidate) -> bool:
    """Whether a find may be a pip of a bigger die: the face network reads it as a one, or is
    unsure what it is."""
    learned = getattr(face, "learned", None)
    return learned is None or learned[0] == "1" or learned[1] < PIP_LIKE_BELOW


def _on_side_face(die: FoundDie, side_faces: Sequence[tuple[float, float]]) -> bool:
    """Whether the detector's ``die`` is one of the side faces the pip finder saw
    (:meth:`~vision.detect.FaceDetector.find_with_side_faces`): its centre near one's, as
    :data:`vision.combine.ON_SIDE_FACE` has it for the plain reader."""
    reach = ON_SIDE_FACE * die.size * TOP_FACE
    return any(abs(die.cx - sx) < reach and abs(die.cy - sy) < reach for sx, sy in side_faces)


def _covers(candidate: FaceCandidate, point: tuple[float, float]) -> bool:
    """Whether ``point`` lies in the candidate's box."""
    x, y, w, h = candidate.box
    return x <= point[0] <= x + w and y <= point[1] <= y + h


# -- dice found by the learned detector, cut as calibration cuts them ---------------------------

#: How far (share of its side) the top face the detector puts may reach past the frame with the
#: die still whole in it: the box is a little off, a die's rounded corners short of it.
EDGE_SLACK = 0.15
#: Least share of the median size of the dice the detector found in a frame at which a die it
#: cut where it put it (not outlined) counts as seen whole (:attr:`DetectedFace.whole`): a corner
#: number found as a die of its own came out at a third of its die.
WHOLE_DIE = 0.7
#: A die the face network gives "no die" this much or more is not a die (a side face, a shadow).
NOT_A_DIE = 0.5
#: The sides, as shares of a body's outlined side, of a square fitted at that outline that stand
#: for it (:func:`_fitted_to`): an outline may sit a few pixels inside the face's edge (a tenth of
#: a white die on light wood); under 1.05 the two agree within the fit's own steps (a die is
#: fitted at about 40 px: in a 96 px photo, 2 px a step), and the outline stands.
REFIT_SIDES = (1.05, 1.25)
#: At the table, a die whose first fit is weak is fitted again at this share of the detector's size:
#: on a table about as light as the dice the detector can size a die 1.3-1.55 times too big, and
#: the window of that size takes in the die's neighbourhood (docs/calibration.md).
SMALLER_FIT = 0.8


def top_face_crop(image: Frame, die: FoundDie) -> Frame:
    """The square crop of the die's top face where the detector put it, upright."""
    half = die.size * TOP_FACE / 2.0
    corners = np.array(
        [[die.cx - half, die.cy - half], [die.cx + half, die.cy - half], [die.cx + half, die.cy + half], [die.cx - half, die.cy + half]]
    )
    return square_crop(image, corners)


def nearest_outline(candidates: Sequence[FaceCandidate], die: FoundDie) -> FaceCandidate | None:
    """The candidate centred on ``die`` and about its size, if any."""
    best, best_distance = None, float("inf")
    for candidate in candidates:
        fx, fy = candidate.center
        distance = float(np.hypot(fx - die.cx, fy - die.cy))
        side = max(candidate.box[2], candidate.box[3])
        if distance < 0.3 * die.size and 0.5 * die.size <= side <= 1.6 * die.size and distance < best_distance:
            best, best_distance = candidate, distance
    return best


def _outline_in(view: Frame, die: FoundDie, bodies: BodyDetector, pips: FaceDetector) -> FaceCandidate | None:
    """The die at ``die`` (in ``view``'s pixels) outlined in ``view``: as the one die of a photo
    centred on it, else among the bodies, else among the faces read by their pips; ``None`` in a
    view smaller than the finders take (a calibration crop cut close round a small die)."""
    if min(view.shape[:2]) < MIN_FRAME_SIDE:
        return None
    single = bodies.find_single(view)
    if single is not None and nearest_outline([single], die) is not None:
        return single
    for candidates in (bodies.find(view), [c for c in pips.find(view) if c.layout is not None]):
        chosen = nearest_outline([c for c in candidates if not c.touches_frame_edge], die)
        if chosen is not None:
            return chosen
    return None


def die_window(image: Frame, die: FoundDie, *, repeat_edge: bool = False) -> tuple[Frame, int, int]:
    """The square of ``image`` two dice across centred on ``die``, and where its top left corner
    lies in ``image``: tray round the die, where the finders see the die and little else.

    Where the square reaches past the image it is cut there (a die at the frame's edge is seen
    cut by it), or with ``repeat_edge`` the image's edge is repeated to fill it: a calibration
    photo cropped close round its die ends where the tray goes on."""
    x0, y0 = int(np.floor(die.cx - die.size)), int(np.floor(die.cy - die.size))
    side = max(8, int(np.ceil(2.0 * die.size)))
    h, w = image.shape[:2]
    inside = image[max(0, y0) : max(0, min(h, y0 + side)), max(0, x0) : max(0, min(w, x0 + side))]
    if inside.size == 0:
        return np.zeros((side, side, 3), np.uint8), x0, y0
    if not repeat_edge:
        return np.ascontiguousarray(inside, dtype=np.uint8), max(0, x0), max(0, y0)
    top, left = max(0, -y0), max(0, -x0)
    bottom, right = side - top - inside.shape[0], side - left - inside.shape[1]
    window = cv2.copyMakeBorder(inside, top, max(0, bottom), left, max(0, right), cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(window, dtype=np.uint8), x0, y0


def outline_found_die(
    image: Frame, die: FoundDie, bodies: BodyDetector, pips: FaceDetector | None = None, *, repeat_edge: bool = False,
    whole: Sequence[FaceCandidate] | None = None, lone: bool = False,
) -> FaceCandidate | None:
    """The die the detector found at ``die`` outlined by the reader's own finders, so that its crop
    is cut square-on and turned as the die lies; ``None`` where they do not outline it (then
    :func:`top_face_crop` cuts it where the detector put it).

    Calibration and reading cut a die alike through this function, so that a die at the table is
    compared with exemplars cut the same way: first as :func:`fit_face_square` fits it (at the
    table, where that fit is weak, fitted again at :data:`SMALLER_FIT` of the detector's size: a
    light table's dice are often sized too big; done in calibration photos too, 9 fewer dice
    on felt were read right over seven measurements),
    then outlined by the finders: in the whole image (a calibration photo: as
    the one die centred in it, else among its bodies, else among its faces read by pips; a frame
    at the table: among ``whole``, the bodies found in it once per frame), then in a window two
    dice across round the die (:func:`die_window`), where the finders see the die and little else.
    ``lone``: the image is a calibration photo of this one die; a body outlined is cut by the square
    fitted at the outline (:func:`_fitted_to`), and where nothing else outlines it, the square
    whose every side steps up to it is its face (:func:`fit_face_square`'s ``every_side_steps``),
    not the detector's square, which may be far too big. (At the table a body's outline stands:
    fitted there too, over seven measurements 6 more dice were read right on wood and 3 fewer at
    another table, no gain for a change to every frame.)"""
    for size in (die.size,) if lone else (die.size, SMALLER_FIT * die.size):
        fitted = fit_face_square(image, die.cx, die.cy, size)
        if fitted is not None and fitted.strength >= FIT_STRENGTH:
            return _fitted_face(image, fitted.corners)
    pips = pips if pips is not None else FaceDetector()
    if whole is None:
        outlined = _outline_in(image, die, bodies, pips)
    else:
        outlined = nearest_outline([c for c in whole if not c.touches_frame_edge], die)
    if outlined is None:
        window, x0, y0 = die_window(image, die, repeat_edge=repeat_edge)
        local = _outline_in(window, FoundDie(die.cx - x0, die.cy - y0, die.size, die.score), bodies, pips)
        outlined = _moved(local, x0, y0) if local is not None else None
    if outlined is not None:
        return _fitted_to(image, outlined) if lone else outlined
    if lone:
        stepped = fit_face_square(image, die.cx, die.cy, die.size, every_side_steps=True)
        if stepped is not None and stepped.strength >= FIT_STRENGTH:
            return _fitted_face(image, stepped.corners)
    return None


def _fitted_to(image: Frame, outlined: FaceCandidate) -> FaceCandidate:
    """``outlined`` (a body the finders outlined) cut as :func:`fit_face_square` fits the die at the
    outline's centre and size, where that fit is strong and round the outline (its side within
    :data:`REFIT_SIDES` of the outline's, centred within a quarter of it); else the outline as
    found.

    The first fit starts from the detector's size, which its coarse look can make far too big (a
    white die on light wood); a die outlined then would be cut by its body's outline, which sits
    a little inside the face, while at the table the same die, sized well, is cut by the fit: its
    corner number, cut off in the exemplar, would then be matched against a whole one. A face read
    by its pips keeps its layout and is not fitted again."""
    if outlined.layout is not None or len(outlined.quad) != 4:
        return outlined
    side = mean_side(outlined.quad)
    cx, cy = outlined.center
    fitted = fit_face_square(image, cx, cy, side / TOP_FACE)
    if fitted is None or fitted.strength < FIT_STRENGTH:
        return outlined
    low, high = REFIT_SIDES
    offset = np.abs(fitted.corners.mean(axis=0) - (cx, cy))
    if not low <= mean_side(fitted.corners) / side <= high or bool(np.any(offset > 0.25 * side)):
        return outlined
    refitted = _fitted_face(image, fitted.corners)
    return dataclasses.replace(refitted, flags=refitted.flags | outlined.flags)


def _fitted_face(image: Frame, corners: npt.NDArray[np.float64]) -> FaceCandidate:
    """The face whose corners :func:`~vision.square_fit.fit_face_square` fitted, cut square-on;
    flagged as cut by the frame where a corner lies outside it."""
    h, w = image.shape[:2]
    x0, y0 = (float(v) for v in corners.min(axis=0))
    x1, y1 = (float(v) for v in corners.max(axis=0))
    flags = CandidateFlag.TOUCHES_FRAME_EDGE if x0 < 0 or y0 < 0 or x1 > w - 1 or y1 > h - 1 else CandidateFlag.NONE
    bx, by = max(0, int(x0)), max(0, int(y0))
    box = (bx, by, max(1, min(w, int(np.ceil(x1))) - bx), max(1, min(h, int(np.ceil(y1))) - by))
    quad = tuple((float(x), float(y)) for x, y in corners)
    return FaceCandidate(box=box, quad=quad, crop=square_crop(image, corners), pips=(), layout=None, flags=flags)


def _moved(candidate: FaceCandidate, dx: int, dy: int) -> FaceCandidate:
    """``candidate`` found in a window at (dx, dy) of a frame, in the frame's pixels."""
    x, y, w, h = candidate.box
    return dataclasses.replace(
        candidate,
        box=(x + dx, y + dy, w, h),
        quad=tuple((px + dx, py + dy) for px, py in candidate.quad),
        pips=tuple(dataclasses.replace(p, x=p.x + dx, y=p.y + dy) for p in candidate.pips),
    )


@dataclass(frozen=True)
class DetectedFace(FaceCandidate):
    """A top face of a calibrated set found in a frame: where and how it was cut, with what the
    face network made of the die (``learned``: its class, one of :data:`vision.learned.CLASSES`,
    and probability). ``by_detector`` is false for a die only the body or pip finder found: such a
    die stands only when read surely, or as one of a few faces sharing a symbol."""

    learned: tuple[str, float] | None = None
    by_detector: bool = True
    #: The face network's pip count and its probability, where it reads one surely.
    learned_pips: tuple[int, float] | None = None
    #: Whether the die is seen whole: found by the detector and outlined by the reader's own
    #: finders, or cut where the detector put it at about the size of the frame's other dice (a
    #: find much smaller than them may be a part of a die: its corner number). A die only the
    #: body or pip finder found is not: a blob a third of a die's size passed for a face there.
    whole: bool = True

    @property
    def leaning_pips(self) -> int | None:
        """The pip count the face network finds likeliest, sure or not (``None``: not a pip face)."""
        if self.learned is None or not self.learned[0].isdigit():
            return None
        return int(self.learned[0])


_Look = tuple[list[FoundDie], list[FoundDie], "npt.NDArray[np.float32] | None"]
_SHARED_LOOKS: ContextVar[dict[tuple[int, int, float], _Look] | None] = ContextVar("_SHARED_LOOKS", default=None)


@contextlib.contextmanager
def one_look_per_frame() -> Iterator[None]:
    """While it lasts, finders with the same model look at a frame with the detector and the face
    network once: the profiles reading one tray (:mod:`vision.profile_set`) share that look
    instead of each taking it again."""
    token = _SHARED_LOOKS.set({})
    try:
        yield
    finally:
        _SHARED_LOOKS.reset(token)


class LearnedFaceFinder(FaceDetector):
    """Finds a calibrated set's dice with the learned detector, which finds dice whatever their
    faces show, and cuts each die's top face as calibration cut its exemplars
    (:func:`outline_found_die`, else :func:`top_face_crop`). Each found face carries what the face
    network made of its die (:class:`DetectedFace`): the profile's classifier reads pip faces
    from its count and takes it as a second opinion on the others.

    The rule-based finders add only the dice the detector misses, as :class:`DetectedFace` with
    ``by_detector`` false, which the reader keeps only where it reads them surely (or as one of
    a few faces sharing a symbol):
    ``bodies_alone`` adds the bodies of the frame (measured: for artwork dice, the few the
    detector misses at a frame's edge; for pip dice they cost precision), ``pips_alone`` the faces
    the pip finder sees (for pip dice, a die in forty it misses). A face found so that the
    detector saw as a few smaller dice (its pips) replaces them. ``pip_counts`` are the counts the
    classifier reads from the network's count alone: such a die is not outlined in a window.
    """

    def __init__(
        self,
        learned: LearnedReader | None = None,
        bodies: BodyDetector | None = None,
        pips: FaceDetector | None = None,
        *,
        bodies_alone: bool = False,
        pips_alone: bool = False,
        pip_counts: Collection[int] = (),
        threads: int | None = None,
    ) -> None:
        super().__init__()
        # the rule-based finders on a second core while the learned detector looks (vision.beside)
        self.beside = ThreadBeside(threads)
        self.pips_alone = pips_alone
        self.pip_counts = frozenset(pip_counts)
        self.learned = learned if learned is not None else LearnedReader()
        self.bodies = bodies if bodies is not None else BodyDetector()
        self.pips = pips if pips is not None else FaceDetector()
        self.bodies_alone = bodies_alone

    def __repr__(self) -> str:
        return f"LearnedFaceFinder(learned={self.learned!r}, bodies={self.bodies!r}, bodies_alone={self.bodies_alone!r})"

    def find(self, frame: Frame) -> list[FaceCandidate]:
        """Every die of ``frame`` the detector finds and the face network takes for a die, each cut
        as calibration cuts a die; then, with :attr:`bodies_alone`, the bodies the detector did not find."""
        frame = check_frame(frame)
        h, w = frame.shape[:2]
        # Outlined once per frame: a die standing alone on the tray is outlined the same in the
        # frame as in a window round it, and in a fraction of the time of a window per die.
        searched = self.beside.start(lambda: self._rule_based_finds(frame))
        looked = self.found_dice(frame)
        whole, tops, side_faces = searched()
        by_pips = [c for c in tops if c.layout is not None]
        faces: list[FaceCandidate] = []
        kept: list[FoundDie] = []
        # a find much smaller than the frame's dice may be a part of one (its corner number)
        typical = float(np.median([die.size for die, _ in looked])) if looked else 0.0
        for die, p in looked:
            if any(_covers(f, (die.cx, die.cy)) for f in faces) or any(_overlap(k, die) for k in kept):
                continue  # found already (seen from the side, a die may show the detector two peaks)
            if _on_side_face(die, side_faces) and not any(_covers(c, (die.cx, die.cy)) for c in by_pips):
                continue  # the front face of a die whose top the pip finder read (an oblique view)
            kept.append(die)
            name, probability, sure = self._class_of(p, die)
            # A die whose pips the network counts surely is read from them, not from its crop:
            # it need not be outlined (most of the time a frame of pip dice takes).
            counted = sure is not None and sure[0] in self.pip_counts
            if counted:
                outlined = nearest_outline([c for c in whole if not c.touches_frame_edge], die)
            else:
                outlined = outline_found_die(frame, die, self.bodies, self.pips, whole=whole)
            if outlined is None:
                # The coarse look sizes a big die roughly: its outline may be a good deal smaller.
                outlined = nearest_outline([c for c in whole if not c.touches_frame_edge], _shrunk(die))
            if outlined is not None:
                # The next dice keep clear of the die as outlined, not as the detector sized it
                # (the coarse look may size it twice too big, reaching over its neighbour).
                kept[-1] = _as_outlined(die, outlined)
            face = outlined if outlined is not None else self._at_box(frame, die, w, h, cut=name == "cut")
            laid = [c for c in by_pips if _covers(face, c.center) and _covers(c, face.center)] if face.layout is None else []
            if len(laid) == 1:
                # The pip finder's layout of the die: a count for the classifier where the network
                # leans the same way but is not sure.
                face = dataclasses.replace(face, pips=laid[0].pips, layout=laid[0].layout, quality=laid[0].quality)
            if not any(_covers(f, face.center) for f in faces):
                faces.append(_detected(face, (name, probability), by_detector=True, learned_pips=sure, whole=outlined is not None or die.size >= WHOLE_DIE * typical))
        alone = (list(whole) if self.bodies_alone else []) + by_pips
        alone = [c for c in alone if not any(_covers(f, c.center) and not _part_of(f, c) for f in faces)]
        if alone:
            # The face network's look at each: a die it takes for none is none, and what it counts
            # is a second opinion on the face, as on the detector's dice.
            dice = [FoundDie(*c.center, max(c.box[2], c.box[3]) / TOP_FACE, 0.0) for c in alone]
            for candidate, p in zip(alone, self.learned.model.face_probabilities(self.learned.model.crops(frame, dice))):
                if self._not_a_die(p) or any(_covers(f, candidate.center) and not _part_of(f, candidate) for f in faces):
                    continue
                on = [f for f in faces if _part_of(f, candidate)]
                if not all(_pip_like(f) for f in on):
                    continue  # dice read surely lie on it: a stretch of tray as unlike its rim, not a die
                name, probability, sure = self._class_of(p)
                # The detector's dice on it much smaller than it were its pips.
                faces = [f for f in faces if not any(f is o for o in on)]
                faces.append(_detected(candidate, (name, probability), by_detector=False, learned_pips=sure, whole=False))
        return faces

    def _rule_based_finds(self, frame: Frame) -> tuple[list[FaceCandidate], list[FaceCandidate], list[tuple[float, float]]]:
        """The body finder's dice, and (with :attr:`pips_alone`) the pip finder's top faces and side faces."""
        tops, side_faces = self.pips.find_with_side_faces(frame) if self.pips_alone else ([], [])
        return self.bodies.find(frame), tops, side_faces

    def _class_of(self, p: npt.NDArray[np.float32], die: FoundDie | None = None) -> tuple[str, float, tuple[int, float] | None]:
        """The face network's likeliest class, its probability, and the pip count it reads surely."""
        best = int(np.argmax(p))
        name, probability = CLASSES[best], float(p[best])
        sure = (int(name), probability) if name.isdigit() and probability >= self.learned.needed_confidence(die) else None
        return name, probability, sure

    def found_dice(self, frame: Frame) -> list[tuple[FoundDie, npt.NDArray[np.float32]]]:
        """The dice the detector finds in ``frame`` that the face network takes for dice, with its
        class probabilities for each: those of the working scale, strongest first, then those too
        big for it that only the coarse look sees whole (as :class:`~vision.learned.LearnedReader`
        takes them, and also where the working scale found nothing on one: a die with artwork)."""
        found, big, probabilities = self._look(frame)
        if probabilities is None:
            return []
        # Two small dice found as one come apart closer (LearnedReader.look_closer); not looked
        # for behind a die read as artwork: a calibrated set's every die may be one.
        small = self.learned.look_closer(frame, list(zip(found, probabilities[: len(found)])), CLOSER_CLASSES - {"other"})
        kept = [(d, p) for d, p in small if not self._not_a_die(p)]
        for b, p in zip(big, probabilities[len(found) :]):
            if self._not_a_die(p) or any(lies_on(d, b) and d.size > 0.6 * b.size for d, _ in kept):
                continue  # no die, or one the working scale saw whole
            on = [q for d, q in kept if lies_on(d, b)]
            # Where the working scale found nothing on it, it missed a die with artwork; a big die
            # whose pips the network counts surely was seen there as its pips (each a die of one
            # or two), unless a die on it counts other pips more surely: then it was a group of dice.
            counted = self._class_of(p)[2]
            if on and (counted is None or any(self._outcounts(q, counted) for q in on)):
                continue
            kept = [(d, q) for d, q in kept if not lies_on(d, b)] + [(b, p)]
        return kept

    def _look(self, frame: Frame) -> _Look:
        """The detector's dice at the working scale and the coarse look's, and the face network's
        probabilities for all of them (None when there are none); taken once per frame and model
        inside :func:`one_look_per_frame`."""
        key = (id(frame), id(self.learned.model), self.learned.min_score)
        shared = _SHARED_LOOKS.get()
        if shared is not None and key in shared:
            return shared[key]
        look: _Look = self.learned.look(frame)
        if shared is not None:
            shared[key] = look
        return look

    def _outcounts(self, p: npt.NDArray[np.float32], counted: tuple[int, float]) -> bool:
        """Whether probabilities ``p`` count other pips than ``counted`` (a count and its probability), more surely."""
        other = self._class_of(p)[2]
        return other is not None and other[0] not in (1, counted[0]) and other[1] > counted[1]

    def _not_a_die(self, p: npt.NDArray[np.float32]) -> bool:
        """Whether the face network's probabilities ``p`` say no die: as the learned reader takes
        them, or "no die" at :data:`NOT_A_DIE` or more."""
        return float(p[CLASSES.index("none")]) >= NOT_A_DIE or self.learned.takes_for_no_die(p)

    @staticmethod
    def _at_box(frame: Frame, die: FoundDie, w: int, h: int, cut: bool) -> FaceCandidate:
        """The die cut where the detector put its top face; cut by the frame where the face network
        says so (``cut``) or its top face reaches past the frame by more than the detector's
        box is off by (a die's own pixels may end short of the frame's edge)."""
        x, y, bw, bh = die.box
        flags = CandidateFlag.NONE
        slack = EDGE_SLACK * bw
        if (cut and (x < 1 or y < 1 or x + bw > w - 2 or y + bh > h - 2)) or min(x, y) < -slack or x + bw > w + slack or y + bh > h + slack:
            flags |= CandidateFlag.TOUCHES_FRAME_EDGE
        half = die.size * TOP_FACE / 2.0
        quad = ((die.cx - half, die.cy - half), (die.cx + half, die.cy - half), (die.cx + half, die.cy + half), (die.cx - half, die.cy + half))
        bx0, by0 = max(0, x), max(0, y)
        box = (bx0, by0, max(1, min(w, x + bw) - bx0), max(1, min(h, y + bh) - by0))
        return FaceCandidate(box=box, quad=quad, crop=top_face_crop(frame, die), pips=(), layout=None, flags=flags)


def _detected(
    candidate: FaceCandidate, learned: tuple[str, float] | None, *, by_detector: bool, learned_pips: tuple[int, float] | None = None,
    whole: bool = True,
) -> DetectedFace:
    return DetectedFace(
        box=candidate.box, quad=candidate.quad, crop=candidate.crop, pips=candidate.pips, layout=candidate.layout,
        flags=candidate.flags, quality=candidate.quality, learned=learned, by_detector=by_detector, learned_pips=learned_pips,
        whole=whole,
    )  # fmt: skip
