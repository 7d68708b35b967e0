"""The learned face embedding: a face crop to a unit vector, close for two shots of one face.

A calibrated profile keeps a few shots of each face of a player's die set; the exemplar matcher
(:class:`vision.profile_reader.ProfileClassifier`) compares a crop with them pixel by pixel. The
embedding network was trained on rendered dice of many thousand made-up die sets (any artwork,
body, ink, light and camera) to put two shots of one face close together and two faces of a set
apart, most of all faces that differ only in a small corner number; so it compares faces it was
never shown. It reads :func:`vision.profile_reader.face_square` squares, turned as the crop lies.

``face-embedding.onnx`` lives beside the learned reader's networks (:data:`vision.learned.MODEL_DIR`);
``face-embedding.json`` beside it records how it was trained, its figures and how sure it must be
to weigh in (:class:`EmbeddingOpinion`).

>>> embedding = FaceEmbedding()                              # doctest: +SKIP
>>> embedding.embed(squares).shape                           # doctest: +SKIP
(5, 64)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.learned import MODEL_DIR, ModelError, one_per_folder, load_network

F32 = npt.NDArray[np.float32]

EMBEDDING_FILE = "face-embedding.onnx"
#: Beside the network: how it was trained, its figures, and its :class:`EmbeddingOpinion`.
RECORD_FILE = "face-embedding.json"


@dataclass(frozen=True)
class EmbeddingOpinion:
    """How much the embedding's opinion weighs beside a profile's exemplar matcher.

    ``veto``: a face the exemplars read ``ok`` is ``unreadable`` (both faces candidates) when the
    embedding finds another face more alike by this much cosine similarity or more. ``rescue``: a
    read the exemplars are unsure of is read as the face the embedding prefers by this much over
    every other face, when that face is among the exemplars' candidates (if they name any) and
    either the exemplars find the crop within the profile's accept distance or the embedding finds
    it at least ``floor`` alike; it is read with ``rescue_confidence`` (the fraction of such reads
    right where these numbers were chosen). A crop the exemplars find like no face, ``floor``
    alike to a few faces and ``rescue`` or more from the others, gets those few as candidates.
    ``stranger``: a crop the embedding finds less alike than this to the face it would be read
    as is ``unreadable``, like no calibrated face: a face of another die set that a loosely
    fitted accept distance lets the exemplars take for one of theirs.
    """

    veto: float = math.inf
    rescue: float = math.inf
    rescue_confidence: float = 0.5
    floor: float = math.inf
    stranger: float = -math.inf

    def __post_init__(self) -> None:
        if not (self.veto > 0 and self.rescue > 0 and 0.0 < self.rescue_confidence < 1.0 and self.floor > 0 and self.stranger < 1.0):
            raise ValueError(f"embedding opinion out of range: {self!r}")

    @classmethod
    def of_record(cls, record: object, path: Path) -> EmbeddingOpinion:
        """The ``opinion`` of a record (a parsed :data:`RECORD_FILE`); none: the embedding never decides.

        :raises ModelError: the opinion is not four numbers in range.
        """
        opinion = record.get("opinion") if isinstance(record, dict) else None
        if opinion is None:
            return cls()
        try:
            return cls(
                float(opinion["veto"]), float(opinion["rescue"]), float(opinion["rescue_confidence"]), float(opinion["floor"]),
                float(opinion.get("stranger", -math.inf)),
            )  # fmt: skip
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ModelError(f"{str(path)!r}: 'opinion' must give veto, rescue, rescue_confidence and floor (and may give stranger) in range, not {opinion!r}") from None


def embedding_input(squares: F32) -> F32:
    """N x S x S grey squares (0-255) -> N x 1 x S x S, each centred on its mean and divided by its
    spread (floored, so a blank face stays faint): the body's colour and the light's strength are
    gone before the network looks."""
    squares = np.asarray(squares, np.float32)
    if squares.ndim != 3:
        raise ValueError(f"face squares must be N x S x S, not shape {squares.shape!r}")
    mean = squares.mean(axis=(1, 2), keepdims=True)
    spread = squares.std(axis=(1, 2), keepdims=True)
    out: F32 = ((squares - mean) / np.maximum(spread, 8.0))[:, None].astype(np.float32)
    return out


class FaceEmbedding:
    """The embedding network of a model folder (default: the shipped one).

    :raises ModelError: the file is missing or not a usable network.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None, *, threads: int = 1) -> None:
        folder = Path(folder if folder is not None else MODEL_DIR)
        self.path = folder / EMBEDDING_FILE
        self._network = load_network(self.path, threads)
        record_path = folder / RECORD_FILE
        try:
            self.record: dict[str, object] = json.loads(record_path.read_text(encoding="utf-8")) if record_path.is_file() else {}
        except (OSError, ValueError) as error:
            raise ModelError(f"cannot read {str(record_path)!r}: {error}") from None
        self.opinion = EmbeddingOpinion.of_record(self.record, record_path)

    def __repr__(self) -> str:
        return f"FaceEmbedding({str(self.path)!r})"

    def embed(self, squares: F32) -> F32:
        """Unit vectors (N x D) of N grey face squares (N x S x S, 0-255)."""
        if not len(squares):
            return np.zeros((0, 0), np.float32)
        out: F32 = self._network.run(None, {"image": embedding_input(squares)})[0].astype(np.float32)
        return out


def turned_embeddings(embed: Callable[[F32], F32], squares: F32) -> F32:
    """What ``embed`` makes of each square in its four quarter turns, in one batch: N x 4 x D
    (turn 0 the square as given)."""
    turns = np.stack([np.rot90(squares, k, axes=(1, 2)) for k in range(4)], axis=1)
    flat = embed(np.ascontiguousarray(turns.reshape(-1, *squares.shape[1:])))
    return flat.reshape(len(squares), 4, -1)


_shared: dict[Path, FaceEmbedding | None] = {}


def shared_embedding(folder: str | os.PathLike[str] | None = None) -> FaceEmbedding | None:
    """One loaded embedding per model folder for the whole process, or ``None`` when the folder
    has no :data:`EMBEDDING_FILE` (profiles are then read by their exemplars alone).

    :raises ModelError: the file is there but not a usable network, or its record is malformed.
    """
    return one_per_folder(_shared, folder, lambda key: FaceEmbedding(key) if (key / EMBEDDING_FILE).is_file() else None)
