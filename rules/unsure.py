"""Rolls with dice read as one of a few faces: decide what does not depend on which, ask for the rest.

A camera may see that a die shows a sword but not whether its corner number is 1 or 3. Most of
what a roll does needs only the symbol, so such a die is kept as the symbol it shows when every
number it may be makes the roll do the same; only a die whose number changes what the roll does
is to be set at the table::

    >>> from rules.dicethrone.heroes import load_hero
    >>> from rules.dicethrone.scoring import activations
    >>> hero = load_hero("barbarian")
    >>> does = lambda roll: frozenset((a.ability, a.tier) for a in activations(hero, roll))
    >>> settle([(1, 3), 1, 1, 4, 5], hero, does)
    Settled(roll=Roll.from_notation('sword 1 1 4 5'), to_set=())
    >>> settle([(1, 2), 3, 4, 5, 6], hero, does).to_set   # 1 or 2 makes a straight or not
    (0,)

A lone die whose number is read off a table (Blinded's 1-2, a 2v2 targeting die) is recorded as
every number it may be, :class:`OneOf`, when they all say the same::

    >>> decide(OneOf.from_notation("4|5"), lambda n: n in (1, 2), "Blinded")
    False
    >>> decide(OneOf((2, 3)), lambda n: n in (1, 2), "Blinded")
    Traceback (most recent call last):
    ...
    rules.errors.InvalidRollError: a die read as 2 or 3 changes what Blinded does: set it

Game-agnostic: the game says what a roll does (``outcome``); its dice key names the symbols.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rules.dice import FACES, DiceKey, Face, Roll, check_face, whole_number
from rules.errors import InvalidRollError

#: The most ways a roll's unsure dice may be read that are tried; beyond, every unsure die is asked for.
MAX_RESOLUTIONS = 729

UnsureFace = Face | tuple[int, ...]
"""A die's face as read: a face, or the numbers 1-6 it may be (likeliest first)."""

_Outcome = TypeVar("_Outcome", bound=Hashable)


@dataclass(frozen=True)
class OneOf:
    """A die read as one of two or more numbers (likeliest first), in notation ``4|5``."""

    numbers: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.numbers) < 2:
            raise InvalidRollError(f"a die read as one of a few numbers needs two or more, not {self.numbers!r}")
        if len(set(self.numbers)) != len(self.numbers):
            raise InvalidRollError(f"a die's candidate numbers repeat: {self.notation()}")
        for number in self.numbers:
            if isinstance(number, bool) or number not in FACES:
                raise InvalidRollError(f"a die shows 1 to 6, not {number!r}")

    @classmethod
    def from_notation(cls, text: str) -> OneOf:
        """``4|5`` (at least two numbers 1-6, none twice).

        :raises InvalidRollError: on anything else.
        """
        numbers = [whole_number(part) for part in text.strip().split("|")]
        if len(numbers) < 2 or any(n is None for n in numbers):
            raise InvalidRollError(f"expected numbers such as 4|5, got {text!r}")
        return cls(tuple(n for n in numbers if n is not None))

    def notation(self) -> str:
        return "|".join(str(n) for n in self.numbers)

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"OneOf.from_notation({self.notation()!r})"

    def said(self) -> str:
        """``4 or 5``; ``1, 2 or 3``."""
        words = [str(n) for n in self.numbers]
        return f"{', '.join(words[:-1])} or {words[-1]}"



def said(die: int | OneOf) -> str:
    """A lone die as a player says it: ``4``, or ``4 or 5`` for a die read as either."""
    return die.said() if isinstance(die, OneOf) else str(die)


def decide(die: int | OneOf, outcome: Callable[[int], _Outcome], what: str) -> _Outcome:
    """What a lone die does (``outcome`` of its number), read as a number or as :class:`OneOf`.

    :raises InvalidRollError: when the numbers a die may be do not all do the same, naming
        ``what`` it decides (the table sets such a die).
    """
    if not isinstance(die, OneOf):
        return outcome(die)
    results = {outcome(number) for number in die.numbers}
    if len(results) > 1:
        raise InvalidRollError(f"a die read as {die.said()} changes what {what} does: set it")
    return results.pop()


@dataclass(frozen=True)
class Settled:
    """What a roll with unsure dice comes to: the roll to record when the unsure numbers do not
    change what it does (each unsure die as the symbol its numbers share), else ``None``; and the
    dice (indexes) whose number changes it, to be set at the table."""

    roll: Roll | None
    to_set: tuple[int, ...]


def _numbers(face: UnsureFace) -> tuple[Face, ...]:
    if isinstance(face, tuple):
        if not face:
            raise InvalidRollError("an unsure die needs at least one number it may be")
        return tuple(check_face(number) for number in face)
    return (check_face(face),)


def settle(faces: Sequence[UnsureFace], key: DiceKey, outcome: Callable[[Roll], Hashable]) -> Settled:
    """Settles a roll whose dice may be unsure (see the module docstring).

    A die is asked for when its number changes ``outcome`` with the other dice read any way
    they may be, or when its numbers do not share one symbol (a face must be recorded). When the
    dice only jointly change it, all unsure dice are asked for.

    :raises InvalidRollError: on a face that is not one.
    """
    choices = [_numbers(face) for face in faces]
    unsure = [i for i, numbers in enumerate(choices) if len(numbers) > 1]
    if not unsure:
        return Settled(Roll(tuple(numbers[0] for numbers in choices)), ())
    symbols = {i: {key.symbol_for(number) for number in choices[i]} for i in unsure}
    mixed = tuple(i for i in unsure if len(symbols[i]) > 1)
    total = 1
    for i in unsure:
        total *= len(choices[i])
    if total > MAX_RESOLUTIONS:
        return Settled(None, tuple(unsure))
    results = {ways: outcome(Roll(ways)) for ways in itertools.product(*choices)}
    if len(set(results.values())) == 1 and not mixed:
        common = next(iter(results.values()))
        kept = Roll(tuple(next(iter(symbols[i])) if i in symbols else choices[i][0] for i in range(len(choices))))
        try:
            same = outcome(kept) == common
        except InvalidRollError:
            same = False  # the outcome is reckoned from every number (a dice total)
        if same:
            return Settled(kept, ())
        # The symbols alone do not make the roll do what every way of reading it does (a
        # straight counts numbers): the numbers are needed.
        return Settled(None, tuple(unsure))
    matters = tuple(i for i in unsure if i in mixed or _changes(results, i))
    return Settled(None, matters or tuple(unsure))


def _changes(results: dict[tuple[Face, ...], Hashable], index: int) -> bool:
    """Whether die ``index``'s number changes the outcome with the other dice held as they are."""
    seen: dict[tuple[Face, ...], Hashable] = {}
    for ways, result in results.items():
        rest = ways[:index] + ways[index + 1 :]
        if rest in seen and seen[rest] != result:
            return True
        seen.setdefault(rest, result)
    return False
