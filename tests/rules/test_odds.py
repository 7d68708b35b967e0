import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import Roll
from rules.errors import InvalidRollError, UnknownAbilityError
from rules.dicethrone.heroes import load_hero
from rules.dicethrone.odds import odds, requirement_odds
from rules.dicethrone.requirements import Requirement

BARBARIAN = load_hero("barbarian")


def test_yahtzee_anchor_exact_and_float():
    five = Requirement.from_notation("5 of a kind")
    assert requirement_odds(BARBARIAN, five, None, 3, exact=True) == Fraction(2_783_176, 60_466_176)
    assert requirement_odds(BARBARIAN, five, None, 3) == pytest.approx(2_783_176 / 60_466_176, abs=1e-15)


@pytest.mark.parametrize("text, value", [("small straight", Fraction(1200, 7776)), ("large straight", Fraction(240, 7776))])
def test_single_roll_straight_anchors(text, value):
    assert requirement_odds(BARBARIAN, Requirement.from_notation(text), None, 1, exact=True) == value


def test_restricted_large_straight_strategy_anchor():
    """math.stackexchange Q4032313: a fixed keep policy, not the optimum; checks the DP itself."""

    def policy(state):
        kept = sorted({v for v in state if v in (2, 3, 4, 5)})
        if 1 in state and {2, 3, 4} <= set(kept):
            kept.append(1)
        if 6 in state and {3, 4, 5} <= set(kept):
            kept.append(6)
        return tuple(kept)

    large = Requirement.from_notation("large straight")
    assert requirement_odds(BARBARIAN, large, None, 3, policy=policy) == Fraction(295_073_737, 1_224_440_064)
    # The best keep does at least as well as the fixed policy.
    assert requirement_odds(BARBARIAN, large, None, 3, exact=True) > Fraction(295_073_737, 1_224_440_064)


def brute_force_one_reroll(requirement, dice):
    """Best chance over every keep subset by index and every outcome of the rerolled dice."""
    best = Fraction(0)
    for mask in range(32):
        kept = [d for i, d in enumerate(dice) if mask >> i & 1]
        outcomes = list(itertools.product(range(1, 7), repeat=5 - len(kept)))
        hits = sum(requirement.met_by(BARBARIAN, Roll(tuple(kept) + o)) for o in outcomes)
        best = max(best, Fraction(hits, len(outcomes)))
    return best


@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.integers(1, 6), min_size=5, max_size=5),
    st.sampled_from(["small straight", "large straight", "3 of a kind", "4 of a kind", "2 sword + 2 strength", "3 heart"]),
)
def test_one_reroll_matches_enumeration(dice, text):
    requirement = Requirement.from_notation(text)
    expected = brute_force_one_reroll(requirement, dice)
    assert requirement_odds(BARBARIAN, requirement, dice, 1, exact=True) == expected
    assert requirement_odds(BARBARIAN, requirement, dice, 1) == pytest.approx(float(expected), abs=1e-12)


def test_float_matches_exact_for_every_ability_of_a_hero():
    report = odds(BARBARIAN, None, 3)
    for entry in report.abilities:
        requirement = BARBARIAN.ability(entry.ability).tiers[0].requirement
        exact = requirement_odds(BARBARIAN, requirement, None, 3, exact=True)
        assert entry.probability == pytest.approx(float(exact), abs=1e-12)


def test_report_shape_and_keep_advice():
    report = odds(BARBARIAN, BARBARIAN.roll("1 2 3 5 6"), 2)
    by_name = {a.ability: a for a in report.abilities}
    assert by_name["Smack"].probability == 1.0 and by_name["Smack"].keep == (1, 2, 3, 5, 6)
    assert by_name["Rage!"].keep == (6,)
    assert by_name["Reckless"].keep == (1, 2, 3, 5) or by_name["Reckless"].keep == (2, 3, 5, 6)
    assert by_name["Reckless"].probability == pytest.approx(11 / 36)
    assert [a.probability for a in report.abilities] == sorted((a.probability for a in report.abilities), reverse=True)
    data = report.to_json()
    assert set(data) == {"hero", "dice", "rolls_left", "abilities", "best"}
    assert data["abilities"][0] == {"ability": "Smack", "probability": 1.0, "keep": [1, 2, 3, 5, 6]}
    assert set(data["best"]) >= {"keep", "expected_damage"}


def test_more_rolls_never_hurt():
    previous = [0.0] * 8
    for rolls in range(1, 5):
        current = [a.probability for a in sorted(odds(BARBARIAN, None, rolls).abilities, key=lambda a: a.ability)]
        assert all(c >= p for c, p in zip(current, previous))
        previous = current


def test_zero_rolls_left_is_whether_the_dice_already_meet_it():
    report = odds(BARBARIAN, BARBARIAN.roll("6 6 6 6 1"), 0)
    by_name = {a.ability: a.probability for a in report.abilities}
    assert by_name["Crit Bash"] == 1.0 and by_name["Rage!"] == 0.0


def test_target_ability_advice():
    report = odds(BARBARIAN, BARBARIAN.roll("6 6 6 1 4"), 1, target="rage")
    assert report.best.target == "Rage!" and report.best.keep == (6, 6, 6)
    assert report.best.probability == pytest.approx(1 / 36)
    with pytest.raises(UnknownAbilityError):
        odds(BARBARIAN, None, 3, target="Fireball")


def test_symbol_dice_only_where_the_number_is_certain():
    assert odds(BARBARIAN, BARBARIAN.roll("strength 6 6 6 1"), 0).abilities[0].ability == "Crit Bash"
    with pytest.raises(InvalidRollError, match="face number of 'sword'"):
        odds(BARBARIAN, BARBARIAN.roll("sword 6 6 6 1"), 1)


@pytest.mark.parametrize("dice, rolls, message", [("1 2 3", 1, "all 5 dice"), (None, 0, "nothing to compute"), (None, -1, "rolls left")])
def test_bad_odds_input(dice, rolls, message):
    with pytest.raises(InvalidRollError, match=message):
        odds(BARBARIAN, None if dice is None else BARBARIAN.roll(dice), rolls)
