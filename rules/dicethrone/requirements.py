"""Activation requirements and which abilities a roll activates.

The grammar (canonical text on the left, what it needs on the right)::

    "3 sword"                    at least 3 dice showing sword
    "2 sword + 2 strength"       at least 2 sword and 2 strength on separate dice
    "1 each fire, magma, meteor" one die of each listed symbol (read as "1 fire + 1 magma + 1 meteor")
    "4 of a kind"                4 dice showing the same number (2 to 5)
    "small straight"             4 consecutive numbers (1234, 2345, 3456)
    "large straight"             5 consecutive numbers (12345, 23456); also meets a small straight

Symbols are counted on the hero's dice key; straights and n-of-a-kind on face numbers, so a die
known only by its symbol never counts towards them.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.dicethrone.damage import DamageType
from rules.dice import FACES, Face, Roll
from rules.errors import InvalidRollError

if TYPE_CHECKING:
    from rules.dicethrone.abilities import Ability
    from rules.dicethrone.heroes import Hero

OFFENSIVE_DICE = 5
"""Dice in an offensive roll; no requirement needs more."""

_SMALL_RUNS: tuple[tuple[int, ...], ...] = ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6))
_LARGE_RUNS: tuple[tuple[int, ...], ...] = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))


class RequirementKind(enum.Enum):
    SYMBOLS = "symbols"
    OF_A_KIND = "of a kind"
    SMALL_STRAIGHT = "small straight"
    LARGE_STRAIGHT = "large straight"


class RequirementSyntaxError(InvalidRollError):
    """A requirement string outside the grammar."""


@dataclass(frozen=True)
class Requirement:
    """One activation requirement. Build it with :meth:`from_notation`."""

    kind: RequirementKind
    need: tuple[tuple[str, int], ...] = ()
    """For SYMBOLS: (symbol, minimum count) pairs, in the order written."""
    count: int = 0
    """For OF_A_KIND: how many dice must show the same number."""

    @classmethod
    def from_notation(cls, text: str) -> Requirement:
        """Parses the grammar in the module docstring.

        :raises RequirementSyntaxError: (a ValueError) quoting the text when it is not in the grammar.
        """
        clean = " ".join(text.strip().lower().split())
        if clean == "small straight":
            return cls(RequirementKind.SMALL_STRAIGHT)
        if clean == "large straight":
            return cls(RequirementKind.LARGE_STRAIGHT)
        kind_match = re.fullmatch(r"([2-5]) of a kind", clean)
        if kind_match:
            return cls(RequirementKind.OF_A_KIND, count=int(kind_match.group(1)))
        each_match = re.fullmatch(r"1 each (.+)", clean)
        if each_match:
            names = [name.strip() for name in each_match.group(1).split(",")]
            if len(names) < 2 or not all(re.fullmatch(r"[a-z][a-z0-9_-]*", n) for n in names):
                raise RequirementSyntaxError(f"not a requirement: {text!r}")
            return cls._symbols(text, [(name, 1) for name in names])
        terms: list[tuple[str, int]] = []
        for term in clean.split(" + "):
            term_match = re.fullmatch(r"([1-5])(?: x)? ([a-z][a-z0-9_-]*)", term.strip())
            if not term_match:
                raise RequirementSyntaxError(f"not a requirement: {text!r}")
            terms.append((term_match.group(2), int(term_match.group(1))))
        return cls._symbols(text, terms)

    @classmethod
    def _symbols(cls, text: str, terms: list[tuple[str, int]]) -> Requirement:
        names = [name for name, _ in terms]
        if len(set(names)) != len(names):
            raise RequirementSyntaxError(f"a symbol is listed twice in {text!r}")
        if sum(n for _, n in terms) > OFFENSIVE_DICE:
            raise RequirementSyntaxError(f"needs more than {OFFENSIVE_DICE} dice: {text!r}")
        return cls(RequirementKind.SYMBOLS, need=tuple(terms))

    def notation(self) -> str:
        if self.kind is RequirementKind.SYMBOLS:
            return " + ".join(f"{n} {symbol}" for symbol, n in self.need)
        if self.kind is RequirementKind.OF_A_KIND:
            return f"{self.count} of a kind"
        return str(self.kind.value)

    def __repr__(self) -> str:
        return f"Requirement.from_notation({self.notation()!r})"

    def __str__(self) -> str:
        return self.notation()

    @property
    def dice_needed(self) -> int:
        if self.kind is RequirementKind.SYMBOLS:
            return sum(n for _, n in self.need)
        if self.kind is RequirementKind.OF_A_KIND:
            return self.count
        return 4 if self.kind is RequirementKind.SMALL_STRAIGHT else 5

    @property
    def symbols(self) -> tuple[str, ...]:
        return tuple(symbol for symbol, _ in self.need)

    def match(self, hero: Hero, roll: Roll) -> tuple[int, ...] | None:
        """Indices (into ``roll.faces``) of dice that meet this requirement, or None if it is not met."""
        return self.match_faces(hero, roll.faces)

    def match_faces(self, hero: Hero, faces: Sequence[Face]) -> tuple[int, ...] | None:
        if self.kind is RequirementKind.SYMBOLS:
            shown = [hero.symbol_for(face) for face in faces]
            used: list[int] = []
            for symbol, n in self.need:
                found = [i for i, s in enumerate(shown) if s == symbol]
                if len(found) < n:
                    return None
                used.extend(found[:n])
            return tuple(sorted(used))
        numbered = {face: i for i, face in reversed(list(enumerate(faces))) if isinstance(face, int)}
        if self.kind is RequirementKind.OF_A_KIND:
            # The highest number wins a tie, so the dice shown are the most valuable set.
            for value in sorted(FACES, reverse=True):
                found = [i for i, face in enumerate(faces) if face == value]
                if len(found) >= self.count:
                    return tuple(found[: self.count])
            return None
        runs = _SMALL_RUNS if self.kind is RequirementKind.SMALL_STRAIGHT else _LARGE_RUNS
        for run in reversed(runs):
            if all(value in numbered for value in run):
                return tuple(sorted(numbered[value] for value in run))
        return None

    def met_by(self, hero: Hero, roll: Roll) -> bool:
        return self.match(hero, roll) is not None

    def met_by_counts(self, counts: Sequence[int], symbol_faces: dict[str, tuple[int, ...]]) -> bool:
        """Fast check on face-number counts (``counts[v]`` dice show number v, index 0 unused).

        ``symbol_faces`` maps each symbol to the numbers that show it. Used by :mod:`rules.dicethrone.odds`.
        """
        if self.kind is RequirementKind.SYMBOLS:
            return all(
                sum(counts[v] for v in symbol_faces.get(symbol, ())) >= n for symbol, n in self.need
            )
        if self.kind is RequirementKind.OF_A_KIND:
            return max(counts[1:7]) >= self.count
        runs = _SMALL_RUNS if self.kind is RequirementKind.SMALL_STRAIGHT else _LARGE_RUNS
        return any(all(counts[v] for v in run) for run in runs)


def best_tier(hero: Hero, ability: Ability, roll: Roll) -> tuple[int, tuple[int, ...]] | None:
    """The highest tier (1-based) of ``ability`` that ``roll`` meets, with the dice indices used."""
    for number in range(len(ability.tiers), 0, -1):
        used = ability.tiers[number - 1].requirement.match(hero, roll)
        if used is not None:
            return number, used
    return None
