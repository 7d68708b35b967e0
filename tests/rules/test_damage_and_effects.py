from fractions import Fraction

import pytest

from rules.dicethrone.damage import DamageType, Portion, final_damage_total
from rules.dicethrone.effects import Effect, resolve_defense, resolve_offense
from rules.errors import IllegalActionError, InvalidRollError
from rules.dicethrone.heroes import load_hero
from rules.dicethrone.scoring import activations


def test_rulebook_example_doctor_strange_vs_black_widow():
    """Mystic Bolts 9 (LS tier), +3 spell, Sabotage II -2 and 2 back, +1 Icy Tendrils, +4 spell,
    Agility twice: 0 taken, 2 dealt back."""
    strange = load_hero("doctor-strange")
    bolts = [a for a in activations(strange, strange.roll("1 2 3 4 5")) if a.ability == "Mystic Bolts"][0]
    assert (bolts.tier, bolts.damage, bolts.damage_type) == (2, 9, DamageType.NORMAL)
    sabotage_two = Effect(prevent=2, counter=2)
    total = final_damage_total(
        bolts.damage,
        adjustments=[+3, -sabotage_two.prevent, +1, +4],
        portions=[Portion.prevent_half("Agility"), Portion.prevent_half("Agility")],
    )
    assert total.subtotal == 15
    assert total.portion_values == (-8, -8)
    assert total.total == 0
    assert sabotage_two.counter == 2


@pytest.mark.parametrize(
    "kind, defendable, avoidable, modifiable, targeting",
    [
        (DamageType.NORMAL, True, True, True, False),
        (DamageType.UNDEFENDABLE, False, True, True, False),
        (DamageType.PURE, False, True, False, False),
        (DamageType.COLLATERAL, False, True, False, True),
        (DamageType.ULTIMATE, False, False, True, False),
    ],
)
def test_damage_type_chart(kind, defendable, avoidable, modifiable, targeting):
    assert (kind.defendable, kind.avoidable, kind.modifiable, kind.special_targeting) == (defendable, avoidable, modifiable, targeting)


def test_division_rounds_up_and_total_never_below_zero():
    assert Portion.prevent_half().value(7) == -4
    assert Portion(Fraction(1), prevents=False).value(5) == 5
    assert final_damage_total(3, adjustments=[-5]).total == 0


def test_damage_types_forbid_changes():
    with pytest.raises(IllegalActionError, match="pure damage cannot be modified"):
        final_damage_total(4, adjustments=[+1], damage_type=DamageType.PURE)
    with pytest.raises(IllegalActionError, match="ultimate damage cannot be reduced"):
        final_damage_total(15, portions=[Portion.prevent_half()], damage_type=DamageType.ULTIMATE)
    assert final_damage_total(15, adjustments=[+2], damage_type=DamageType.ULTIMATE).total == 17
    assert final_damage_total(4, adjustments=[-1], damage_type=DamageType.COLLATERAL).total == 3


def test_multiplication_counts_every_die():
    pyro = load_hero("pyromancer")
    effect = resolve_offense(pyro, pyro.ability("Burning Soul"), pyro.roll("5 5 5 1 2"))
    assert effect.damage == 3 and effect.statuses.count("gain 2 Fire Mastery") == 3


def test_on_symbol_applies_once():
    thief = load_hero("shadow-thief")
    effect = resolve_offense(thief, thief.ability("Cornucopia"), thief.roll("5 5 6 6 1"))
    assert (effect.draw, effect.opponent_discard) == (2, 1)


def test_roll_n_dice_sum_and_half():
    barbarian = load_hero("barbarian")
    assert resolve_offense(barbarian, barbarian.ability("Overpower"), barbarian.roll("1 2 3 6 6"), barbarian.roll("6 6 5")).damage == 17
    thief = load_hero("shadow-thief")
    assert resolve_offense(thief, thief.ability("Shadow Dance"), thief.roll("6 6 6 1 1"), thief.roll("5")).damage == 3


def test_roll_n_dice_per_face_effects():
    elf = load_hero("moon-elf")
    effect = resolve_offense(elf, elf.ability("Exploding Arrow"), elf.roll("1 6 6 6 4"), elf.roll("1 2 4 6 6"))
    assert (effect.damage, effect.opponent_cp) == (3 + 2 * 2 + 1, -2)
    monk = load_hero("monk")
    assert resolve_offense(monk, monk.ability("Taiji Combo"), monk.roll("1 1 2 3 6"), monk.roll("3")).damage == 9


def test_bonus_roll_has_the_stated_dice_count():
    barbarian = load_hero("barbarian")
    with pytest.raises(InvalidRollError, match="rolls 3 dice, not 2"):
        resolve_offense(barbarian, barbarian.ability("Overpower"), barbarian.roll("1 2 3 6 6"), barbarian.roll("6 6"))


def test_bonus_roll_expected_damage_orders_activations():
    barbarian = load_hero("barbarian")
    found = activations(barbarian, barbarian.roll("1 2 3 6 6"))
    assert found[0].ability == "Overpower" and found[0].expected_damage == pytest.approx(10.5)
    assert found[0].bonus_dice == 3 and found[0].damage == 0


def test_defensive_abilities_resolve_from_the_defense_roll():
    widow = load_hero("black-widow")
    sabotage = resolve_defense(widow, widow.ability("Sabotage"), widow.roll("1 3 6"))
    assert (sabotage.prevent, sabotage.counter, sabotage.statuses) == (1, 1, ())
    assert resolve_defense(widow, widow.ability("Sabotage"), widow.roll("6 6 4")).statuses == ("inflict Time Bomb",)
    elf = load_hero("moon-elf")
    assert resolve_defense(elf, elf.ability("Elusive Step"), elf.roll("4 5 1 1 1")).prevent_half
    assert not resolve_defense(elf, elf.ability("Elusive Step"), elf.roll("4 6 1 1 1")).prevent_half
    thief = load_hero("shadow-thief")
    assert resolve_defense(thief, thief.ability("Shadow Defense"), thief.roll("6 6 1 3")).negate
    barbarian = load_hero("barbarian")
    assert resolve_defense(barbarian, barbarian.ability("Thick Skin"), barbarian.roll("4 5 6")).heal == 4


def test_defense_dice_count_is_checked():
    barbarian = load_hero("barbarian")
    with pytest.raises(IllegalActionError, match=r"rolls 3 dice, not 2.*\(Defensive Dice\)"):
        resolve_defense(barbarian, barbarian.ability("Thick Skin"), barbarian.roll("4 5"))


@pytest.mark.parametrize("bonus, concussion", [("5 5 4", False), ("5 5 5", True)])
def test_bonus_roll_total_threshold(bonus, concussion):
    barbarian = load_hero("barbarian")
    effect = resolve_offense(barbarian, barbarian.ability("Overpower"), barbarian.roll("1 2 3 6 6"), barbarian.roll(bonus))
    assert ("inflict Concussion" in effect.statuses) is concussion


@pytest.mark.parametrize("bonus, combo", [("2 3", True), ("3 3", False)])
def test_spider_reflexes_low_total_gains_combo(bonus, combo):
    spidey = load_hero("spider-man")
    effect = resolve_offense(spidey, spidey.ability("Spider-Reflexes"), spidey.roll("1 4 5 6 2"), spidey.roll(bonus))
    assert ("gain Combo" in effect.statuses) is combo
