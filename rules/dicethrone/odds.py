"""Exact odds and keep advice for the offensive roll.

A dynamic program over sorted dice multisets. For ``n`` dice there are few distinct states (252
for five dice) and few keep sets (462 multisets of 0-5 dice), so with ``W_r(S)`` the best chance
from dice ``S`` with ``r`` roll attempts left and ``E_r(K)`` the chance after keeping ``K`` and
rolling the rest::

    W_0(S) = 1 if S meets the requirement else 0
    E_r(K) = sum over outcomes R of the rerolled dice: P(R) * W_{r-1}(K + R)
    W_r(S) = max over K within S of E_r(K)

An empty table with ``r`` attempts left is ``E_r({})``: the first attempt rolls all five dice.
Every ability is solved at once as one column of a matrix. Floats match enumeration to about
1e-15; ``exact=True`` runs the same recursion in :class:`fractions.Fraction`::

    >>> from rules.dicethrone.heroes import load_hero
    >>> requirement_odds(load_hero("barbarian"), Requirement.from_notation("5 of a kind"), None, 3, exact=True)
    Fraction(347897, 7558272)

That is the published Yahtzee figure, 2,783,176 / 60,466,176.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rules.dice import FACES, Face, Roll
from rules.errors import InvalidRollError, UnknownAbilityError
from rules.dicethrone.requirements import OFFENSIVE_DICE, Requirement
from rules.dicethrone.scoring import activations

if TYPE_CHECKING:
    from rules.dicethrone.heroes import Hero

State = tuple[int, ...]
"""A sorted tuple of face numbers."""

_TIE = 1e-12


@dataclass(frozen=True)
class _Space:
    """Every state and keep set for ``n`` dice, with the transition probabilities between them."""

    n: int
    states: tuple[State, ...]
    state_index: dict[State, int]
    keeps: tuple[State, ...]
    keep_index: dict[State, int]
    outcomes: tuple[tuple[tuple[int, Fraction], ...], ...]
    """Per keep set: (state index, probability) of each result of rolling the other dice."""
    flat_state: npt.NDArray[np.intp]
    flat_prob: npt.NDArray[np.float64]
    starts: npt.NDArray[np.intp]
    """The outcomes as flat arrays (keep by keep, ``starts`` marks each keep's first entry) as floats."""
    sub: npt.NDArray[np.intp]
    """states x m: the keep sets within each state (largest first), padded with the state itself."""
    sub_lists: tuple[tuple[int, ...], ...]
    counts: npt.NDArray[np.int64]
    """states x 7: how many dice show each number (column 0 unused)."""


@lru_cache(maxsize=8)
def _space(n: int) -> _Space:
    states = tuple(itertools.combinations_with_replacement(FACES, n))
    state_index = {s: i for i, s in enumerate(states)}
    keeps = tuple(k for size in range(n + 1) for k in itertools.combinations_with_replacement(FACES, size))
    keep_index = {k: i for i, k in enumerate(keeps)}
    outcomes: list[tuple[tuple[int, Fraction], ...]] = []
    for ki, keep in enumerate(keeps):
        rolled = n - len(keep)
        total = 6**rolled
        row: list[tuple[int, Fraction]] = []
        for result in itertools.combinations_with_replacement(FACES, rolled):
            ways = math.factorial(rolled)
            for count in Counter(result).values():
                ways //= math.factorial(count)
            si = state_index[tuple(sorted(keep + result))]
            row.append((si, Fraction(ways, total)))
        outcomes.append(tuple(row))
    sub_lists: list[tuple[int, ...]] = []
    for state in states:
        subs = {
            tuple(sorted(c))
            for size in range(n, -1, -1)
            for c in itertools.combinations(state, size)
        }
        ordered = sorted(subs, key=lambda k: (-len(k), k))
        sub_lists.append(tuple(keep_index[k] for k in ordered))
    width = max(len(s) for s in sub_lists)
    sub = np.array([list(s) + [s[0]] * (width - len(s)) for s in sub_lists], dtype=np.intp)
    counts = np.zeros((len(states), 7), dtype=np.int64)
    for i, state in enumerate(states):
        for v in state:
            counts[i, v] += 1
    flat_state = np.array([si for row in outcomes for si, _ in row], dtype=np.intp)
    flat_prob = np.array([float(p) for row in outcomes for _, p in row])
    starts = np.cumsum([0] + [len(row) for row in outcomes[:-1]]).astype(np.intp)
    return _Space(
        n, states, state_index, keeps, keep_index, tuple(outcomes), flat_state, flat_prob, starts, sub,
        tuple(sub_lists), counts,
    )


def _expect(space: _Space, w: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """E(K) for every keep set K, each column of ``w`` at once.

    A sparse sum (4,368 outcomes for five dice) rather than a dense matrix product: no BLAS
    threads, so the time is the same on a busy Raspberry Pi.
    """
    weighted = w[space.flat_state] * space.flat_prob[:, None]
    result: npt.NDArray[np.float64] = np.add.reduceat(weighted, space.starts, axis=0)
    return result


@lru_cache(maxsize=256)
def _meets(hero: Hero, requirement: Requirement, n: int) -> npt.NDArray[np.bool_]:
    """Which states meet ``requirement``: the per-requirement table, built once per hero."""
    space = _space(n)
    symbol_faces = hero.symbol_faces()
    return np.array([requirement.met_by_counts(row, symbol_faces) for row in space.counts.tolist()], dtype=bool)


@lru_cache(maxsize=64)
def _hero_tables(hero: Hero, n: int) -> tuple[tuple[str, ...], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per hero: ability names, states x abilities "meets" matrix, and each state's best expected damage."""
    space = _space(n)
    abilities = hero.offensive_abilities()
    columns = [_meets(hero, a.tiers[0].requirement, n) for a in abilities]
    meets = np.stack(columns, axis=1).astype(np.float64) if columns else np.zeros((len(space.states), 0))
    damage = np.zeros(len(space.states))
    for i, state in enumerate(space.states):
        found = activations(hero, Roll(state))
        damage[i] = max((a.expected_damage for a in found), default=0.0)
    return tuple(a.name for a in abilities), meets, damage


def _numeric_dice(hero: Hero, dice: Roll | Sequence[Face] | None, n: int) -> State | None:
    if dice is None:
        return None
    roll = dice if isinstance(dice, Roll) else Roll.from_faces(dice, hero)
    if len(roll) != n:
        raise InvalidRollError(f"odds need all {n} dice on the table, got {len(roll)}: {roll.notation()!r}")
    numbers: list[int] = []
    for face in roll.faces:
        if isinstance(face, int):
            numbers.append(face)
            continue
        faces = hero.faces_for(face)
        if len(faces) != 1:
            raise InvalidRollError(
                f"odds need the face number of {face!r} (faces {', '.join(map(str, faces))} differ for straights)"
            )
        numbers.append(faces[0])
    return tuple(sorted(numbers))


def _check_rolls(rolls_left: int) -> None:
    if not isinstance(rolls_left, int) or isinstance(rolls_left, bool) or not 0 <= rolls_left <= 10:
        raise InvalidRollError(f"rolls left must be 0 to 10, not {rolls_left!r}")


def _solve(
    space: _Space, values: npt.NDArray[np.float64], state: State | None, rolls_left: int
) -> tuple[npt.NDArray[np.float64], list[State]]:
    """Best value per column and the keep set reaching it, for ``state`` (None: nothing rolled yet)."""
    if state is None and rolls_left == 0:
        raise InvalidRollError("no dice and no roll attempts left: nothing to compute")
    if rolls_left == 0:
        assert state is not None
        si = space.state_index[state]
        return values[si].copy(), [state] * values.shape[1]
    w = values
    for _ in range(rolls_left - 1):
        w = _expect(space, w)[space.sub].max(axis=1)
    e = _expect(space, w)
    if state is None:
        return e[space.keep_index[()]].copy(), [()] * values.shape[1]
    candidates = e[space.sub_lists[space.state_index[state]], :]
    best = candidates.max(axis=0)
    # Ties go to the first candidate, the largest keep set: reroll no more dice than needed.
    choice = np.argmax(candidates >= best - _TIE, axis=0)
    order = space.sub_lists[space.state_index[state]]
    return best, [space.keeps[order[int(c)]] for c in choice]


def _solve_exact(
    space: _Space,
    meets: npt.NDArray[np.bool_],
    state: State | None,
    rolls_left: int,
    policy: Callable[[State], State] | None = None,
) -> Fraction:
    w = [Fraction(int(m)) for m in meets]

    def expect(keep_index: int, table: list[Fraction]) -> Fraction:
        return sum((p * table[si] for si, p in space.outcomes[keep_index]), Fraction(0))

    def step(table: list[Fraction]) -> list[Fraction]:
        by_keep = [expect(k, table) for k in range(len(space.keeps))]
        result: list[Fraction] = []
        for si, s in enumerate(space.states):
            if meets[si]:
                result.append(Fraction(1))
            elif policy is not None:
                result.append(by_keep[space.keep_index[tuple(sorted(policy(s)))]])
            else:
                result.append(max(by_keep[k] for k in space.sub_lists[si]))
        return result

    if rolls_left == 0:
        if state is None:
            raise InvalidRollError("no dice and no roll attempts left: nothing to compute")
        return w[space.state_index[state]]
    for _ in range(rolls_left - 1):
        w = step(w)
    if state is None:
        return expect(space.keep_index[()], w)
    final = step(w)
    return final[space.state_index[state]]


def requirement_odds(
    hero: Hero,
    requirement: Requirement,
    dice: Roll | Sequence[Face] | None = None,
    rolls_left: int = 3,
    *,
    exact: bool = False,
    n: int = OFFENSIVE_DICE,
    policy: Callable[[State], State] | None = None,
) -> Any:
    """The chance of meeting ``requirement`` with ``rolls_left`` attempts, playing for it alone.

    ``policy`` replaces the best keep with a fixed one (a function from sorted dice to the sorted
    dice kept), always exact. Returns a float, or a Fraction with ``exact=True`` or a policy.
    """
    _check_rolls(rolls_left)
    space = _space(n)
    state = _numeric_dice(hero, dice, n)
    meets = _meets(hero, requirement, n)
    if exact or policy is not None:
        return _solve_exact(space, meets, state, rolls_left, policy)
    best, _ = _solve(space, meets.astype(np.float64)[:, None], state, rolls_left)
    return float(best[0])


@dataclass(frozen=True)
class AbilityOdds:
    ability: str
    probability: float
    """The chance of activating it (any tier) when playing for it alone."""
    keep: tuple[int, ...]
    """The dice to keep now for that chance (empty before the first roll)."""

    def to_json(self) -> dict[str, object]:
        return {"ability": self.ability, "probability": round(self.probability, 5), "keep": list(self.keep)}


@dataclass(frozen=True)
class KeepAdvice:
    keep: tuple[int, ...]
    expected_damage: float
    """Expected damage of the best ability at the end, playing to maximise it."""
    target: str | None = None
    """The ability played for, when one was chosen."""
    probability: float | None = None
    """The chance of the chosen ability with this keep."""

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"keep": list(self.keep), "expected_damage": round(self.expected_damage, 5)}
        if self.target is not None:
            data["ability"] = self.target
            data["probability"] = None if self.probability is None else round(self.probability, 5)
        return data


@dataclass(frozen=True)
class OddsReport:
    hero: str
    dice: tuple[int, ...] | None
    rolls_left: int
    abilities: tuple[AbilityOdds, ...]
    """Most likely first."""
    best: KeepAdvice

    def to_json(self) -> dict[str, object]:
        return {
            "hero": self.hero,
            "dice": None if self.dice is None else list(self.dice),
            "rolls_left": self.rolls_left,
            "abilities": [a.to_json() for a in self.abilities],
            "best": self.best.to_json(),
        }


def odds(
    hero: Hero,
    dice: Roll | Sequence[Face] | None = None,
    rolls_left: int = 3,
    target: str | None = None,
) -> OddsReport:
    """Each offensive ability's chance with the best keep for it, and an overall recommendation.

    ``dice`` are the five dice on the table (None before the first attempt); ``rolls_left`` the
    attempts still to make. The recommendation maximises expected damage, or with ``target`` (an
    ability name or alias) that ability's chance.

    :raises InvalidRollError: for dice that are not five faces, or rolls left outside 0-10.
    :raises UnknownAbilityError: for a target the hero does not have.
    """
    _check_rolls(rolls_left)
    space = _space(OFFENSIVE_DICE)
    state = _numeric_dice(hero, dice, OFFENSIVE_DICE)
    names, meets, damage = _hero_tables(hero, OFFENSIVE_DICE)
    values = np.concatenate([meets, damage[:, None]], axis=1)
    best, keeps = _solve(space, values, state, rolls_left)
    per_ability = [AbilityOdds(name, float(best[i]), keeps[i]) for i, name in enumerate(names)]
    advice = KeepAdvice(keeps[-1], float(best[-1]))
    if target is not None:
        wanted = hero.ability(target)
        if wanted.name not in names:
            raise UnknownAbilityError(f"{wanted.name!r} is not an offensive ability of {hero.name}")
        chosen = per_ability[names.index(wanted.name)]
        value_with_keep = _expected_damage_after(space, damage, state, rolls_left, chosen.keep)
        advice = KeepAdvice(chosen.keep, value_with_keep, wanted.name, chosen.probability)
    ordered = sorted(per_ability, key=lambda a: -a.probability)
    return OddsReport(hero.id, state, rolls_left, tuple(ordered), advice)


def _expected_damage_after(
    space: _Space, damage: npt.NDArray[np.float64], state: State | None, rolls_left: int, keep: State
) -> float:
    """Expected damage when keeping ``keep`` now and playing for damage afterwards."""
    if rolls_left == 0:
        return float(damage[space.state_index[state]]) if state is not None else 0.0
    w = damage[:, None]
    for _ in range(rolls_left - 1):
        w = _expect(space, w)[space.sub].max(axis=1)
    return float(_expect(space, w)[space.keep_index[tuple(sorted(keep))], 0])
