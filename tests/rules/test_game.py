import pytest

from rules.dicethrone.damage import Portion
from rules.errors import IllegalActionError, InvalidRollError
from rules.dicethrone.game import MAX_CP, Game, GameMode, Phase, TargetRule
from rules.unsure import OneOf


def to_phase(game, phase):
    while game.phase is not phase:
        game.advance()
    return game


def test_first_turn_start_player_skips_income():
    game = Game.new(["barbarian", "moon-elf"])
    assert game.mode is GameMode.ONE_VS_ONE and game.phase is Phase.UPKEEP
    assert game.advance() is Phase.MAIN_1
    assert (game.active_player.cp, game.active_player.hand) == (2, 4)
    assert any("skips the first Income Phase" in line for line in game.log)


def test_second_player_gets_income_and_phases_run_in_order():
    game = Game.new(["barbarian", "moon-elf"])
    seen = [game.phase]
    while game.turn == 1:
        seen.append(game.advance())
    # no ability chosen: no targeting, no defense
    assert seen == [Phase.UPKEEP, Phase.MAIN_1, Phase.OFFENSIVE_ROLL, Phase.MAIN_2, Phase.DISCARD, Phase.UPKEEP]
    assert game.active_player.index == 1
    assert game.advance() is Phase.INCOME
    assert (game.active_player.cp, game.active_player.hand) == (3, 5)


def test_cp_never_above_fifteen():
    game = Game.new(["barbarian", "moon-elf"])
    game.players[1].cp = MAX_CP
    to_phase(game, Phase.DISCARD).advance()
    game.advance()
    assert game.players[1].cp == MAX_CP and game.players[1].hand == 5


def test_three_offensive_roll_attempts_then_illegal():
    game = to_phase(Game.new(["barbarian", "moon-elf"]), Phase.OFFENSIVE_ROLL)
    for roll in ["1 1 4 5 6", "1 1 1 5 6", "1 1 1 1 6"]:
        game.record_offensive_roll(roll)
    assert game.roll_attempts_left == 0
    with pytest.raises(IllegalActionError, match=r"up to 3 roll attempts"):
        game.record_offensive_roll("1 1 1 1 1")


def test_offensive_roll_needs_five_dice():
    game = to_phase(Game.new(["barbarian", "moon-elf"]), Phase.OFFENSIVE_ROLL)
    with pytest.raises(InvalidRollError, match="'1 2 3 4'"):
        game.record_offensive_roll("1 2 3 4")


def test_selecting_an_unmet_ability_names_the_rule():
    game = to_phase(Game.new(["barbarian", "moon-elf"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 1 4 5 6")
    with pytest.raises(IllegalActionError, match=r"does not meet 'Smack'.*\(Activation Requirement\)"):
        game.select_ability("smack")


def test_rolling_outside_the_roll_phase_is_illegal():
    game = Game.new(["barbarian", "moon-elf"])
    with pytest.raises(IllegalActionError, match=r"Offensive Roll Phase only"):
        game.record_offensive_roll("1 1 1 1 1")


def test_attack_with_defense_full_exchange():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")  # 9 normal dmg: defendable
    assert game.advance() is Phase.DEFENSIVE_ROLL
    assert game.defense == "Holy Defense"
    effect = game.record_defensive_roll("1 3 5")  # sword 1 back, helm prevent 1, heart prevent 2
    assert (effect.counter, effect.prevent) == (1, 3)
    with pytest.raises(IllegalActionError, match=r"single time"):
        game.record_defensive_roll("1 1 1")
    assert game.advance() is Phase.MAIN_2
    assert game.health(1) == 50 - 6 and game.health(0) == 50 - 1
    assert game.exchange.damage.total == 6


def test_no_defense_against_undefendable_or_ultimate():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 1 6 6 4")
    game.select_ability("Sturdy Blow")
    assert not game.defense_allowed
    assert game.advance() is Phase.MAIN_2
    assert game.health(1) == 46

    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("6 6 6 6 6")
    game.select_ability("Rage!")
    assert game.advance() is Phase.MAIN_2
    assert game.health(1) == 35


def test_no_defense_without_an_attack():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("4 4 5 1 1")
    game.select_ability("Fortitude")  # heal only: not an Attack
    assert game.advance() is Phase.MAIN_2
    assert game.health(0) == 54  # heal 4 from 50


def test_heal_capped_at_ten_above_start():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.team_health[0] = 58
    game.record_offensive_roll("4 4 5 5 4")  # heal 6
    game.select_ability("Fortitude")
    game.advance()
    assert game.health(0) == 60


def test_ultimate_damage_cannot_be_reduced():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("6 6 6 6 6")
    game.select_ability("Rage!")
    with pytest.raises(IllegalActionError, match="ultimate damage cannot be reduced"):
        game.modify_damage(-3)
    with pytest.raises(IllegalActionError, match="ultimate damage cannot be reduced"):
        game.add_portion(Portion.prevent_half())
    game.modify_damage(+2)
    assert game.resolve().damage.total == 17


def test_bonus_roll_must_be_made_before_moving_on():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 2 3 6 6")
    game.select_ability("Overpower")
    with pytest.raises(IllegalActionError, match=r"rolls 3 dice first \(Roll \[#\]\)"):
        game.advance()
    effect = game.record_bonus_roll("6 5 4")
    assert effect.damage == 15


def test_discard_down_to_six():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.DISCARD)
    game.active_player.hand = 8
    with pytest.raises(IllegalActionError, match=r"holds 8 cards: sell down to 6 \(Discard Phase\)"):
        game.advance()
    game.sell_card()
    game.sell_card()
    assert game.active_player.cp == 4
    assert game.advance() is Phase.UPKEEP


def test_selling_outside_main_or_discard_is_illegal():
    game = Game.new(["barbarian", "paladin"])
    with pytest.raises(IllegalActionError, match=r"\(Sell\)"):
        game.sell_card()


def test_undo_takes_back_one_step_at_a_time():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    game.advance()
    game.record_defensive_roll("6 6 6")
    game.undo()
    assert game.defense_roll is None and game.phase is Phase.DEFENSIVE_ROLL
    game.undo()
    assert game.phase is Phase.OFFENSIVE_ROLL and game.selected.ability == "Mighty Blow"
    game.undo()
    game.undo()
    assert game.offensive_roll is None and game.roll_attempts_left == 3


def test_failed_action_changes_nothing():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 4 4 5 6")
    before = (len(game.log), game.roll_attempts_left, game.selected)
    with pytest.raises(IllegalActionError):
        game.select_ability("Smack")
    assert (len(game.log), game.roll_attempts_left, game.selected) == before
    game.undo()  # the failed action left no step to undo: this takes back the roll
    assert game.offensive_roll is None


def test_copy_is_independent():
    game = Game.new(["barbarian", "paladin"])
    other = game.copy()
    other.advance()
    assert game.phase is Phase.UPKEEP and other.phase is Phase.MAIN_1
    assert other.players[0].hero is game.players[0].hero


def test_defeat_ends_the_game_and_simultaneous_zero_is_a_draw():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.team_health[1] = 9
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    game.advance()
    game.record_defensive_roll("1 1 1")  # 3 back, nothing prevented
    game.advance()
    assert game.health(1) == 0 and game.health(0) == 47
    assert game.outcome is not None and game.outcome.winner == 0

    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.team_health[0] = 1
    game.team_health[1] = 9
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    game.advance()
    game.record_defensive_roll("1 2 6")  # 2 back: attacker at 1 falls; 9 taken
    game.advance()
    assert game.outcome is not None and game.outcome.draw
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.advance()


def test_two_v_two_shares_health_and_zigzags():
    game = Game.new(["barbarian", "moon-elf", "paladin", "monk"])
    assert game.mode is GameMode.TWO_VS_TWO
    assert [p.team for p in game.players] == [0, 1, 0, 1]
    assert game.team_health == {0: 50, 1: 50}
    to_phase(game, Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    assert game.advance() is Phase.TARGETING_ROLL
    with pytest.raises(IllegalActionError, match="only a 5 or 6"):
        game.choose_target(1)
    assert game.record_targeting_roll(3) is TargetRule.RIGHT
    assert game.defender.index == 3
    assert game.advance() is Phase.DEFENSIVE_ROLL
    game.record_defensive_roll("3 3 3 3")  # Meditation: no fist, no damage back
    game.advance()
    assert game.health(1) == game.health(3) == 41


@pytest.mark.parametrize("die, rule", [(1, TargetRule.LEFT), (2, TargetRule.LEFT), (3, TargetRule.RIGHT), (4, TargetRule.RIGHT), (5, TargetRule.OPPONENTS_CHOOSE), (6, TargetRule.ATTACKER_CHOOSES)])
def test_targeting_die(die, rule):
    assert TargetRule.for_die(die) is rule


def _two_v_two_at_the_targeting_roll():
    game = to_phase(Game.new(["barbarian", "moon-elf", "paladin", "monk"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    game.advance()
    return game


@pytest.mark.parametrize("die, defender", [("1|2", 1), ("4|3", 3)])
def test_a_targeting_die_read_as_two_numbers_of_one_rule_is_enough(die, defender):
    game = _two_v_two_at_the_targeting_roll()
    rule = game.record_targeting_roll(OneOf.from_notation(die))
    assert game.defender.index == defender and rule is TargetRule.for_die(int(die[0]))
    assert game.actions[-1] == f"target-roll {die}"
    assert f"targeting die {OneOf.from_notation(die).said()}: {rule.value}" in game.log[-1]
    again = _two_v_two_at_the_targeting_roll()
    again.play(f"target-roll {die}")
    assert again.to_json() == game.to_json() and again.targeting_die == OneOf.from_notation(die)


@pytest.mark.parametrize("die", ["2|3", "4|5", "5|6"])
def test_a_targeting_die_read_as_numbers_of_two_rules_is_refused(die):
    game = _two_v_two_at_the_targeting_roll()
    with pytest.raises(InvalidRollError, match="changes what the targeting die does: set it"):
        game.play(f"target-roll {die}")
    assert game.targeting_die is None and game.target is None
    assert game.record_targeting_roll(2) is TargetRule.LEFT


def test_two_v_two_choice_on_six():
    game = to_phase(Game.new(["barbarian", "moon-elf", "paladin", "monk"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 1 6 6 4")
    game.select_ability("Sturdy Blow")
    game.advance()
    game.record_targeting_roll(6)
    with pytest.raises(IllegalActionError, match="not an opponent"):
        game.choose_target(2)
    game.choose_target(1)
    assert game.advance() is Phase.MAIN_2  # undefendable: no defensive roll
    assert game.team_health[1] == 46


def test_king_of_the_hill_health_and_leader_bonus():
    game = Game.new(["barbarian", "moon-elf", "paladin"])
    assert game.mode is GameMode.KING_OF_THE_HILL and game.health(2) == 35
    to_phase(game, Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 1 6 6 4")
    game.select_ability("Sturdy Blow")
    game.advance()
    with pytest.raises(IllegalActionError, match="choose the target first"):
        game.advance()
    game.choose_target(2)  # everyone tied at 35: a tied leader still earns the card
    assert game.active_player.hand == 5
    game.advance()
    assert game.health(2) == 31


def test_king_of_the_hill_sole_leader_earns_no_card():
    game = Game.new(["barbarian", "moon-elf", "paladin"])
    game.team_health.update({1: 30, 2: 30})
    to_phase(game, Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 1 6 6 4")
    game.select_ability("Sturdy Blow")
    game.advance()
    game.choose_target(1)
    assert game.active_player.hand == 4


def test_defender_with_two_defenses_chooses_before_rolling():
    game = to_phase(Game.new(["barbarian", "spider-man"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    game.advance()
    with pytest.raises(IllegalActionError, match="choose the defense first: Spider-Sense, Counterpunch"):
        game.record_defensive_roll("6 1")
    game.choose_defense("spider-sense")
    game.record_defensive_roll("6 1")
    game.advance()
    assert game.health(1) == 50 - 4  # 9 halved, rounded up prevention: 9 - 5


def test_game_needs_the_right_number_of_players():
    with pytest.raises(IllegalActionError, match="5 players"):
        Game.new(["barbarian"] * 5)


def test_king_of_the_hill_self_only_ability_needs_no_target():
    game = to_phase(Game.new(["barbarian", "moon-elf", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("4 4 5 1 1")
    game.select_ability("Fortitude")
    assert not game.needs_target
    assert game.advance() is Phase.MAIN_2
    assert game.health(0) == 39


def test_king_of_the_hill_no_damage_but_inflicts_still_targets():
    game = to_phase(Game.new(["treant", "moon-elf", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("4 5 6 6 1")
    game.select_ability("Tend")  # inflicts Barbed Vine
    assert game.needs_target
    assert game.advance() is Phase.TARGETING_ROLL
