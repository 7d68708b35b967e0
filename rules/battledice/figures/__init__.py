"""Battle Dice figures, their stats and powers: one TOML file per figure (docs/battle-dice.md).

    >>> wolverine = load_figure("wolverine")
    >>> wolverine.stat("fighting-skills") >= 1, wolverine.unique
    (True, True)
    >>> check_team([load_figure(f) for f in ("captain-america", "spider-man", "wolverine")], 30).ok
    True
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from rules.datafiles import DATA_ID, MAX_PIECE_NUMBER, bounded_whole_number, find_data_file, parse_toml, read_text, read_toml
from rules.errors import RulesError

FIGURES_DIRECTORY = Path(__file__).resolve().parent
"""Where the bundled figure files live (beside this module)."""
PACKAGE_DIRECTORY = FIGURES_DIRECTORY.parent
"""Where ``stats.toml`` and ``powers.toml`` live."""


WHITE = "white"
"""The colour of powers that are always on, whatever the battle stat."""

COSMIC_POINTS = 30
"""One Cosmic Level figure for every 30 points of team value (Unique and Cosmic)."""



class FigureDataError(RulesError, ValueError):
    """A figure, stats or powers file that does not validate; the message names the file and the key."""


class UnknownFigureError(RulesError, LookupError):
    """No figure with that id."""


@lru_cache(maxsize=1)
def battle_stats() -> tuple[str, ...]:
    """The battle stats in die-face order (``stats.toml``)."""
    path = PACKAGE_DIRECTORY / "stats.toml"
    data = read_toml(path, FigureDataError)
    stats = data.get("stats")
    if not isinstance(stats, list) or len(stats) != 6 or not all(isinstance(s, str) and DATA_ID.match(s) for s in stats):
        raise FigureDataError(f"{path}: stats: expected six stat ids, one per die face")
    return tuple(stats)


def stat_name(text: str) -> str:
    """A battle stat id from its id or name (``"Fighting Skills"`` -> ``"fighting-skills"``).

    :raises FigureDataError: for a stat the game does not have.
    """
    folded = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if folded not in battle_stats():
        raise FigureDataError(f"no battle stat {text!r} (stats: {', '.join(battle_stats())})")
    return folded


class Target(enum.Enum):
    """What a power's effect changes."""

    BATTLE_TOTAL = "battle_total"
    """The figure's Battle Total."""
    STRIKE_TOTAL = "strike_total"
    """Its player's Strike Total, for the rest of the round."""


@dataclass(frozen=True)
class Power:
    """A power from ``powers.toml``: an effect the tray applies, or text for the table."""

    name: str
    text: str
    effect: tuple[tuple[Target, int], ...] = ()


@lru_cache(maxsize=1)
def known_powers() -> Mapping[str, Power]:
    """Every power in ``powers.toml`` by name."""
    path = PACKAGE_DIRECTORY / "powers.toml"
    table = read_toml(path, FigureDataError).get("powers", {})
    if not isinstance(table, dict):
        raise FigureDataError(f"{path}: powers: expected a table of powers")
    powers: dict[str, Power] = {}
    for name, entry in table.items():
        where = f"{path}: powers.{name}"
        if not isinstance(entry, dict) or not isinstance(entry.get("text", ""), str):
            raise FigureDataError(f"{where}: expected a table with a text")
        unknown = set(entry) - {"text", "effect"}
        if unknown:
            raise FigureDataError(f"{where}: unknown keys {sorted(unknown)} (keys: text, effect)")
        effect: list[tuple[Target, int]] = []
        for key, amount in dict(entry.get("effect", {})).items():
            try:
                target = Target(key)
            except ValueError:
                raise FigureDataError(
                    f"{where}.effect.{key}: unknown effect (effects: {', '.join(t.value for t in Target)})"
                ) from None
            if type(amount) is not int:
                raise FigureDataError(f"{where}.effect.{key}: expected a whole number, not {amount!r}")
            effect.append((target, amount))
        powers[name] = Power(name=name, text=entry.get("text", ""), effect=tuple(effect))
    return powers


def power(name: str) -> Power:
    """The power with this name; one the tray does not know is text only (shown for the table)."""
    for known in known_powers().values():
        if known.name.lower() == name.lower():
            return known
    return Power(name=name, text="")


@dataclass(frozen=True)
class Figure:
    """A figure: its stats, the power icons under each stat (by the stat's colour), value and marks."""

    id: str
    name: str
    value: int
    stats: tuple[tuple[str, int], ...]
    """(stat, number) for every battle stat, in die-face order."""
    powers: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(stat or ``white``, power names): the icons of that colour on the figure's label."""
    unique: bool = True
    cosmic: bool = False
    side: str = ""
    notes: str = ""
    path: Path | None = None

    def stat(self, name: str) -> int:
        wanted = stat_name(name)
        return next(number for stat, number in self.stats if stat == wanted)

    def active_powers(self, battle_stat: str) -> tuple[str, ...]:
        """The powers that activate for ``battle_stat``: icons of its colour, and the white ones."""
        wanted = stat_name(battle_stat)
        return tuple(name for colour, names in self.powers if colour in (wanted, WHITE) for name in names)

    def __repr__(self) -> str:
        return f"load_figure({self.id!r})"


def load_figure(name: str | Path, directories: Sequence[Path] = ()) -> Figure:
    """A figure by id (looked up in ``directories`` first, then the bundled figures) or by file path.

    :raises UnknownFigureError: when no file has that id.
    :raises FigureDataError: when the file does not validate (naming the file and the key).
    """
    return _load_file(find_data_file(name, directories, FIGURES_DIRECTORY, "figure", UnknownFigureError))


def all_figures(directories: Sequence[Path] = ()) -> list[Figure]:
    """Every figure in ``directories`` and the bundled ones (a file in a directory hides a bundled one)."""
    found: dict[str, Path] = {}
    for directory in (FIGURES_DIRECTORY, *directories):
        for path in sorted(Path(directory).glob("*.toml")):
            found[path.stem] = path.resolve()
    return [_load_file(path) for _, path in sorted(found.items())]


def _load_file(path: Path) -> Figure:
    # Cached by content, so a file edited while the tray runs is read again.
    return _parse(path, read_text(path, FigureDataError))


@lru_cache(maxsize=256)
def _parse(path: Path, text: str) -> Figure:
    data = parse_toml(path, text, FigureDataError)
    where = str(path)

    def fail(key: str, message: str) -> FigureDataError:
        return FigureDataError(f"{where}: {key}: {message}")

    allowed = {"name", "value", "unique", "cosmic", "side", "notes", "stats", "powers"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise fail(unknown[0], f"unknown key (keys: {', '.join(sorted(allowed))})")
    if not DATA_ID.match(path.stem):
        raise fail("file name", "a figure file is named <id>.toml with a lowercase id such as wolverine")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail("name", "expected the figure's name")
    value = bounded_whole_number(data.get("value"), 0)
    if value is None:
        raise fail("value", f"expected the figure's Value, a whole number 0 to {MAX_PIECE_NUMBER}, not {data.get('value')!r}")
    for flag in ("unique", "cosmic"):
        if flag in data and type(data[flag]) is not bool:
            raise fail(flag, f"expected true or false, not {data[flag]!r}")
    side = data.get("side", "")
    if side not in ("", "hero", "villain"):
        raise fail("side", f"expected hero or villain, not {side!r}")
    stats_table = data.get("stats")
    if not isinstance(stats_table, dict):
        raise fail("stats", f"expected a [stats] table with {', '.join(battle_stats())}")
    stats: list[tuple[str, int]] = []
    for stat in battle_stats():
        number = stats_table.get(stat)
        checked = bounded_whole_number(number, 0)
        if checked is None:
            raise fail(f"stats.{stat}", f"expected a whole number 0 to {MAX_PIECE_NUMBER}, not {number!r}")
        stats.append((stat, checked))
    extra = sorted(set(stats_table) - set(battle_stats()))
    if extra:
        raise fail(f"stats.{extra[0]}", f"not a battle stat (stats: {', '.join(battle_stats())})")
    powers_table = data.get("powers", {})
    if not isinstance(powers_table, dict):
        raise fail("powers", "expected a [powers] table: stat (or white) = [power names]")
    powers: list[tuple[str, tuple[str, ...]]] = []
    for colour, names in powers_table.items():
        if colour != WHITE and colour not in battle_stats():
            raise fail(f"powers.{colour}", f"not a battle stat or {WHITE} (stats: {', '.join(battle_stats())})")
        if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
            raise fail(f"powers.{colour}", "expected a list of power names")
        powers.append((colour, tuple(names)))
    notes = data.get("notes", "")
    if not isinstance(notes, str):
        raise fail("notes", "expected text")
    return Figure(
        id=path.stem,
        name=name.strip(),
        value=value,
        stats=tuple(stats),
        powers=tuple(powers),
        unique=data.get("unique", True),
        cosmic=data.get("cosmic", False),
        side=side,
        notes=notes,
        path=path,
    )


class TeamProblem(enum.Enum):
    """Why a team may not play (Building Your Team; Unique and Cosmic)."""

    OVER_VALUE = "over-value"
    UNDER_VALUE = "under-value"
    UNIQUE_TWICE = "unique-twice"
    TOO_MANY_COSMIC = "too-many-cosmic"


@dataclass(frozen=True)
class TeamCheck:
    """The result of checking a team: its total Value and each problem with the rule it breaks."""

    value: int
    problems: tuple[tuple[TeamProblem, str], ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_team(figures: Iterable[Figure], agreed_value: int) -> TeamCheck:
    """Checks a team against the agreed total Value and the unique / cosmic limits.

    The team's figures must add up to the agreed Value ("a group of figures worth a set total Value
    that both players agree upon"); only non-unique figures may appear twice; one Cosmic Level figure
    for every 30 points of agreed Value.
    """
    team = list(figures)
    total = sum(f.value for f in team)
    problems: list[tuple[TeamProblem, str]] = []
    if total > agreed_value:
        problems.append((TeamProblem.OVER_VALUE, f"the team is worth {total}, more than the agreed {agreed_value}"))
    elif total < agreed_value:
        problems.append((TeamProblem.UNDER_VALUE, f"the team is worth {total}, less than the agreed {agreed_value}"))
    seen: set[str] = set()
    for figure in team:
        if figure.id in seen and figure.unique:
            problems.append(
                (TeamProblem.UNIQUE_TWICE, f"{figure.name} is unique: one per team (Unique and Cosmic)")
            )
        seen.add(figure.id)
    cosmic = sum(1 for f in team if f.cosmic)
    allowed = agreed_value // COSMIC_POINTS
    if cosmic > allowed:
        problems.append(
            (
                TeamProblem.TOO_MANY_COSMIC,
                f"{cosmic} Cosmic Level figures; a team of {agreed_value} may have {allowed} (one per 30 points)",
            )
        )
    return TeamCheck(value=total, problems=tuple(problems))
