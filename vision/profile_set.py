"""Reading a tray of dice of several calibrated designs at once (a Dice Masters roll mixes the dice of
several cards, each of its own artwork).

Each design's reader (a calibrated profile's :class:`~vision.reader.DiceReader`) reads the whole
frame; the readings are then put together die by die, a die being the readings whose boxes share
a centre. A die one design reads ``ok`` is that design's face; a die two designs read ``ok`` as
different faces is ``unreadable``, both faces its candidates (precision first: the tray never
picks one); a die no design reads keeps the likeliest faces any design gave. Faces are compared
as the game names them (a profile face's symbol, else its label). Where the table tells designs
apart by body colour (a colour per Dice Masters card), a die is read only by the designs whose
dice come in its measured colour.

Only :mod:`vision` is imported here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from vision.imageio import Frame, check_frame
from vision.profile_reader import one_look_per_frame
from vision.types import DieReading, DieStatus, FrameReading


class FrameReader(Protocol):
    def read(self, frame: Frame) -> FrameReading: ...


@dataclass(frozen=True)
class NamedReader:
    """One design's reader, the name of its profile (for reasons and ``repr``), and the body
    colours its dice come in when the table tells designs apart by colour (Dice Masters: a colour
    per card); empty when any colour may be this design."""

    name: str
    reader: FrameReader
    colours: tuple[str, ...] = ()


def _same_die(a: DieReading, b: DieReading) -> bool:
    """Two readings of one die: each box's centre lies inside the middle of the other."""
    ax, ay, aw, ah = a.box
    bx, by, bw, bh = b.box
    dx = abs((ax + aw / 2) - (bx + bw / 2))
    dy = abs((ay + ah / 2) - (by + bh / 2))
    return dx < 0.5 * min(aw, bw) and dy < 0.5 * min(ah, bh)


def _game_face(die: DieReading) -> str:
    """The face as the game names it: its symbol when the profile gives one, else its label."""
    return die.symbol or die.face or str(die.value)


def _one_die(readings: Sequence[tuple[NamedReader, DieReading]]) -> DieReading:
    """What the designs' readings of one die say together: where the die's body colour is one
    that some designs' dice come in, only those designs read it."""
    measured = next((die.colour.name for _, die in readings if die.colour is not None), None)
    if measured is not None and any(measured in named.colours for named, _ in readings):
        readings = [(named, die) for named, die in readings if measured in named.colours]
    sure = [(named.name, die) for named, die in readings if die.ok]
    faces = list(dict.fromkeys(_game_face(die) for _, die in sure))
    if len(faces) == 1:
        return max((die for _, die in sure), key=lambda d: d.confidence)
    if len(faces) > 1:
        first = max((die for _, die in sure), key=lambda d: d.confidence)
        names = " or ".join(f"{name} {_game_face(die)}" for name, die in sure)
        return replace(
            first,
            value=None,
            status=DieStatus.UNREADABLE,
            reason=f"two designs read it: {names}",
            candidates=tuple(faces),
            candidate_values=(),
            symbol=None,
        )
    # Nobody read it: cocked or cut by the frame says more than unreadable; then the likeliest faces.
    ranked = sorted(
        (die for _, die in readings),
        key=lambda d: (d.status is not DieStatus.UNREADABLE, bool(d.candidates), d.confidence),
        reverse=True,
    )
    return ranked[0]


class ProfileSetReader:
    """Reads frames with every design's reader and puts their readings together die by die (see
    the module docstring). ``readers``: one per design, each a :class:`NamedReader`."""

    def __init__(self, readers: Sequence[NamedReader]) -> None:
        if not readers:
            raise ValueError("a set of profiles needs at least one profile")
        self.readers = tuple(readers)

    def __repr__(self) -> str:
        return f"ProfileSetReader({', '.join(r.name for r in self.readers)})"

    def with_colours(self, colours: Mapping[str, Sequence[str]]) -> ProfileSetReader:
        """The same readers, each design named in ``colours`` (profile name -> the body colours
        its dice come in) read only dice of those colours; the others as they were."""
        return ProfileSetReader(
            [replace(r, colours=tuple(colours[r.name])) if r.name in colours else r for r in self.readers]
        )

    def read(self, frame: Frame) -> FrameReading:
        """Every die in ``frame``, left to right.

        :raises InvalidFrameError: ``frame`` is not an HxWx3 uint8 array.
        """
        frame = check_frame(frame)
        start = time.perf_counter()
        groups: list[list[tuple[NamedReader, DieReading]]] = []
        with one_look_per_frame():  # the detector's look at the frame is the same for every profile
            readings = [(named, named.reader.read(frame)) for named in self.readers]
        for named, reading in readings:
            for die in reading.dice:
                for group in groups:
                    if any(_same_die(die, other) for _, other in group):
                        group.append((named, die))
                        break
                else:
                    groups.append([(named, die)])
        dice = sorted((_one_die(group) for group in groups), key=lambda d: (d.box[0], d.box[1]))
        ms = (time.perf_counter() - start) * 1000.0
        return FrameReading(dice=tuple(dice), ms=ms, frame_size=(frame.shape[1], frame.shape[0]))
