"""The nine rules the tray had wrong and the two hero-data faults, each as the book plays it."""

import pytest

from rules.dicethrone.damage import Portion
from rules.errors import IllegalActionError
from rules.dicethrone.game import CardKind, Game, Phase
from rules.dicethrone.heroes import load_hero


def to_phase(game, phase):
    while game.phase is not phase:
        game.advance()
    return game


def attack(heroes, roll, ability):
    game = to_phase(Game.new(heroes), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll(roll)
    game.select_ability(ability)
    return game


def finish_roll_phase(game, defense_roll=None):
    game.advance()
    if game.phase is Phase.DEFENSIVE_ROLL:
        game.record_defensive_roll(defense_roll)
        game.advance()
    return game


# 1. Ultimate Ability: "cannot be reduced, prevented, avoided" -- refused when it is made.
@pytest.mark.parametrize("change", [lambda g: g.modify_damage(-2), lambda g: g.add_portion(Portion.prevent_half())])
def test_an_ultimate_refuses_a_reduction_when_it_is_made(change):
    game = attack(["barbarian", "moon-elf"], "6 6 6 6 6", "Rage!")
    with pytest.raises(IllegalActionError, match=r"cannot be reduced.*\(Damage Type Chart\)"):
        change(game)
    assert game.adjustments == [] and game.portions == []
    assert game.advance() is Phase.MAIN_2  # the game is not stuck


# 2. Steal: "take the indicated resource ... if your opponent does not have it, steal as much as they have".
def test_steal_takes_the_cp_from_the_opponent_as_much_as_they_have():
    game = attack(["shadow-thief", "barbarian"], "3 3 4 6 1", "Steal")  # 3 bags + shadow: steal 3
    finish_roll_phase(game)
    assert (game.players[0].cp, game.players[1].cp) == (4, 0)


def test_steal_without_a_shadow_only_gains():
    game = attack(["shadow-thief", "barbarian"], "3 3 1 1 2", "Steal")
    finish_roll_phase(game)
    assert (game.players[0].cp, game.players[1].cp) == (4, 2)


# 3. Damage computed from CP (Shadow Thief), on the CP after the ability's own gain.
@pytest.mark.parametrize(
    "roll, ability, cp, damage",
    [
        ("1 2 3 4 1", "Pickpocket", 2, 3),  # 2 + 3 = 5 CP, half rounded up
        ("1 2 3 4 5", "Kidney Shot", 2, 6),  # 2 + 4 = 6 CP
        ("6 6 6 6 6", "Shadow Shank!", 2, 10),  # 2 + 3 = 5 CP, + 5
        ("6 6 6 6 6", "Shadow Shank!", 14, 20),  # capped at 15 CP
    ],
)
def test_damage_from_cp(roll, ability, cp, damage):
    game = to_phase(Game.new(["shadow-thief", "paladin"]), Phase.OFFENSIVE_ROLL)
    game.players[0].cp = cp
    game.record_offensive_roll(roll)
    assert game.select_ability(ability).damage == damage
    exchange = game.resolve() if ability == "Shadow Shank!" else None
    if exchange is None:
        game.advance()
        game.record_defensive_roll("1 1 1")  # Paladin's defense: nothing prevented on 1s
        exchange = game.resolve()
    assert exchange.damage.incoming == damage


# 4. King of the Hill: the bonus card is for Attacking a Leader.
@pytest.mark.parametrize("heroes, roll, ability", [(["black-widow", "moon-elf", "paladin"], "1 1 3 6 2", "Infiltrate")])
def test_king_of_the_hill_no_bonus_card_for_a_non_attack(heroes, roll, ability):
    game = attack(heroes, roll, ability)
    game.advance()
    game.choose_target(1)
    assert game.active_player.hand == 4


# 5. Collateral damage: special targeting, no Targeting Roll Phase, not an Attack.
def test_a_collateral_only_ability_skips_targeting_and_hits_each_opponent():
    game = attack(["pyromancer", "moon-elf", "paladin"], "5 5 1 1 2", "Burning Soul")
    assert not game.needs_target
    assert game.advance() is Phase.MAIN_2
    assert (game.health(1), game.health(2)) == (33, 33)
    assert game.active_player.hand == 4  # no leader bonus: not an Attack


# 6. Collateral damage is avoidable: a prevention applies to it.
def test_preventing_collateral_damage_counts():
    game = attack(["pyromancer", "barbarian"], "5 5 1 1 2", "Burning Soul")
    game.modify_damage(-1)
    finish_roll_phase(game)
    assert game.health(1) == 49


# 7. Attack Modifiers only on Attacks: a change on a non-Attack is refused, not dropped.
@pytest.mark.parametrize(
    "heroes, roll, ability, amount, rule",
    [
        (["barbarian", "moon-elf"], "4 4 5 1 1", "Fortitude", +2, "deals no damage"),
        (["barbarian", "moon-elf"], "4 4 5 1 1", "Fortitude", -2, "deals no damage"),
        (["pyromancer", "barbarian"], "5 5 1 1 2", "Burning Soul", +1, "collateral damage cannot be modified"),
    ],
)
def test_a_damage_change_on_a_non_attack_is_refused(heroes, roll, ability, amount, rule):
    game = attack(heroes, roll, ability)
    with pytest.raises(IllegalActionError, match=rf"{rule}.*\(Attack Modifiers\)"):
        game.modify_damage(amount)


# 8. Instant and Roll Phase cards: any player may play them.
def test_the_defender_plays_an_instant_card_and_pays_for_it():
    game = attack(["barbarian", "moon-elf"], "1 2 3 4 1", "Mighty Blow")
    assert game.play_card(1, player=1, kind=CardKind.INSTANT) == 1
    assert (game.players[0].cp, game.players[0].hand) == (2, 4)
    assert (game.players[1].cp, game.players[1].hand) == (1, 3)
    game.play_card(0, player=1, kind="roll")
    assert game.players[1].hand == 2


def test_main_phase_cards_only_on_your_own_turn_and_nothing_against_an_ultimate():
    game = to_phase(Game.new(["barbarian", "moon-elf"]), Phase.MAIN_1)
    with pytest.raises(IllegalActionError, match="only on their own turn"):
        game.play_card(0, player=1)
    with pytest.raises(IllegalActionError, match="in a roll phase"):
        game.play_card(0, player=1, kind=CardKind.ROLL)
    game.advance()
    game.record_offensive_roll("6 6 6 6 6")
    game.select_ability("Rage!")
    with pytest.raises(IllegalActionError, match=r"\(Ultimate Ability\)"):
        game.play_card(0, player=1, kind=CardKind.INSTANT)
    game.play_card(0, kind=CardKind.ROLL)  # the attacker may still enhance it


# 9. "Draw 1 card" changes the hand.
@pytest.mark.parametrize(
    "heroes, roll, ability, hands",
    [
        (["treant", "barbarian"], "4 5 6 6 1", "Tend", (5, 4)),
        (["shadow-thief", "barbarian"], "5 5 6 1 1", "Cornucopia", (6, 3)),  # 2 cards drawn; a shadow: 1 discarded
    ],
)
def test_draw_effects_change_the_hand(heroes, roll, ability, hands):
    game = attack(heroes, roll, ability)
    finish_roll_phase(game)
    assert (game.players[0].hand, game.players[1].hand) == hands


# Hero data: Reckless deals its damage back to the Barbarian when the Attack hits.
def test_reckless_hurts_the_barbarian_when_it_hits():
    game = attack(["barbarian", "moon-elf"], "1 2 3 4 5", "Reckless")
    finish_roll_phase(game, "1 1 1 1 1")  # Elusive Step: no foot, nothing prevented
    assert (game.health(0), game.health(1)) == (46, 35)


def test_reckless_costs_nothing_when_all_its_damage_is_prevented():
    game = attack(["barbarian", "moon-elf"], "1 2 3 4 5", "Reckless")
    game.advance()
    game.record_defensive_roll("1 1 1 1 1")
    game.add_portion(Portion.prevent_half())
    game.add_portion(Portion.prevent_half())
    game.advance()
    assert (game.health(0), game.health(1)) == (50, 50)


# Hero data: Treant's Rooted prevents nothing the sources can give, so Treant is partial.
def test_treant_is_marked_partial_and_says_why():
    treant = load_hero("treant")
    assert treant.partial and "Rooted" in treant.notes


# The roll phase resolves in the book's steps (Turn Breakdown 4.4, 6.1, 6.4-6.6), with breaks between.
def test_a_status_inflicted_by_an_attack_lands_before_its_damage():
    # Defensive Roll Phase step 1 inflicts Targeted; damage lands at step 6 with its +2.
    game = attack(["moon-elf", "paladin"], "1 2 3 6 6", "Covert Fire")
    game.advance()
    assert game.phase is Phase.DEFENSIVE_ROLL and game.players[1].statuses == {"Targeted": 1}
    game.record_defensive_roll("1 1 1")
    assert game.resolve().damage.total == 6


def test_cp_gained_at_activation_can_be_spent_before_the_damage_that_counts_it():
    # Kidney Shot: "gain 4 CP, then dmg = your CP"; a card played in the break costs CP first.
    game = attack(["shadow-thief", "paladin"], "1 2 3 4 5", "Kidney Shot")
    game.players[0].cp = 2
    game.advance()
    assert game.players[0].cp == 6  # gained at activation (4.4), before the defender rolls
    game.play_card(2, kind=CardKind.ROLL)
    game.record_defensive_roll("1 1 1")
    assert game.resolve().damage.incoming == 4


def test_a_defender_spends_what_its_defense_roll_gained_before_the_damage():
    # Meditation's Chi comes at step 4; step 5 is the last chance to spend it.
    game = to_phase(Game.new(["barbarian", "monk"]), Phase.OFFENSIVE_ROLL)
    game.record_offensive_roll("1 1 1 4 5")
    activation = game.activations()[0]
    game.select_ability(activation.ability)
    game.advance()
    game.record_defensive_roll("4 4 2 3")  # two taiji: 2 Chi
    assert game.players[1].statuses == {"Chi": 2}
    before = game.preview().damage.total
    game.spend_status(1, "Chi")
    assert game.preview().damage.total == before - 1 and game.players[1].statuses == {"Chi": 1}
