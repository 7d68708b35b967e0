"""The reader: one BGR frame in, one :class:`~vision.types.FrameReading` out.

By default it is the learned reader (:mod:`vision.learned`), checked against the rule-based pip
reader (:mod:`vision.combine`). Given a face classifier or a face detector, it reads the faces that
detector finds with that classifier instead. A calibrated profile brings both: the learned detector
finding its dice (:class:`vision.profile_reader.LearnedFaceFinder`) and its exemplar matcher
(:class:`vision.profile_reader.ProfileClassifier`).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Literal

from vision.beside import ThreadBeside
from vision.classify import FaceClassifier, FaceResult, PipClassifier
from vision.colour import with_colours
from vision.combine import combine
from vision.detect import CandidateFlag, FaceCandidate, FaceDetector
from vision.imageio import Frame, check_frame
from vision.learned import LearnedReader
from vision.profile_reader import DetectedFace
from vision.types import DieReading, DieStatus, FrameReading
from vision.view import ViewWatch


class DiceReader:
    """Finds every die in a frame and reads its top face.

    With no arguments, the learned reader finds and reads the dice (``learned`` may give one with
    another model or thresholds) and, unless ``pip_check`` is off, the rule-based pip reader reads
    the same frame: where both read a die and disagree it is ``unreadable``, where only one reads
    it that reading stands (:func:`vision.combine.combine`). With ``threads`` of 2 (the default
    where the process may use more than one core, as on a Raspberry Pi) the pip reader's search
    runs beside the learned reader, in a thread of the reader's own; the reading is the same.
    Frames of the size ``overhead_frames`` (width, height: a calibrated tray's camera that looks
    straight down, :mod:`vision.view`; ``"any"`` for frames of every size) are checked only
    where the learned reader left a die unsure: no side face shows there, so the check has
    nothing else to mend. A ``view_watch`` (:class:`~vision.view.ViewWatch`) tells that view from
    the checks of the frames read, for a camera whose view no calibration told: frames it tells
    seen from above are read the same way, but for one in a few, checked all the same.

    With a ``classifier`` or a ``detector``, the rule-based detector's faces are read by
    ``classifier`` (default: :class:`PipClassifier`): a die whose face may be partly outside the
    frame is ``occluded``, one tilted unlike the others ``cocked``, one whose face the classifier
    cannot read ``unreadable``. A die only a rule-based finder found, where the learned
    detector saw none (a :class:`~vision.profile_reader.DetectedFace` not ``by_detector``), stands
    only where it is read ``ok`` or as one of a few faces sharing a symbol. Only ``ok`` dice carry
    a value.

    >>> reader = DiceReader()
    >>> reading = reader.read(frame)  # doctest: +SKIP
    >>> reading.values  # doctest: +SKIP
    (2, 5, 6)
    """

    def __init__(
        self,
        classifier: FaceClassifier | None = None,
        detector: FaceDetector | None = None,
        *,
        learned: LearnedReader | None = None,
        pip_check: bool = True,
        threads: int | None = None,
        overhead_frames: tuple[int, int] | Literal["any"] | None = None,
        view_watch: ViewWatch | None = None,
    ) -> None:
        self.learned: LearnedReader | None = None
        self.pip_check = pip_check
        self.overhead_frames = overhead_frames
        self.view_watch = view_watch
        self._beside = ThreadBeside(threads)
        if classifier is None and detector is None:
            self.learned = learned if learned is not None else LearnedReader()
        self.classifier: FaceClassifier = classifier if classifier is not None else PipClassifier()
        self.detector = detector if detector is not None else FaceDetector()

    @property
    def threads(self) -> int:
        """The cores one read may use (:class:`~vision.beside.ThreadBeside`)."""
        return self._beside.threads

    def __repr__(self) -> str:
        if self.learned is not None:
            overhead = f", overhead_frames={self.overhead_frames!r}" if self.overhead_frames is not None else ""
            watch = f", view_watch={self.view_watch!r}" if self.view_watch is not None else ""
            return f"DiceReader(learned={self.learned!r}, pip_check={self.pip_check!r}, threads={self.threads!r}{overhead}{watch})"
        return f"DiceReader(classifier={self.classifier!r}, detector={self.detector!r})"

    def read(self, frame: Frame) -> FrameReading:
        """Reads every die in ``frame`` (BGR uint8), ordered left to right.

        :raises InvalidFrameError: ``frame`` is not an HxWx3 uint8 array.
        """
        frame = check_frame(frame)
        if self.learned is None:
            start = time.perf_counter()
            reading = self._read_pips(self.detector.find(frame), start)
        else:
            begun = time.perf_counter()
            detector = self.detector
            # the pip classifier reads layouts alone: the faces need no crops
            crops = type(self.classifier) is not PipClassifier
            size = (frame.shape[1], frame.shape[0])
            watch = self.view_watch if self.pip_check else None
            overhead = self.overhead_frames == "any" or size == self.overhead_frames
            if not overhead and watch is not None:
                overhead = watch.skips_check(size)

            def search() -> tuple[list[FaceCandidate], list[tuple[float, float]]]:
                return detector.find_with_side_faces(frame, crops=crops)

            # the pip search on a second core while the learned reader reads (vision.beside)
            searched = self._beside.start(search) if self.pip_check and not overhead else None
            reading = self.learned.read(frame)
            if self.pip_check and overhead and any(d.status is DieStatus.UNREADABLE for d in reading.dice):
                # Seen straight down no side face shows: the check has only unsure dice to settle.
                searched = self._beside.start(search)
            if searched is not None:
                faces, side_faces = searched()
                if watch is not None:
                    watch.seen(size, faces, side_faces)
                learned = self.learned
                reading = combine(reading, self._read_pips(faces, begun), side_faces, lambda alone: learned.sees_pip_faces(frame, alone))
                reading = replace(reading, ms=(time.perf_counter() - begun) * 1000.0)
        return replace(with_colours(frame, reading), frame_size=(frame.shape[1], frame.shape[0]))

    def _read_pips(self, faces: list[FaceCandidate], start: float) -> FrameReading:
        """The pip reader's reading of the faces its finder found (timed from ``start``)."""
        dice = []
        for candidate in faces:
            reading = self._reading(candidate, self.classifier.classify(candidate))
            # A die only the body finder found, where the learned detector saw none, stands only
            # read surely, or as one of a few faces that share a symbol (it matched the set).
            told = reading.ok or (reading.symbol is not None and bool(reading.candidates))
            if told or not isinstance(candidate, DetectedFace) or candidate.by_detector:
                dice.append(reading)
        dice.sort(key=lambda d: (d.box[0], d.box[1]))
        ms = (time.perf_counter() - start) * 1000.0
        return FrameReading(dice=tuple(dice), ms=ms)

    @staticmethod
    def _reading(candidate: FaceCandidate, result: FaceResult) -> DieReading:
        status = result.status
        if candidate.flags & CandidateFlag.TOUCHES_FRAME_EDGE:
            status = DieStatus.OCCLUDED
        elif candidate.flags & CandidateFlag.TILTED:
            status = DieStatus.COCKED
        elif candidate.flags & (CandidateFlag.TOP_UNSURE | CandidateFlag.OVERSIZED) and status is DieStatus.OK:
            status = DieStatus.UNREADABLE
        ok = status is DieStatus.OK
        # Candidates stand only where the classifier itself was unsure, not on a die cut or cocked.
        unsure = result.status is DieStatus.UNREADABLE and status is DieStatus.UNREADABLE
        return DieReading(
            value=result.value if ok else None,
            confidence=float(result.confidence),
            box=candidate.box,
            status=status,
            face=result.face if ok else None,
            symbol=result.symbol if ok or unsure else None,
            reason=result.reason if unsure else None,
            candidates=result.candidates if unsure else (),
            candidate_values=result.candidate_values if unsure else (),
        )
