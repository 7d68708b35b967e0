"""Reading a calibrated set of plain pip dice: the plain reader reads it, and the set names its faces.

A die set whose six faces all show pips, one face for each count from 1 to 6 (the calibration
found each face's exemplars read as that many pips), gains nothing from its exemplars: the plain
reader (the learned reader checked against the pip reader, :class:`vision.reader.DiceReader`)
reads such dice better, and in less time (measured on the photos a player's five crops per face
were not cut from: docs/calibration.md). :class:`PipSetReader` reads with the plain reader and
gives each die the set's own face: its label, and its symbol where the set gives one.

Only :mod:`vision` is imported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from vision.imageio import Frame
from vision.profile_reader import CalibratedFace
from vision.profile_set import FrameReader
from vision.reader import DiceReader
from vision.types import DieReading, FrameReading


def is_pip_set(faces: Sequence[CalibratedFace]) -> bool:
    """Whether ``faces`` are six pip faces, one for each count from 1 to 6."""
    return len(faces) == 6 and all(face.pips for face in faces) and sorted(face.value for face in faces) == [1, 2, 3, 4, 5, 6]


class PipSetReader:
    """Reads a pip set (:func:`is_pip_set`) with ``plain`` (default: the plain
    :class:`~vision.reader.DiceReader`); each die read ``ok`` is the set's face of that count, and
    the candidates of an unsure die are the set's faces of the counts it could be.

    :raises ValueError: ``faces`` are not a pip set.
    """

    def __init__(self, faces: Sequence[CalibratedFace], plain: FrameReader | None = None) -> None:
        if not is_pip_set(faces):
            raise ValueError(f"not six pip faces, one for each count from 1 to 6: {[face.label for face in faces]!r}")
        self.faces = {face.value: face for face in faces}
        self.plain = plain if plain is not None else DiceReader()

    def __repr__(self) -> str:
        return f"PipSetReader(faces={[self.faces[v].label for v in sorted(self.faces)]!r}, plain={self.plain!r})"

    def read(self, frame: Frame) -> FrameReading:
        """The plain reader's reading of ``frame``, its dice named as the set names its faces.

        :raises InvalidFrameError: ``frame`` is not an HxWx3 uint8 array.
        """
        reading = self.plain.read(frame)
        return replace(reading, dice=tuple(self._named(die) for die in reading.dice))

    def _named(self, die: DieReading) -> DieReading:
        if die.ok and die.value is not None:
            face = self.faces[die.value]
            return replace(die, face=face.label, symbol=face.symbol)
        if not die.candidates:
            return die
        # the plain reader's candidates are counts, and a pip set has a face for every count; the
        # numbers stand as the plain reader gives them (one count alone is no choice to weigh)
        named = replace(die, candidates=tuple(self.faces[int(c)].label for c in die.candidates))
        shared = {self.faces[v].symbol for v in die.candidate_values}
        if len(die.candidate_values) > 1 and len(shared) == 1 and None not in shared:
            # the set's faces it may be all show one symbol: that much is read
            return replace(named, symbol=shared.pop())
        return named
