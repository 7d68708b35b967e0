"""Abilities on a hero board: kind, requirement tiers, effects, damage type."""

from __future__ import annotations

import enum
from fractions import Fraction
from dataclasses import dataclass

from rules.dicethrone.damage import DamageType
from rules.dicethrone.effects import BonusRoll, DiceEffects, Effect
from rules.dicethrone.requirements import Requirement


class AbilityKind(enum.Enum):
    OFFENSIVE = "offensive"
    ULTIMATE = "ultimate"
    DEFENSIVE = "defensive"
    PASSIVE = "passive"


@dataclass(frozen=True)
class Tier:
    """One tier of an ability: the requirement, the fixed amounts, and the sheet's text."""

    requirement: Requirement
    effect: Effect
    text: str


@dataclass(frozen=True)
class Conflict:
    """Where the sources disagree: the value this file uses and the other one."""

    about: str
    chosen: str
    other: str


@dataclass(frozen=True)
class Ability:
    name: str
    kind: AbilityKind
    tiers: tuple[Tier, ...]
    """Ascending tiers; the highest one the roll meets applies. Empty for defensive and passive."""
    damage_type: DamageType | None = None
    aliases: tuple[str, ...] = ()
    dice_effects: DiceEffects = DiceEffects()
    bonus_roll: BonusRoll | None = None
    base_effect: Effect = Effect()
    """What a defensive or passive ability always does (offensive ones keep this per tier)."""
    variable_damage: str = ""
    """Damage that depends on something other than dice (CP, tokens, upgrades), as the sheet says it."""
    cp_damage: Fraction | None = None
    """Damage equal to this share of the acting player's CP after the ability's own CP gain,
    rounded up (Pickpocket 1/2, Kidney Shot 1; Shadow Shank! adds it to its fixed 5)."""
    defense_dice: int = 0
    roll_attempts: int = 1
    reroll_die_limit: int | None = None
    effect_text: str = ""
    conflicts: tuple[Conflict, ...] = ()
    notes: str = ""

    @property
    def is_ultimate(self) -> bool:
        return self.kind is AbilityKind.ULTIMATE

    @property
    def is_offensive(self) -> bool:
        """Offensive or ultimate: activated from the offensive roll."""
        return self.kind in (AbilityKind.OFFENSIVE, AbilityKind.ULTIMATE)

    @property
    def is_defensive(self) -> bool:
        return self.kind is AbilityKind.DEFENSIVE

    @property
    def requirement(self) -> Requirement | None:
        """The lowest tier's requirement (None for defensive and passive abilities)."""
        return self.tiers[0].requirement if self.tiers else None

    @property
    def requirement_text(self) -> str:
        if self.is_defensive:
            text = f"defense roll {self.defense_dice} dice"
            if self.roll_attempts > 1:
                text += f", {self.roll_attempts} roll attempts"
                if self.reroll_die_limit is not None:
                    text += f", reroll <= {self.reroll_die_limit}"
            return text
        if not self.tiers:
            return "passive"
        if len(self.tiers) == 1:
            return self.tiers[0].requirement.notation()
        return " / ".join(t.requirement.notation() for t in self.tiers)

    @property
    def deals_damage(self) -> bool:
        """True when the ability can deal damage to a target (what makes it an Attack)."""
        if self.damage_type is None or not self.damage_type.is_attack:
            return False
        if (self.bonus_roll is not None and self.bonus_roll.deals_damage) or self.variable_damage:
            return True
        return any(t.effect.damage > 0 for t in self.tiers) or any(
            e.damage > 0 for _, e in self.dice_effects.per_symbol + self.dice_effects.on_symbol
        )

    @property
    def is_attack(self) -> bool:
        """An Offensive Ability that deals at least 1 dmg to a target, i.e. not collateral (Quick Reference)."""
        return self.is_offensive and self.deals_damage

    @property
    def deals_collateral(self) -> bool:
        """True when it can deal collateral damage (its own type, or a collateral amount beside an Attack)."""
        if self.damage_type is DamageType.COLLATERAL:
            return True
        return any(e.collateral for e in self.all_effects())

    def all_effects(self) -> list[Effect]:
        """Every fixed and dice-dependent amount the ability can produce (bonus roll included)."""
        effects = [self.base_effect] + [t.effect for t in self.tiers]
        effects += [e for _, e in self.dice_effects.per_symbol + self.dice_effects.on_symbol]
        effects += [c.effect for c in self.dice_effects.conditions]
        if self.bonus_roll is not None:
            bonus = self.bonus_roll.effects
            effects += [e for _, e in bonus.per_symbol + bonus.on_symbol] + [c.effect for c in bonus.conditions]
        return effects

    @property
    def targets_opponent(self) -> bool:
        """True when resolving it touches a chosen opponent: an Attack, an inflicted status, an
        opponent's CP or cards. Only such abilities need a target in games of more than two;
        collateral damage has its own targeting rules and never does (Damage Types: Collateral)."""
        if self.is_attack:
            return True
        return any(
            e.opponent_cp or e.steal or e.opponent_discard
            or any(s.startswith(("inflict", "opponent")) for s in e.statuses)
            for e in self.all_effects()
        )

    def __repr__(self) -> str:
        return f"<Ability {self.name!r} {self.kind.value} {self.requirement_text!r}>"
