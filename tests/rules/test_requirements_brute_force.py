"""Straight and n-of-a-kind detection against brute force over all 7,776 five-dice rolls."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Roll
from rules.dicethrone.heroes import load_hero
from rules.dicethrone.requirements import Requirement, RequirementKind

ALL_ROLLS = list(itertools.product(range(1, 7), repeat=5))
HERO = load_hero("barbarian")


def brute_straight(values, length):
    return any(all(v in values for v in range(start, start + length)) for start in range(1, 8 - length))


def brute_of_a_kind(values, n):
    return any(values.count(v) >= n for v in range(1, 7))


def test_small_straight_matches_brute_force_on_every_roll():
    small = Requirement.from_notation("small straight")
    hits = [r for r in ALL_ROLLS if small.met_by(HERO, Roll(r))]
    assert hits == [r for r in ALL_ROLLS if brute_straight(r, 4)]
    assert len(hits) == 1200  # 25/162 of 7,776


def test_large_straight_matches_brute_force_and_implies_small():
    large = Requirement.from_notation("large straight")
    small = Requirement.from_notation("small straight")
    hits = [r for r in ALL_ROLLS if large.met_by(HERO, Roll(r))]
    assert hits == [r for r in ALL_ROLLS if brute_straight(r, 5)]
    assert len(hits) == 240
    assert all(small.met_by(HERO, Roll(r)) for r in hits)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_n_of_a_kind_matches_brute_force(n):
    req = Requirement.from_notation(f"{n} of a kind")
    assert [r for r in ALL_ROLLS if req.met_by(HERO, Roll(r))] == [r for r in ALL_ROLLS if brute_of_a_kind(r, n)]


def test_count_based_check_agrees_with_the_dice_based_one():
    symbol_faces = HERO.symbol_faces()
    for text in ["small straight", "large straight", "3 of a kind", "2 sword + 2 strength", "3 heart"]:
        req = Requirement.from_notation(text)
        for r in ALL_ROLLS:
            counts = [0] * 7
            for v in r:
                counts[v] += 1
            assert req.met_by_counts(counts, symbol_faces) == req.met_by(HERO, Roll(r)), (text, r)


@given(st.lists(st.integers(1, 6), min_size=1, max_size=5))
def test_matched_dice_really_meet_the_requirement(values):
    roll = Roll(tuple(values))
    for text in ["small straight", "large straight", "3 of a kind", "2 sword + 1 heart"]:
        req = Requirement.from_notation(text)
        used = req.match(HERO, roll)
        if used is not None:
            assert len(used) == req.dice_needed == len(set(used))
            assert req.met_by(HERO, Roll(tuple(roll.faces[i] for i in used)))


requirements = st.one_of(
    st.sampled_from(["small straight", "large straight"]),
    st.integers(2, 5).map(lambda n: f"{n} of a kind"),
    st.lists(st.tuples(st.integers(1, 2), st.sampled_from(["sword", "heart", "strength"])), min_size=1, max_size=2, unique_by=lambda t: t[1]).map(
        lambda terms: " + ".join(f"{n} {s}" for n, s in terms)
    ),
)


@given(requirements)
def test_requirement_notation_round_trips(text):
    req = Requirement.from_notation(text)
    assert Requirement.from_notation(req.notation()) == req
    assert eval(repr(req)) == req


def test_one_each_reads_as_one_of_every_symbol():
    req = Requirement.from_notation("1 each fire, magma, fiery_soul, meteor")
    assert req.kind is RequirementKind.SYMBOLS
    assert req.notation() == "1 fire + 1 magma + 1 fiery_soul + 1 meteor"


@pytest.mark.parametrize("text", ["three sword", "6 sword", "3 sword + 3 heart", "1 of a kind", "medium straight", "2 sword + 1 sword"])
def test_requirement_outside_the_grammar_is_rejected_with_the_text(text):
    with pytest.raises(ValueError, match=repr(text).replace("+", r"\+")):
        Requirement.from_notation(text)
