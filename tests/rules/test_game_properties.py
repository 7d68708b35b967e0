"""Random play: whatever the buttons do, the game stays consistent and BACK restores it exactly."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import RulesError
from rules.dicethrone.game import HEAL_ABOVE_START, MAX_CP, Game, Phase

ROLLS = ["1 2 3 4 5", "6 6 6 6 6", "1 1 2 6 6", "4 4 5 1 1", "1 2 3 4 1", "3 3 3 6 5", "2 2 2 2 2"]
DEFENSES = ["1 3 5", "6 6 6", "4 4 5 5 1", "1 1 1 1", "6 1", "2 2 2", "4 5 6 1 2"]


def summary(game):
    return (
        game.phase, game.turn, game.active, dict(game.team_health),
        tuple((p.cp, p.hand) for p in game.players), game.offensive_attempts,
        game.offensive_roll, game.selected, game.target, game.defense, game.defense_roll,
        game.exchange, game.outcome, len(game.log),
    )


actions = st.lists(
    st.one_of(
        st.just(("advance",)),
        st.tuples(st.just("roll"), st.sampled_from(ROLLS)),
        st.tuples(st.just("select"), st.sampled_from(["Smack", "Rage!", "Mighty Blow", "Sturdy Blow", "Fortitude", "Punch", None])),
        st.tuples(st.just("bonus"), st.sampled_from(["6 5 4", "1 2", "3"])),
        st.tuples(st.just("defend"), st.sampled_from(DEFENSES)),
        st.tuples(st.just("target"), st.integers(0, 3)),
        st.tuples(st.just("targeting"), st.integers(1, 6)),
        st.tuples(st.just("choose_defense"), st.sampled_from(["Spider-Sense", "Counterpunch", "Thick Skin"])),
        st.just(("sell",)),
        st.just(("undo",)),
    ),
    max_size=60,
)


def apply(game, action):
    name, *args = action
    method = {
        "advance": game.advance, "roll": game.record_offensive_roll, "select": game.select_ability,
        "bonus": game.record_bonus_roll, "defend": game.record_defensive_roll, "target": game.choose_target,
        "targeting": game.record_targeting_roll, "choose_defense": game.choose_defense, "sell": game.sell_card,
        "undo": game.undo,
    }[name]
    method(*args)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([["barbarian", "spider-man"], ["barbarian", "spider-man", "monk"], ["barbarian", "spider-man", "paladin", "moon-elf"]]), actions)
def test_random_play_keeps_the_game_consistent(heroes, steps):
    game = Game.new(heroes)
    for action in steps:
        before = summary(game)
        try:
            apply(game, action)
        except RulesError:
            assert summary(game) == before  # a refused action changes nothing
            continue
        if action[0] != "undo":
            after = summary(game)
            copy = game.copy()
            copy.undo()
            assert summary(copy) == before
            assert summary(game) == after
        cap = game.starting_health + HEAL_ABOVE_START
        assert all(0 <= h <= cap for h in game.team_health.values())
        assert all(0 <= p.cp <= MAX_CP and p.hand >= 0 for p in game.players)
        assert game.roll_attempts_left >= 0
        if game.phase is Phase.DEFENSIVE_ROLL:
            assert game.defense_allowed
