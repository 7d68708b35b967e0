"""Status effects: data, gained and inflicted by abilities, spent when the book allows, stack limits,
upkeep damage and the moments statuses act."""

import pytest

from rules.dicethrone.game import Game, Phase
from rules.dicethrone.heroes import all_heroes
from rules.dicethrone.statuses import (
    SpendKind,
    all_statuses,
    find_status,
    parse_status_phrase,
    status_from_table,
)
from rules.errors import HeroDataError, IllegalActionError, InvalidRollError
from rules.games import InvalidActionError
from rules.unsure import OneOf


def to_phase(game, phase):
    while game.phase is not phase:
        game.advance()
    return game


def next_turn(game):
    game.advance()
    while game.phase is not Phase.UPKEEP:
        game.advance()
    return game


def test_every_status_the_shipped_heroes_name_is_data():
    named = set()
    for hero in all_heroes():
        for ability in hero.abilities:
            for effect in ability.all_effects():
                for phrase in effect.statuses:
                    for option in phrase.split(" or "):
                        words = option if option.startswith(("gain", "inflict", "a player")) else "gain " + option
                        change = parse_status_phrase(words)
                        if change is not None and change.status:
                            named.add(change.status)
    known = {s.name for s in all_statuses()}
    assert named <= known
    assert {"Poison", "Evasive", "Agility", "Time Bomb", "Knockdown", "Burn", "Targeted"} <= named


def test_unknown_facts_are_recorded_not_guessed():
    time_bomb = find_status("Time Bomb")
    assert time_bomb.stack_limit is None and "damage" in time_bomb.unknown


def test_a_bad_status_table_names_the_key():
    with pytest.raises(HeroDataError, match=r"statuses\[0\]\.spend: expected one of"):
        status_from_table({"name": "X", "hero": "y", "spend": "explode"}, "statuses.toml: statuses[0]")


def test_an_ability_inflicts_and_the_stack_limit_holds():
    game = to_phase(Game.new(["shadow-thief", "barbarian"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 1 1 6 6")  # Dagger Strike with two shadows: Poison per shadow
    game.select_ability("Dagger Strike")
    game.players[1].statuses["Poison"] = 2
    game.advance()
    game.record_defensive_roll("1 1 1")
    game.advance()
    assert game.players[1].statuses["Poison"] == 3  # stack limit 3
    assert any("stack limit 3" in line for line in game.log)


def test_poison_deals_damage_per_token_in_upkeep_and_stays():
    game = Game.new(["barbarian", "shadow-thief"])
    game.players[1].statuses["Poison"] = 2
    to_phase(game, Phase.MAIN_2)
    next_turn(game)  # Shadow Thief's turn begins
    game.advance()
    assert game.health(1) == 48 and game.players[1].statuses["Poison"] == 2


def test_status_damage_in_upkeep_can_end_the_game():
    game = Game.new(["barbarian", "shadow-thief"])
    game.players[1].statuses["Burn"] = 1
    game.team_health[1] = 2
    to_phase(game, Phase.MAIN_2)
    next_turn(game)
    game.advance()
    assert game.outcome is not None and game.winner_name() == "Player 1"


def test_protect_halves_the_incoming_damage_in_the_window():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.players[1].statuses["Protect"] = 1
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")  # 9 dmg
    game.advance()
    game.record_defensive_roll("1 1 1")  # 3 swords: 3 dmg back, nothing prevented
    assert game.spend_status(1, "Protect") is True
    game.advance()
    assert game.health(1) == 50 - 4 and "Protect" not in game.players[1].statuses


@pytest.mark.parametrize("die, taken", [(2, 0), (5, 9)])
def test_evasive_rolls_a_die_and_only_a_success_negates(die, taken):
    game = to_phase(Game.new(["barbarian", "monk"]), Phase.OFFENSIVE_ROLL)
    game.players[1].statuses["Evasive"] = 2
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    with pytest.raises(IllegalActionError, match="rolls 1 die first"):
        game.spend_status(1, "Evasive")
    game.spend_status(1, "Evasive", die=die)
    game.advance()
    defense = game.defender.hero.defensive_abilities()[0]
    game.record_defensive_roll(" ".join(["3"] * defense.defense_dice))
    game.advance()
    assert game.exchange.damage.total == taken and game.players[1].statuses["Evasive"] == 1


def _evasive_against_mighty_blow():
    game = to_phase(Game.new(["barbarian", "monk"]), Phase.OFFENSIVE_ROLL)
    game.gain_status(1, "Evasive", 2)
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    return game


@pytest.mark.parametrize("die, works", [("1|2", True), ("4|5", False), ("6|3", False)])
def test_evasive_takes_a_die_read_as_numbers_that_all_say_the_same(die, works):
    game = _evasive_against_mighty_blow()
    assert game.spend_status(1, "Evasive", die=OneOf.from_notation(die)) is works
    assert game.actions[-1] == f"spend P2 Evasive {die}" and game.players[1].statuses["Evasive"] == 1
    again = _evasive_against_mighty_blow()
    again.play(f"spend P2 Evasive {die}")
    assert again.to_json() == game.to_json()


def test_evasive_refuses_a_die_read_as_numbers_that_say_differently():
    game = _evasive_against_mighty_blow()
    actions = game.actions
    with pytest.raises(InvalidRollError, match="a die read as 2 or 3 changes what Evasive does: set it"):
        game.play("spend P2 Evasive 2|3")
    assert game.players[1].statuses["Evasive"] == 2 and game.actions == actions


def test_a_defender_cannot_spend_against_an_ultimate():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.players[1].statuses["Protect"] = 1
    game.record_offensive_roll("6 6 6 6 6")
    game.select_ability("Rage!")
    with pytest.raises(IllegalActionError, match=r"\(Ultimate Ability\)"):
        game.spend_status(1, "Protect")


def test_another_player_cannot_reduce_the_defenders_damage():
    game = to_phase(Game.new(["barbarian", "paladin", "monk"]), Phase.OFFENSIVE_ROLL)
    game.players[2].statuses["Chi"] = 1
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    game.advance()
    game.choose_target(1)
    with pytest.raises(IllegalActionError, match="another player's incoming damage"):
        game.spend_status(2, "Chi")


def test_crit_adds_four_to_an_attack_of_five_or_more():
    game = to_phase(Game.new(["paladin", "barbarian"]), Phase.OFFENSIVE_ROLL)
    game.players[0].statuses["Crit"] = 1
    game.record_offensive_roll("1 2 3 4 1")
    found = {a.ability for a in game.activations()}
    ability = "Righteous Combat" if "Righteous Combat" in found else sorted(found)[0]
    activation = game.select_ability(ability)
    if activation.damage >= 5:
        game.spend_status(0, "Crit")
        assert game.adjustments == [4]
    else:
        with pytest.raises(IllegalActionError, match="5 dmg or more"):
            game.spend_status(0, "Crit")


def test_accuracy_makes_the_attack_undefendable():
    game = to_phase(Game.new(["paladin", "barbarian"]), Phase.OFFENSIVE_ROLL)
    game.players[0].statuses["Accuracy"] = 1
    game.record_offensive_roll("1 2 3 4 5")
    activation = game.activations()[0]
    game.select_ability(activation.ability)
    game.spend_status(0, "Accuracy")
    assert not game.defense_allowed
    assert game.advance() is Phase.MAIN_2


def test_targeted_adds_two_to_attacks_and_stays():
    game = to_phase(Game.new(["barbarian", "moon-elf"]), Phase.OFFENSIVE_ROLL)
    game.players[1].statuses["Targeted"] = 1
    game.record_offensive_roll("1 1 6 6 4")
    game.select_ability("Sturdy Blow")  # 4 undefendable
    game.advance()
    assert game.health(1) == 44 and game.players[1].statuses["Targeted"] == 1


def test_knockdown_skips_the_offensive_roll_unless_paid_off():
    game = Game.new(["barbarian", "monk"])
    game.players[0].statuses["Knockdown"] = 1
    to_phase(game, Phase.MAIN_1)
    assert game.advance() is Phase.MAIN_2 and "Knockdown" not in game.players[0].statuses
    game = Game.new(["barbarian", "monk"])
    game.players[0].statuses["Knockdown"] = 1
    to_phase(game, Phase.MAIN_1)
    game.spend_status(0, "Knockdown")
    assert game.players[0].cp == 0 and game.advance() is Phase.OFFENSIVE_ROLL


def test_entangle_takes_one_roll_attempt():
    game = Game.new(["moon-elf", "barbarian"])
    game.players[0].statuses["Entangle"] = 1
    to_phase(game, Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 1 1 1 1")
    game.record_offensive_roll("1 1 1 1 2")
    with pytest.raises(IllegalActionError, match="up to 2 roll attempts"):
        game.record_offensive_roll("1 1 1 1 3")


def test_concussion_skips_the_next_income():
    game = Game.new(["barbarian", "monk"])
    game.players[1].statuses["Concussion"] = 1
    to_phase(game, Phase.MAIN_2)
    next_turn(game)
    assert game.advance() is Phase.MAIN_1 and game.players[1].cp == 2


def test_cleanse_removes_the_named_negative_status():
    game = Game.new(["monk", "barbarian"])
    game.players[0].statuses.update({"Cleanse": 1, "Knockdown": 1, "Poison": 1})
    with pytest.raises(IllegalActionError, match="name the negative status"):
        game.spend_status(0, "Cleanse")
    game.spend_status(0, "Cleanse", remove="Poison")
    assert game.players[0].statuses == {"Knockdown": 1}


def test_or_is_a_choice_the_table_makes():
    game = to_phase(Game.new(["monk", "barbarian"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("4 4 5 1 1")
    game.select_ability("Zen Forget")
    assert game.pending_choices() == {"gain Evasive or Cleanse": ("gain Evasive", "gain Cleanse")}
    with pytest.raises(IllegalActionError, match=r"not an option now.*\(Or\)"):
        game.choose("Knockdown")
    game.choose("Cleanse")
    game.advance()
    assert game.players[0].statuses == {"Chi": 5, "Cleanse": 1}


def test_stack_limit_raised_for_one_player_only():
    game = Game.new(["monk", "monk"])
    game.raise_stack_limit(0, "Chi")
    assert (game.stack_limit(0, "Chi"), game.stack_limit(1, "Chi")) == (6, 5)


def test_black_widow_sets_up_with_three_covert_ops():
    game = Game.new(["black-widow", "barbarian"])
    assert game.players[0].statuses == {"Covert Ops": 3} and game.players[1].statuses == {}


def test_spend_kinds_cover_the_data():
    assert {s.spend for s in all_statuses()} <= set(SpendKind)


def test_the_start_player_is_the_highest_roll_and_ties_roll_again():
    from rules.dicethrone.game import start_player_from_rolls

    assert start_player_from_rolls([3, 6, 2]) == 1
    with pytest.raises(IllegalActionError, match=r"P1, P3 tie on 5: they roll again \(Game Setup\)"):
        start_player_from_rolls([5, 2, 5])


def test_five_or_six_players_are_refused_naming_the_missing_rules():
    with pytest.raises(IllegalActionError, match="5-6 players are not in the rulebooks"):
        Game.new(["barbarian"] * 5)


def test_statuses_a_defeated_player_inflicted_stay_in_play():
    game = to_phase(Game.new(["shadow-thief", "barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 1 1 6 1")  # Dagger Strike: Poison for the shadow
    game.select_ability("Dagger Strike")
    game.advance()
    game.choose_target(1)
    game.advance()
    game.record_defensive_roll("4 4 4")
    game.advance()
    assert game.players[1].statuses == {"Poison": 1}
    game.set_health(0, 0)  # the Shadow Thief is defeated
    assert game.players[1].statuses == {"Poison": 1}


def test_collateral_to_both_teammates_takes_the_combined_total():
    game = to_phase(Game.new(["pyromancer", "barbarian", "paladin", "monk"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("5 5 1 1 2")
    game.select_ability("Burning Soul")  # 2 collateral, no target
    assert game.advance() is Phase.MAIN_2
    assert game.health(1) == 50 - 2 * 2  # the shared dial takes it for each teammate


def test_transcendence_raises_the_chi_stack_limit_and_fills_it():
    game = to_phase(Game.new(["monk", "barbarian"]), Phase.OFFENSIVE_ROLL)
    game.players[0].statuses["Chi"] = 2
    game.record_offensive_roll("6 6 6 6 6")
    game.select_ability("Transcendence!")
    game.advance()
    assert game.stack_limit(0, "Chi") == 6 and game.players[0].statuses["Chi"] == 6


def test_retribution_sends_half_the_damage_taken_back():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.players[1].statuses["Retribution"] = 1
    game.record_offensive_roll("6 6 6 6 1")
    game.select_ability("Crit Bash")  # 5 undefendable
    game.spend_status(1, "Retribution")
    game.advance()
    assert (game.health(0), game.health(1)) == (47, 45)  # 5 taken, 3 (half, rounded up) back


def test_a_spend_is_checked_even_when_its_roll_fails():
    game = to_phase(Game.new(["moon-elf", "barbarian"]), Phase.OFFENSIVE_ROLL)
    game.players[0].statuses["Evasive"] = 1
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability(game.activations()[0].ability)
    assert not game.can_spend(0, "Evasive")  # the attacker's own damage is not incoming
    with pytest.raises(IllegalActionError, match="another player's incoming damage"):
        game.spend_status(0, "Evasive", die=6)
    assert game.players[0].statuses == {"Evasive": 1}


@pytest.mark.parametrize("die, stands", [(2, False), (3, True)])
def test_blinded_rolls_a_die_after_activating(die, stands):
    game = to_phase(Game.new(["barbarian", "moon-elf"]), Phase.OFFENSIVE_ROLL)
    game.players[0].statuses["Blinded"] = 1
    game.record_offensive_roll("6 6 6 6 1")
    game.select_ability("Crit Bash")  # 5 undefendable
    with pytest.raises(IllegalActionError, match=r"roll 1 die for Blinded first \(Blinded\)"):
        game.advance()
    assert game.record_status_roll(die) is stands
    assert "Blinded" not in game.players[0].statuses
    with pytest.raises(IllegalActionError, match="already settled"):
        game.select_ability("Crit Bash")
    game.advance()
    assert game.health(1) == (45 if stands else 50)


def _blinded_after_crit_bash():
    game = to_phase(Game.new(["barbarian", "moon-elf"]), Phase.OFFENSIVE_ROLL)
    game.players[0].statuses["Blinded"] = 1
    game.record_offensive_roll("6 6 6 6 1")
    game.select_ability("Crit Bash")  # 5 undefendable
    return game


@pytest.mark.parametrize("die, stands", [("4|5", True), ("1|2", False), ("6|3", True)])
def test_blinded_takes_a_die_read_as_numbers_that_all_say_the_same(die, stands):
    game = _blinded_after_crit_bash()
    assert game.record_status_roll(OneOf.from_notation(die)) is stands
    assert game.actions[-1] == f"status-roll {die}"
    assert any(f"rolled {OneOf.from_notation(die).said()}" in line for line in game.log)
    game.advance()
    assert game.health(1) == (45 if stands else 50)
    again = _blinded_after_crit_bash()
    again.play(f"status-roll {die}")
    again.advance()
    assert again.to_json() == game.to_json()


def test_blinded_refuses_a_die_read_as_numbers_that_say_differently_and_changes_nothing():
    game = _blinded_after_crit_bash()
    actions, log = game.actions, list(game.log)
    with pytest.raises(InvalidRollError, match="a die read as 2 or 3 changes what Blinded does: set it"):
        game.record_status_roll(OneOf((2, 3)))
    with pytest.raises(InvalidActionError, match="such as 4|5"):
        game.play("status-roll 2|x")
    assert game.players[0].statuses == {"Blinded": 1} and game.status_roll_needed == "Blinded"
    assert game.actions == actions and game.log == log


def test_blessing_of_divinity_keeps_its_holder_in_the_game_once():
    game = Game.new(["barbarian", "paladin"], names=["Ann", "Bob"])
    while game.phase is not Phase.OFFENSIVE_ROLL:
        game.advance()
    game.players[1].statuses["Blessing of Divinity"] = 1
    game.team_health[game.players[1].team] = 3
    game.record_offensive_roll("6 6 6 6 6")  # Rage!: undefendable, more than 3 dmg
    game.select_ability("Rage!")
    game.advance()
    assert game.outcome is None and game.health(1) == 1
    assert "Blessing of Divinity" not in game.players[1].statuses
    assert any("not defeated (Blessing of Divinity)" in line for line in game.log)
