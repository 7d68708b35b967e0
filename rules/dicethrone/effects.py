"""What abilities do: fixed amounts, and the effects that depend on dice.

The rulebook's "Resolving Text" rules, as data on each ability:

- multiplication, "2 × per sword": ``per_symbol`` amounts, counted on the dice in question;
- "On [symbol]": ``on_symbol`` amounts, applied once however many dice show the symbol;
- thresholds such as "with 2 foot: prevent half": ``conditions``;
- "Roll N dice": a :class:`BonusRoll` resolved from dice rolled once, never the earlier ones;
- a defensive ability rolls ``defense_dice`` once and resolves the same three kinds of effect.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from rules.dice import FACES, Roll
from rules.errors import IllegalActionError, InvalidRollError
from rules.dicethrone.requirements import Requirement, best_tier

if TYPE_CHECKING:
    from rules.dicethrone.abilities import Ability
    from rules.dicethrone.heroes import Hero


@dataclass(frozen=True)
class Effect:
    """Amounts an effect produces. All counts are whole numbers; statuses are names, repeated per stack."""

    damage: int = 0
    """Damage to the target, of the ability's damage type."""
    collateral: int = 0
    """Collateral damage (not an Attack; no defense)."""
    heal: int = 0
    cp: int = 0
    """CP gained by the acting player."""
    opponent_cp: int = 0
    """CP the opponent gains (negative: loses)."""
    prevent: int = 0
    """Incoming damage prevented (defense)."""
    prevent_half: bool = False
    """Prevent half the incoming damage, rounded up (a divider in the Final DMG Total)."""
    negate: bool = False
    """Take no damage from this attack."""
    counter: int = 0
    """Damage dealt back to the attacker (defense)."""
    draw: int = 0
    """Cards the acting player draws."""
    opponent_discard: int = 0
    """Cards the opponent discards (at random; the tray counts cards, it does not know which)."""
    steal: bool = False
    """The CP this gains is stolen from the opponent: as much as they have ("Steal")."""
    self_damage: int = 0
    """Damage the acting player takes when the Attack deals damage (Barbarian's Reckless)."""
    statuses: tuple[str, ...] = ()
    """Status effects gained or inflicted, with cards drawn and similar, as short phrases."""

    def __add__(self, other: Effect) -> Effect:
        return Effect(
            damage=self.damage + other.damage,
            collateral=self.collateral + other.collateral,
            heal=self.heal + other.heal,
            cp=self.cp + other.cp,
            opponent_cp=self.opponent_cp + other.opponent_cp,
            prevent=self.prevent + other.prevent,
            prevent_half=self.prevent_half or other.prevent_half,
            negate=self.negate or other.negate,
            counter=self.counter + other.counter,
            draw=self.draw + other.draw,
            opponent_discard=self.opponent_discard + other.opponent_discard,
            steal=self.steal or other.steal,
            self_damage=self.self_damage + other.self_damage,
            statuses=self.statuses + other.statuses,
        )

    def times(self, n: int) -> Effect:
        """This effect ``n`` times ("1 × per symbol" with ``n`` dice showing it)."""
        total = Effect()
        for _ in range(n):
            total = total + self
        return total

    @property
    def is_empty(self) -> bool:
        return self == Effect()

    def describe(self) -> str:
        """A short text such as ``"6 dmg, heal 2, +1 CP, Poison"``."""
        parts: list[str] = []
        if self.damage:
            parts.append(f"{self.damage} dmg")
        if self.collateral:
            parts.append(f"{self.collateral} collateral dmg")
        if self.heal:
            parts.append(f"heal {self.heal}")
        if self.cp:
            parts.append(f"{self.cp:+d} CP")
        if self.opponent_cp:
            parts.append(f"opponent {self.opponent_cp:+d} CP")
        if self.prevent:
            parts.append(f"prevent {self.prevent}")
        if self.prevent_half:
            parts.append("prevent half")
        if self.negate:
            parts.append("take no damage")
        if self.counter:
            parts.append(f"{self.counter} dmg to attacker")
        if self.draw:
            parts.append(f"draw {self.draw}")
        if self.opponent_discard:
            parts.append(f"opponent discards {self.opponent_discard}")
        if self.steal:
            parts.append("stolen")
        if self.self_damage:
            parts.append(f"{self.self_damage} dmg to self on a hit")
        parts.extend(self.statuses)
        return ", ".join(parts) if parts else "nothing"


EFFECT_LIMIT = 999
"""No amount on a hero sheet comes near this; far larger ones would overflow the odds' floats."""

EFFECT_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Effect))


@dataclass(frozen=True)
class Condition:
    """A threshold on the dice: when ``need`` is met (and the dice total is within the bounds
    given), ``effect`` applies once."""

    need: Requirement | None
    effect: Effect
    total_at_least: int | None = None
    total_at_most: int | None = None

    def met_by(self, hero: Hero, roll: Roll) -> bool:
        if self.need is not None and not self.need.met_by(hero, roll):
            return False
        if self.total_at_least is None and self.total_at_most is None:
            return True
        if not roll.fully_numbered:
            return False
        total = roll.total()
        if self.total_at_least is not None and total < self.total_at_least:
            return False
        return self.total_at_most is None or total <= self.total_at_most


@dataclass(frozen=True)
class DiceEffects:
    """The dice-dependent part of an ability: per-symbol, on-symbol and threshold effects."""

    per_symbol: tuple[tuple[str, Effect], ...] = ()
    on_symbol: tuple[tuple[str, Effect], ...] = ()
    conditions: tuple[Condition, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.per_symbol or self.on_symbol or self.conditions)

    def resolve(self, hero: Hero, roll: Roll) -> Effect:
        counts = roll.symbol_counts(hero)
        total = Effect()
        for symbol, effect in self.per_symbol:
            total = total + effect.times(counts[symbol])
        for symbol, effect in self.on_symbol:
            if counts[symbol]:
                total = total + effect
        for condition in self.conditions:
            if condition.met_by(hero, roll):
                total = total + condition.effect
        return total


@dataclass(frozen=True)
class BonusRoll:
    """"Roll N dice" inside an ability's effect."""

    dice: int
    sum_damage: bool = False
    """Damage equal to the dice total."""
    half_value_damage: bool = False
    """Damage equal to half the value shown (one die), rounded up."""
    effects: DiceEffects = field(default_factory=DiceEffects)

    @property
    def deals_damage(self) -> bool:
        effects = self.effects
        amounts = [e for _, e in effects.per_symbol + effects.on_symbol] + [c.effect for c in effects.conditions]
        return self.sum_damage or self.half_value_damage or any(e.damage or e.collateral for e in amounts)

    def resolve(self, hero: Hero, roll: Roll) -> Effect:
        if len(roll) != self.dice:
            raise InvalidRollError(f"this effect rolls {self.dice} dice, not {len(roll)}: {roll.notation()!r}")
        total = self.effects.resolve(hero, roll)
        if self.sum_damage:
            total = total + Effect(damage=roll.total())
        if self.half_value_damage:
            total = total + Effect(damage=-(-roll.total() // 2))
        return total


MAX_CP = 15
"""No player holds more than 15 CP (Combat Points)."""


def cp_damage(ability: Ability, effect: Effect, cp: int) -> int:
    """The damage of an ability whose damage is a share of the acting player's CP: computed on
    the CP after the ability's own gain (capped at 15), rounded up; 0 for other abilities."""
    if ability.cp_damage is None:
        return 0
    after = max(0, min(MAX_CP, cp + effect.cp))
    return math.ceil(after * ability.cp_damage)


def resolve_offense(
    hero: Hero, ability: Ability, roll: Roll, bonus: Roll | None = None, cp: int | None = None
) -> Effect:
    """Everything ``ability`` does with the final ``roll``, and the bonus roll's dice if it has one.

    ``cp`` is the acting player's CP before the ability resolves; with it, damage that depends on
    CP (``ability.cp_damage``) is added. Without it that part is left out (it is not known).

    :raises IllegalActionError: if ``roll`` does not meet the ability, or a bonus roll is missing or
        given to an ability without one.
    """
    reached = best_tier(hero, ability, roll)
    if reached is None:
        raise IllegalActionError(
            f"{roll.notation()!r} does not meet {ability.name!r} ({ability.tiers[0].requirement}) "
            "(Activation Requirement)"
        )
    total = ability.tiers[reached[0] - 1].effect + ability.dice_effects.resolve(hero, roll)
    if ability.bonus_roll is not None:
        if bonus is None:
            raise IllegalActionError(f"{ability.name!r} rolls {ability.bonus_roll.dice} more dice first (Roll [#])")
        total = total + ability.bonus_roll.resolve(hero, bonus)
    elif bonus is not None:
        raise IllegalActionError(f"{ability.name!r} has no bonus roll, got {bonus.notation()!r}")
    if cp is not None and ability.cp_damage is not None:
        total = total + Effect(damage=cp_damage(ability, total, cp))
    return total


def resolve_defense(hero: Hero, ability: Ability, roll: Roll) -> Effect:
    """What defensive ``ability`` does with its single defense ``roll``.

    :raises IllegalActionError: if ``ability`` is not defensive or the dice count is wrong.
    """
    if not ability.is_defensive:
        raise IllegalActionError(f"{ability.name!r} is not a defensive ability (Defensive Ability)")
    if len(roll) != ability.defense_dice:
        raise IllegalActionError(
            f"{ability.name!r} rolls {ability.defense_dice} dice, not {len(roll)}: {roll.notation()!r} (Defensive Dice)"
        )
    return ability.base_effect + ability.dice_effects.resolve(hero, roll)


def expected_bonus_damage(hero: Hero, bonus: BonusRoll) -> float:
    """The mean damage of a bonus roll over all equally likely outcomes."""
    return _expected_bonus_damage(hero, bonus)


@lru_cache(maxsize=512)
def _expected_bonus_damage(hero: Hero, bonus: BonusRoll) -> float:
    outcomes = list(itertools.product(FACES, repeat=bonus.dice))
    total = 0
    for faces in outcomes:
        effect = bonus.resolve(hero, Roll(faces))
        total += effect.damage + effect.collateral
    return total / len(outcomes)


def effect_from_table(data: Mapping[str, object], where: str) -> Effect:
    """Builds an :class:`Effect` from a hero-file table, naming ``where`` in errors."""
    from rules.errors import HeroDataError

    values: dict[str, object] = {}
    for key, value in data.items():
        if key == "status":
            key, value = "statuses", [value]
        if key not in EFFECT_KEYS:
            raise HeroDataError(f"{where}.{key}: unknown key (expected one of {', '.join(EFFECT_KEYS)})")
        if key == "statuses":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise HeroDataError(f"{where}.{key}: expected a list of strings, got {value!r}")
            values[key] = tuple(value)
        elif key in ("prevent_half", "negate", "steal"):
            if not isinstance(value, bool):
                raise HeroDataError(f"{where}.{key}: expected true or false, got {value!r}")
            values[key] = value
        else:
            if not isinstance(value, int) or isinstance(value, bool) or not -EFFECT_LIMIT <= value <= EFFECT_LIMIT:
                shown = value if not isinstance(value, int) or abs(value) < 10**20 else f"a {len(str(abs(value)))}-digit number"
                raise HeroDataError(
                    f"{where}.{key}: expected a whole number -{EFFECT_LIMIT} to {EFFECT_LIMIT}, got {shown!r}"
                )
            values[key] = value
    return replace(Effect(), **values)  # type: ignore[arg-type]
