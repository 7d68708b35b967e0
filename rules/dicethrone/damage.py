"""Damage types (the rulebook's Damage Type Chart) and the Final DMG Total procedure.

The procedure, after everyone has finished acting:

1. incoming damage;
2. add and subtract every fixed amount (attack modifiers add, prevention subtracts): the subtotal;
3. compute every multiplier or divider independently from that subtotal (division rounds up), apply
   them all, and never go below zero.

The rulebook's example, Doctor Strange (Mystic Bolts, 9 dmg) against Black Widow::

    >>> total = final_damage_total(9, adjustments=[+3, -2, +1, +4],
    ...                            portions=[Portion.prevent_half(), Portion.prevent_half()])
    >>> total.subtotal, total.portion_values, total.total
    (15, (-8, -8), 0)
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.errors import IllegalActionError, RulesError


class DamageType(enum.Enum):
    """The five damage types. Attributes follow the Damage Type Chart."""

    NORMAL = "normal"
    UNDEFENDABLE = "undefendable"
    PURE = "pure"
    COLLATERAL = "collateral"
    ULTIMATE = "ultimate"

    @classmethod
    def parse(cls, text: str) -> DamageType:
        """Accepts the value or the short forms used on hero sheets (``dmg``, ``undef``, ``coll``, ``ult``)."""
        key = text.strip().lower()
        found = _SHORT_FORMS.get(key)
        if found is None:
            raise UnknownDamageTypeError(
                f"not a damage type: {text!r} (one of {', '.join(t.value for t in cls)})"
            )
        return found

    @property
    def defendable(self) -> bool:
        """The defender may roll a Defensive Ability against it."""
        return self is DamageType.NORMAL

    @property
    def avoidable(self) -> bool:
        """Cards and Status Effects may reduce, prevent or avoid it."""
        return self is not DamageType.ULTIMATE

    @property
    def modifiable(self) -> bool:
        """Attack Modifiers may change it (ultimate damage: increase only)."""
        return self in (DamageType.NORMAL, DamageType.UNDEFENDABLE, DamageType.ULTIMATE)

    @property
    def increase_only(self) -> bool:
        return self is DamageType.ULTIMATE

    @property
    def special_targeting(self) -> bool:
        """Its description names who receives it; no targeting roll."""
        return self is DamageType.COLLATERAL

    @property
    def is_attack(self) -> bool:
        """Damage of this type to a target makes the ability an Attack (collateral never does)."""
        return self is not DamageType.COLLATERAL


class UnknownDamageTypeError(RulesError, ValueError):
    """A damage type name that is not one of the five."""


_SHORT_FORMS: dict[str, DamageType] = {
    **{t.value: t for t in DamageType},
    "dmg": DamageType.NORMAL,
    "undef": DamageType.UNDEFENDABLE,
    "coll": DamageType.COLLATERAL,
    "ult": DamageType.ULTIMATE,
}


@dataclass(frozen=True)
class Portion:
    """A multiplier or divider: ``fraction`` of the subtotal, rounded up, prevented or added.

    Black Widow's Agility ("prevent 1/2 of the incoming damage") is ``Portion.prevent_half()``; a card
    that doubles the damage is ``Portion(Fraction(1), prevents=False)``.
    """

    fraction: Fraction
    prevents: bool = True
    source: str = ""

    @classmethod
    def prevent_half(cls, source: str = "") -> Portion:
        return cls(Fraction(1, 2), True, source)

    def value(self, subtotal: int) -> int:
        """Signed change to the subtotal; division always rounds up."""
        amount = math.ceil(Fraction(max(subtotal, 0)) * self.fraction)
        return -amount if self.prevents else amount


@dataclass(frozen=True)
class DamageTotal:
    incoming: int
    subtotal: int
    portion_values: tuple[int, ...]
    total: int
    """The damage taken: never below zero."""


def final_damage_total(
    incoming: int,
    *,
    adjustments: Sequence[int] = (),
    portions: Sequence[Portion] = (),
    damage_type: DamageType = DamageType.NORMAL,
) -> DamageTotal:
    """Runs the Final DMG Total procedure.

    ``adjustments`` are fixed amounts (+ added by modifiers, - prevented); ``portions`` the
    multipliers and dividers, each computed from the subtotal.

    :raises IllegalActionError: when the damage type forbids an adjustment (a reduction of ultimate
        damage; an Attack Modifier on pure or collateral damage).
    """
    if incoming < 0:
        raise IllegalActionError(f"incoming damage cannot be negative: {incoming!r}")
    for amount in adjustments:
        check_damage_change(damage_type, adds=amount > 0, reduces=amount < 0, what=f"{amount:+d} dmg")
    for portion in portions:
        check_damage_change(damage_type, adds=not portion.prevents, reduces=portion.prevents, what=repr(portion))
    subtotal = incoming + sum(adjustments)
    values = tuple(portion.value(subtotal) for portion in portions)
    total = max(0, subtotal + sum(values))
    return DamageTotal(incoming, subtotal, values, total)


def check_damage_change(damage_type: DamageType, *, adds: bool, reduces: bool, what: str) -> None:
    """Refuses a change the Damage Type Chart forbids: reducing what is not avoidable (ultimate),
    adding to what is not modifiable (pure, collateral).

    :raises IllegalActionError: naming ``what`` and the rule.
    """
    if reduces and not damage_type.avoidable:
        raise IllegalActionError(
            f"{what}: {damage_type.value} damage cannot be reduced, prevented or avoided (Damage Type Chart)"
        )
    if adds and not damage_type.modifiable:
        raise IllegalActionError(
            f"{what}: {damage_type.value} damage cannot be modified (Damage Type Chart)"
        )
