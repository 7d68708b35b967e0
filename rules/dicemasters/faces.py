"""Dice Masters die faces: energy, character and action faces, each with a text notation.

A die is six faces; a calibrated die reads as one of its faces' labels (the notation)::

    >>> Face.from_notation("2fist").energy, Face.from_notation("2fist").kind
    (2, <FaceKind.ENERGY: 'energy'>)
    >>> Face.from_notation("L3:2:7/4*")
    Face.from_notation('L3:2:7/4*')
    >>> Face.from_notation("action**").bursts
    2
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from rules.errors import InvalidRollError

ENERGY_TYPES = ("mask", "fist", "bolt", "shield")
"""The energy types (their symbols are on the faces and next to a card's cost)."""
GENERIC = "generic"
"""Generic energy: pays any cost but counts as no type; what is not spent at once is lost."""

_ENERGY = re.compile(r"(?P<count>[1-9]?)(?P<type>mask|fist|bolt|shield|generic)(?P<bursts>\*{0,2})\Z")
# ASCII digits, at most two (\d would take other scripts' digits, and int() refuses 4,300 of them).
_CHARACTER = re.compile(
    r"L(?P<level>[1-3]):(?P<cost>[0-9]{1,2}):(?P<attack>[0-9]{1,2})/(?P<defence>[0-9]{1,2})(?P<bursts>\*{0,2})\Z"
)
_ACTION = re.compile(r"action(?P<bursts>\*{0,2})\Z")


class FaceKind(enum.Enum):
    ENERGY = "energy"
    CHARACTER = "character"
    ACTION = "action"


@dataclass(frozen=True)
class Face:
    """One face of a Dice Masters die.

    Energy faces have a type (or generic) and a count; character faces a level, a fielding cost,
    attack and defence; action faces only their bursts. Any face may show one or two bursts.
    """

    kind: FaceKind
    energy_type: str = ""
    energy: int = 0
    level: int = 0
    fielding_cost: int = 0
    attack: int = 0
    defence: int = 0
    bursts: int = 0

    @classmethod
    def from_notation(cls, text: str) -> Face:
        """Parses ``fist``, ``2mask``, ``generic*``, ``L1:0:1/1``, ``action**``.

        :raises InvalidRollError: for anything else.
        """
        text = text.strip()
        if match := _ENERGY.match(text):
            return cls(
                FaceKind.ENERGY,
                energy_type=match["type"],
                energy=int(match["count"] or 1),
                bursts=len(match["bursts"]),
            )
        if match := _CHARACTER.match(text):
            return cls(
                FaceKind.CHARACTER,
                level=int(match["level"]),
                fielding_cost=int(match["cost"]),
                attack=int(match["attack"]),
                defence=int(match["defence"]),
                bursts=len(match["bursts"]),
            )
        if match := _ACTION.match(text):
            return cls(FaceKind.ACTION, bursts=len(match["bursts"]))
        raise InvalidRollError(
            f"not a Dice Masters face: {text!r} (energy like fist, 2mask, generic*; character like "
            "L1:0:1/1 for level:fielding cost:attack/defence; action, action*)"
        )

    def notation(self) -> str:
        stars = "*" * self.bursts
        if self.kind is FaceKind.ENERGY:
            return f"{self.energy if self.energy > 1 else ''}{self.energy_type}{stars}"
        if self.kind is FaceKind.CHARACTER:
            return f"L{self.level}:{self.fielding_cost}:{self.attack}/{self.defence}{stars}"
        return f"action{stars}"

    @property
    def generic(self) -> bool:
        return self.kind is FaceKind.ENERGY and self.energy_type == GENERIC

    def __repr__(self) -> str:
        return f"Face.from_notation({self.notation()!r})"

    def __str__(self) -> str:
        return self.notation()
