import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import Roll
from rules.errors import InvalidRollError, RulesError
from rules.dicethrone.heroes import load_hero

faces = st.one_of(st.integers(1, 6), st.sampled_from(["sword", "heart", "strength", "fiery_soul"]))


@given(st.lists(faces, min_size=0, max_size=5))
def test_notation_round_trips(values):
    roll = Roll(tuple(values))
    assert Roll.from_notation(roll.notation()) == roll
    assert eval(repr(roll)) == roll


def test_repr_is_a_constructor_call():
    assert repr(Roll.from_notation("1 1 2 5 6")) == "Roll.from_notation('1 1 2 5 6')"


def test_symbols_with_a_hero_are_checked_and_normalised():
    barbarian = load_hero("barbarian")
    roll = Roll.from_notation("sword sword sword heart pow", barbarian)
    assert roll.notation() == "sword sword sword heart strength"
    assert roll.symbols(barbarian) == ("sword", "sword", "sword", "heart", "strength")
    assert Roll.from_notation("1 2 3 4 6").symbols(barbarian) == roll.symbols(barbarian)


@pytest.mark.parametrize(
    "text, quoted",
    [("1 2 7", "7"), ("0", "0"), ("1 2 x!", "x!"), ("-1", "-1")],
)
def test_bad_rolls_name_the_input(text, quoted):
    with pytest.raises(InvalidRollError, match=quoted) as caught:
        Roll.from_notation(text)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, RulesError)


def test_unknown_symbol_for_a_hero_names_symbol_and_hero():
    with pytest.raises(InvalidRollError, match="Barbarian dice have no symbol 'moon'"):
        Roll.from_notation("1 moon", load_hero("barbarian"))


def test_total_needs_numbers():
    assert Roll.from_notation("3 4 6").total() == 13
    with pytest.raises(InvalidRollError, match="sword"):
        Roll.from_notation("3 sword").total()


def test_sorted_puts_numbers_first():
    assert Roll.from_notation("6 sword 1 3").sorted().notation() == "1 3 6 sword"


def test_a_core_roll_holds_any_number_of_dice():
    # The game checks its own count (a Dice Throne offensive roll has 5); the core does not.
    roll = Roll.from_notation("1 2 3 4 5 6 6 6 1 2")
    assert len(roll) == 10 and Roll.from_notation(roll.notation()) == roll
