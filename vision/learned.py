"""The learned dice reader: a small detector finds every die, a small face network reads each one.

Both networks ship in the package as ONNX files (``vision/models/``, see ``docs/model-card.md``)
and run with ONNX Runtime on one thread. PyTorch is needed only to train them
(:mod:`vision.training`).

How a frame is read:

1. The frame is scaled so that its longer side is :data:`WORK_SIZE` pixels and the detector marks
   each die's top-face centre and size. Where the dice come out very small at that scale (a 12 MP
   photo of a whole table) or very big (a close-up), the frame is scaled again so that they measure
   about :data:`TARGET_DIE_PX` and read a second time, so small and big dice are found alike. A
   coarse look finds dice too big for the working scale, whose pips would otherwise pass for dice:
   one the face network reads as a pip face replaces what was found on it.
2. Each die is cut out of the full-resolution frame as a square crop of the model's
   :attr:`LearnedModel.crop_size` (:meth:`LearnedModel.crops`) and the face network says what it is
   (:data:`CLASSES`): not a die, pips 1-6, a die whose face is not pips, a cocked die, a die cut by
   the frame. Its softmax is tempered on held-apart photos so that the stated confidence is the
   fraction of such dice read right. A die it is unsure of is read again in four turns and
   mirrors of its crop (:meth:`LearnedReader.look`); a small one is also looked at closer, where
   two touching dice found as one come apart (:meth:`LearnedReader.look_closer`).
3. A die is ``ok`` only when its most likely class is a pip count at :attr:`LearnedReader.min_confidence`
   (the model's own, chosen on held-apart photos) or more; otherwise it is ``unreadable`` (with the reason), ``cocked`` or ``occluded``, never a guess.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionError
from vision.imageio import Frame, check_frame
from vision.types import DieReading, DieStatus, FrameReading

#: What the face network tells apart: not a die, pips 1-6, a die whose face is not pips (artwork,
#: a numeral, or too blurred to read), a cocked die, a die cut by the frame or under a hand.
CLASSES: tuple[str, ...] = ("none", "1", "2", "3", "4", "5", "6", "other", "cocked", "cut")
#: The detector sees every frame scaled so that its longer side is this many pixels.
WORK_SIZE = 320
#: The detector's output cells are this many working pixels apart.
STRIDE = 4
#: Side of the square crop the face network reads (for a model whose ``model.json`` does not say),
#: and how much of a die's size around its centre it shows.
CROP_SIZE = 40
CROP_CONTEXT = 1.4
#: Die size (working pixels) a frame is scaled to when its dice come out too small or too big.
TARGET_DIE_PX = 24.0
SMALL_DIE_PX = 11.0
BIG_DIE_PX = 64.0
#: In a frame of more than twice the working size, dice smaller than this (working pixels) are
#: looked at again at :data:`TARGET_DIE_PX`: at 13 px, a 12 MP tray's touching dice come out as
#: one find too big for either (its pixels allow a finer look without making any up).
FINE_DIE_PX = 18.0
#: How many times a frame is read again at a finer scale, each from the dice's size measured at
#: the scale before (the first look measures dice under about ten working pixels too big).
FINER_LOOKS = 2
#: A die found under :data:`CLOSER_BELOW_PX` working pixels whose likeliest class is one of
#: :data:`CLOSER_CLASSES`, not read surely, is looked at again closer
#: (:meth:`LearnedReader.look_closer`): the detector reads a patch of :data:`CLOSER_SPAN` times its
#: size around it, scaled so that it measures :data:`CLOSER_DIE_PX`, and keeps what it finds within
#: :data:`CLOSER_REACH` of its size from its centre. A die found so is read ``ok`` only at
#: :data:`CLOSER_MIN_CONFIDENCE`: at the model's own 0.9, on the val and train photos of
#: byler-d6-train under seven camera shifts, the dice it added were read right only 8 times in 9
#: (low-contrast dice: dark red pips on smoky bodies); at 0.99, 40 more right and one fewer wrong.
CLOSER_BELOW_PX = 26.0
CLOSER_DIE_PX = 32.0
CLOSER_SPAN = 4.0
CLOSER_REACH = 0.75
CLOSER_MIN_CONFIDENCE = 0.99
CLOSER_CLASSES = frozenset({"1", "2", "3", "4", "5", "6", "other", "cocked"})
#: The scale of the coarse look for dice too big for the working scale, relative to it.
COARSE = 0.35
#: A big die read this surely is a die, whatever the dice found on it read (its pips, two of them).
BIG_DIE_SURE = 0.99
#: The longest side the detector is ever given (a 12 MP frame of tiny dice is read at this size).
MAX_WORK_SIDE = 1600
#: A find the face network reads as no pip face (another face, a cocked die, a cut one) stands
#: only where the detector scores it at least this: the keys of a laptop beside the dice are found
#: at 0.3-0.46 and read as "another face". Rendered hero dice score 0.5 or more 19 times in 20;
#: cut and cocked dice score less more often (a fifth of them), and are reported about as often
#: as by the detector before this one, which found less.
NOT_PIPS_MIN_SCORE = 0.5

#: The confidence a pip count needs for a model whose ``model.json`` does not say.
DEFAULT_MIN_CONFIDENCE = 0.8

#: The files of a model folder.
DETECTOR_FILE = "dice-detector.onnx"
FACES_FILE = "dice-faces.onnx"
#: The face networks beside the first (the same recipe from other seeds, each on its own crop),
#: consulted on the dice the first is unsure of; a model folder may have none. The first of them
#: is in this file, the next in ``dice-faces-3.onnx`` and so on (:func:`second_faces_file`).
SECOND_FACES_FILE = "dice-faces-2.onnx"
#: Face networks read with the first on every crop it reads, their scores and its averaged (the
#: first look); ``model.json`` lists them as ``first_look``. The first of them is in this file,
#: the next in ``dice-faces-1c.onnx`` and so on (:func:`first_look_file`).
FIRST_LOOK_FILE = "dice-faces-1b.onnx"
METADATA_FILE = "model.json"
#: Where the shipped model lives.
MODEL_DIR = Path(__file__).resolve().parent / "models"

F32 = npt.NDArray[np.float32]


class ModelError(VisionError, ValueError):
    """A model folder is missing a file, or a file is not the model it should be; names the file."""


def second_faces_file(index: int) -> str:
    """The file of the ``index``-th face network beside the first (0: :data:`SECOND_FACES_FILE`)."""
    return f"dice-faces-{index + 2}.onnx"


def first_look_file(index: int) -> str:
    """The file of the ``index``-th face network of the first look (0: :data:`FIRST_LOOK_FILE`)."""
    return f"dice-faces-1{chr(ord('b') + index)}.onnx"


def second_faces_records(metadata: dict[str, Any], key: str = "second_faces") -> list[Any]:
    """``model.json``'s records of the face networks beside the first (one record alone, or a
    list), each naming its file (by default :func:`second_faces_file` of its place); with ``key``
    ``"first_look"``, those of the first look (:func:`first_look_file`)."""
    records = metadata.get(key)
    listed = [] if records is None else records if isinstance(records, list) else [records]
    named = first_look_file if key == "first_look" else second_faces_file
    return [{"file": named(i), **r} if isinstance(r, dict) else r for i, r in enumerate(listed)]


@dataclass(frozen=True)
class SecondFaces:
    """A face network beside the first, as ``model.json``'s ``second_faces`` records it: its file,
    its own temperature, and its crop (side in pixels, and how much of the die's size it shows)."""

    file: str
    temperature: float
    crop_size: int
    crop_context: float

    @classmethod
    def from_record(cls, record: Any, crop_size: int, where: str, key: str = "second_faces") -> SecondFaces:
        """The network ``record`` (from :func:`second_faces_records`; listed under ``key``)
        describes; its crop defaults to the first network's ``crop_size``.

        :raises ModelError: the record is malformed; names ``where`` it is.
        """
        if not isinstance(record, dict) or not isinstance(record.get("temperature"), (int, float)) or not 0.05 <= record["temperature"] <= 20:
            raise ModelError(f"{where}: {key} {record!r} needs a temperature from 0.05 to 20")
        size, context = record.get("crop_size", crop_size), record.get("crop_context", CROP_CONTEXT)
        if not isinstance(size, int) or not 16 <= size <= 128 or not isinstance(context, (int, float)) or not 0.8 <= context <= 2.0:
            raise ModelError(f"{where}: {key} {record!r} needs a crop_size of 16 to 128 px and a crop_context of 0.8 to 2")
        file = record["file"]
        if not isinstance(file, str) or Path(file).name != file or not file.endswith(".onnx"):
            raise ModelError(f"{where}: {key} {record!r} names a file {file!r} that is not an .onnx file of the model folder")
        return cls(file, float(record["temperature"]), size, float(context))


def crop_transform(
    cx: float, cy: float, side: float, angle: float = 0.0, size: int = CROP_SIZE, context: float = CROP_CONTEXT
) -> npt.NDArray[np.float64]:
    """The affine map from a frame to the face network's ``size`` px square crop of a die at
    (cx, cy) of ``side`` px, showing ``context`` times its size."""
    span = max(side, 2.0) * context
    m: Any = cv2.getRotationMatrix2D((float(cx), float(cy)), angle, size / span)
    m[0, 2] += size / 2 - cx
    m[1, 2] += size / 2 - cy
    transform: npt.NDArray[np.float64] = m
    return transform


#: A region is averaged by area down to twice the crop only where that shrinks it by more than a
#: quarter: by less, each averaged pixel spans hardly more than one of the region's, and OpenCV's
#: area average by a factor that is no whole number costs several times the warp (a 640x480
#: frame's dice of 55-70 px: about 70 us a die). The warp then samples the region at 0.4-0.5 of
#: its pixels, not 0.5. Every photo of real-d6 and byler-d6-train (the val and held-out ones also
#: under the 12mp and wide camera shifts: 935 readings) reads the same dice as the same faces
#: with the same statuses; stated confidences moved by 0.035 at most.
AREA_STEP_BELOW = 0.8


def cut_crop(image: Frame, transform: npt.NDArray[np.float64], size: int = CROP_SIZE) -> Frame:
    """The ``size`` px square crop, black where it falls outside the frame; a region much bigger
    than the crop is shrunk by area first, so that a big die's pips are not lost between samples."""
    scale = math.hypot(float(transform[0, 0]), float(transform[0, 1]))
    if scale < 0.5:
        # Cut the die's neighbourhood out, shrink it by area to twice the crop, then warp that.
        inv = cv2.invertAffineTransform(transform)
        corners = inv @ np.array([[0, 0, 1], [size, 0, 1], [0, size, 1], [size, size, 1]], np.float64).T
        x0, y0 = np.floor(corners.min(axis=1)).astype(int)
        x1, y1 = np.ceil(corners.max(axis=1)).astype(int)
        h, w = image.shape[:2]
        region: Any = image[max(y0, 0) : min(y1, h), max(x0, 0) : min(x1, w)]
        if region.size:
            pads = (max(-y0, 0), max(y1 - h, 0), max(-x0, 0), max(x1 - w, 0))
            if any(pads):
                region = cv2.copyMakeBorder(region, *pads, cv2.BORDER_CONSTANT, value=(0, 0, 0))
            # exact halves first while the region is over four times what it is shrunk to:
            # OpenCV averages halves several times faster than any other factor (a 12 MP
            # photo's 30 crops); the rest by area in one step, as smaller regions ever were
            small = region
            shrink = 1.0
            while scale / shrink < 0.125:
                small = cv2.resize(small, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
                shrink *= 0.5
            rest = 2 * scale / shrink
            if rest < AREA_STEP_BELOW:
                small = cv2.resize(small, None, fx=rest, fy=rest, interpolation=cv2.INTER_AREA)
                shrink *= rest
            t = transform.copy()
            t[:, 2] = transform[:, 2] + transform[:, :2] @ np.array([x0, y0], np.float64)
            t[:, :2] /= shrink
            crop: Any = cv2.warpAffine(small, t, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
            cropped: Frame = crop
            return cropped
    out: Any = cv2.warpAffine(image, transform, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    warped: Frame = out
    return warped


def crop_at(
    image: Frame, cx: float, cy: float, side: float, angle: float = 0.0, size: int = CROP_SIZE, context: float = CROP_CONTEXT
) -> Frame:
    """The face network's ``size`` px square crop of a die at (cx, cy) of ``side`` px, turned by
    ``angle``, showing ``context`` times the die's size."""
    return cut_crop(image, crop_transform(cx, cy, side, angle, size, context), size)


def _cut(frame: Frame, dice: Sequence[FoundDie], size: int, context: float) -> F32:
    """A face network's input for ``dice`` of ``frame``: ``size`` px crops showing ``context`` times each die."""
    return to_input(np.stack([crop_at(frame, d.cx, d.cy, d.size, size=size, context=context) for d in dice]))


def to_input(image: Frame) -> F32:
    """BGR uint8 H x W x 3 -> 3 x H x W float32 in 0-1, as both networks take it; a stack of them
    (N x H x W x 3 -> N x 3 x H x W) at once, which for a tray's crops costs a tenth of one by one."""
    chw: F32 = np.ascontiguousarray(np.moveaxis(image, -1, -3), dtype=np.float32) / np.float32(255.0)
    return chw


#: The top face is this share of the whole die the detector sizes (as :attr:`FoundDie.box`).
TOP_FACE = 0.82


@dataclass(frozen=True)
class FoundDie:
    """One die the detector found: top-face centre and whole-die size in frame pixels, the
    detector's score (0-1), the scale of the look that found it (working pixels per frame
    pixel; 0 for a die placed by other means), and whether that was a closer look around a die
    read unsure (:meth:`LearnedReader.look_closer`)."""

    cx: float
    cy: float
    size: float
    score: float
    found_at: float = 0.0
    closer: bool = False

    @property
    def box(self) -> tuple[int, int, int, int]:
        """x, y, w, h of the top face (about four fifths of the whole die seen from above)."""
        side = self.size * TOP_FACE
        return (int(round(self.cx - side / 2)), int(round(self.cy - side / 2)), int(round(side)), int(round(side)))


#: What a face network's twin with signed 8-bit weights adds to its file name (``dice-faces.onnx``:
#: ``dice-faces.s8.onnx``): the same numbers (each weight and zero point ``w - 128``), which CPUs
#: with VNNI multiply two to three times faster than the unsigned form every CPU computes exactly.
SIGNED_TWIN_SUFFIX = ".s8.onnx"


def signed_twin(path: Path) -> Path:
    """Where the twin of the 8-bit network in ``path`` with signed weights lies (:data:`SIGNED_TWIN_SUFFIX`)."""
    return path.with_name(path.name.removesuffix(".onnx") + SIGNED_TWIN_SUFFIX)


def multiplies_signed_bytes_exactly(machine: str | None = None, cpuinfo: str | None = None) -> bool:
    """Whether ONNX Runtime on this CPU multiplies unsigned activations by signed 8-bit weights
    exactly: x86 with VNNI adds the products in 32 bits, where x86 with AVX2 alone adds pairs of
    them into 16 bits that saturate. Elsewhere (the Raspberry Pi's ARM cores) the unsigned form
    is kept: the signed one has not been measured there. ``machine`` and ``cpuinfo`` stand for
    :func:`platform.machine` and ``/proc/cpuinfo``."""
    machine = platform.machine() if machine is None else machine
    if machine.lower() not in ("x86_64", "amd64"):
        return False
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
    return re.search(r"\b(avx512_vnni|avx_vnni)\b", cpuinfo) is not None


#: The twin's metadata key naming the SHA-256 of the network file it is the twin of.
TWIN_OF_KEY = "signed_twin_of"


def load_face_network(path: Path, threads: int = 1) -> Any:
    """The 8-bit face network in ``path`` (as :func:`load_network`), or its twin with signed
    weights where this CPU multiplies those exactly (:func:`multiplies_signed_bytes_exactly`):
    the same network, faster there. A twin not made from the very file in ``path`` (its
    :data:`TWIN_OF_KEY` says which), or not loadable, is passed over: the network itself stands."""
    twin = signed_twin(path)
    if path.is_file() and twin.is_file() and multiplies_signed_bytes_exactly():
        try:
            signed = load_network(twin, threads)
        except ModelError:
            signed = None
        if signed is not None:
            made_from = signed.get_modelmeta().custom_metadata_map.get(TWIN_OF_KEY)
            if made_from == hashlib.sha256(path.read_bytes()).hexdigest():
                return signed
    return load_network(path, threads)


def load_network(path: Path, threads: int = 1) -> Any:
    """The network in ``path``, loaded by ONNX Runtime to run on ``threads`` cores.

    :raises ModelError: the file is missing or not a usable network.
    """
    import onnxruntime as ort  # imported here: loading the package costs ~100 ms

    if not path.is_file():
        raise ModelError(f"model file not found: {str(path)!r}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # ORT raises its own exception types for a damaged file
        raise ModelError(f"not a usable model file: {str(path)!r} ({type(error).__name__})") from None


class LearnedModel:
    """The two networks of a model folder and what ``model.json`` says about them.

    :raises ModelError: a file is missing, unreadable or not what ``model.json`` describes.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None, *, threads: int = 1) -> None:
        self.folder = Path(folder) if folder is not None else MODEL_DIR
        meta_path = self.folder / METADATA_FILE
        try:
            self.metadata: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelError(f"no {METADATA_FILE} in model folder {str(self.folder)!r}") from None
        except (OSError, ValueError) as error:
            raise ModelError(f"cannot read {str(meta_path)!r}: {error}") from None
        classes = self.metadata.get("classes")
        if classes != list(CLASSES):
            raise ModelError(f"{str(meta_path)!r}: classes {classes!r} are not this reader's {list(CLASSES)!r}")
        self.temperature = float(self.metadata.get("temperature", 1.0))
        if not 0.05 <= self.temperature <= 20:
            raise ModelError(f"{str(meta_path)!r}: temperature {self.temperature!r} is out of range")
        #: The confidence a pip count needs to be read ``ok``, chosen for this model on the val split.
        self.min_confidence = float(self.metadata.get("min_confidence", DEFAULT_MIN_CONFIDENCE))
        if not 0.0 < self.min_confidence < 1.0:
            raise ModelError(f"{str(meta_path)!r}: min_confidence {self.min_confidence!r} is out of range")
        #: Side of the square crop this model's face network reads.
        self.crop_size = self.metadata.get("crop_size", CROP_SIZE)
        if not isinstance(self.crop_size, int) or not 16 <= self.crop_size <= 128:
            raise ModelError(f"{str(meta_path)!r}: crop_size {self.crop_size!r} is not a whole number of pixels from 16 to 128")
        if self.metadata.get("crop_context", CROP_CONTEXT) != CROP_CONTEXT:
            raise ModelError(f"{str(meta_path)!r}: crop_context {self.metadata.get('crop_context')!r} is not this reader's {CROP_CONTEXT}")
        self._detector = load_network(self.folder / DETECTOR_FILE, threads)
        self._faces = load_face_network(self.folder / FACES_FILE, threads)
        where = repr(str(meta_path))
        #: The face networks beside the first, each with its own temperature and crop (see
        #: :data:`SECOND_FACES_FILE`), in the order ``model.json`` lists them.
        self.second_faces: tuple[SecondFaces, ...] = tuple(
            SecondFaces.from_record(record, self.crop_size, where) for record in second_faces_records(self.metadata)
        )
        self._second_networks = [load_face_network(self.folder / f.file, threads) for f in self.second_faces]
        #: The face networks read with the first on every crop (see :data:`FIRST_LOOK_FILE`): each
        #: reads the first's crop, so its scores and the first's are averaged die by die.
        self.first_look: tuple[SecondFaces, ...] = tuple(
            SecondFaces.from_record(record, self.crop_size, where, "first_look") for record in second_faces_records(self.metadata, "first_look")
        )
        for look in self.first_look:
            if (look.crop_size, look.crop_context) != (self.crop_size, CROP_CONTEXT):
                raise ModelError(f"{where}: first_look network {look.file!r} must read the first network's crop ({self.crop_size} px, context {CROP_CONTEXT})")
        self._first_look_networks = [load_face_network(self.folder / f.file, threads) for f in self.first_look]
        #: The first look's other networks read only the crops the first alone reads less surely
        #: than this (1: every crop); a die the first reads surely is read by it alone.
        self.first_look_below = float(self.metadata.get("first_look_below", 1.0))
        if not 0.0 < self.first_look_below <= 1.0:
            raise ModelError(f"{where}: first_look_below {self.first_look_below!r} is out of range (above 0, at most 1)")

    def __repr__(self) -> str:
        return f"LearnedModel({str(self.folder)!r})"

    @property
    def trained_on(self) -> frozenset[str]:
        """Names of the real photo folders whose ``train`` split the model learned from."""
        real = self.metadata.get("training", {}).get("real", [])
        return frozenset(str(r.get("folder")) for r in real if isinstance(r, dict))

    def detect_raw(self, work: F32) -> F32:
        """The detector's output (5 x H/4 x W/4) for one working-scale image (3 x H x W, multiples of 32)."""
        out: F32 = self._detector.run(None, {"image": work[None]})[0][0]
        return out

    def crops(self, frame: Frame, dice: Sequence[FoundDie]) -> F32:
        """The face network's input for ``dice`` of ``frame``: each cut as :func:`crop_transform` says."""
        return _cut(frame, dice, self.crop_size, CROP_CONTEXT)

    def second_crops(self, frame: Frame, dice: Sequence[FoundDie]) -> list[F32]:
        """Each of :attr:`second_faces`' input for ``dice`` of ``frame``: its own crop size and
        context (networks that crop alike share one array)."""
        cut: dict[tuple[int, float], F32] = {}
        for f in self.second_faces:
            if (f.crop_size, f.crop_context) not in cut:
                cut[f.crop_size, f.crop_context] = _cut(frame, dice, f.crop_size, f.crop_context)
        return [cut[f.crop_size, f.crop_context] for f in self.second_faces]

    def face_probabilities(self, crops: F32) -> F32:
        """Class probabilities (N x len(CLASSES)) for a batch of crops, tempered."""
        return softmax(self.face_logits(crops))

    def face_logits(self, crops: F32) -> npt.NDArray[np.float64]:
        """The face network's tempered scores (N x len(CLASSES)) for a batch of crops: with a first
        look of several networks (:attr:`first_look`), the mean of theirs and the first's for each
        crop the first alone reads less surely than :attr:`first_look_below`."""
        logits: npt.NDArray[np.float64] = self._faces.run(None, {"image": crops})[0].astype(np.float64) / self.temperature
        if not self.first_look:
            return logits
        rows = np.arange(len(crops))
        if self.first_look_below < 1.0:
            rows = np.flatnonzero(softmax(logits).max(axis=1) < self.first_look_below)
            if len(rows) == 0:
                return logits
        looked = np.ascontiguousarray(crops[rows]) if len(rows) < len(crops) else crops
        total = logits[rows]
        for network, look in zip(self._first_look_networks, self.first_look):
            total = total + network.run(None, {"image": looked})[0].astype(np.float64) / look.temperature
        logits[rows] = total / (1 + len(self.first_look))
        return logits

    @property
    def has_second_faces(self) -> bool:
        """Whether the folder has face networks beside the first (:data:`SECOND_FACES_FILE`)."""
        return bool(self.second_faces)

    def turned_face_probabilities(
        self, crops: F32, as_given: npt.NDArray[np.float64] | None = None, second_crops: Sequence[F32] | None = None
    ) -> F32:
        """Class probabilities for a batch of crops each read in the four :data:`VIEWS` (a die's
        face means the same in each), from the mean of their scores, and, where the folder has
        face networks beside the first (:attr:`second_faces`), from the mean of that and each of
        their tempered scores for their own crops of the same dice (``second_crops``, from
        :meth:`second_crops`) in :data:`SECOND_VIEWS`: a die the network is unsure of in one view
        is often plain in the others, and to a network trained apart.
        ``as_given``: the crops' own scores (:meth:`face_logits`), when already known, so that
        only the other views are run.

        :raises ValueError: a network beside the first reads other crops and ``second_crops`` is missing.
        """
        if as_given is None:
            as_given = self.face_logits(crops)
        others = self.face_logits(turned_and_mirrored(crops, VIEWS[1:])).reshape(len(VIEWS) - 1, len(crops), -1)
        total = (as_given + others.sum(axis=0)) / len(VIEWS)
        if not self.second_faces:
            return softmax(total)
        if second_crops is None:
            if any((f.crop_size, f.crop_context) != (self.crop_size, CROP_CONTEXT) for f in self.second_faces):
                raise ValueError("a face network beside the first reads crops of its own: pass second_crops")
            second_crops = [crops] * len(self.second_faces)
        for network, faces, own in zip(self._second_networks, self.second_faces, second_crops):
            scores = network.run(None, {"image": turned_and_mirrored(own, SECOND_VIEWS)})[0].astype(np.float64)
            total = total + scores.reshape(len(SECOND_VIEWS), len(crops), -1).mean(axis=0) / faces.temperature
        return softmax(total / (1 + len(self.second_faces)))


#: The views of a crop a second look reads, as (quarter turns, mirrored): its four quarter turns,
#: the odd ones mirrored (the four make a group, so the mean is the same whichever of them a crop
#: is given in). On the val and train photos of byler-d6-train they read 19 more coloured dice
#: right and none more wrong; all eight turns and mirrors read 26 more and 2 more wrong, at twice
#: the cost.
VIEWS: tuple[tuple[int, bool], ...] = ((0, False), (1, True), (2, False), (3, True))


#: The views of its own crop the second face network reads: the crop as it lies. All four read the
#: val photos alike (of 2,080 readings of coloured dice under ten camera shifts, 2 more right and 1
#: fewer wrong) at four times the cost.
SECOND_VIEWS: tuple[tuple[int, bool], ...] = VIEWS[:1]


def turned_and_mirrored(crops: F32, views: Sequence[tuple[int, bool]] = VIEWS) -> F32:
    """``crops`` (N x C x H x W) in each of ``views`` (quarter turns, mirrored), view by view
    (len(views) N x C x H x W)."""
    out = []
    for turns, mirrored in views:
        view = np.rot90(crops, turns, axes=(2, 3))
        out.append(view[:, :, :, ::-1] if mirrored else view)
    return np.ascontiguousarray(np.concatenate(out))


def softmax(logits: npt.NDArray[np.float64]) -> F32:
    """Probabilities from scores, row by row."""
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs: F32 = (shifted / shifted.sum(axis=1, keepdims=True)).astype(np.float32)
    return probs


_Loaded = TypeVar("_Loaded")
_shared_lock = threading.Lock()


def one_per_folder(cache: dict[Path, _Loaded], folder: str | os.PathLike[str] | None, load: Callable[[Path], _Loaded]) -> _Loaded:
    """What ``load`` makes of a model folder (default :data:`MODEL_DIR`), loaded once per folder
    for the whole process into ``cache`` (ONNX Runtime's inference objects are safe to share
    across threads)."""
    key = Path(folder).resolve() if folder is not None else MODEL_DIR
    with _shared_lock:
        if key not in cache:
            cache[key] = load(key)
        return cache[key]


_shared_models: dict[Path, LearnedModel] = {}


def shared_model(folder: str | os.PathLike[str] | None = None) -> LearnedModel:
    """One loaded model per folder for the whole process."""
    return one_per_folder(_shared_models, folder, LearnedModel)


class LearnedReader:
    """Finds and reads every die in a frame with the learned model (see the module docstring).

    ``min_score`` is the detector score a die must reach to be looked at; ``min_confidence`` the
    face network's tempered probability a pip count must reach to be read ``ok`` (default: the
    model's, from ``model.json``); an unsure pip
    count whose runner-up is "not a die" at ``drop_unsure`` or more is taken for no die.
    """

    def __init__(
        self,
        model: LearnedModel | None = None,
        *,
        min_score: float = 0.3,
        min_confidence: float | None = None,
        drop_unsure: float = 0.2,
    ) -> None:
        self.model = model if model is not None else shared_model()
        self.min_score = min_score
        self.min_confidence = min_confidence if min_confidence is not None else self.model.min_confidence
        self.drop_unsure = drop_unsure

    def __repr__(self) -> str:
        return f"LearnedReader({self.model!r}, min_score={self.min_score!r}, min_confidence={self.min_confidence!r})"

    # -- finding ----------------------------------------------------------------------------------

    def find(self, frame: Frame | FrameHalves) -> list[FoundDie]:
        """Every die the detector finds, at the scale that suits the dice in this frame."""
        return find_dice(frame, self.model.detect_raw, self.min_score)

    def look(self, frame: Frame) -> tuple[list[FoundDie], list[FoundDie], F32 | None]:
        """The dice found at the working scale, those of the coarse look for big dice, and the face
        network's probabilities for all of them in that order (``None`` when none is found); a die
        it is less sure of than :attr:`min_confidence` is looked at again turned and mirrored
        (:meth:`LearnedModel.turned_face_probabilities`)."""
        halves = FrameHalves(frame)
        found = self.find(halves)
        big = find_big_dice(halves, self.model.detect_raw, self.min_score)
        if not found and not big:
            return found, big, None
        return found, big, self.face_probabilities(frame, found + big)

    def face_probabilities(self, frame: Frame, dice: Sequence[FoundDie]) -> F32:
        """The face network's probabilities for ``dice`` of ``frame`` (at least one); a die it is
        less sure of than it needs to be (:meth:`needed_confidence`) is looked at again turned
        and mirrored (:meth:`LearnedModel.turned_face_probabilities`)."""
        crops = self.model.crops(frame, dice)
        logits = self.model.face_logits(crops)
        probabilities = softmax(logits)
        # A die the network is unsure of is read again turned and mirrored (VIEWS), but a place it
        # took for no die stays none: turned, a side face of an oblique die can pass for a top face.
        again = [i for i, p in enumerate(probabilities) if p.max() < self.needed_confidence(dice[i]) and not self.takes_for_no_die(p)]
        if again:
            second = self.model.second_crops(frame, [dice[i] for i in again])
            probabilities[again] = self.model.turned_face_probabilities(crops[again], logits[again], second)
        return probabilities

    def sees_pip_faces(self, frame: Frame, faces: Sequence[DieReading]) -> list[bool]:
        """For each of ``faces`` (a top face's box, as another finder read it), whether the face
        network, looking there, sees a pip face likeliest (not "no die", another face, a cocked
        or a cut die), in one batch."""
        if not faces:
            return []
        dice = [FoundDie(x + w / 2, y + h / 2, max(w, h) / TOP_FACE, 0.0) for x, y, w, h in (f.box for f in faces)]
        probabilities = self.model.face_probabilities(self.model.crops(frame, dice))
        return [CLASSES[int(np.argmax(p))] in _PIP_FACES for p in probabilities]

    # -- reading ----------------------------------------------------------------------------------

    def read(self, frame: Frame) -> FrameReading:
        """Reads every die in ``frame`` (BGR uint8), ordered left to right.

        :raises InvalidFrameError: ``frame`` is not an HxWx3 uint8 array.
        """
        frame = check_frame(frame)
        start = time.perf_counter()
        found, big, probabilities = self.look(frame)
        dice: list[DieReading] = []
        if probabilities is not None:
            small = self.look_closer(frame, list(zip(found, probabilities[: len(found)])))
            kept = [(d, self._reading(d, p)) for d, p in small]
            big_dice: list[DieReading] = []
            for b, p in zip(big, probabilities[len(found) :]):
                reading = self._reading(b, p)
                # A big die read as a pip face is a die, and what was found on it its pips (each
                # a dark blob: no die, or a one) or parts of its face (two pips of a five); where
                # a die on it reads another face more surely than the big die reads (under
                # BIG_DIE_SURE: two pips of a big three read as a two can be as sure as the three),
                # the big find was a group of dice, and where nothing was found on it, it is no die
                # the working scale missed.
                if any(lies_on(d, b) and d.size > 0.6 * b.size for d, _ in kept):
                    continue  # the working scale saw this die whole
                on = [r for d, r in kept if lies_on(d, b)]
                if (
                    reading is not None
                    and reading.ok
                    and on
                    and (reading.confidence >= BIG_DIE_SURE or not any(r is not None and r.ok and r.value != 1 and r.confidence > reading.confidence for r in on))
                ):
                    kept = [(d, r) for d, r in kept if not lies_on(d, b)]
                    big_dice.append(reading)
            dice = [r for _, r in kept if r is not None] + big_dice
        dice.sort(key=lambda d: (d.box[0], d.box[1]))
        return FrameReading(dice=tuple(dice), ms=(time.perf_counter() - start) * 1000.0)

    def look_closer(
        self, frame: Frame, dice: list[tuple[FoundDie, F32]], classes: frozenset[str] = CLOSER_CLASSES
    ) -> list[tuple[FoundDie, F32]]:
        """``dice`` (each die the detector found and the face network's probabilities for it),
        where a small die the network cannot read surely is looked at closer: the detector reads
        the patch around it at :data:`CLOSER_DIE_PX` (:func:`find_around`), and what it finds
        there on that die stands for it where one of those finds reads a pip face surely.

        Two small dice touching can make one find between them at the working scale, read unsure
        or as a cocked die, and the other die goes missing; closer, they come apart. Only finds on
        the die count (within :data:`CLOSER_REACH` of its size, and not nearer another die found);
        elsewhere the first look stands. The finds that stand for a die come with their own
        probabilities, each as :meth:`face_probabilities` gives them (some may be no die).
        ``classes``: the likeliest classes of the dice looked at (:meth:`looks_closer_at`).
        """
        looked: list[tuple[int, FoundDie]] = []
        for i, (die, p) in enumerate(dice):
            if not self.looks_closer_at(die, p, classes):
                continue
            for near in find_around(frame, die, self.model.detect_raw, self.min_score):
                on_it = max(abs(near.cx - die.cx), abs(near.cy - die.cy)) < CLOSER_REACH * die.size
                apart = math.hypot(near.cx - die.cx, near.cy - die.cy)
                elsewhere = any(
                    other is not die and math.hypot(near.cx - other.cx, near.cy - other.cy) < max(0.5 * min(near.size, other.size), apart)
                    for other, _ in dice
                )
                seen = any(math.hypot(near.cx - n.cx, near.cy - n.cy) < 0.5 * min(near.size, n.size) for _, n in looked)
                if on_it and not elsewhere and not seen:
                    looked.append((i, near))
        if not looked:
            return dice
        closer: dict[int, list[tuple[FoundDie, F32]]] = {}
        for (i, near), p in zip(looked, self.face_probabilities(frame, [n for _, n in looked])):
            closer.setdefault(i, []).append((near, p))
        out: list[tuple[FoundDie, F32]] = []
        for i, pair in enumerate(dice):
            instead = closer.get(i, [])
            out.extend(instead if any(self.reads_surely(p, n) for n, p in instead) else [pair])
        return out

    def looks_closer_at(self, die: FoundDie, p: F32, classes: frozenset[str] = CLOSER_CLASSES) -> bool:
        """Whether :meth:`look_closer` looks again at ``die`` (with the face network's
        probabilities ``p``): found under :data:`CLOSER_BELOW_PX` working pixels, and its likeliest
        class one of ``classes`` but not a pip face read surely."""
        name = CLASSES[int(np.argmax(p))]
        small = 0 < die.size * die.found_at < CLOSER_BELOW_PX
        return small and name in classes and not self.reads_surely(p) and not self.takes_for_no_die(p)

    def reads_surely(self, p: F32, die: FoundDie | None = None) -> bool:
        """Whether the face network's probabilities ``p`` (for ``die``) read a pip face ``ok``."""
        return CLASSES[int(np.argmax(p))] in _PIP_FACES and float(p.max()) >= self.needed_confidence(die)

    def needed_confidence(self, die: FoundDie | None) -> float:
        """The confidence ``die``'s pip count needs to be read ``ok``: :attr:`min_confidence`, or
        :data:`CLOSER_MIN_CONFIDENCE` if it was found by a closer look."""
        return max(self.min_confidence, CLOSER_MIN_CONFIDENCE) if die is not None and die.closer else self.min_confidence

    def takes_for_no_die(self, p: F32) -> bool:
        """Whether the face network's probabilities ``p`` say there is no die: "no die" likeliest, or
        a pip count short of :attr:`min_confidence` whose runner-up is "no die" at
        :attr:`drop_unsure` or more. Most such places are not dice (a side face, a pip of a die
        found elsewhere, a key), and a phantom die stops the table."""
        name = CLASSES[int(np.argmax(p))]
        if name == "none":
            return True
        if name not in _PIP_FACES or float(p.max()) >= self.min_confidence:
            return False
        return CLASSES[int(np.argsort(p)[-2])] == "none" and float(p[0]) >= self.drop_unsure

    def _reading(self, die: FoundDie, p: F32) -> DieReading | None:
        if self.takes_for_no_die(p):
            return None
        best = int(np.argmax(p))
        name = CLASSES[best]
        confidence = float(p[best])
        if name in _PIP_FACES:
            if confidence >= self.needed_confidence(die):
                return DieReading(int(name), confidence, die.box, DieStatus.OK, face=name)
            runner = CLASSES[int(np.argsort(p)[-2])]
            faces = (name, runner) if runner in _PIP_FACES else (name,)
            # Two counts it may be are numbers the rules can weigh (4 or 5: a heart either way);
            # one count or "no pip face" is no choice between numbers, and is asked for.
            return DieReading(
                None, confidence, die.box, DieStatus.UNREADABLE,
                reason=f"unsure: {name} or {runner}", candidates=faces,
                candidate_values=tuple(int(f) for f in faces) if len(faces) > 1 else (),
            )  # fmt: skip
        if die.score < NOT_PIPS_MIN_SCORE:
            return None  # likelier a key or a card than a die (precision first: a phantom die stops the table)
        status = {"other": DieStatus.UNREADABLE, "cocked": DieStatus.COCKED, "cut": DieStatus.OCCLUDED}[name]
        reason = {"other": "not a pip face", "cocked": "cocked", "cut": "cut by the frame or covered"}[name]
        return DieReading(None, confidence, die.box, status, reason=reason)


_PIP_FACES = frozenset("123456")


def find_dice(frame: Frame | FrameHalves, detect_raw: Callable[[F32], F32], min_score: float) -> list[FoundDie]:
    """Every die ``detect_raw`` (the detector: working image -> raw output) finds in ``frame``.

    The frame is read at the working scale first; where the dice found there are very small or
    very big (or a big frame shows none, or dice under :data:`FINE_DIE_PX`), it is read again at
    the scale that makes them :data:`TARGET_DIE_PX`, within :data:`MAX_WORK_SIDE`; dice still too
    small there are looked at finer again (up to :data:`FINER_LOOKS` times in all).
    """
    halves = _halves_of(frame)
    h, w = halves.frame.shape[:2]
    scale = WORK_SIZE / max(h, w)
    found = decode(detect_raw(work_image(halves, scale)), scale, w, h, min_score)
    typical = _typical_size(found, scale)
    big_frame = max(h, w) > 2 * WORK_SIZE
    if typical is None and big_frame:
        # Nothing at the first scale: maybe dice too small for it; look again at a finer one.
        typical = SMALL_DIE_PX / 2.0
    small = SMALL_DIE_PX if not big_frame else FINE_DIE_PX
    if typical is not None and (typical < small or typical > BIG_DIE_PX):
        for _ in range(FINER_LOOKS):
            rescale = min(scale * TARGET_DIE_PX / typical, MAX_WORK_SIDE / max(h, w), 1.5)
            if abs(rescale - scale) / scale <= 0.25:
                break
            found = decode(detect_raw(work_image(halves, rescale)), rescale, w, h, min_score)
            measured = _typical_size(found, rescale)
            # A die a few working pixels wide is measured too big (the detector cannot see it
            # smaller than about ten): looked at finer, it may still come out under ``small``,
            # and is looked at finer again, from the size measured there.
            if measured is None or rescale < scale or measured >= small:
                break
            scale, typical = rescale, measured
    return found


def _typical_size(found: Sequence[FoundDie], scale: float) -> float | None:
    """The median size of ``found`` in working pixels at ``scale`` (``None`` for none)."""
    sizes = sorted(d.size * scale for d in found)
    return sizes[len(sizes) // 2] if sizes else None


def find_around(frame: Frame, die: FoundDie, detect_raw: Callable[[F32], F32], min_score: float) -> list[FoundDie]:
    """Every die ``detect_raw`` finds in the patch of :data:`CLOSER_SPAN` times ``die``'s size
    around it, read at the scale that makes ``die`` :data:`CLOSER_DIE_PX` (at most 1.5 times the
    frame's own pixels), in frame coordinates; none where that is not a quarter finer than the
    look that found ``die``."""
    h, w = frame.shape[:2]
    scale = min(CLOSER_DIE_PX / max(die.size, 1.0), 1.5)
    if scale < 1.25 * die.found_at:
        return []
    half = CLOSER_SPAN * die.size / 2
    x0, y0 = max(0, int(die.cx - half)), max(0, int(die.cy - half))
    x1, y1 = min(w, int(math.ceil(die.cx + half))), min(h, int(math.ceil(die.cy + half)))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return []
    patch = frame[y0:y1, x0:x1]
    found = decode(detect_raw(work_image(patch, scale)), scale, x1 - x0, y1 - y0, min_score)
    return [FoundDie(d.cx + x0, d.cy + y0, d.size, d.score, d.found_at, closer=True) for d in found]


def find_big_dice(frame: Frame | FrameHalves, detect_raw: Callable[[F32], F32], min_score: float) -> list[FoundDie]:
    """Dice too big for the working scale, from a coarse look (a tenth of the cost): such a die
    shows its pips as dice of their own at the working scale."""
    halves = _halves_of(frame)
    h, w = halves.frame.shape[:2]
    coarse = WORK_SIZE / max(h, w) * COARSE
    found = decode(detect_raw(work_image(halves, coarse)), coarse, w, h, min_score)
    return [d for d in found if d.size * coarse >= 0.7 * TARGET_DIE_PX]


class FrameHalves:
    """A frame and its exact halves (each pixel the mean of two by two of the one before, an odd
    last row or column left out), each made once however many looks at the frame take it: the
    working look and the coarse look of a 640x480 frame both start from its half (about 0.15 ms)."""

    def __init__(self, frame: Frame) -> None:
        self._levels: list[Frame] = [frame]

    @property
    def frame(self) -> Frame:
        return self._levels[0]

    def half(self, level: int) -> Frame:
        """The half of the frame halved ``level`` times (``half(0)``: the frame's half)."""
        while len(self._levels) <= level + 1:
            source = self._levels[-1]
            even = source[: source.shape[0] // 2 * 2, : source.shape[1] // 2 * 2]
            halved: Any = cv2.resize(even, (even.shape[1] // 2, even.shape[0] // 2), interpolation=cv2.INTER_AREA)
            self._levels.append(halved)
        return self._levels[level + 1]


def _halves_of(frame: Frame | FrameHalves) -> FrameHalves:
    return frame if isinstance(frame, FrameHalves) else FrameHalves(frame)


def work_image(frame: Frame | FrameHalves, scale: float) -> F32:
    """``frame`` scaled by ``scale`` and padded with black to multiples of 32, as the detector takes it."""
    halves = _halves_of(frame)
    image = halves.frame
    h, w = image.shape[:2]
    ww, wh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    source: Any = image
    step = int(0.4 / scale) if scale < 0.2 else 1
    work: Any = None
    if step > 2:
        # A 12 MP frame shrunk to a few hundred pixels: averaging every pixel costs more than the
        # detector; every step-th row and column still leaves 2.5 samples per working pixel.
        source = _every(image, step)
    else:
        # Averaging by a factor that is no whole number costs OpenCV several times as much per
        # pixel as by a whole one, and taking every other pixel more than either: exact halves
        # (an odd last row or column left out) while the frame is over twice the size wanted.
        level = 0
        while source.shape[1] >= 2 * ww and source.shape[0] >= 2 * wh and not _whole_factor(source, ww, wh):
            source = halves.half(level)
            level += 1
        if scale < 1 and source.shape[1] == 2 * ww and source.shape[0] == 2 * wh:
            work = halves.half(level)  # the same pixels as averaging by 2, made once a frame
    if work is None:
        work = cv2.resize(source, (ww, wh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    pw, ph = -(-ww // 32) * 32, -(-wh // 32) * 32
    if (pw, ph) != (ww, wh):
        work = cv2.copyMakeBorder(work, 0, ph - wh, 0, pw - ww, cv2.BORDER_CONSTANT, value=(0, 0, 0))
    return to_input(work)


def _whole_factor(source: Frame, width: int, height: int) -> bool:
    """Whether ``source`` shrinks to ``width`` x ``height`` by one whole factor each way (OpenCV's
    quick way of averaging)."""
    return bool(source.shape[1] % width == 0 and source.shape[0] % height == 0)


def _every(frame: Frame, step: int) -> Frame:
    """``frame[::step, ::step]`` as a contiguous array: copied as whole 3-byte pixels, which is
    two to three times quicker than numpy's copy byte by byte (OpenCV would copy it so anyway)."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.strides[1:] != (3, 1):
        return np.ascontiguousarray(frame[::step, ::step])
    pixels = frame.view(np.dtype((np.void, 3)))[:, :, 0]
    picked = np.ascontiguousarray(pixels[::step, ::step])
    out: Frame = picked.view(np.uint8).reshape(picked.shape[0], picked.shape[1], 3)
    return out


def decode(raw: F32, scale: float, width: int, height: int, min_score: float) -> list[FoundDie]:
    """The dice in the detector's output for a frame of ``width`` x ``height`` read at ``scale``:
    each local maximum of the centre map at ``min_score`` or more, strongest first, one per die."""
    heat = 1.0 / (1.0 + np.exp(-raw[0]))
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= min_score)
    iy, ix = np.nonzero(peaks)
    # every peak at once, with the arithmetic each would get on its own (the sizes' exp stays
    # math.exp, whose last bit numpy's does not always match)
    cxs = (ix + raw[2, iy, ix].astype(np.float64)) * STRIDE / scale
    cys = (iy + raw[3, iy, ix].astype(np.float64)) * STRIDE / scale
    logs = np.clip(raw[1, iy, ix], 0.5, 6.0).tolist()
    scores = heat[iy, ix].tolist()
    found = [
        FoundDie(cx, cy, math.exp(log) / scale, score, scale)
        for cx, cy, log, score in zip(cxs.tolist(), cys.tolist(), logs, scores)
        if 0 <= cx < width and 0 <= cy < height
    ]
    return _suppress(found)


def lies_on(small: FoundDie, big: FoundDie) -> bool:
    """Whether ``small`` lies on ``big`` (its centre within ``big``'s outline)."""
    return small is not big and max(abs(small.cx - big.cx), abs(small.cy - big.cy)) < 0.5 * big.size


def _suppress(found: list[FoundDie]) -> list[FoundDie]:
    """One die, one place: keeps the strongest of peaks closer than half a die (one die seen as two
    peaks), then drops any die whose centre lies on a die much bigger than itself (a pip of a big
    die taken for a small die)."""
    kept: list[FoundDie] = []
    for d in sorted(found, key=lambda f: -f.score):
        if all(math.hypot(d.cx - k.cx, d.cy - k.cy) > 0.5 * min(d.size, k.size) for k in kept):
            kept.append(d)
    return [
        d
        for d in kept
        if not any(k.size > 1.6 * d.size and max(abs(d.cx - k.cx), abs(d.cy - k.cy)) < 0.5 * k.size for k in kept)
    ]
