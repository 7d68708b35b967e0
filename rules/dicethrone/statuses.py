"""Status effects as data (``statuses.toml``, format in docs/statuses.md) and the phrases abilities
use to gain, inflict and remove them.

    >>> evasive = find_status("evasive")
    >>> evasive.stack_limit, evasive.spend.value, evasive.succeeds_on
    (3, 'negate', (1, 2))
    >>> parse_status_phrase("inflict 2 Delayed Poison")
    StatusChange(verb='inflict', count=2, status='Delayed Poison', on_attacker=False)
"""

from __future__ import annotations

import enum
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rules.errors import HeroDataError, RulesError
from rules.unsure import OneOf, decide

STATUSES_FILE = Path(__file__).resolve().parent / "statuses.toml"


class UnknownStatusError(RulesError, LookupError):
    """No status effect with that name."""


class SpendKind(enum.Enum):
    """What spending a status does (Spendable Status Effects)."""

    NONE = "none"
    """Not spent by its holder (it acts by itself, or an ability uses it)."""
    ADD = "add"
    """+``amount`` dmg to the holder's Attack (an Attack Modifier)."""
    PREVENT = "prevent"
    """Prevent ``amount`` incoming damage."""
    ADD_OR_PREVENT = "add_or_prevent"
    """Attacking: +``amount`` dmg; receiving damage: prevent ``amount``."""
    PREVENT_HALF = "prevent_half"
    """Prevent half the incoming damage, rounded up (a divider in the Final DMG Total)."""
    NEGATE = "negate"
    """The incoming damage is reduced to 0."""
    UNDEFENDABLE = "undefendable"
    """The holder's Attack becomes undefendable (before the defense is rolled)."""
    REMOVE_NEGATIVE = "remove_negative"
    """Remove one negative status from the holder."""
    COUNTER_HALF = "counter_half"
    """Deal half the damage taken (rounded up) back to the attacker."""
    PAY_TO_REMOVE = "pay_to_remove"
    """Pay ``amount`` CP to remove it before it acts."""


@dataclass(frozen=True)
class Status:
    """One status effect: its stack limit, how it is spent, what it does in Upkeep and at other moments."""

    name: str
    hero: str
    positive: bool = False
    stack_limit: int | None = None
    """None when the sources do not give it (then any number of tokens may stack)."""
    persistent: bool = False
    unique: bool = False
    spend: SpendKind = SpendKind.NONE
    amount: int = 0
    succeeds_on: tuple[int, ...] = ()
    """Spending rolls 1 die; the effect applies only on these faces (empty: no roll)."""
    needs_damage: int = 0
    """Spendable only on an Attack of at least this much damage."""
    upkeep_damage: int = 0
    per_stack: bool = False
    """Upkeep damage counts once per token."""
    damage_taken: int = 0
    """Attacks against the holder deal this much more (an Attack Modifier that stays in play)."""
    on_offensive_roll: str = ""
    """``skip`` (the holder's next Offensive Roll Phase) or ``one_less_attempt``; removed after."""
    on_income: str = ""
    """``skip`` (the holder's next Income Phase); removed after."""
    setup: int = 0
    """Tokens the hero starts the game with (Additional Setup)."""
    defeat_health: int = 0
    """When the holder would be defeated, one token is removed and health is set to this (0: no such effect)."""
    fails_on: tuple[int, ...] = ()
    """After the holder activates an ability they roll 1 die: on these faces it has no effect (Blinded)."""
    text: str = ""
    unknown: str = ""
    """What the sources do not give; the table resolves it by hand."""
    source: str = ""

    def fails(self, die: int | OneOf) -> bool:
        """Whether the die rolled after an activation (``fails_on``) makes the ability fail; a
        die read as one of a few numbers says what they all say.

        :raises InvalidRollError: when its numbers say differently (Blinded's 2|3).
        """
        return decide(die, lambda number: number in self.fails_on, self.name)

    def succeeds(self, die: int | OneOf) -> bool:
        """Whether the die rolled to spend it (``succeeds_on``: Evasive's 1-2) makes it work; a
        die read as one of a few numbers says what they all say.

        :raises InvalidRollError: when its numbers say differently (Evasive's 2|3).
        """
        return decide(die, lambda number: number in self.succeeds_on, self.name)

    @property
    def spendable(self) -> bool:
        return self.spend is not SpendKind.NONE

    @property
    def negative(self) -> bool:
        return not self.positive


@dataclass(frozen=True)
class StatusChange:
    """``gain 2 Chi``, ``inflict Poison on the attacker``, ``remove your negative status effects``."""

    verb: str
    """``gain``, ``inflict`` or ``remove-negative``."""
    count: int
    status: str
    on_attacker: bool = False
    """A defense's "inflict ... on the attacker"."""


_PHRASE = re.compile(r"(gain|inflict|a player gains) (?:(\d+) )?(.+?)( on the attacker)?\Z")


def parse_status_phrase(phrase: str) -> StatusChange | None:
    """The status change a hero file's phrase names, or None for a phrase that is not one
    (``cultivate 3 spirits``: the table resolves it)."""
    if phrase == "remove your negative status effects":
        return StatusChange("remove-negative", 0, "")
    match = _PHRASE.match(phrase)
    if match is None:
        return None
    name = match.group(3)
    if " or " in name or name.startswith("Chi stack limit"):
        return None
    try:
        status = find_status(name)
    except UnknownStatusError:
        return None
    verb = "gain" if match.group(1) == "a player gains" else match.group(1)
    return StatusChange(verb, int(match.group(2) or 1), status.name, match.group(4) is not None)


def choice_options(phrase: str) -> tuple[str, ...]:
    """The options of an "Or" phrase (``gain Evasive or Cleanse`` -> ``gain Evasive``,
    ``gain Cleanse``); empty for a phrase without a choice."""
    match = re.fullmatch(r"(gain|inflict) (.+) or (.+)", phrase)
    if match is None:
        return ()
    return (f"{match.group(1)} {match.group(2)}", f"{match.group(1)} {match.group(3)}")


def find_status(name: str) -> Status:
    """The status with this name (any case, spaces and hyphens ignored).

    :raises UnknownStatusError: naming the input.
    """
    wanted = _fold(name)
    for status in all_statuses():
        if _fold(status.name) == wanted:
            return status
    raise UnknownStatusError(f"no status effect {name!r}")


def all_statuses() -> tuple[Status, ...]:
    return _load(STATUSES_FILE)


@lru_cache(maxsize=4)
def _load(path: Path) -> tuple[Status, ...]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    tables = data.get("statuses")
    if not isinstance(tables, list):
        raise HeroDataError(f"{path.name}: statuses: expected a list of tables")
    return tuple(status_from_table(table, f"{path.name}: statuses[{i}]") for i, table in enumerate(tables))


_INT_KEYS = ("stack_limit", "amount", "needs_damage", "upkeep_damage", "damage_taken", "setup", "defeat_health")
_BOOL_KEYS = ("positive", "persistent", "unique", "per_stack")
_TEXT_KEYS = ("name", "hero", "text", "unknown", "source", "on_offensive_roll", "on_income")


def status_from_table(table: Mapping[str, object], where: str) -> Status:
    """Validates one ``[[statuses]]`` table; errors name ``where`` and the key."""
    values: dict[str, object] = {}
    for key, value in table.items():
        if key in _INT_KEYS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise HeroDataError(f"{where}.{key}: expected a whole number, got {value!r}")
        elif key in _BOOL_KEYS:
            if not isinstance(value, bool):
                raise HeroDataError(f"{where}.{key}: expected true or false, got {value!r}")
        elif key in _TEXT_KEYS:
            if not isinstance(value, str):
                raise HeroDataError(f"{where}.{key}: expected a string, got {value!r}")
        elif key == "spend":
            try:
                value = SpendKind(value)
            except ValueError:
                kinds = ", ".join(k.value for k in SpendKind)
                raise HeroDataError(f"{where}.spend: expected one of {kinds}, got {value!r}") from None
        elif key in ("succeeds_on", "fails_on"):
            if not isinstance(value, list) or not all(isinstance(v, int) and 1 <= v <= 6 for v in value):
                raise HeroDataError(f"{where}.{key}: expected die faces 1-6, got {value!r}")
            value = tuple(value)
        else:
            raise HeroDataError(f"{where}.{key}: unknown key")
        values[key] = value
    if not values.get("name") or not values.get("hero"):
        raise HeroDataError(f"{where}: name and hero are required")
    for key, allowed in (("on_offensive_roll", ("", "skip", "one_less_attempt")), ("on_income", ("", "skip"))):
        if values.get(key, "") not in allowed:
            raise HeroDataError(f"{where}.{key}: expected one of {', '.join(a for a in allowed if a)}")
    return Status(**values)  # type: ignore[arg-type]


def _fold(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())
