"""Cards at the table: effects on dice and damage, who may play what when, and Hero Upgrades."""

import pytest

from rules.dicethrone.cards import CardEffect, CardEffectKind
from rules.dicethrone.game import CardKind, Game, Phase
from rules.errors import IllegalActionError
from rules.games import InvalidActionError


def to_phase(game, phase):
    while game.phase is not phase:
        game.advance()
    return game


@pytest.mark.parametrize("text", ["add 2", "prevent 3", "cp 2", "draw 1", "face 3 6", "reroll 1 4"])
def test_card_effects_round_trip(text):
    assert CardEffect.from_notation(text).notation() == text


@pytest.mark.parametrize(
    "text", ["", "heal 2", "add", "face 3", "face 3 7", "add x", "add \u00b2", "face \u2460 6", "prevent " + "9" * 5000]
)
def test_bad_card_effects_name_the_text(text):
    with pytest.raises(InvalidActionError, match="card effect|1 to 6"):
        CardEffect.from_notation(text)


def test_a_card_that_changes_a_die_takes_the_announcement_back():
    game = to_phase(Game.new(["barbarian", "moon-elf"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 2 3 4 6")
    game.select_ability("Mighty Blow")  # small straight 1-2-3-4
    game.play_card(1, player=1, kind=CardKind.ROLL, effect="face 4 6")  # the opponent breaks it
    assert game.selected is None and game.offensive_roll.notation() == "1 2 3 6 6"
    with pytest.raises(IllegalActionError, match="does not meet 'Mighty Blow'"):
        game.select_ability("Mighty Blow")
    game.play_card(0, kind=CardKind.ROLL, effect="reroll 5 4")
    assert game.select_ability("Mighty Blow").ability == "Mighty Blow"


def test_the_dice_of_an_activated_ultimate_cannot_be_altered():
    game = to_phase(Game.new(["barbarian", "moon-elf"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("6 6 6 6 6")
    game.select_ability("Rage!")
    with pytest.raises(IllegalActionError, match=r"\(Ultimate Ability\)"):
        game.play_card(0, kind=CardKind.ROLL, effect="face 1 1")


def test_cards_add_and_prevent_in_the_damage_window():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")  # 9
    game.play_card(1, kind=CardKind.ROLL, effect="add 2")
    game.advance()
    game.record_defensive_roll("1 1 1")  # 3 back, nothing prevented
    game.play_card(2, player=1, kind=CardKind.INSTANT, effect="prevent 4")
    with pytest.raises(IllegalActionError, match="cannot add damage to an opponent's Attack"):
        game.play_card(0, player=1, kind=CardKind.INSTANT, effect="add 1")
    game.advance()
    assert game.health(1) == 50 - 7 and game.players[1].cp == 0


def test_cards_gain_cp_and_draw():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.MAIN_1)
    game.play_card(0, effect="cp 2")
    game.play_card(1, effect="draw 2")
    assert (game.players[0].cp, game.players[0].hand) == (3, 4)


def test_upgrades_by_level_pay_the_difference_from_two_to_three():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.MAIN_1)
    game.players[0].cp = 10
    assert game.play_upgrade("Smack", 2, 3) == 7
    assert game.play_upgrade("Smack", 3, 5) == 5  # pays 5 - 3
    assert game.players[0].upgrades == {"Smack": (3, 5)} and game.players[0].hand == 2
    with pytest.raises(IllegalActionError, match="already level III"):
        game.play_upgrade("Smack", 3, 5)
    assert game.play_upgrade("Thick Skin", 3, 4) == 1  # straight to level III


def test_upgrades_only_in_your_own_main_phase():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    with pytest.raises(IllegalActionError, match="in a Main Phase"):
        game.play_upgrade("Smack", 2, 0)
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.MAIN_1)
    with pytest.raises(IllegalActionError, match="own turn"):
        game.play_upgrade("Righteous Combat", 2, 0, player=1)


def test_card_effect_kinds_are_all_parsed():
    assert {CardEffect.from_notation(t).kind for t in ("add 1", "prevent 1", "cp 1", "draw 1", "face 1 1", "reroll 1 1")} == set(CardEffectKind)


def test_a_card_alters_the_2v2_targeting_die_but_not_an_ultimates():
    game = to_phase(Game.new(["barbarian", "moon-elf", "paladin", "monk"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    game.advance()
    game.record_targeting_roll(1)  # left: the next to play
    assert game.target == 1
    game.play_card(1, player=1, kind=CardKind.ROLL, effect="face 1 3")  # the target turns it to a 3
    assert game.target == 3 and game.targeting_die == 3
    game = to_phase(Game.new(["barbarian", "moon-elf", "paladin", "monk"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("6 6 6 6 6")
    game.select_ability("Rage!")
    game.advance()
    game.record_targeting_roll(1)
    with pytest.raises(IllegalActionError, match="targeting die of an ultimate"):
        game.play_card(0, kind=CardKind.ROLL, effect="face 1 3")


def test_a_preview_of_the_damage_changes_nothing():
    game = to_phase(Game.new(["barbarian", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("6 6 6 6 1")
    game.select_ability("Crit Bash")  # 5 undefendable
    actions, log = game.actions, list(game.log)
    assert game.preview().damage.total == 5
    assert game.exchange is None and game.health(1) == 50 and game.actions == actions and game.log == log
