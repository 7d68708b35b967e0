"""Which abilities a roll activates, and what each is worth: the module above requirements and
effects (both are used here; neither imports this one).

    >>> from rules.dicethrone.heroes import load_hero
    >>> [a.ability for a in activations(load_hero("barbarian"), Roll.from_notation("1 2 3 4 5"))]
    ['Reckless', 'Mighty Blow', 'Smack']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.dice import Face, Roll
from rules.dicethrone.damage import DamageType
from rules.dicethrone.effects import expected_bonus_damage
from rules.dicethrone.requirements import OFFENSIVE_DICE, Requirement, best_tier
from rules.errors import InvalidRollError

if TYPE_CHECKING:
    from rules.dicethrone.abilities import Ability
    from rules.dicethrone.heroes import Hero


@dataclass(frozen=True)
class Activation:
    """An ability a roll activates: the tier reached, the dice that meet it, and what it does.

    ``damage`` is the damage known from this roll (the tier's fixed damage plus any "per symbol"
    damage counted on these dice); a bonus roll (``bonus_dice`` > 0) can add more, see
    :func:`rules.dicethrone.effects.resolve_offense`.
    """

    ability: str
    tier: int
    """1-based tier reached (1 for an ability without tiers)."""
    tiers: int
    """How many tiers the ability has."""
    requirement: Requirement
    dice: tuple[Face, ...]
    dice_indices: tuple[int, ...]
    effect: str
    damage: int
    damage_type: DamageType | None
    unstoppable: bool
    """True for an ultimate: no defense, no reduction, nothing may respond."""
    bonus_dice: int = 0
    expected_damage: float = 0.0
    """``damage`` plus the mean of any bonus roll's damage; what the ordering uses."""

    def to_json(self) -> dict[str, object]:
        """The shape ``dicetray score --json`` prints for each activation."""
        return {
            "ability": self.ability,
            "tier": self.tier,
            "dice": list(self.dice),
            "effect": self.effect,
            "damage": self.damage,
            "damage_type": None if self.damage_type is None else self.damage_type.value,
        }


def activation_for(hero: Hero, ability: Ability, roll: Roll, tier: int, used: tuple[int, ...]) -> Activation:
    """The :class:`Activation` value for ``ability`` reaching ``tier`` with dice ``used``."""
    tier_data = ability.tiers[tier - 1]
    known = tier_data.effect + ability.dice_effects.resolve(hero, roll)
    expected = float(known.damage + known.collateral)
    if ability.bonus_roll is not None:
        expected += expected_bonus_damage(hero, ability.bonus_roll)
    damage = known.damage + known.collateral
    return Activation(
        ability=ability.name,
        tier=tier,
        tiers=len(ability.tiers),
        requirement=tier_data.requirement,
        dice=tuple(roll.faces[i] for i in used),
        dice_indices=used,
        effect=tier_data.text,
        damage=damage,
        damage_type=ability.damage_type if expected or ability.variable_damage else None,
        unstoppable=ability.is_ultimate,
        bonus_dice=0 if ability.bonus_roll is None else ability.bonus_roll.dice,
        expected_damage=expected,
    )


def activations(hero: Hero, roll: Roll) -> list[Activation]:
    """Every offensive (and ultimate) ability ``roll`` meets, most valuable first.

    Value order: an ultimate first, then expected damage, then the tier, then the hero sheet order.
    Any number of dice is accepted here; an offensive roll proper has five
    (see :func:`check_offensive_roll`).
    """
    found: list[tuple[int, Activation]] = []
    for position, ability in enumerate(hero.offensive_abilities()):
        reached = best_tier(hero, ability, roll)
        if reached is None:
            continue
        found.append((position, activation_for(hero, ability, roll, reached[0], reached[1])))
    found.sort(key=lambda item: (not item[1].unstoppable, -item[1].expected_damage, -item[1].tier, item[0]))
    return [activation for _, activation in found]


def check_offensive_roll(roll: Roll) -> Roll:
    """Returns ``roll`` if it has the five dice of an offensive roll.

    :raises InvalidRollError: naming the roll otherwise.
    """
    if len(roll) != OFFENSIVE_DICE:
        raise InvalidRollError(
            f"an offensive roll has {OFFENSIVE_DICE} dice, not {len(roll)}: {roll.notation()!r}"
        )
    return roll
