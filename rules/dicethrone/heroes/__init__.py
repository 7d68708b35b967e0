"""Hero data: one TOML file per hero (see docs/heroes.md), loaded into :class:`Hero` values.

    >>> barbarian = load_hero("Barbarian")
    >>> barbarian.symbol_for(6)
    'strength'
    >>> barbarian.ability("slap").name
    'Smack'
"""

from __future__ import annotations

import re
import stat
import tomllib
from fractions import Fraction
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rules.dicethrone.abilities import Ability, AbilityKind, Conflict, Tier
from rules.dicethrone.damage import DamageType, UnknownDamageTypeError
from rules.dice import FACES, Face, Roll
from rules.dicethrone.effects import EFFECT_KEYS, BonusRoll, Condition, DiceEffects, Effect, effect_from_table
from rules.errors import HeroDataError, InvalidRollError, UnknownAbilityError, UnknownHeroError
from rules.dicethrone.requirements import Requirement, RequirementKind

HEROES_DIRECTORY = Path(__file__).resolve().parent
"""Where the bundled hero files live."""

MAX_HERO_FILE_BYTES = 256 * 1024
"""The largest bundled hero file is under 20 KB."""

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_SYMBOL = re.compile(r"[a-z][a-z0-9_]*\Z")


def _key(text: str) -> str:
    """Folds a name for lookups: case, spaces, hyphens, apostrophes and a trailing '!' do not matter."""
    return re.sub(r"[^a-z0-9]+", "", text.lower())


@dataclass(frozen=True, eq=False)
class Hero:
    """A hero: dice key and abilities. Compared by identity (each file loads once and is cached)."""

    id: str
    name: str
    faces: tuple[str, ...]
    """The symbol on each face number 1-6 (``faces[0]`` is face 1)."""
    abilities: tuple[Ability, ...]
    set: str = ""
    aliases: tuple[str, ...] = ()
    symbol_aliases: tuple[tuple[str, str], ...] = ()
    partial: bool = False
    """True when the facts are incomplete (e.g. symbol names unknown); the file says what is missing."""
    conflicts: tuple[Conflict, ...] = ()
    sources: tuple[str, ...] = ()
    notes: str = ""
    path: Path | None = None

    def __repr__(self) -> str:
        return f"load_hero({self.id!r})"

    def __copy__(self) -> Hero:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Hero:
        # Heroes never change; game snapshots share them.
        return self

    @property
    def symbols(self) -> tuple[str, ...]:
        """Distinct symbols in face order."""
        return tuple(dict.fromkeys(self.faces))

    def symbol_for(self, face: Face) -> str:
        """The symbol a die shows: looked up for a number, checked and normalised for a symbol name.

        :raises InvalidRollError: for a number outside 1-6 or a symbol this hero's dice do not have.
        """
        if type(face) is int and 1 <= face <= 6:
            return self.faces[face - 1]
        if isinstance(face, str):
            return self.canonical_symbol(face)
        if isinstance(face, bool) or face not in FACES:
            raise InvalidRollError(f"a die shows 1 to 6, not {face!r}")
        return self.faces[face - 1]

    def canonical_symbol(self, name: str) -> str:
        """``name`` or one of its aliases, as the hero's own symbol name."""
        lowered = name.lower().replace("-", "_")
        if lowered in self.faces:
            return lowered
        for alias, symbol in self.symbol_aliases:
            if alias == lowered:
                return symbol
        raise InvalidRollError(
            f"{self.name} dice have no symbol {name!r} (symbols: {', '.join(self.symbols)})"
        )

    def faces_for(self, symbol: str) -> tuple[int, ...]:
        """The face numbers showing ``symbol``."""
        symbol = self.canonical_symbol(symbol)
        return tuple(number for number, s in zip(FACES, self.faces) if s == symbol)

    def symbol_faces(self) -> dict[str, tuple[int, ...]]:
        return {symbol: self.faces_for(symbol) for symbol in self.symbols}

    def roll(self, text: str) -> Roll:
        """``Roll.from_notation(text, self)``: numbers and this hero's symbol names."""
        return Roll.from_notation(text, self)

    def ability(self, name: str) -> Ability:
        """The ability with this name or alias (any case; spaces, hyphens and '!' ignored).

        :raises UnknownAbilityError: naming the hero and the name.
        """
        wanted = _key(name)
        for ability in self.abilities:
            if wanted == _key(ability.name) or any(wanted == _key(a) for a in ability.aliases):
                return ability
        raise UnknownAbilityError(
            f"{self.name} has no ability {name!r} (abilities: {', '.join(a.name for a in self.abilities)})"
        )

    def offensive_abilities(self) -> tuple[Ability, ...]:
        """Offensive abilities and the ultimate, in hero sheet order."""
        return tuple(a for a in self.abilities if a.is_offensive)

    def defensive_abilities(self) -> tuple[Ability, ...]:
        return tuple(a for a in self.abilities if a.is_defensive)

    @property
    def ultimate(self) -> Ability | None:
        return next((a for a in self.abilities if a.is_ultimate), None)

    def matches(self, id_or_name: str) -> bool:
        wanted = _key(id_or_name)
        return wanted in (_key(self.id), _key(self.name), *(_key(a) for a in self.aliases))


def load_hero(id_or_name: str | Path, search: Sequence[Path] = ()) -> Hero:
    """Finds a hero by id, display name or alias (any case), or loads a hero file by path.

    ``search`` adds folders of custom hero files, looked at before the bundled ones.

    :raises UnknownHeroError: (a LookupError) when no hero matches, naming the input.
    :raises HeroDataError: (a ValueError) when the file does not validate, naming file and key.
    """
    text = str(id_or_name)
    if isinstance(id_or_name, Path) or text.endswith(".toml"):
        path = Path(text)
        if not path.is_file():
            raise UnknownHeroError(f"no hero file {text!r}")
        return load_hero_file(path)
    folders = (*search, HEROES_DIRECTORY)
    # The file named by the id first: a broken custom file elsewhere must not block this hero.
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    for folder in folders:
        path = Path(folder) / f"{slug}.toml"
        if slug and path.is_file():
            return load_hero_file(path)
    found: dict[str, Hero] = {}
    broken: list[str] = []
    for folder in folders:
        for path in sorted(Path(folder).glob("*.toml")):
            try:
                hero = load_hero_file(path)
            except HeroDataError as error:
                broken.append(str(error))
                continue
            found.setdefault(hero.id, hero)
    for hero in sorted(found.values(), key=lambda h: h.id):
        if hero.matches(text):
            return hero
    message = f"no hero {text!r} (known: {', '.join(sorted(found))})"
    if broken:
        message += f"; not loaded: {'; '.join(broken)}"
    raise UnknownHeroError(message)


def all_heroes(search: Sequence[Path] = ()) -> list[Hero]:
    """Every hero in ``search`` folders and the bundled ones, each id once (the first found wins)."""
    found: dict[str, Hero] = {}
    for folder in (*search, HEROES_DIRECTORY):
        for path in sorted(Path(folder).glob("*.toml")):
            hero = load_hero_file(path)
            found.setdefault(hero.id, hero)
    return sorted(found.values(), key=lambda hero: hero.id)


def load_hero_file(path: Path) -> Hero:
    """Loads and validates one hero file (cached by path and modification time)."""
    path = Path(path).resolve()
    try:
        info = path.stat()
    except OSError as error:
        raise UnknownHeroError(f"cannot read hero file {str(path)!r}: {error.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        # A folder or a FIFO named like a hero file: never open it (a FIFO would block).
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise HeroDataError(f"{path}: {kind}, not a hero file")
    stamp = info.st_mtime_ns
    return _load_cached(path, stamp)


@lru_cache(maxsize=128)
def _load_cached(path: Path, stamp: int) -> Hero:
    if path.stat().st_size > MAX_HERO_FILE_BYTES:
        raise HeroDataError(f"{path}: larger than {MAX_HERO_FILE_BYTES // 1024} KB; not a hero file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise HeroDataError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:
        raise HeroDataError(f"{path}: not valid TOML: nested too deeply") from None
    except ValueError as error:  # tomllib lets int()'s "Exceeds the limit (4300 digits)" through
        raise HeroDataError(f"{path}: not valid TOML: {error}") from None
    return hero_from_dict(data, str(path))


# ---------------------------------------------------------------------------------------------
# Validation. Every error names the file and the key, e.g. "barbarian.toml: abilities[2].damgae".

_HERO_KEYS = {
    "id", "name", "set", "partial", "aliases", "faces", "symbol_aliases", "sources", "notes",
    "conflicts", "abilities",
}
_ABILITY_KEYS = {
    "name", "kind", "aliases", "requirement", "tiers", "damage_type", "effect", "per_symbol",
    "on_symbol", "conditions", "bonus_roll", "dice", "roll_attempts", "reroll_die_limit",
    "conflicts", "notes", "source", "status", "variable_damage", "cp_damage", *EFFECT_KEYS,
}
_TIER_KEYS = {"requirement", "effect", "status", *EFFECT_KEYS}
_BONUS_KEYS = {"dice", "sum_damage", "half_value_damage", "per_symbol", "on_symbol", "conditions"}
_CONFLICT_KEYS = {"about", "chosen", "other"}


class _Checker:
    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, key: str, message: str) -> HeroDataError:
        return HeroDataError(f"{self.where}: {key}: {message}")

    def keys(self, table: Mapping[str, object], allowed: Iterable[str], key: str) -> None:
        allowed_set = set(allowed)
        for name in table:
            if name not in allowed_set:
                prefix = f"{key}." if key else ""
                raise self.fail(f"{prefix}{name}", "unknown key")

    def table(self, value: object, key: str) -> Mapping[str, object]:
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table, got {value!r}")
        return value

    def text(self, value: object, key: str, *, empty: bool = False) -> str:
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise self.fail(key, f"expected a non-empty string, got {value!r}")
        return value

    def texts(self, value: object, key: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(key, f"expected a list of strings, got {value!r}")
        return tuple(value)

    def integer(self, value: object, key: str, low: int, high: int) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise self.fail(key, f"expected a whole number {low} to {high}, got {value!r}")
        return value

    def flag(self, value: object, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, got {value!r}")
        return value

    def list_of_tables(self, value: object, key: str) -> list[Mapping[str, object]]:
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list of tables, got {value!r}")
        return [self.table(item, f"{key}[{i}]") for i, item in enumerate(value)]


def hero_from_dict(data: Mapping[str, object], where: str = "<hero>") -> Hero:
    """Validates parsed hero data; ``where`` (the file) prefixes every error."""
    check = _Checker(where)
    check.keys(data, _HERO_KEYS, "")
    for required in ("id", "name", "faces", "abilities"):
        if required not in data:
            raise check.fail(required, "missing")
    hero_id = check.text(data["id"], "id")
    if not _ID.match(hero_id):
        raise check.fail("id", f"expected a lowercase hyphenated id like 'moon-elf', got {hero_id!r}")
    name = check.text(data["name"], "name")
    faces = check.texts(data["faces"], "faces")
    if len(faces) != 6:
        raise check.fail("faces", f"expected the 6 symbols of faces 1-6, got {len(faces)}")
    for i, symbol in enumerate(faces):
        if not _SYMBOL.match(symbol):
            raise check.fail(f"faces[{i}]", f"expected a lowercase symbol name, got {symbol!r}")
    symbols = set(faces)
    symbol_aliases: list[tuple[str, str]] = []
    for alias, target in check.table(data.get("symbol_aliases", {}), "symbol_aliases").items():
        target_text = check.text(target, f"symbol_aliases.{alias}")
        if target_text not in symbols:
            raise check.fail(f"symbol_aliases.{alias}", f"no face shows {target_text!r}")
        symbol_aliases.append((alias.lower().replace("-", "_"), target_text))

    def known_symbol(symbol: str, key: str) -> str:
        symbol = symbol.replace("-", "_")
        for alias, target in symbol_aliases:
            if alias == symbol:
                return target
        if symbol not in symbols:
            raise check.fail(key, f"no face shows {symbol!r} (symbols: {', '.join(dict.fromkeys(faces))})")
        return symbol

    def requirement(value: object, key: str) -> Requirement:
        try:
            parsed = Requirement.from_notation(check.text(value, key))
        except InvalidRollError as error:
            raise check.fail(key, str(error)) from None
        if parsed.kind is RequirementKind.SYMBOLS:
            parsed = Requirement(
                parsed.kind, need=tuple((known_symbol(s, key), n) for s, n in parsed.need)
            )
        return parsed

    def effect(table: Mapping[str, object], key: str, skip: Iterable[str] = ()) -> Effect:
        skipped = set(skip)
        return effect_from_table({k: v for k, v in table.items() if k not in skipped}, f"{where}: {key}")

    def per_symbol(value: object, key: str) -> tuple[tuple[str, Effect], ...]:
        table = check.table(value, key)
        return tuple(
            (known_symbol(symbol, f"{key}.{symbol}"), effect(check.table(v, f"{key}.{symbol}"), f"{key}.{symbol}"))
            for symbol, v in table.items()
        )

    def dice_effects(table: Mapping[str, object], key: str) -> DiceEffects:
        conditions: list[Condition] = []
        for i, item in enumerate(check.list_of_tables(table.get("conditions", []), f"{key}conditions")):
            ckey = f"{key}conditions[{i}]"
            check.keys(item, {"need", "total_at_least", "total_at_most", "status", *EFFECT_KEYS}, ckey)
            need = requirement(item["need"], f"{ckey}.need") if "need" in item else None
            low = None if "total_at_least" not in item else check.integer(item["total_at_least"], f"{ckey}.total_at_least", 1, 30)
            high = None if "total_at_most" not in item else check.integer(item["total_at_most"], f"{ckey}.total_at_most", 1, 30)
            if need is None and low is None and high is None:
                raise check.fail(f"{ckey}.need", "missing (or give total_at_least / total_at_most)")
            amounts = effect(item, ckey, skip=("need", "total_at_least", "total_at_most"))
            conditions.append(Condition(need, amounts, low, high))
        return DiceEffects(
            per_symbol=per_symbol(table.get("per_symbol", {}), f"{key}per_symbol"),
            on_symbol=per_symbol(table.get("on_symbol", {}), f"{key}on_symbol"),
            conditions=tuple(conditions),
        )

    def conflicts(value: object, key: str) -> tuple[Conflict, ...]:
        found = []
        for i, item in enumerate(check.list_of_tables(value, key)):
            ckey = f"{key}[{i}]"
            check.keys(item, _CONFLICT_KEYS, ckey)
            for field_name in _CONFLICT_KEYS:
                if field_name not in item:
                    raise check.fail(f"{ckey}.{field_name}", "missing")
            found.append(
                Conflict(
                    check.text(item["about"], f"{ckey}.about"),
                    check.text(item["chosen"], f"{ckey}.chosen"),
                    check.text(item["other"], f"{ckey}.other"),
                )
            )
        return tuple(found)

    abilities: list[Ability] = []
    seen_names: set[str] = set()
    for index, table in enumerate(check.list_of_tables(data["abilities"], "abilities")):
        label = f"abilities[{index}]"
        if "name" in table and isinstance(table["name"], str):
            label = f"abilities[{index}] ({table['name']})"
        check.keys(table, _ABILITY_KEYS, label)
        if "name" not in table:
            raise check.fail(f"{label}.name", "missing")
        ability_name = check.text(table["name"], f"{label}.name")
        aliases = check.texts(table.get("aliases", []), f"{label}.aliases")
        for candidate in (ability_name, *aliases):
            if _key(candidate) in seen_names:
                raise check.fail(f"{label}.name", f"{candidate!r} names two abilities")
            seen_names.add(_key(candidate))
        kind_text = check.text(table.get("kind", ""), f"{label}.kind", empty=True)
        try:
            kind = AbilityKind(kind_text)
        except ValueError:
            raise check.fail(
                f"{label}.kind", f"expected one of {', '.join(k.value for k in AbilityKind)}, got {kind_text!r}"
            ) from None
        damage_type: DamageType | None = None
        if "damage_type" in table:
            type_text = check.text(table["damage_type"], f"{label}.damage_type")
            if type_text != "none":
                try:
                    damage_type = DamageType.parse(type_text)
                except UnknownDamageTypeError as error:
                    raise check.fail(f"{label}.damage_type", str(error)) from None
        effect_text = check.text(table.get("effect", ""), f"{label}.effect", empty=True)
        tiers: list[Tier] = []
        base_effect = Effect()
        if kind in (AbilityKind.OFFENSIVE, AbilityKind.ULTIMATE):
            if ("requirement" in table) == ("tiers" in table):
                raise check.fail(f"{label}.requirement", "give either 'requirement' or 'tiers'")
            if "tiers" in table:
                for amount_key in (*EFFECT_KEYS, "status"):
                    if amount_key in table:
                        raise check.fail(f"{label}.{amount_key}", "with tiers, give amounts in each tier")
                for t, tier_table in enumerate(check.list_of_tables(table["tiers"], f"{label}.tiers")):
                    tkey = f"{label}.tiers[{t}]"
                    check.keys(tier_table, _TIER_KEYS, tkey)
                    if "requirement" not in tier_table:
                        raise check.fail(f"{tkey}.requirement", "missing")
                    tier_effect = effect(tier_table, tkey, skip=("requirement", "effect"))
                    text = check.text(tier_table.get("effect", tier_effect.describe()), f"{tkey}.effect")
                    tiers.append(Tier(requirement(tier_table["requirement"], f"{tkey}.requirement"), tier_effect, text))
                if len(tiers) < 2:
                    raise check.fail(f"{label}.tiers", "expected at least two tiers")
            else:
                base = effect(table, label, skip=_ABILITY_KEYS - set(EFFECT_KEYS) - {"status"})
                text = effect_text or base.describe()
                tiers.append(Tier(requirement(table["requirement"], f"{label}.requirement"), base, text))
        else:
            if "requirement" in table or "tiers" in table:
                raise check.fail(f"{label}.requirement", f"a {kind.value} ability has no activation requirement")
            base_effect = effect(table, label, skip=_ABILITY_KEYS - set(EFFECT_KEYS) - {"status"})
        defense_dice = 0
        roll_attempts = 1
        reroll_limit: int | None = None
        if kind is AbilityKind.DEFENSIVE:
            if "dice" not in table:
                raise check.fail(f"{label}.dice", "missing (how many dice the defense rolls)")
            defense_dice = check.integer(table["dice"], f"{label}.dice", 1, 5)
            roll_attempts = check.integer(table.get("roll_attempts", 1), f"{label}.roll_attempts", 1, 3)
            if "reroll_die_limit" in table:
                reroll_limit = check.integer(table["reroll_die_limit"], f"{label}.reroll_die_limit", 1, 5)
        else:
            for defense_key in ("dice", "roll_attempts", "reroll_die_limit"):
                if defense_key in table:
                    raise check.fail(f"{label}.{defense_key}", "only a defensive ability rolls defense dice")
        bonus: BonusRoll | None = None
        if "bonus_roll" in table:
            bkey = f"{label}.bonus_roll"
            btable = check.table(table["bonus_roll"], bkey)
            check.keys(btable, _BONUS_KEYS, bkey)
            if "dice" not in btable:
                raise check.fail(f"{bkey}.dice", "missing")
            bonus = BonusRoll(
                dice=check.integer(btable["dice"], f"{bkey}.dice", 1, 5),
                sum_damage=check.flag(btable.get("sum_damage", False), f"{bkey}.sum_damage"),
                half_value_damage=check.flag(btable.get("half_value_damage", False), f"{bkey}.half_value_damage"),
                effects=dice_effects(btable, f"{bkey}."),
            )
        abilities.append(
            Ability(
                name=ability_name,
                kind=kind,
                tiers=tuple(tiers),
                damage_type=damage_type,
                aliases=aliases,
                dice_effects=dice_effects(table, f"{label}."),
                bonus_roll=bonus,
                base_effect=base_effect,
                variable_damage=check.text(table.get("variable_damage", ""), f"{label}.variable_damage", empty=True),
                cp_damage=_fraction(check, table.get("cp_damage"), f"{label}.cp_damage"),
                defense_dice=defense_dice,
                roll_attempts=roll_attempts,
                reroll_die_limit=reroll_limit,
                effect_text=effect_text,
                conflicts=conflicts(table.get("conflicts", []), f"{label}.conflicts"),
                notes=check.text(table.get("notes", ""), f"{label}.notes", empty=True),
            )
        )
        if damage_type is None and kind is not AbilityKind.DEFENSIVE and _has_damage(abilities[-1]):
            raise check.fail(f"{label}.damage_type", "missing for an ability that deals damage")
    if not abilities:
        raise check.fail("abilities", "a hero needs at least one ability")
    return Hero(
        id=hero_id,
        name=name,
        faces=faces,
        abilities=tuple(abilities),
        set=check.text(data.get("set", ""), "set", empty=True),
        aliases=check.texts(data.get("aliases", []), "aliases"),
        symbol_aliases=tuple(symbol_aliases),
        partial=check.flag(data.get("partial", False), "partial"),
        conflicts=conflicts(data.get("conflicts", []), "conflicts"),
        sources=check.texts(data.get("sources", []), "sources"),
        notes=check.text(data.get("notes", ""), "notes", empty=True),
        path=Path(where) if where.endswith(".toml") else None,
    )


def _fraction(check: _Checker, value: object, key: str) -> Fraction | None:
    """``"1/2"`` or ``"1"``: a share of the acting player's CP dealt as damage."""
    if value is None:
        return None
    text = check.text(value, key)
    try:
        share = Fraction(text)
    except ValueError:
        raise check.fail(key, f"expected a fraction such as '1/2' or '1', got {text!r}") from None
    if share <= 0:
        raise check.fail(key, f"expected a share above 0, got {text!r}")
    return share


def _has_damage(ability: Ability) -> bool:
    if (ability.bonus_roll is not None and ability.bonus_roll.deals_damage) or ability.variable_damage:
        return True
    return any(e.damage or e.collateral for e in ability.all_effects())


__all__ = ["HEROES_DIRECTORY", "Hero", "all_heroes", "hero_from_dict", "load_hero", "load_hero_file"]
