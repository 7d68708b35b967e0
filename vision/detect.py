"""Finding the top faces of dice in a frame.

The pips are the one thing every d6 shares whatever its colour, so the search starts from them:

1. Scale. A camera-sized frame (up to 800 px) is searched as it is; a bigger one has its pips
   measured on a small copy first and is resampled so that pips are about
   :attr:`DetectorConfig.target_pip` pixels wide, whatever the camera. A dim frame is brightened.
2. Pips. Dark pips are what a morphological closing fills in (black-hat), light pips what an
   opening removes (top-hat); each blob is measured as an ellipse.
3. Faces. Pips are linked when they are alike (polarity, size, the ellipse that tells how their
   face is tilted) and the surface between them is unbroken face, not the edge of a die or the gap
   between two dice. Each linked group is matched to a pip layout (:mod:`vision.layout`).
4. Top faces only. An oblique camera also sees side faces; of the faces of one die, the top face is
   the one seen most square-on, and the others are dropped so that side pips never add. In a view
   steeper than 45 degrees the front face looks the squarer, so of two faces of one die in line
   with the camera and nearly as square, the one further from the camera is the top; which way the
   camera is comes from the frame. A face tilted unlike its neighbours is cocked.
"""

from __future__ import annotations

import enum
import math
import threading
from functools import cached_property, lru_cache
from typing import Any
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.imageio import Frame, check_frame
from vision.layout import FACE_HALF_SIDE, LayoutFit, face_outline, fit_layout, invert_2x2

FloatArray = npt.NDArray[np.float64]
Grey = npt.NDArray[np.uint8]
IndexArray = npt.NDArray[np.intp]
IntArray = npt.NDArray[np.integer[Any]]

#: Largest difference, as a matrix norm, between one pip's ellipse and its face's mean ellipse.
ALIKE_SHAPE = 0.16

#: Frames up to this long side (640x480, 800x600) are searched as they are, with one more pass only
#: when their pips turn out far bigger than expected; bigger frames have their pip size measured on
#: a small copy first, since their pips can be too big for the first search to find at all.
_CAMERA_SIDE = 800

#: Side in pixels of the rectified square crop of each top face.
CROP_SIZE = 64


class CandidateFlag(enum.IntFlag):
    """What the detector noticed about a face beyond its pips."""

    NONE = 0
    TOUCHES_FRAME_EDGE = enum.auto()  # part of the face may be outside the frame
    TILTED = enum.auto()  # foreshortened unlike the other dice: the die is probably cocked
    NO_LAYOUT = enum.auto()  # marks that look like a die face but match no pip layout
    TOP_UNSURE = enum.auto()  # another face of the die, further from the camera, could be its top face
    OVERSIZED = enum.auto()  # far bigger than the other faces: its pips may lie on two faces


@dataclass(frozen=True)
class Pip:
    """One pip: centre and equivalent diameter in frame pixels, ellipse shape, contrast 0-255."""

    x: float
    y: float
    diameter: float
    ratio: float  # minor / major axis: 1.0 is round
    angle: float  # radians, direction of the major axis
    contrast: float
    dark: bool  # dark pip on a lighter face


@dataclass(frozen=True, eq=False)
class FaceCandidate:
    """A top face found in a frame, ready for a :class:`vision.classify.FaceClassifier`.

    ``box`` is x, y, width, height in frame pixels; ``quad`` the four corners of the face outline;
    ``crop`` a ``CROP_SIZE`` square BGR image of the face seen square-on; ``pips`` the pips found
    on it and ``layout`` the pip layout they match (``None`` if none).
    """

    box: tuple[int, int, int, int]
    quad: tuple[tuple[float, float], ...]
    crop: Frame = field(repr=False)
    pips: tuple[Pip, ...]
    layout: LayoutFit | None
    flags: CandidateFlag = CandidateFlag.NONE
    quality: float = 1.0  # 0-1: how cleanly the pips fit their layout and stand out

    @property
    def touches_frame_edge(self) -> bool:
        return bool(self.flags & CandidateFlag.TOUCHES_FRAME_EDGE)

    @cached_property
    def center(self) -> tuple[float, float]:
        """Centre of the outline (worked out once: the top-face passes ask for it again and again)."""
        xs = [p[0] for p in self.quad]
        ys = [p[1] for p in self.quad]
        return (sum(xs) / 4, sum(ys) / 4)

    @cached_property
    def _pip_tensor(self) -> npt.NDArray[np.float64]:
        """Mean shape tensor (xx, xy, yy) of the pips' ellipses, worked out once for the top-face
        passes that each compare it (the identity of a face without pips)."""
        if not self.pips:
            return np.array([1.0, 0.0, 1.0])
        ratios = np.array([p.ratio for p in self.pips])
        angles = np.array([p.angle for p in self.pips])
        out: npt.NDArray[np.float64] = _shape_tensor(ratios, angles).mean(axis=0)
        return out

    @cached_property
    def squareness(self) -> float:
        """Mean minor/major ratio of the pips: 1.0 when the face is seen square-on."""
        return float(np.mean([p.ratio for p in self.pips])) if self.pips else 0.0


@dataclass(frozen=True)
class DetectorConfig:
    """Tunables of :class:`FaceDetector`; defaults suit frames from 640x480 to 12 MP."""

    target_pip: float = 8.0  # pip diameter in pixels the frame is resampled to
    coarse_side: int = 400  # longest side of the copy used to measure pips
    min_contrast: float = 40.0  # black-hat/top-hat level that starts a pip, grey levels
    min_pip_contrast: float = 45.0  # mean contrast a pip needs
    min_ratio: float = 0.3  # rounder than this to be a pip
    link_distance: float = 6.5  # pips further apart (in pip diameters) are never on one face
    max_size_ratio: float = 1.7
    max_shape_difference: float = 0.45
    max_gap_drop: float = 0.35  # how far (fraction of pip contrast) the face may dip between pips


class FaceDetector:
    """Finds the top faces of pip dice in BGR frames."""

    def __init__(self, config: DetectorConfig | None = None) -> None:
        self.config = config or DetectorConfig()

    def __repr__(self) -> str:
        return f"FaceDetector({self.config!r})"

    def find(self, frame: Frame) -> list[FaceCandidate]:
        """Every top face in ``frame``, in no particular order."""
        return self.find_with_side_faces(frame)[0]

    def find_with_side_faces(self, frame: Frame, *, crops: bool = True) -> tuple[list[FaceCandidate], list[tuple[float, float]]]:
        """Every top face in ``frame`` (as :meth:`find`), and the centres of the faces taken for
        side faces of those dice in an oblique view (:func:`_side_faces`).

        ``crops``: whether each face comes with its rectified crop; without, a face whose crop is
        not made anyway carries a blank one (for a reader of pip layouts alone, such as
        :class:`~vision.classify.PipClassifier`: a tray's crops cost about a twentieth of the search)."""
        frame = check_frame(frame)
        grey_full: Grey = _lifted(np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), dtype=np.uint8))
        kernel = int(round(self.config.target_pip * 2.2)) | 1
        h, w = grey_full.shape
        halvings = [grey_full]
        scale = 1.0 if max(h, w) <= _CAMERA_SIDE else self._working_scale(halvings)
        passes = self._pips_at(halvings, scale, kernel)
        if scale == 1.0:
            # a camera-sized frame is searched as it is; only pips far bigger than the search
            # expects (a die close to the camera) send it round again at a smaller scale
            measured = self._typical_pip(passes[0][1], passes[1][1])
            if measured is not None and measured > 1.7 * self.config.target_pip:
                scale = self.config.target_pip / measured
                passes = self._pips_at(halvings, scale, kernel)
        groups: list[tuple[Grey, FloatArray, list[int], bool]] = []
        found: list[list[FaceCandidate]] = []  # the faces of each linked group
        for (grey, pips), dark in zip(passes, (True, False)):
            if len(pips) == 0:
                continue
            for group in _link(grey, pips, dark, self.config):
                for part in _split(grey, pips, group, dark, self.config):
                    groups.append((grey, pips, part, dark))
                    found.append(_faces_from_group(frame, grey, pips, part, scale, dark))
        symbols: list[FaceCandidate] = []
        # symbols are big: quarter resolution finds them at a sixteenth of the cost; both
        # polarities search the one working copy, so its quarter-size copy is made once
        quarter: Grey = np.asarray(cv2.pyrDown(cv2.pyrDown(passes[0][0])), dtype=np.uint8)
        for dark in (True, False):
            symbols.extend(_symbol_faces(frame, quarter, kernel, scale, dark, self.config))
        kept, sides = _top_faces(found, symbols, frame.shape[1], frame.shape[0])
        oversized = [f for f in kept if f.flags & CandidateFlag.OVERSIZED and len(f.pips) <= 3]
        if oversized:
            # a two or three far bigger than the other faces took pips from two faces of its die
            # (in a steep view, a top face's one-pip and a pip of its front face make a "two"):
            # its pips are grouped again, with faces clearly smaller than the size that flagged it
            # allowed (a bigger face, whose pips could hardly span two faces, stays unreadable)
            limit = _REGROUPED * _median([_size(f) for f in kept if not f.flags & CandidateFlag.OVERSIZED]) * scale
            owner = {id(f.pips): index for index, faces in enumerate(found) for f in faces}
            for face in oversized:
                index = owner[id(face.pips)]
                grey, pips, group, dark = groups[index]
                found[index] = _faces_from_group(frame, grey, pips, group, scale, dark, max_side=limit)
            kept, sides = _top_faces(found, symbols, frame.shape[1], frame.shape[0])
        return ([_with_crop(frame, f) for f in kept] if crops else kept), sides

    def _pips_at(self, halvings: list[Grey], scale: float, kernel: int) -> list[tuple[Grey, FloatArray]]:
        grey = _shrink(halvings, scale)
        return [(grey, _find_pips(grey, kernel, dark, self.config)) for dark in (True, False)]

    def _typical_pip(self, *found: FloatArray) -> float | None:
        sizes = self._pip_sizes(*found)
        return _median(sizes) if len(sizes) >= 2 else None

    def _pip_sizes(self, *found: FloatArray) -> list[float]:
        """Diameters of the round, well-inked marks among ``found``: the pips that set the scale."""
        sizes: list[float] = []
        for pips in found:
            if len(pips):
                strong = pips[(pips[:, _RATIO] > 0.6) & (pips[:, _CONTRAST] > self.config.min_pip_contrast)]
                sizes.extend(strong[:, _DIAM].tolist())
        return sizes

    def _working_scale(self, halvings: list[Grey]) -> float:
        """The scale that makes pips about ``target_pip`` wide, measured on a small copy."""
        h, w = int(halvings[0].shape[0]), int(halvings[0].shape[1])
        coarse = min(1.0, self.config.coarse_side / max(h, w))
        small = _shrink(halvings, coarse)
        sizes = self._pip_sizes(*(_find_pips(small, 15, dark, self.config) for dark in (True, False)))
        if not sizes:
            return min(1.0, 1024.0 / float(max(h, w)))
        measured = _median(sizes)
        # the biggest mark that can still be a pip (a one-pip is often twice the others) must fit
        # the search as well, as it does in a camera-sized frame
        largest = max(size for size in sizes if size <= 2.5 * measured)
        scale = float(min(self.config.target_pip / measured, 1.7 * self.config.target_pip / largest) * coarse)
        # resampling a frame by a few per cent gains nothing and costs time
        return 1.0 if scale > 0.9 else scale


def _lifted(grey: Grey) -> Grey:
    """``grey`` brightened when the frame is dim (its brightest percent darker than ``_DIM``), so
    that pip contrast, which the search measures in grey levels, is as in a well-exposed frame."""
    # every fourth pixel or so tells as well as all of them, at a sixteenth of the cost
    h, w = grey.shape
    step = max(1, int(math.sqrt(grey.size / 20_000)))
    sample = cv2.resize(grey, (max(1, w // step), max(1, h // step)), interpolation=cv2.INTER_NEAREST)
    hist = cv2.calcHist([sample], [0], None, [256], [0, 256]).ravel()
    bright = int(np.searchsorted(np.cumsum(hist), 0.999 * sample.size))
    if bright >= _DIM:
        return grey
    out: Grey = np.asarray(cv2.convertScaleAbs(grey, alpha=_DIM / max(bright, _DIM / 4)), dtype=np.uint8)
    return out


#: Grey level the brightest percent of a well-exposed frame reaches at least.
_DIM = 160


def _top_faces(
    found: list[list[FaceCandidate]], symbols: list[FaceCandidate], width: int, height: int
) -> tuple[list[FaceCandidate], list[tuple[float, float]]]:
    """The top faces among the faces of every linked group and the symbol faces, and the centres
    of the side faces among them (:func:`_side_faces`)."""
    faces = [f for group in found for f in group]
    faces.extend(_away_from_pips(symbols, faces))
    faces = [f for f in faces if not (f.touches_frame_edge and len(f.pips) < 2)]
    faces = _drop_small_marks(faces)
    # a face flatter than any top face such a camera sees (about 60 degrees off square-on, with
    # the spread of a wide lens) is a side face whose top was not found, and is not read
    # which way the camera is in the image, worked out once for keeping tops and naming sides
    towards = _towards_camera(faces) if len(faces) >= 2 else None
    kept = _keep_top_faces(faces, towards)
    tops = [
        replace(f, flags=f.flags | CandidateFlag.TOP_UNSURE) if f.layout is not None and f.squareness < _FLATTEST_TOP else f
        for f in kept
    ]
    return tops, _side_faces(faces, kept, towards)


def _side_faces(faces: list[FaceCandidate], kept: list[FaceCandidate], towards: tuple[float, float] | None) -> list[tuple[float, float]]:
    """Centres of the laid-out faces :func:`_keep_top_faces` dropped beside a top face it kept, on
    the camera's side of it and not over it: side faces of that die. Only where the frame shows
    which way the camera is (``towards``, from :func:`_towards_camera`); straight from above no
    side face shows."""
    if towards is None:
        return []
    ux, uy = towards
    tops = [(k.center, _size(k)) for k in kept]
    kept_at = {k.center for k in kept}
    out: list[tuple[float, float]] = []
    for face in faces:
        if face.layout is None or face.center in kept_at:
            continue
        (cx, cy), own = face.center, _size(face)
        for (tx, ty), top in tops:
            dist = math.hypot(cx - tx, cy - ty)
            if 0.3 * (own + top) <= dist < 1.25 * max(own, top) and (cx - tx) * ux + (cy - ty) * uy > 0.5 * dist:
                out.append((cx, cy))
                break
    return out


def _shrink(halvings: list[Grey], scale: float) -> Grey:
    """The frame (``halvings[0]``) resampled by ``scale`` (at most 1): halvings by pyramid first,
    which is cheap on 12 MP and kept in ``halvings`` for the next call."""
    grey = halvings[0]
    if scale >= 1.0:
        return grey
    level = 0
    remaining = scale
    while remaining <= 0.5:
        level += 1
        remaining *= 2
        if len(halvings) <= level:
            halvings.append(np.asarray(cv2.pyrDown(halvings[-1]), dtype=np.uint8))
    out = halvings[level]
    h, w = grey.shape
    size = (max(1, int(round(w * scale))), max(1, int(round(h * scale))))
    if size != (out.shape[1], out.shape[0]):
        out = np.asarray(cv2.resize(out, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
    return out


# pip array columns
_X, _Y, _DIAM, _RATIO, _ANGLE, _CONTRAST, _LEVEL, _FILL = range(8)
# each pip's ellipse as a shape tensor (see _shape_tensor), computed once when the pip is found
_TENSOR = slice(8, 11)
_COLUMNS = 11


def _find_pips(
    grey: npt.NDArray[np.uint8],
    kernel: int,
    dark: bool,
    config: DetectorConfig,
    min_extent: int = 0,
    min_fill: float = 0.55,
) -> FloatArray:
    """Pip-like blobs as rows (x, y, diameter, ratio, angle, contrast, face level) in ``grey`` pixels."""
    shape = grey.shape
    work = _work(shape)
    filled, response, floor = work.filled, work.response, work.floor
    k = _rectangle(kernel)
    if dark:
        cv2.morphologyEx(grey, cv2.MORPH_CLOSE, k, dst=filled)
        cv2.subtract(filled, grey, dst=response)
    else:
        cv2.morphologyEx(grey, cv2.MORPH_OPEN, k, dst=filled)
        cv2.subtract(grey, filled, dst=response)
    # pips can only be where the response clears the contrast floor (set pixels are 255): the
    # passes below look only inside the box around those pixels, often a fraction of the frame
    cv2.threshold(response, config.min_contrast, 255, cv2.THRESH_BINARY, dst=floor)
    bx, by, bw_, bh_ = cv2.boundingRect(floor)
    if bw_ == 0:
        return np.zeros((0, _COLUMNS))
    # an even corner keeps connected components' 2x2 blocks where they are on the whole frame,
    # so blobs are numbered in the same order
    x0, y0, x1, y1 = bx & ~1, by & ~1, bx + bw_, by + bh_
    box = (slice(y0, y1), slice(x0, x1))
    # half of the local peak: keeps blurred neighbouring pips apart and measures each at half height;
    # the peak reaches ``reach`` pixels, so it is taken on the box grown by that much
    side = kernel // 2 | 1
    reach = side // 2
    h, w = shape
    px0, py0, px1, py1 = max(0, x0 - reach), max(0, y0 - reach), min(w, x1 + reach), min(h, y1 + reach)
    peak = work.peak[py0:py1, px0:px1]
    cv2.dilate(response[py0:py1, px0:px1], _rectangle(side), dst=peak)
    half = peak[y0 - py0 : y1 - py0, x0 - px0 : x1 - px0]
    cv2.convertScaleAbs(half, dst=half, alpha=0.5)
    # above both half the peak and the contrast floor; these cheap passes cost less than one
    # cv2.LUT of max(half peak, floor) per peak level
    mask = work.mask[box]
    cv2.compare(response[box], half, cv2.CMP_GT, dst=mask)
    cv2.bitwise_and(mask, floor[box], dst=mask)
    # 16-bit labels are half the memory traffic; they hold every blob while the mask has fewer
    # set pixels than 16 bits can count
    ltype = cv2.CV_16U if cv2.countNonZero(mask) < 65000 else cv2.CV_32S
    labels = work.labels(ltype)
    # written into the box of the frame-sized labels: blobs are looked up by frame position below
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, labels[box], connectivity=8, ltype=ltype)
    if count <= 1:
        return np.zeros((0, _COLUMNS))
    stats[:, cv2.CC_STAT_LEFT] += x0
    stats[:, cv2.CC_STAT_TOP] += y0
    left, top, bw, bh, area = stats.T  # the CC_STAT_* columns in order
    # pip-sized, and not cut by the frame border (a cut blob has no trustworthy shape)
    keep = (area >= 4) & (bw < kernel - 1) & (bh < kernel - 1) & (left > 0) & (top > 0) & (left + bw < w) & (top + bh < h)
    if min_extent > 0:
        keep &= np.maximum(bw, bh) >= min_extent
    keep[0] = False
    idx = np.flatnonzero(keep)
    if len(idx) == 0:
        return np.zeros((0, _COLUMNS))
    if len(idx) <= _FEW_BLOBS:
        moments = _blob_moments(labels, response, filled, stats, idx)
        area_k, mx_k, my_k, cxx, cyy, cxy, contrast_k, level_k = moments.T
        return _pip_rows(area_k, mx_k, my_k, cxx + 1 / 12, cyy + 1 / 12, cxy, contrast_k, level_k, config, min_fill)
    points = cv2.findNonZero(mask)
    xs, ys = points[:, 0, 0] + x0, points[:, 0, 1] + y0
    lab = labels[ys, xs].astype(np.intp)
    sel = keep[lab]
    ys, xs, lab = ys[sel].astype(np.float64), xs[sel].astype(np.float64), lab[sel]
    weights = response[ys.astype(np.intp), xs.astype(np.intp)].astype(np.float64)
    levels = filled[ys.astype(np.intp), xs.astype(np.intp)].astype(np.float64)
    n = count
    a = np.bincount(lab, minlength=n)
    a_safe = np.maximum(a, 1)
    mx = np.bincount(lab, xs, n) / a_safe
    my = np.bincount(lab, ys, n) / a_safe
    dx = xs - mx[lab]
    dy = ys - my[lab]
    cxx = np.bincount(lab, dx * dx, n) / a_safe + 1 / 12
    cyy = np.bincount(lab, dy * dy, n) / a_safe + 1 / 12
    cxy = np.bincount(lab, dx * dy, n) / a_safe
    contrast = np.bincount(lab, weights, n) / a_safe
    level = np.bincount(lab, levels, n) / a_safe
    return _pip_rows(area[idx].astype(np.float64), mx[idx], my[idx], cxx[idx], cyy[idx], cxy[idx], contrast[idx], level[idx], config, min_fill)


class _Work:
    """One thread's frame-sized work arrays for frames of one size, kept from frame to frame.

    A new frame-sized array costs a page fault per page written (the allocator hands big blocks
    back to the system when they are freed), which costs more than the passes' own arithmetic at
    640x480; reused, the memory is already mapped and warm. Pass results never point into these."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape
        self.filled, self.response, self.floor, self.peak, self.mask = (np.empty(shape, np.uint8) for _ in range(5))
        self._labels: dict[int, IntArray] = {}

    def labels(self, ltype: int) -> IntArray:
        """The labels array for connected components of type ``ltype`` (CV_16U or CV_32S)."""
        array = self._labels.get(ltype)
        if array is None:
            array = self._labels[ltype] = np.empty(self.shape, np.uint16 if ltype == cv2.CV_16U else np.int32)
        return array


_WORK = threading.local()


def _work(shape: tuple[int, ...]) -> _Work:
    """This thread's work arrays for frames of ``shape``."""
    by_shape: dict[tuple[int, ...], _Work] | None = getattr(_WORK, "by_shape", None)
    if by_shape is None:
        by_shape = _WORK.by_shape = {}
    work = by_shape.get(shape)
    if work is None:
        if len(by_shape) >= 8:
            by_shape.clear()  # frames of many sizes: keep only the ones in use now
        work = by_shape[shape] = _Work(shape)
    return work


@lru_cache(maxsize=None)
def _rectangle(side: int) -> npt.NDArray[np.uint8]:
    """The ``side`` square structuring element (made once: the passes only read it)."""
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_RECT, (side, side)), dtype=np.uint8)


#: Up to this many blobs, each is measured in a window around its bounding box: cheaper than
#: listing every mask pixel of the frame.
_FEW_BLOBS = 96


def _blob_moments(
    labels: IntArray, response: IntArray, filled: IntArray, stats: cv2.typing.MatLike, idx: IndexArray
) -> FloatArray:
    """Per blob: area, centroid, central second moments (per pixel), mean response, mean level.

    All blobs at once, each in a square window at the corner of its bounding box (blobs are
    smaller than the pip kernel), rather than an OpenCV call per blob. Sums of whole numbers are
    exact, and the divisions are done as ``cv2.moments`` and ``cv2.mean`` do them, so the
    numbers are theirs to the last bit."""
    width = labels.shape[1]
    boxes: IntArray = np.asarray(stats, dtype=np.int32)[idx, :4]
    side = int(boxes[:, 2:].max())
    dx, dy, powers, offsets = _window(side, width)
    at = (boxes[:, 1] * width + boxes[:, 0])[:, None] + offsets
    # labels outside a blob's bounding box may be left from another frame: only the box counts
    inside = labels.take(at, mode="clip") == idx[:, None]
    inside &= (dx < boxes[:, 2:3]) & (dy < boxes[:, 3:4])
    m00, m10, m01, m20, m02, m11 = (inside.astype(np.float64) @ powers).T
    contrast_sum = (response.take(at, mode="clip") * inside).sum(axis=1)
    level_sum = (filled.take(at, mode="clip") * inside).sum(axis=1)
    inverse = 1.0 / m00
    # central moments as cv2.moments forms them: mu20 = m20 - m10 * (m10 / m00), with 1 / m00 once
    mu20 = m20 - m10 * (m10 * inverse)
    mu11 = m11 - m10 * (m01 * inverse)
    mu02 = m02 - m01 * (m01 * inverse)
    out: FloatArray = np.column_stack(
        [m00, boxes[:, 0] + m10 / m00, boxes[:, 1] + m01 / m00, mu20 / m00, mu02 / m00, mu11 / m00, contrast_sum * inverse, level_sum * inverse]
    )
    return out


@lru_cache(maxsize=16)
def _window(side: int, width: int) -> tuple[IntArray, IntArray, FloatArray, IntArray]:
    """For a ``side`` square window in a frame ``width`` wide, flattened: each pixel's column and
    row, its powers 1, x, y, x^2, y^2, xy (the moments are sums of these), and its offset in the
    flattened frame."""
    dy, dx = (a.ravel() for a in np.mgrid[0:side, 0:side])
    powers = np.column_stack([np.ones(side * side), dx, dy, dx * dx, dy * dy, dx * dy]).astype(np.float64)
    return dx, dy, powers, dy * width + dx


def _pip_rows(
    area: FloatArray,
    mx: FloatArray,
    my: FloatArray,
    cxx: FloatArray,
    cyy: FloatArray,
    cxy: FloatArray,
    contrast: FloatArray,
    level: FloatArray,
    config: DetectorConfig,
    min_fill: float,
) -> FloatArray:
    """Pip rows from blob moments, keeping the blobs shaped and inked like pips."""
    tr = cxx + cyy
    disc = np.sqrt(np.maximum(((cxx - cyy) / 2) ** 2 + cxy**2, 0))
    l1 = tr / 2 + disc
    l2 = np.maximum(tr / 2 - disc, 1e-6)
    ratio = np.sqrt(l2 / l1)
    angle = 0.5 * np.arctan2(2 * cxy, cxx - cyy)
    # a filled ellipse with semi-axes a, b has second moments a^2/4, b^2/4
    ellipse_area = math.pi * 4 * np.sqrt(l1 * l2)
    fill = area / ellipse_area
    diam = 2 * np.sqrt(area / math.pi)
    good = (contrast >= config.min_pip_contrast) & (ratio >= config.min_ratio) & (fill > min_fill) & (fill < 1.35) & (diam >= 2.2)
    out: FloatArray = np.empty((int(np.count_nonzero(good)), _COLUMNS))
    for column, values in enumerate((mx, my, diam, ratio, angle, contrast, level, fill)):
        out[:, column] = values[good]
    out[:, _TENSOR] = _shape_tensor(out[:, _RATIO], out[:, _ANGLE])
    return out


def _median(values: list[float]) -> float:
    """The median as ``np.median`` computes it (the mean of the middle two for an even count),
    without its overhead on the handful of values of a face or a frame."""
    ordered = sorted(values)
    n = len(ordered)
    if n % 2:
        return float(ordered[n // 2])
    return (float(ordered[n // 2 - 1]) + float(ordered[n // 2])) / 2


def _away_from_pips(symbols: list[FaceCandidate], faces: list[FaceCandidate]) -> list[FaceCandidate]:
    """Symbol marks that are not pips seen as one blot (blurred pips of a four, a five)."""
    pips = [(p.x, p.y, f.box) for f in faces for p in f.pips]
    out = []
    for symbol in symbols:
        x, y, w, h = symbol.box
        if not any(x <= px <= x + w and y <= py <= y + h for px, py, _ in pips):
            out.append(symbol)
    return out


def _symbol_faces(
    frame: Frame, grey: Grey, kernel: int, scale: float, dark: bool, config: DetectorConfig
) -> list[FaceCandidate]:
    """Faces carrying one big mark instead of pips (a hero die's symbol): unreadable without a
    calibrated profile, but they are dice, and they claim their die so its side faces stay out.

    ``grey`` is the working copy at quarter size (two pyramid halvings), ``scale`` the working
    copy's scale."""
    scale = scale / 4
    big = int(round(kernel * 0.55)) | 1
    marks = _find_pips(grey, big, dark, config, min_extent=kernel // 4, min_fill=0.3)
    out: list[FaceCandidate] = []
    if len(marks) == 0:
        return out
    h, w = grey.shape
    # every mark at once, with the arithmetic each would get on its own
    extents = 1.15 * np.sqrt(marks[:, _DIAM] ** 2 / np.maximum(marks[:, _RATIO], 0.3))
    # a die face reaches well beyond its symbol on every side
    rings = np.concatenate([(r * extents)[:, None, None] * _RING[None, :, :] for r in (0.65, 0.8, 1.0)], axis=1)
    cols = np.rint(marks[:, None, _X] + rings[:, :, 0]).astype(np.intp)
    rows = np.rint(marks[:, None, _Y] + rings[:, :, 1]).astype(np.intp)
    within = (cols.min(axis=1) >= 0) & (rows.min(axis=1) >= 0) & (cols.max(axis=1) < w) & (rows.max(axis=1) < h)
    if not within.any():
        return out
    marks, extents = marks[within], extents[within]
    samples = grey[rows[within], cols[within]]
    n = samples.shape[1]
    # order statistics of grey levels: the same whether taken as bytes or as floats
    ordered = np.partition(samples, (n // 4, n // 2, 3 * n // 4), axis=1).astype(np.float64)
    levels = ordered[:, n // 2]
    contrasts = marks[:, _CONTRAST]
    even = (contrasts >= 60) & ~(ordered[:, 3 * n // 4] - ordered[:, n // 4] > 0.2 * contrasts)
    if dark:
        stray = samples < (levels - 0.45 * contrasts)[:, None]
    else:
        stray = samples > (levels + 0.45 * contrasts)[:, None]
    even &= ~(np.count_nonzero(stray, axis=1) / n > 0.05)
    for mark, extent in zip(marks[even], extents[even].tolist()):
        m = np.eye(2) * (0.8 * extent / FACE_HALF_SIDE)
        fit = LayoutFit(0, (float(mark[_X]), float(mark[_Y])), (m[0, 0], 0.0, 0.0, m[1, 1]), 0.0, 1.0)
        out.append(_candidate(frame, mark[None, :], fit, scale, dark, CandidateFlag.NO_LAYOUT, layout=False))
    return out


_ring_angles = np.linspace(0, 2 * math.pi, 32, endpoint=False)
#: 32 points around the unit circle, where the face around a symbol is sampled
_RING = np.column_stack([np.cos(_ring_angles), np.sin(_ring_angles)])


#: the off-diagonal term of a shape tensor counts twice in the matrix norm
_NORM_WEIGHTS = np.array([1.0, math.sqrt(2), 1.0])


def _shape_tensor(ratio: FloatArray, angle: FloatArray) -> FloatArray:
    """Each pip's ellipse as a 2x2 tensor of determinant 1, flattened to (xx, xy, yy)."""
    c, s = np.cos(angle), np.sin(angle)
    major = 1 / np.sqrt(ratio)
    minor = np.sqrt(ratio)
    xx = major * c * c + minor * s * s
    yy = major * s * s + minor * c * c
    xy = (major - minor) * c * s
    return np.column_stack([xx, xy, yy])


def _link(grey: npt.NDArray[np.uint8], pips: FloatArray, dark: bool, config: DetectorConfig) -> list[list[int]]:
    """Groups of pip indices that lie on one face."""
    n = len(pips)
    xy = pips[:, :2]
    diam = pips[:, _DIAM]
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    mean_d = (diam[:, None] + diam[None, :]) / 2
    # near pairs first, then likeness for those alone: a frame with a thousand marks (a dotted
    # cloth) would otherwise build every pair's shape difference
    ii, jj = np.nonzero(np.triu(d < config.link_distance * mean_d, k=1))
    size_ratio = np.maximum(diam[ii], diam[jj]) / np.minimum(diam[ii], diam[jj])
    tensors = pips[:, _TENSOR]
    shape_diff = np.sqrt(((tensors[ii] - tensors[jj]) ** 2).sum(-1))
    alike = (size_ratio < config.max_size_ratio) & (shape_diff < config.max_shape_difference)
    ii, jj = ii[alike], jj[alike]
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    unbroken = _surfaces_unbroken(grey, pips[ii], pips[jj], dark, config)
    for i, j in zip(ii[unbroken].tolist(), jj[unbroken].tolist()):
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[ri] = rj
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _surfaces_unbroken(
    grey: Grey, a: FloatArray, b: FloatArray, dark: bool, config: DetectorConfig
) -> npt.NDArray[np.bool_]:
    """For pairs of pips (rows of ``a`` and ``b``): whether the surface between them is one face,
    with no die edge or gap between dice on the way."""
    if len(a) == 0:
        return np.zeros(0, dtype=bool)
    h, w = grey.shape
    dist = np.maximum(np.hypot(b[:, _X] - a[:, _X], b[:, _Y] - a[:, _Y]), 1e-6)
    # pips are measured at half their depth; their blurred rims reach about one diameter out
    start = a[:, _DIAM] / dist
    stop = 1 - b[:, _DIAM] / dist
    t = start[:, None] + (stop - start)[:, None] * _LINE_STEPS[None, :]
    xs = np.clip(np.rint(a[:, None, _X] + t * (b[:, None, _X] - a[:, None, _X])).astype(np.intp), 0, w - 1)
    ys = np.clip(np.rint(a[:, None, _Y] + t * (b[:, None, _Y] - a[:, None, _Y])).astype(np.intp), 0, h - 1)
    samples = grey[ys, xs].astype(np.float64)
    allowed = np.maximum(10.0, config.max_gap_drop * np.minimum(a[:, _CONTRAST], b[:, _CONTRAST]))
    if dark:
        ok = samples.min(axis=1) >= np.minimum(a[:, _LEVEL], b[:, _LEVEL]) - allowed
    else:
        ok = samples.max(axis=1) <= np.maximum(a[:, _LEVEL], b[:, _LEVEL]) + allowed
    out: npt.NDArray[np.bool_] = ok | (stop <= start)
    return out


#: Where along the free stretch between two pips the surface is sampled (one to two pixels apart
#: for pips as far apart as one face allows).
_LINE_STEPS = np.linspace(0.0, 1.0, 28)


def _unwarp(pips: FloatArray) -> FloatArray:
    """Matrix taking pixel offsets on the pips' face to square-on coordinates in pip diameters."""
    n = len(pips)
    # sums over n, not .mean(): the same arithmetic without numpy's per-call overhead
    t = pips[:, _TENSOR].sum(axis=0) / n
    a, b, c = float(t[0]), float(t[1]), float(t[2])
    # inverse square root of the 2x2 tensor [[a, b], [b, c]] in closed form: it stretches the
    # short axis of the pips' ellipse back to round
    root_det = math.sqrt(max(a * c - b * b, 1e-9))
    norm = math.sqrt(a + c + 2 * root_det)
    sa, sb, sc = (a + root_det) / norm, b / norm, (c + root_det) / norm
    det = sa * sc - sb * sb
    diameter = float(pips[:, _DIAM].sum() / n)  # alike pips: the mean is as good as the median
    out: FloatArray = np.array([[sc, -sb], [-sb, sa]]) / (det * diameter)
    return out


def _faces_from_group(
    frame: Frame,
    grey: Grey,
    pips: FloatArray,
    group: list[int],
    scale: float,
    dark: bool,
    max_side: float = math.inf,
) -> list[FaceCandidate]:
    """The faces in one linked group of pips: the group itself when it is one face, else its
    point-symmetric subsets (every d6 layout is symmetric about the face centre), biggest first.
    No face's outline may be wider or taller than ``max_side`` working pixels."""
    if len(group) == 1 and (pips[group[0], _FILL] < 0.8 or pips[group[0], _CONTRAST] < 70):
        return []  # a lone mark too faint or ragged to be a one-pip (see _pip_layout), the commonest group
    members = pips[group]
    faces: list[FaceCandidate] = []

    def layout_within(pips: FloatArray) -> LayoutFit | None:
        fit = _pip_layout(pips)
        if fit is not None and max_side < math.inf:
            extent = np.ptp(face_outline(fit), axis=0)
            if max(float(extent[0]), float(extent[1])) > max_side:
                return None
        return fit

    whole = layout_within(members)
    if whole is not None:
        surface = _face_surface(grey, whole, members, dark)
        if surface is _Surface.PLAIN:
            return [_candidate(frame, members, whole, scale, dark, CandidateFlag.NONE)]
        if surface is _Surface.BUSY:
            return [_candidate(frame, members, None, scale, dark, CandidateFlag.NO_LAYOUT)]
    if len(members) == 1:
        return []  # a lone mark that is no face has no smaller faces in it
    if len(members) > _MOST_LINKED:
        # more alike marks on one unbroken surface than the faces of a few dice show: a dotted
        # cloth or printed pattern, not dice (and its subsets would be far too many to search)
        return []
    alive = np.arange(len(members))
    # the whole group is often one of its own symmetric subsets: its fit and surface are known
    layouts: dict[bytes, LayoutFit | None] = {alive.tobytes(): whole}
    surfaces: dict[bytes, _Surface] = {} if whole is None else {alive.tobytes(): surface}
    while len(alive):
        remaining = members[alive]
        # cheap layout fits first; the surface check only for the best few, best first
        ranked: list[tuple[int, float, IndexArray, LayoutFit]] = []
        for subset in _symmetric_subsets(remaining):
            key = alive[subset].tobytes()
            if key not in layouts:
                layouts[key] = layout_within(remaining[subset])
            fit = layouts[key]
            if fit is not None:
                ranked.append((len(subset), -fit.residual, subset, fit))
        ranked.sort(key=lambda r: (r[0], r[1]), reverse=True)
        best: tuple[IndexArray, LayoutFit] | None = None
        busy: IndexArray | None = None
        # a layout with a mark it does not explain (busy), or four or more pips on the grid
        # almost exactly whose surface cannot be confirmed (a lattice), is a face that cannot be
        # read: no smaller layout is read from its pips, though a plain one as big is preferred
        blocking: IndexArray | None = None
        for _, _, subset, fit in ranked:
            key = alive[subset].tobytes()
            if key not in surfaces:
                surfaces[key] = _face_surface(grey, fit, remaining[subset], dark)
            if blocking is not None and len(subset) < len(blocking):
                break
            if surfaces[key] is _Surface.PLAIN:
                best = (subset, fit)
                break
            if blocking is None and (
                surfaces[key] is _Surface.BUSY or (len(subset) >= 4 and fit.residual < _LATTICE_RESIDUAL)
            ):
                blocking = subset
        if best is None:
            busy = blocking
        if busy is not None:
            # a die face whose marks the layout does not explain: unreadable, never a guess
            faces.append(_candidate(frame, remaining[busy], None, scale, dark, CandidateFlag.NO_LAYOUT))
            keep = np.ones(len(remaining), dtype=bool)
            keep[busy] = False
            alive = alive[keep]
            continue
        if best is None:
            break
        subset, fit = best
        keep = np.ones(len(remaining), dtype=bool)
        keep[subset] = False
        intruders = _inside_face(fit, remaining[keep], remaining[subset])
        if intruders.any():
            # a pip like these on the same face left out of the layout (half a six read as a
            # three): the face cannot be read
            others = np.nonzero(keep)[0][intruders]
            taken = np.concatenate([subset, others])
            faces.append(_candidate(frame, remaining[taken], None, scale, dark, CandidateFlag.NO_LAYOUT))
            keep[others] = False
        else:
            faces.append(_candidate(frame, remaining[subset], fit, scale, dark, CandidateFlag.NONE))
        alive = alive[keep]
    remaining = members[alive]
    if len(remaining) >= 3 and not faces and _alike(remaining):
        faces.append(_candidate(frame, remaining, None, scale, dark, CandidateFlag.NO_LAYOUT))
    return faces


def _split(grey: Grey, pips: FloatArray, group: list[int], dark: bool, config: DetectorConfig) -> list[list[int]]:
    """``group`` as it is, or, when it links more pips than a few dice show (dice on a dotted
    cloth, whose dots link to their pips), linked again with a die face's own likeness (pips of
    one size and shape, close together); parts still too big are no dice and go."""
    if len(group) <= _MOST_LINKED:
        return [group]
    strict = replace(config, max_size_ratio=1.3, max_shape_difference=ALIKE_SHAPE * 2, link_distance=4.5)
    parts = _link(grey, pips[group], dark, strict)
    return [[group[i] for i in part] for part in parts if len(part) <= _MOST_LINKED]


#: Most pips one linked group may have to be searched for faces: the three faces of a die an
#: oblique camera sees hold at most 15, and two dice of one colour seldom link whole.
_MOST_LINKED = 36


def _symmetric_subsets(pips: FloatArray) -> list[IndexArray]:
    """Index arrays of pips symmetric about some centre: a pip or the midpoint of two pips."""
    xy = pips[:, :2]
    diam = pips[:, _DIAM]
    n = len(pips)
    ii, jj = _pairs_with_self(n)  # i == j: the centre is a pip itself
    centres = (xy[ii] + xy[jj]) / 2  # (C, 2)
    mirrors = 2 * centres[:, None, :] - xy[None, :, :]  # (C, n, 2): each pip mirrored
    gap = np.hypot(mirrors[:, :, None, 0] - xy[None, None, :, 0], mirrors[:, :, None, 1] - xy[None, None, :, 1])
    has_mirror = (gap < 0.5 * diam[None, None, :]).any(axis=2)
    radius = np.hypot(*(xy[None, :, :] - centres[:, None, :]).transpose(2, 0, 1))
    members = has_mirror & (radius < 5.0 * diam[None, :])
    counts = members.sum(axis=1)
    seen: set[bytes] = set()
    out: list[IndexArray] = []
    for row in members[(counts >= 1) & (counts <= 6)]:
        key = row.tobytes()
        if key not in seen:
            seen.add(key)
            out.append(np.nonzero(row)[0])
    return out


@lru_cache(maxsize=64)
def _pairs_with_self(n: int) -> tuple[IndexArray, IndexArray]:
    """``np.triu_indices(n)``, made once per group size (it costs more than the search it feeds)."""
    ii, jj = np.triu_indices(n)
    return ii, jj


def _pip_layout(pips: FloatArray) -> LayoutFit | None:
    """The layout of ``pips`` if they are alike and match one (the surface is not checked)."""
    if len(pips) > 6:
        return None
    if not _alike(pips):
        if len(pips) < 5 or not _alike(pips, _LATTICE_SHAPE):
            return None
        # blur or noise can bend a few pips' ellipses; five or six pips that land on the d6 grid
        # almost exactly are one face all the same (pips of two faces never make that lattice)
        fit = fit_layout(pips[:, :2], _unwarp(pips))
        return fit if fit is not None and fit.residual < _LATTICE_RESIDUAL else None
    if len(pips) == 1 and (pips[0, _FILL] < 0.8 or pips[0, _CONTRAST] < 70):
        # a lone mark needs to look more like a pip than pips among others do
        return None
    return fit_layout(pips[:, :2], _unwarp(pips), single_spacing=_single_spacing(pips))


#: How unlike in shape the pips of a five or six may be when they sit on the grid within
#: ``_LATTICE_RESIDUAL`` grid spacings (see :func:`_alike`).
_LATTICE_SHAPE = 0.3
_LATTICE_RESIDUAL = 0.05


def _inside_face(fit: LayoutFit, others: FloatArray, face_pips: FloatArray) -> npt.NDArray[np.bool_]:
    """Which of ``others`` lie on the face of ``fit`` and look like its pips."""
    if len(others) == 0:
        return np.zeros(0, dtype=bool)
    grid = (others[:, :2] - np.array(fit.center)) @ invert_2x2(fit.matrix()).T
    # only well inside: a side face's pips lie just past the top face's edge
    inside = np.abs(grid).max(axis=1) < 0.9 * FACE_HALF_SIDE
    alike = np.array([_alike(np.vstack([face_pips, o[None, :]])) for o in others])
    out: npt.NDArray[np.bool_] = inside & alike
    return out


def _alike(pips: FloatArray, shape_limit: float = ALIKE_SHAPE) -> bool:
    """Whether pips could share one face: about the same size and foreshortened the same way."""
    if len(pips) < 2:
        return True
    # a handful of values: Python's max and min cost less than numpy's
    diam = pips[:, _DIAM].tolist()
    if max(diam) > 1.3 * min(diam):
        return False
    contrast = pips[:, _CONTRAST].tolist()
    if max(contrast) > 1.6 * min(contrast):
        return False  # one ink on one face: a much fainter mark is on another surface
    tensors = pips[:, _TENSOR] * _NORM_WEIGHTS  # the off-diagonal term counts twice in the matrix norm
    spread = math.sqrt(float(((tensors - tensors.sum(axis=0) / len(tensors)) ** 2).sum(axis=1).max()))
    return spread < shape_limit


class _Surface(enum.Enum):
    PLAIN = "plain"  # an even face with nothing but the layout's pips on it
    MARKED = "marked"  # not an even face: an edge, a cable, the table
    BUSY = "busy"  # an even face with a pip-like mark where the layout has none


def _face_surface(grey: Grey, fit: LayoutFit, pips: FloatArray, dark: bool, grid: FloatArray | None = None) -> _Surface:
    """What the face around the pips looks like, sampled at ``grid`` (grid units; by default a
    little beyond the corner pips).

    Rejects dark blobs on cables, keys and edges, which have no plain face around them, and
    squares reaching over a die's edge; flags a layout that leaves a pip-like mark unexplained
    (two pips of a four whose other two were too faint to find).
    """
    m = fit.matrix()
    centre = np.array(fit.center)
    pts = (_SURFACE_GRID if grid is None else grid) @ m.T + centre
    d2 = (pts[:, None, 0] - pips[None, :, _X]) ** 2 + (pts[:, None, 1] - pips[None, :, _Y]) ** 2
    pts = pts[(d2 > (1.1 * pips[None, :, _DIAM]) ** 2).all(axis=1)]
    h, w = grey.shape
    places = np.rint(pts).astype(np.intp)
    cols, rows = places[:, 0], places[:, 1]
    # as unsigned, a place left of or above the frame wraps past its far side: one test a side
    inside = (cols.view(np.uintp) < w) & (rows.view(np.uintp) < h)
    seen = int(np.count_nonzero(inside))
    if seen == 0 or seen < 0.3 * len(pts):
        return _Surface.MARKED  # too little of it in the frame to tell a die face from anything else
    if seen < len(pts):
        rows, cols = rows[inside], cols[inside]
    samples = grey[rows, cols]
    n = len(samples)
    low, half, high = int(0.25 * n), n // 2, int(0.75 * n)
    # order statistics of grey levels: the same whether taken as bytes or as floats
    ordered = np.partition(samples, (low, half, high))
    level = float(ordered[half])
    count = len(pips)
    contrast_sum, level_sum = pips[:, _CONTRAST : _LEVEL + 1].sum(axis=0).tolist()
    contrast = contrast_sum / count
    if abs(level - level_sum / count) > 0.5 * contrast:
        return _Surface.MARKED
    if float(ordered[high]) - float(ordered[low]) > 0.22 * contrast:
        # a face is one even surface; a square reaching over a die's edge onto a side face or the
        # table is not (this splits a one-pip top from a side pip that would make a "two")
        if grid is None and fit.value >= 4 and fit.residual < _LATTICE_RESIDUAL:
            # four to six pips on the grid almost exactly are a face whose edge may come close
            # to its corner pips (big pips on a small die): judged on the surface between them
            return _face_surface(grey, fit, pips, dark, _INNER_SURFACE_GRID)
        return _Surface.MARKED
    if dark:
        marks = int(np.count_nonzero(samples < level - 0.45 * contrast))
    else:
        marks = int(np.count_nonzero(samples > level + 0.45 * contrast))
    if marks > 0.05 * n:
        return _Surface.MARKED
    if fit.value >= 2:
        # the grid places no pip of the layout took
        on_grid = (pips[:, :2] - centre) @ invert_2x2(m).T
        taken = ((_GRID[:, None, :] - on_grid[None, :, :]) ** 2).sum(axis=2).min(axis=1) < 0.25
        empty = _GRID[~taken] @ m.T + centre
        radius = 0.25 * float(pips[:, _DIAM].sum() / count)
        spots = (empty[:, None, :] + radius * _SPOT[None, :, :]).reshape(-1, 2)
        at = np.minimum(np.maximum(np.rint(spots).astype(np.intp), 0), (w - 1, h - 1))
        # sums of five grey levels are whole numbers: exact in any order and type
        means = grey[at[:, 1], at[:, 0]].reshape(len(empty), len(_SPOT)).sum(axis=1) / len(_SPOT)
        depth = (level - means) if dark else (means - level)
        if depth.max() > 0.35 * contrast:
            return _Surface.BUSY
    return _Surface.PLAIN


_GRID = np.array([(x, y) for y in (-1.0, 0.0, 1.0) for x in (-1.0, 0.0, 1.0)])
_SPOT = np.array([(0.0, 0.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)])


_g = np.linspace(-1.45, 1.45, 11)
_SURFACE_GRID = np.array([(x, y) for y in _g for x in _g])
_INNER_SURFACE_GRID = _SURFACE_GRID[np.abs(_SURFACE_GRID).max(axis=1) <= 1.2]


def _single_spacing(pips: FloatArray) -> float:
    # a lone pip is usually the big one-pip: its face is about four and a half diameters wide
    return 2.2 / FACE_HALF_SIDE


def _candidate(
    frame: Frame,
    pips: FloatArray,
    fit: LayoutFit | None,
    scale: float,
    dark: bool,
    flags: CandidateFlag,
    layout: bool = True,
) -> FaceCandidate:
    # a camera-sized frame is searched as it is (scale 1): its pips and fit need no rescaling
    if scale == 1.0:
        full = pips
    else:
        full = pips.copy()
        full[:, [_X, _Y, _DIAM]] /= scale
    if fit is None:
        fit_full = _square_around(full)
    elif scale == 1.0:
        fit_full = fit
    else:
        m = fit.matrix() / scale
        c = np.array(fit.center) / scale
        fit_full = LayoutFit(fit.value, (float(c[0]), float(c[1])), (m[0, 0], m[0, 1], m[1, 0], m[1, 1]), fit.spacing, fit.residual)
    quad = face_outline(fit_full)
    corners_xy = quad.tolist()
    h, w = frame.shape[:2]
    xs = [x for x, _ in corners_xy]
    ys = [y for _, y in corners_xy]
    x0, y0 = math.floor(min(xs)), math.floor(min(ys))
    x1, y1 = math.ceil(max(xs)), math.ceil(max(ys))
    if fit is not None and layout and fit.value >= 2:
        # every place of the 3x3 grid lies within its corners: when each corner has room for a
        # whole pip inside the frame, no pip can be missing, though the face's rim may be cut
        corners = face_outline(fit_full, half_side=1.0).tolist()
        margin = float(full[:, _DIAM].max())
        cut = any(x < margin or y < margin or x > w - 1 - margin or y > h - 1 - margin for x, y in corners)
    else:
        cut = bool(x0 < 1 or y0 < 1 or x1 > w - 2 or y1 > h - 2)
    if cut:
        flags |= CandidateFlag.TOUCHES_FRAME_EDGE
    bx0, by0 = max(0, int(x0)), max(0, int(y0))
    bx1, by1 = min(w, int(x1)), min(h, int(y1))
    # most faces found are side faces or marks that go before the end: a face whose frame can be
    # worked out again from what it keeps is cropped only if it stays (see _with_crop)
    crop = _rectify(frame, fit_full) if fit is not None and not layout else _PENDING_CROP
    contrast = _median(full[:, _CONTRAST].tolist())
    quality = min(max(1.0 - fit_full.residual / 0.4, 0.0), 1.0) * min(max(contrast / 60.0, 0.0), 1.0)
    # the pip columns x, y, diameter, ratio, angle, contrast are the first six, in Pip's order
    pip_objs = tuple(Pip(x, y, d, r, a, c, dark) for x, y, d, r, a, c in full[:, :_LEVEL].tolist())
    return FaceCandidate(
        box=(bx0, by0, max(1, bx1 - bx0), max(1, by1 - by0)),
        quad=tuple((x, y) for x, y in corners_xy),
        crop=crop,
        pips=pip_objs,
        layout=fit_full if fit is not None and layout else None,
        flags=flags,
        quality=quality if fit is not None and layout else 0.0,
    )


def _square_around(full: FloatArray) -> LayoutFit:
    """No frame from a layout: outline the pips (frame pixels) with a square around their spread."""
    center = full[:, :2].mean(axis=0)
    spread = float(np.max(np.abs(full[:, :2] - center))) + full[:, _DIAM].max()
    m = np.eye(2) * max(spread / FACE_HALF_SIDE, full[:, _DIAM].max())
    return LayoutFit(0, (float(center[0]), float(center[1])), (m[0, 0], 0.0, 0.0, m[1, 1]), 0.0, 1.0)


#: Stand-in crop of a face until it is known to stay.
_PENDING_CROP: Frame = np.zeros((CROP_SIZE, CROP_SIZE, 3), dtype=np.uint8)
_PENDING_CROP.flags.writeable = False


def _with_crop(frame: Frame, face: FaceCandidate) -> FaceCandidate:
    """``face`` with its rectified crop: from its layout, or the square around its pips."""
    if face.crop is not _PENDING_CROP:
        return face
    if face.layout is not None:
        fit = face.layout
    else:
        # the same array layout and values as in _candidate, so the same square to the last bit
        full = np.zeros((len(face.pips), _COLUMNS))
        full[:, _X] = [p.x for p in face.pips]
        full[:, _Y] = [p.y for p in face.pips]
        full[:, _DIAM] = [p.diameter for p in face.pips]
        fit = _square_around(full)
    return replace(face, crop=_rectify(frame, fit))


def _rectify(frame: Frame, fit: LayoutFit) -> Frame:
    """The face seen square-on, ``CROP_SIZE`` pixels wide, corner pips at a fixed place."""
    m = fit.matrix()
    h = FACE_HALF_SIDE
    step = 2 * h / (CROP_SIZE - 1)
    affine = np.zeros((2, 3))
    affine[:, :2] = m * step
    affine[:, 2] = np.array(fit.center) - m @ np.array([h, h])
    crop = cv2.warpAffine(
        frame, affine, (CROP_SIZE, CROP_SIZE), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )
    out: Frame = np.asarray(crop, dtype=np.uint8)
    return out


def _drop_small_marks(faces: list[FaceCandidate]) -> list[FaceCandidate]:
    """Drops faces whose marks are much smaller than the frame's pips.

    Dice in one tray are about one distance from the camera, so their pips are about one size;
    the strongest marks in the frame set that size (weighted by contrast, which is highest on
    dice), and print on keys or labels, smaller and fainter, falls below it.
    """
    if len(faces) < 2:
        return faces
    every = [p for f in faces for p in f.pips]
    diameters = np.array([p.diameter for p in every])
    contrasts = [p.contrast for p in every]
    weights = np.array(contrasts) ** 2
    order = np.argsort(diameters)
    cumulative = np.cumsum(weights[order])
    reference = float(diameters[order][np.searchsorted(cumulative, cumulative[-1] / 2)])
    strongest = _percentile(contrasts, 0.75, as_numpy=True)
    return [
        f
        for f in faces
        if _median([p.diameter for p in f.pips]) >= 0.6 * reference
        # a one-pip is at least as big as the pips of other faces, and as dark (or light)
        and (len(f.pips) > 1 or (f.pips[0].contrast >= 0.6 * strongest and f.pips[0].diameter >= 0.8 * reference))
    ]


def _keep_top_faces(faces: list[FaceCandidate], known: tuple[float, float] | None) -> list[FaceCandidate]:
    """Drops side faces and duplicates; ``known`` is which way the camera is in the image
    (:func:`_towards_camera`), if the frame tells.

    Faces close enough to be two faces of one die but foreshortened differently are a top face
    and a side face: the one seen more square-on is the top. Faces foreshortened alike are the tops
    of neighbouring dice and both stay, unless they overlap (one face found twice).
    """
    if len(faces) < 2:
        return faces

    # the squarest first (laid-out faces a little ahead): they claim their die before the others do
    order = sorted(faces, key=lambda f: (-(f.squareness + (0.1 if f.layout is not None else 0.0)), -len(f.pips)))
    # side faces show on the camera's side of their top faces
    ux, uy = known if known is not None else (0.0, 1.0)
    kept: list[FaceCandidate] = []
    # centre and size of each kept face, worked out once: a face replaced below keeps its outline
    places: list[tuple[float, float, float]] = []
    for face in order:
        cx, cy = face.center
        own = _size(face)
        t = face._pip_tensor
        drop = False
        # the nearest kept face first: a side face is judged against its own die's top face, not
        # against a neighbour's that happens to have been kept earlier
        nearest = sorted(range(len(kept)), key=lambda i: math.hypot(cx - places[i][0], cy - places[i][1]))
        for index in nearest:
            other = kept[index]
            ox, oy, other_size = places[index]
            dist = math.hypot(cx - ox, cy - oy)
            reach = 0.5 * (own + other_size)
            largest = max(own, other_size)
            # a side face is small and squashed: measure its reach by the top face's size
            if dist < 0.6 * reach:
                drop = True
                break
            # foreshortened differently (compared only when near enough to matter)
            if dist < 1.25 * largest and (
                float(np.sqrt(((t - other._pip_tensor) ** 2).sum())) > 0.15
                or other.squareness - face.squareness > 0.12
            ):
                if face.layout is not None and (ox - cx) * ux + (oy - cy) * uy > 0.5 * dist and other.squareness - face.squareness < 0.2:
                    # the squarer face is nearer the camera than a face of its own die that is
                    # nearly as square: a top face is never on the camera's side of its side
                    # faces, so in a view steeper than 45 degrees, where the front face looks the
                    # squarer, the far one is the top; with no side faces to tell where the camera
                    # is, the die is not read
                    if known is not None:
                        kept[index] = face
                        places[index] = (cx, cy, own)
                    else:
                        kept[index] = replace(other, flags=other.flags | CandidateFlag.TOP_UNSURE)
                drop = True
                break
            along = (cx - ox) * ux + (cy - oy) * uy
            if dist < 1.1 * largest and abs(along) > 0.5 * dist and min(face.squareness, other.squareness) < _FRONT_AS_SQUARE:
                # near 45 degrees the front face looks as square as the top; of two faces in line
                # with the camera, the far one is the top face (a camera over a tray usually
                # looks towards the top of its image, which is taken when nothing tells). Two
                # faces both squarer than that are the tops of two dice side by side
                if along < 0:
                    kept[index] = face
                    places[index] = (cx, cy, own)
                drop = True
                break
        if not drop:
            kept.append(face)
            places.append((cx, cy, own))
    return _judge_size(_judge_tilt(kept))


#: A top face seen at view angle a has squareness cos(a) and its front face sin(a): the two look
#: alike only near 45 degrees, where neither is squarer than about this.
_FRONT_AS_SQUARE = 0.82


def _towards_camera(faces: list[FaceCandidate]) -> tuple[float, float] | None:
    """The direction in the image from top faces towards the side faces the camera also sees, as a
    unit vector, or ``None`` when the frame does not tell.

    An oblique camera foreshortens the top faces along the line towards it: the short axis of
    their pips' ellipses gives that line. Which way along it the camera is: where pips grow bigger
    (nearer), or, when the dice are too few or too close for that, from clear pairs, two laid-out
    faces close enough to be one die's and one far squarer than the other: the squarer is the top
    face, and the side faces show on the camera's side.
    """
    laid_out = [f for f in faces if f.layout is not None and f.pips]
    if not laid_out:
        return None
    squarest = max(f.squareness for f in laid_out)
    tops = [f for f in laid_out if f.squareness >= squarest - 0.15]
    t = np.mean([f._pip_tensor for f in tops], axis=0)
    xx, xy, yy = float(t[0]), float(t[1]), float(t[2])
    spread = math.hypot((xx - yy) / 2, xy)
    if spread < 0.05 * (xx + yy) / 2:
        return None  # hardly foreshortened: a camera nearly straight above has no side to tell
    major = 0.5 * math.atan2(2 * xy, xx - yy)
    ax, ay = -math.sin(major), math.cos(major)  # the short axis
    # nearer dice look bigger: pips grow towards the camera along that line (top faces only, as
    # a side face's pips look smaller for being foreshortened)
    along = [f.center[0] * ax + f.center[1] * ay for f in tops]
    pip = [_median([p.diameter for p in f.pips]) for f in tops]
    n = len(tops)
    if n >= 3:
        # least-squares slope and correlation of pip size on place, in closed form (a handful of
        # values: numpy's fitting costs more than the sums)
        ma, mp = sum(along) / n, sum(pip) / n
        saa = sum((a - ma) ** 2 for a in along)
        spp = sum((q - mp) ** 2 for q in pip)
        sap = sum((a - ma) * (q - mp) for a, q in zip(along, pip))
        if saa > 0 and spp > 0:
            slope = sap / saa
            r = sap / math.sqrt(saa * spp)
            if abs(r) > 0.5 and abs(slope) * (max(along) - min(along)) > 0.1 * mp:
                return (ax, ay) if slope > 0 else (-ax, -ay)
    lean = 0.0
    pairs = 0
    for index, a in enumerate(laid_out):
        cx, cy = a.center
        for b in laid_out[index + 1 :]:
            bx, by = b.center
            dist = math.hypot(bx - cx, by - cy)
            if dist == 0.0 or dist > 1.25 * max(_size(a), _size(b)) or abs(a.squareness - b.squareness) < 0.15:
                continue
            sign = 1.0 if a.squareness > b.squareness else -1.0
            lean += sign * ((bx - cx) * ax + (by - cy) * ay) / dist
            pairs += 1
    if pairs == 0 or abs(lean) < 0.3 * pairs:
        return None
    return (ax, ay) if lean > 0 else (-ax, -ay)


#: How many times the median face size of a frame a face may be before it is taken to span two faces.
_OVERSIZED = 1.6
#: The largest face, in the same measure, when the pips of an oversized face are grouped again.
_REGROUPED = 1.4


def _size(face: FaceCandidate) -> float:
    return float(max(face.box[2], face.box[3]))


def _judge_size(faces: list[FaceCandidate]) -> list[FaceCandidate]:
    """Flags laid-out faces far bigger than the other faces in view.

    Dice in one tray are about one distance from the camera, so their faces are about one size; a
    layout spanning much more than that has taken pips from two faces of one die (in a steep view,
    the one-pip of the top face and a pip of the front face make a "two").
    """
    if len(faces) < 2:
        return faces
    sizes = [_size(f) for f in faces]
    out = []
    for index, face in enumerate(faces):
        others = sizes[:index] + sizes[index + 1 :]
        if len(face.pips) >= 2 and face.layout is not None and sizes[index] > _OVERSIZED * _median(others):
            face = replace(face, flags=face.flags | CandidateFlag.OVERSIZED)
        out.append(face)
    return out


#: Squareness (pip minor/major axis) below which a face cannot be a top face seen from a camera
#: within about 45 degrees of straight down, even at the edge of a wide lens's view.
_FLATTEST_TOP = 0.45


def _judge_tilt(faces: list[FaceCandidate]) -> list[FaceCandidate]:
    """Compares each face's foreshortening with the frame's top faces.

    With the camera no more than about 45 degrees off vertical, the top faces are the squarest
    faces in view, and dice lying flat are foreshortened about alike (a little less towards the
    camera). A lone mark or markless group much more foreshortened than the squarest faces is a
    side face or a stray mark and goes; a laid-out face of several pips that far off is cocked.
    """
    laid_out = [f.squareness for f in faces if f.layout is not None]
    if len(laid_out) < 2:
        return faces
    reference = _percentile(laid_out, 0.8)
    tops = [f for f in faces if f.layout is not None and f.pips]
    tensors = {id(f): _face_tensor(f) for f in tops}
    median = np.array([_median([float(t[k]) for t in tensors.values()]) for k in range(3)])
    out: list[FaceCandidate] = []
    for face in faces:
        several = face.layout is not None and len(face.pips) >= 2
        if several and (face.squareness < reference - 0.3 or _leans(face, tops, tensors, median)):
            out.append(replace(face, flags=face.flags | CandidateFlag.TILTED))
        elif several or face.squareness >= reference - 0.2:
            out.append(face)
    return out


def _percentile(values: list[float], q: float, *, as_numpy: bool = False) -> float:
    """The ``q`` quantile, linear between the nearest two values, without numpy's overhead on the
    handful of values of a frame. With ``as_numpy`` it is ``np.percentile``'s to the last bit
    (numpy works back from the upper value past halfway); without, the lower value's way, which
    the tilt judgement was tuned with."""
    ordered = sorted(values)
    at = (len(ordered) - 1) * q
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    a, b = float(ordered[low]), float(ordered[high])
    t = at - low
    if as_numpy and t >= 0.5:
        return b - (b - a) * (1 - t)
    return a + (b - a) * t


def _leans(face: FaceCandidate, tops: list[FaceCandidate], tensors: dict[int, FloatArray], median: FloatArray) -> bool:
    """Whether ``face`` is tilted unlike the top faces of the dice it lies among: a die cocked on
    a neighbour. Neighbouring dice lying flat are seen from about one direction, so their faces
    are foreshortened alike; one far off both its nearest neighbour and the frame's median leans."""
    own = tensors.get(id(face))
    if own is None:
        return False
    size = _size(face)
    centre = face.center
    near = [
        (dist, other)
        for other in tops
        if other is not face and (dist := math.dist(centre, other.center)) < 1.6 * max(size, _size(other))
    ]
    if not near:
        return False
    nearest = min(near, key=lambda pair: pair[0])[1]
    off_neighbour = float(np.sqrt(((own - tensors[id(nearest)]) ** 2).sum()))
    off_frame = float(np.sqrt(((own - median) ** 2).sum()))
    return off_neighbour > _LEAN and off_frame > _LEAN


#: How far (matrix norm of the pips' shape tensors) a face's foreshortening may be from its
#: neighbours' before its die is taken to lean; flat neighbours on real photos stay under 0.13.
_LEAN = 0.2


def _face_tensor(face: FaceCandidate) -> FloatArray:
    t = face._pip_tensor
    out: FloatArray = np.array([t[0], t[1] * math.sqrt(2), t[2]])
    return out