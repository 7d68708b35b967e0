"""Reading a top face: the :class:`FaceClassifier` seam and the default pip classifier.

The reader hands every :class:`~vision.detect.FaceCandidate` to one classifier. The default,
:class:`PipClassifier`, reads the pip layout the detector matched; a calibrated die plugs in its own
classifier (``vision.profile_reader.ProfileClassifier``) without the reader changing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from vision.detect import CandidateFlag, FaceCandidate
from vision.types import DieStatus


@dataclass(frozen=True)
class FaceResult:
    """What a classifier made of one face.

    ``value`` is 1-6 or ``None``; ``face`` the face label (``"4"``, or a profile's label such as
    ``"sword"``); ``confidence`` 0-1; ``status`` ``ok`` unless the face cannot be trusted. A face
    that could be one of a few is ``unreadable`` with their labels in ``candidates`` and their
    numbers in ``candidate_values`` (likeliest first), ``symbol`` set when they all share it, and a
    ``reason`` naming them ("sword 1 or 3").
    """

    value: int | None
    face: str | None
    confidence: float
    status: DieStatus = DieStatus.OK
    symbol: str | None = None
    reason: str | None = None
    candidates: tuple[str, ...] = ()
    candidate_values: tuple[int, ...] = ()

    @classmethod
    def unreadable(cls, confidence: float = 0.0) -> FaceResult:
        return cls(value=None, face=None, confidence=confidence, status=DieStatus.UNREADABLE)


@runtime_checkable
class FaceClassifier(Protocol):
    """Anything that reads a face candidate."""

    def classify(self, candidate: FaceCandidate) -> FaceResult:
        """Reads one top face."""
        ...


class PipClassifier:
    """Reads ordinary pip d6 from the pip layout the detector matched.

    A face whose marks match no pip layout (a symbol, a smudge, too many pips) is ``unreadable``,
    never a guess.
    """

    def __init__(self, min_confidence: float = 0.35) -> None:
        self.min_confidence = min_confidence

    def __repr__(self) -> str:
        return f"PipClassifier(min_confidence={self.min_confidence!r})"

    def classify(self, candidate: FaceCandidate) -> FaceResult:
        layout = candidate.layout
        if layout is None or candidate.flags & CandidateFlag.NO_LAYOUT:
            return FaceResult.unreadable()
        confidence = float(candidate.quality)
        if confidence < self.min_confidence:
            return FaceResult(None, None, confidence, DieStatus.UNREADABLE)
        return FaceResult(value=layout.value, face=str(layout.value), confidence=confidence)
