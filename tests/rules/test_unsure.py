"""Rolls with unsure dice: what does not depend on the number is decided, the rest is asked for."""

from __future__ import annotations

import pytest

from rules.dice import Roll
from rules.dicethrone.heroes import load_hero
from rules.dicethrone.scoring import activations
from rules.errors import InvalidRollError
from rules.unsure import MAX_RESOLUTIONS, OneOf, Settled, decide, settle

BARBARIAN = load_hero("barbarian")  # faces: sword sword sword heart heart strength


def does(roll: Roll) -> frozenset[tuple[str, int]]:
    return frozenset((a.ability, a.tier) for a in activations(BARBARIAN, roll))


@pytest.mark.parametrize(
    ("faces", "settled"),
    [
        # Every die known: the roll as read.
        ([1, 2, 3, 4, 5], Settled(Roll.from_notation("1 2 3 4 5"), ())),
        # Sword 1 or 3 with no straight in reach: three swords either way, kept as the symbol.
        ([(1, 3), 1, 1, 4, 6], Settled(Roll.from_notation("sword 1 1 4 6"), ())),
        # Sword 1 or 2 beside 3 4 5 6: a large straight only with the 2; the die is asked for.
        ([(1, 2), 3, 4, 5, 6], Settled(None, (0,))),
        # Sword 3 or heart 4: the symbol itself is unsure, the die is asked for.
        ([(3, 4), 1, 1, 6, 6], Settled(None, (0,))),
        # Two unsure dice, only one of which changes the roll: only it is asked for.
        ([(1, 2), 3, 4, 5, (4, 5)], Settled(None, (0,))),
    ],
)
def test_settle(faces, settled) -> None:
    assert settle(faces, BARBARIAN, does) == settled


def test_a_straight_either_way_is_kept_as_the_symbol() -> None:
    # Sword 1 or 3 beside 3 4 5 6: the small straight stands whichever it is, and with the sword alone.
    result = settle([(1, 3), 3, 4, 5, 6], BARBARIAN, does)
    assert result == Settled(Roll.from_notation("sword 3 4 5 6"), ())


def test_a_large_straight_one_way_and_a_small_the_other_is_asked_for() -> None:
    assert settle([(1, 3), 2, 3, 4, 5], BARBARIAN, does) == Settled(None, (0,))


def test_too_many_ways_asks_for_every_unsure_die() -> None:
    faces = [(1, 2, 3)] * 7
    assert 3**7 > MAX_RESOLUTIONS
    assert settle(faces, BARBARIAN, does) == Settled(None, tuple(range(7)))


def test_a_die_with_no_number_is_invalid() -> None:
    with pytest.raises(InvalidRollError, match="at least one number"):
        settle([(), 1, 2, 3, 4], BARBARIAN, does)
    with pytest.raises(InvalidRollError, match="1 to 6"):
        settle([(1, 9), 1, 2, 3, 4], BARBARIAN, does)


def test_an_outcome_reckoned_from_the_dice_total_needs_the_numbers() -> None:
    # At least 8 in all: 1 or 2 beside 3 and 4 makes 8 or 9, the same outcome either way, but a
    # sword has no number to add, so the die is asked for rather than the roll failing.
    def at_least_eight(roll: Roll) -> bool:
        return roll.total() >= 8

    assert settle([(1, 2), 3, 4], BARBARIAN, at_least_eight) == Settled(None, (0,))


@pytest.mark.parametrize("text", ["4|5", "5|4", "1|2|3", "6|1"])
def test_one_of_round_trips_its_notation(text: str) -> None:
    die = OneOf.from_notation(text)
    assert die.notation() == str(die) == text
    assert eval(repr(die)) == die  # noqa: S307 - the repr is the constructor call


@pytest.mark.parametrize(
    ("text", "why"),
    [("4", "such as 4|5"), ("4|", "such as 4|5"), ("4|x", "such as 4|5"), ("|", "such as 4|5"),
     ("4|4", "repeat"), ("0|1", "1 to 6"), ("6|7", "1 to 6"), ("4|5" + "5" * 40, "such as 4|5")],
)
def test_one_of_refuses_what_is_not_a_few_numbers(text: str, why: str) -> None:
    with pytest.raises(InvalidRollError, match=why):
        OneOf.from_notation(text)


def test_one_of_says_its_numbers_as_a_player_would() -> None:
    assert OneOf((4, 5)).said() == "4 or 5"
    assert OneOf((1, 2, 3)).said() == "1, 2 or 3"


def test_decide_a_lone_die_by_what_every_number_it_may_be_does() -> None:
    low = lambda number: number <= 2  # noqa: E731
    assert decide(3, low, "it") is False
    assert decide(OneOf((1, 2)), low, "it") is True
    assert decide(OneOf((5, 3, 6)), low, "it") is False
    with pytest.raises(InvalidRollError, match="a die read as 2 or 3 changes what the targeting die does: set it"):
        decide(OneOf((2, 3)), low, "the targeting die")
