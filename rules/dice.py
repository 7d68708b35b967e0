"""Dice and rolls, with a text notation that round-trips: the game-agnostic core every game uses.

A die shows a face number 1-6. A game's dice key (a Dice Throne hero's, say) names a symbol for each
number; a die whose number is unknown but whose symbol was read (or typed) is kept as that symbol
name, so nothing is guessed. A roll holds any number of dice; each game checks the count it needs::

    >>> Roll.from_notation("1 1 2 5 6")
    Roll.from_notation('1 1 2 5 6')
    >>> Roll.from_notation("sword sword 3").notation()
    'sword sword 3'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NoReturn, Protocol, TypeAlias

from rules.errors import InvalidRollError

Face: TypeAlias = int | str
"""A die's top face: its number 1-6, or a hero symbol name when only the symbol is known."""

FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)


class DiceKey(Protocol):
    """What names the symbol on each face (a Dice Throne hero, a Dice Masters die...)."""

    def symbol_for(self, face: Face) -> str: ...

    def canonical_symbol(self, name: str) -> str: ...

_SYMBOL = re.compile(r"[a-z][a-z0-9_-]*\Z")


def check_face(face: object) -> Face:
    """Returns ``face`` if it is a number 1-6 or a symbol-shaped name; raises InvalidRollError otherwise."""
    if isinstance(face, bool):
        raise InvalidRollError(f"not a die face: {face!r}")
    if isinstance(face, int):
        if face not in FACES:
            raise InvalidRollError(f"a die shows 1 to 6, not {face!r}")
        return face
    if isinstance(face, str) and _SYMBOL.match(face):
        return face
    raise InvalidRollError(f"not a die face: {face!r}")


_NUMBER = re.compile(r"[+-]?[0-9]+\Z")
"""A face number as typed: ASCII digits only (``str.isdigit`` also takes '²', '①' and other scripts)."""


_WHOLE_NUMBER = re.compile(r"[0-9]{1,30}\Z")


def whole_number(text: str) -> int | None:
    """``text`` as a whole number if it is one in ASCII digits (at most 30 of them), else None.

    For every number a player or a record types: ``str.isdigit`` also takes '²' and '①', which
    ``int()`` refuses, and ``int()`` refuses numbers of 4,300 digits and more.
    """
    return int(text) if _WHOLE_NUMBER.match(text) else None


def _parse_token(token: str) -> Face:
    if _NUMBER.match(token):
        # A long number is no face: say so without converting it (int() refuses 4,300+ digits).
        if len(token) > 3:
            _not_a_face(token)
        return check_face(int(token))
    lowered = token.lower()
    if not _SYMBOL.match(lowered):
        raise InvalidRollError(f"not a die face: {token!r}")
    return lowered


def _not_a_face(token: str) -> NoReturn:
    shown = token if len(token) <= 20 else f"{token[:12]}... ({len(token)} characters)"
    raise InvalidRollError(f"a die shows 1 to 6, not {shown!r}")


@dataclass(frozen=True)
class Roll:
    """The faces of one roll, in the order given (any number of dice; 0 for "nothing rolled yet").

    Equality is by faces in order; use :meth:`sorted` to compare as a multiset.
    """

    faces: tuple[Face, ...]

    def __post_init__(self) -> None:
        faces = tuple(self.faces)
        for face in faces:
            check_face(face)
        object.__setattr__(self, "faces", faces)

    @classmethod
    def from_notation(cls, text: str, hero: DiceKey | None = None) -> Roll:
        """Parses ``"1 1 2 5 6"`` (numbers and/or symbol names, separated by spaces or commas).

        With ``hero``, symbol names (and the hero's symbol aliases) are checked against its dice
        key and normalised; without it any lowercase name is accepted as a symbol.

        :raises InvalidRollError: on a value that is not a face, an unknown symbol, or or a symbol the key does not have.
        """
        tokens = [token for token in re.split(r"[\s,]+", text.strip()) if token]
        return cls.from_faces((_parse_token(token) for token in tokens), hero)

    @classmethod
    def from_faces(cls, faces: Iterable[object], hero: DiceKey | None = None) -> Roll:
        """Builds a roll from numbers and symbol names (strings of digits count as numbers)."""
        parsed: list[Face] = []
        for face in faces:
            if isinstance(face, str):
                face = _parse_token(face)
            checked = check_face(face)
            if hero is not None and isinstance(checked, str):
                checked = hero.canonical_symbol(checked)
            parsed.append(checked)
        return cls(tuple(parsed))

    def notation(self) -> str:
        """The canonical text: faces separated by single spaces."""
        return _text(self.faces)

    def __repr__(self) -> str:
        return f"Roll.from_notation({self.notation()!r})"

    def __str__(self) -> str:
        return self.notation()

    def __len__(self) -> int:
        return len(self.faces)

    def __iter__(self) -> Iterator[Face]:
        return iter(self.faces)

    def sorted(self) -> Roll:
        """The same dice in canonical order: numbers ascending, then symbol-only dice by name."""
        return Roll(tuple(sorted(self.faces, key=face_order)))

    @property
    def numbers(self) -> tuple[int, ...]:
        """The face numbers known, in order (symbol-only dice left out)."""
        return tuple(face for face in self.faces if isinstance(face, int))

    @property
    def fully_numbered(self) -> bool:
        """True when every die's face number is known."""
        return all(isinstance(face, int) for face in self.faces)

    def number_counts(self) -> Counter[int]:
        return Counter(self.numbers)

    def symbols(self, hero: DiceKey) -> tuple[str, ...]:
        """Each die's symbol under ``hero``'s dice key."""
        return tuple(hero.symbol_for(face) for face in self.faces)

    def symbol_counts(self, hero: DiceKey) -> Counter[str]:
        return Counter(self.symbols(hero))

    def total(self) -> int:
        """The sum of the face numbers ("dmg = the dice total").

        :raises InvalidRollError: when a die's number is unknown.
        """
        if not self.fully_numbered:
            raise InvalidRollError(f"a dice total needs every face number: {self.notation()!r}")
        return sum(self.numbers)

    def __add__(self, other: Roll) -> Roll:
        return Roll(self.faces + other.faces)


def face_order(face: Face) -> tuple[int, str]:
    """Sort key putting numbers first (ascending), then symbol names."""
    if isinstance(face, int):
        return (face, "")
    return (7, face)


def _text(faces: Iterable[Face]) -> str:
    return " ".join(str(face) for face in faces)
