"""Dice Throne game state and turn flow: a state machine a button-driven controller can drive.

Each turn runs the eight phases in order. The controller records what happens at the table
(rolls, choices) and calls :meth:`Game.advance` to move on; the game skips the phases the rules
skip. Every action that changes state can be undone with :meth:`Game.undo` (the BACK button)::

    >>> game = Game.new(["barbarian", "moon-elf"])
    >>> game.phase, game.active_player.hero.id
    (<Phase.UPKEEP: 'upkeep'>, 'barbarian')
    >>> _ = game.advance()            # the start player skips the first Income Phase
    >>> game.phase
    <Phase.MAIN_1: 'main 1'>

Actions the rules forbid raise :class:`IllegalActionError` whose message ends with the rule, e.g.
``"... (Offensive Roll Phase: up to 3 roll attempts)"``.
"""

from __future__ import annotations

import copy
import enum
import inspect
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from rules.dicethrone.abilities import Ability
from rules.dicethrone.cards import CardEffect, CardEffectKind
from rules.dicethrone.damage import DamageTotal, DamageType, Portion, check_damage_change, final_damage_total
from rules.dice import Roll, whole_number
from rules.dicethrone.effects import MAX_CP, Effect, cp_damage, resolve_defense, resolve_offense
from rules.errors import IllegalActionError, InvalidRollError, RulesError
from rules.games import Action, InvalidActionError
from rules.dicethrone.heroes import Hero, load_hero
from rules.dicethrone.requirements import OFFENSIVE_DICE
from rules.dicethrone.scoring import Activation, activations
from rules.dicethrone.statuses import SpendKind, Status, all_statuses, choice_options, find_status, parse_status_phrase
from rules.unsure import OneOf, decide, said

START_CP = 2
STARTING_HAND = 4
"""CONFLICT in the sources: 4 cards (both rulebooks) vs 3 (one review); the rulebooks win."""
MAX_HAND = 6
HEAL_ABOVE_START = 10
OFFENSIVE_ROLL_ATTEMPTS = 3
UNDO_STEPS = 500
"""How many actions BACK can take back; older snapshots are dropped to bound memory on the Pi."""


class Phase(enum.Enum):
    UPKEEP = "upkeep"
    INCOME = "income"
    MAIN_1 = "main 1"
    OFFENSIVE_ROLL = "offensive roll"
    TARGETING_ROLL = "targeting roll"
    DEFENSIVE_ROLL = "defensive roll"
    MAIN_2 = "main 2"
    DISCARD = "discard"

    @property
    def title(self) -> str:
        return _TITLES[self]


_TITLES = {
    Phase.UPKEEP: "Upkeep Phase",
    Phase.INCOME: "Income Phase",
    Phase.MAIN_1: "Main Phase (1)",
    Phase.OFFENSIVE_ROLL: "Offensive Roll Phase",
    Phase.TARGETING_ROLL: "Targeting Roll Phase",
    Phase.DEFENSIVE_ROLL: "Defensive Roll Phase",
    Phase.MAIN_2: "Main Phase (2)",
    Phase.DISCARD: "Discard Phase",
}
PHASES: tuple[Phase, ...] = tuple(Phase)
ROLL_PHASES: tuple[Phase, ...] = (Phase.OFFENSIVE_ROLL, Phase.TARGETING_ROLL, Phase.DEFENSIVE_ROLL)
MAIN_PHASES: tuple[Phase, ...] = (Phase.MAIN_1, Phase.MAIN_2)


class GameMode(enum.Enum):
    ONE_VS_ONE = "1v1"
    TWO_VS_TWO = "2v2"
    KING_OF_THE_HILL = "king-of-the-hill"

    @property
    def players(self) -> int:
        return {"1v1": 2, "2v2": 4, "king-of-the-hill": 3}[self.value]

    @property
    def starting_health(self) -> int:
        """50 in 1v1; 35 each in King of the Hill; one shared 50 per team in 2v2."""
        return 35 if self is GameMode.KING_OF_THE_HILL else 50


class CardKind(enum.Enum):
    """When a card may be played (Hero Cards): by the symbol on its left side."""

    MAIN = "main"
    """Main Phase action card: the owner's Main Phases only."""
    ROLL = "roll"
    """Roll Phase action card: any player, in the Offensive, Targeting or Defensive Roll Phase."""
    INSTANT = "instant"
    """Instant action card: any player, any time."""
    UPGRADE = "upgrade"
    """Hero Upgrade: the owner's Main Phases only; never sold once played."""

    @property
    def title(self) -> str:
        return {
            "main": "Main Phase card",
            "roll": "Roll Phase card",
            "instant": "Instant card",
            "upgrade": "Hero Upgrade",
        }[self.value]


def start_player_from_rolls(rolls: Sequence[int]) -> int:
    """Game Setup, step 7: each player rolls 1 die (in seat order) and the highest starts.

    :raises IllegalActionError: when the highest number is tied (those players roll again).
    :raises InvalidRollError: for a die that is not 1-6.
    """
    for value in rolls:
        if isinstance(value, bool) or value not in range(1, 7):
            raise InvalidRollError(f"a die shows 1 to 6, not {value!r}")
    if len(rolls) < 2:
        raise IllegalActionError(f"every player rolls for the start, got {len(rolls)} roll(s) (Game Setup)")
    top = max(rolls)
    tied = [i for i, value in enumerate(rolls) if value == top]
    if len(tied) > 1:
        seats = ", ".join(f"P{i + 1}" for i in tied)
        raise IllegalActionError(f"{seats} tie on {top}: they roll again (Game Setup)")
    return tied[0]


class TargetRule(enum.Enum):
    """What a 2v2 targeting die says."""

    LEFT = "left opponent"
    RIGHT = "right opponent"
    OPPONENTS_CHOOSE = "opponents choose"
    ATTACKER_CHOOSES = "attacker chooses"

    @classmethod
    def for_die(cls, value: int | OneOf) -> TargetRule:
        """1-2 left, 3-4 right, 5 the opponents choose, 6 the attacker chooses. A die read as one
        of a few numbers says what they all say.

        :raises InvalidRollError: on no face, or numbers that say differently (3|5).
        """
        return decide(value, cls._for_number, "the targeting die")

    @classmethod
    def _for_number(cls, value: int) -> TargetRule:
        if isinstance(value, bool) or value not in range(1, 7):
            raise InvalidRollError(f"a targeting die shows 1 to 6, not {value!r}")
        return (cls.LEFT, cls.LEFT, cls.RIGHT, cls.RIGHT, cls.OPPONENTS_CHOOSE, cls.ATTACKER_CHOOSES)[value - 1]


@dataclass
class Player:
    """One seat at the table. Health lives on the team (shared in 2v2): see :meth:`Game.health`."""

    index: int
    name: str
    hero: Hero
    team: int
    cp: int = START_CP
    hand: int = STARTING_HAND
    """Cards in hand (the tray counts cards; it does not know which)."""
    statuses: dict[str, int] = field(default_factory=dict)
    """Status effect tokens on the hero board: name -> count (only counts above 0)."""
    upgrades: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Hero Upgrades in play: ability name -> (level, the card's cost)."""
    stack_bonus: dict[str, int] = field(default_factory=dict)
    """Stack limits this player raised, for the rest of the game (Increasing Stack Limit)."""

    def status_count(self, name: str) -> int:
        return self.statuses.get(find_status(name).name, 0)

    def __repr__(self) -> str:
        return f"<Player {self.index} {self.name!r} {self.hero.id} team {self.team} cp {self.cp} hand {self.hand}>"


@dataclass(frozen=True)
class Exchange:
    """What the roll phase did, applied at its conclusion (damage, prevention and healing together)."""

    attacker: int
    defender: int | None
    ability: str | None
    offense: Effect
    defense: Effect
    damage: DamageTotal | None
    """The Final DMG Total the defender takes from the attack (None without an attack)."""
    collateral: int
    counter: int
    """Damage the attacker takes from the defense."""
    health_after: tuple[int, ...]
    """Each team's health after the exchange."""


@dataclass(frozen=True)
class Outcome:
    """The end of the game: the winning team, or None for a draw."""

    winner: int | None

    @property
    def draw(self) -> bool:
        return self.winner is None


_F = TypeVar("_F", bound=Callable[..., Any])


def _action(method: _F) -> _F:
    """Snapshots the game before an action so BACK can undo it; a failed action changes nothing.
    A table action that succeeds is written to :attr:`Game.actions` in record notation."""
    signature = inspect.signature(method)

    @wraps(method)
    def wrapper(self: Game, *args: Any, **kwargs: Any) -> Any:
        before = self._snapshot()
        self._depth += 1
        try:
            result = method(self, *args, **kwargs)
        except BaseException:
            self._restore(before)
            raise
        finally:
            self._depth -= 1
        self._history.append(before)
        del self._history[:-UNDO_STEPS]
        if self._depth == 0:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            self._actions.append(_notation(self, method.__name__, bound.arguments))
        return result

    return wrapper  # type: ignore[return-value]


class Game:
    """A game in progress. Build it with :meth:`new`."""

    # The current roll phase; cleared at each new turn.
    offensive_attempts: int
    offensive_roll: Roll | None
    """The dice after the latest offensive roll attempt."""
    selected: Activation | None
    """The activated offensive ability."""
    bonus_roll: Roll | None
    targeting_die: int | OneOf | None
    target: int | None
    """Index of the defender."""
    defense: str | None
    """The defensive ability chosen."""
    defense_roll: Roll | None
    defense_attempts_left: int
    adjustments: list[int]
    portions: list[Portion]
    exchange: Exchange | None
    """The applied result of this roll phase."""

    def __init__(self, players: list[Player], mode: GameMode, start_player: int) -> None:
        self.players = players
        self.mode = mode
        self.start_player = start_player
        self.active = start_player
        self.turn = 1
        """Turn number, counting every player's turn."""
        self.phase = Phase.UPKEEP
        teams = sorted({p.team for p in players})
        self.team_health: dict[int, int] = {team: mode.starting_health for team in teams}
        self.outcome: Outcome | None = None
        self.log: list[str] = []
        self._history: list[dict[str, Any]] = []
        self._actions: list[str] = []
        self._depth = 0
        self.seed: int | None = None
        """The seed a simulated table played with (kept in the game record)."""
        self._had_turn: set[int] = set()
        self._reset_roll_phase()
        self._note(f"turn 1: {self.active_player.name} ({self.active_player.hero.name}) starts")

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        heroes: Sequence[Hero | str],
        mode: GameMode | str | None = None,
        start_player: int = 0,
        names: Sequence[str] | None = None,
        search: Sequence[Path] = (),
    ) -> Game:
        """A new game. ``heroes`` in turn order (seat order); the mode follows from their number
        unless given (2 players: 1v1, 3: King of the Hill, 4: 2v2 with teams alternating, so turns
        zigzag between teams). Heroes named by id are looked for in the ``search`` folders (custom
        hero files) before the bundled ones.

        :raises IllegalActionError: for a player count the mode does not allow.
        """
        loaded = [h if isinstance(h, Hero) else load_hero(h, search=search) for h in heroes]
        if mode is None:
            by_count = {2: GameMode.ONE_VS_ONE, 3: GameMode.KING_OF_THE_HILL, 4: GameMode.TWO_VS_TWO}
            if len(loaded) not in by_count:
                raise IllegalActionError(
                    f"{len(loaded)} players: play 1v1 (2), King of the Hill (3) or 2v2 (4); the rules for 5-6 "
                    "players are not in the rulebooks (Other Modes: variants.dicethrone.com)"
                )
            mode = by_count[len(loaded)]
        try:
            mode = GameMode(mode)
        except ValueError:
            raise IllegalActionError(
                f"no mode {mode!r} (modes: {', '.join(m.value for m in GameMode)})"
            ) from None
        if len(loaded) != mode.players:
            raise IllegalActionError(f"{mode.value} needs {mode.players} players, not {len(loaded)}")
        if not 0 <= start_player < len(loaded):
            raise IllegalActionError(f"no player {start_player!r} to start")
        if names is not None and len(names) != len(loaded):
            raise IllegalActionError(f"{len(names)} names for {len(loaded)} players")
        players = [
            Player(
                index=i,
                name=names[i] if names is not None else f"Player {i + 1}",
                hero=hero,
                team=i % 2 if mode is GameMode.TWO_VS_TWO else i,
            )
            for i, hero in enumerate(loaded)
        ]
        game = cls(players, mode, start_player)
        for player in players:
            for status in all_statuses():
                if status.setup and status.hero == player.hero.id:
                    game._add_status(player, status.name, status.setup, why="hero setup")
        return game

    @classmethod
    def from_tags(cls, tags: Mapping[str, str], search: Sequence[Path] = ()) -> Game:
        """A new game from a record's tags: ``Mode``, ``Start`` (``P1``), ``Seed`` and one
        ``P<n>`` tag per seat, ``"<hero> <name>"`` (docs/game-records.md).

        :raises IllegalActionError: naming the tag that is missing or wrong.
        """
        seats: list[tuple[str, str]] = []
        while f"P{len(seats) + 1}" in tags:
            hero, _, name = tags[f"P{len(seats) + 1}"].strip().partition(" ")
            seats.append((hero, name.strip() or f"Player {len(seats) + 1}"))
        if len(seats) < 2:
            raise IllegalActionError('the record needs a [P1 "<hero> <name>"] tag for each seat, at least two')
        start = tags.get("Start", "P1")
        start_seat = whole_number(start[1:]) if start[:1] == "P" else None
        if start_seat is None:
            raise IllegalActionError(f"[Start {start!r}]: expected a seat such as P1")
        game = cls.new(
            [hero for hero, _ in seats],
            mode=tags.get("Mode"),
            start_player=start_seat - 1,
            names=[name for _, name in seats],
            search=search,
        )
        if "Seed" in tags:
            seed = whole_number(tags["Seed"])
            if seed is None:
                raise IllegalActionError(f"[Seed {tags['Seed']!r}]: expected a whole number")
            game.seed = seed
        return game

    # -- reading ----------------------------------------------------------------------------
    @property
    def active_player(self) -> Player:
        return self.players[self.active]

    def health(self, player: Player | int) -> int:
        """The health dial of ``player``'s team (shared by teammates in 2v2)."""
        return self.team_health[self._player(player).team]

    @property
    def starting_health(self) -> int:
        return self.mode.starting_health

    def opponents(self, player: Player | int | None = None) -> list[Player]:
        """Undefeated opponents of ``player`` (default: the active player), in turn order after them."""
        me = self._player(self.active if player is None else player)
        order = [self.players[(me.index + k) % len(self.players)] for k in range(1, len(self.players))]
        return [p for p in order if p.team != me.team and self.team_health[p.team] > 0]

    def leaders(self) -> list[Player]:
        """King of the Hill: the player(s) with the most health."""
        alive = [p for p in self.players if self.health(p) > 0]
        top = max(self.health(p) for p in alive)
        return [p for p in alive if self.health(p) == top]

    @property
    def roll_attempts_left(self) -> int:
        if self.phase is Phase.DEFENSIVE_ROLL:
            return self.defense_attempts_left
        return self.offensive_attempt_limit - self.offensive_attempts

    def activations(self) -> list[Activation]:
        """What the current offensive roll activates (empty before the first roll), with damage that
        depends on the active player's CP counted in."""
        if self.offensive_roll is None:
            return []
        player = self.active_player
        found = activations(player.hero, self.offensive_roll)
        return [_with_cp_damage(player, activation) for activation in found]

    @property
    def defender(self) -> Player | None:
        return None if self.target is None else self.players[self.target]

    @property
    def needs_target(self) -> bool:
        """A chosen ability that touches an opponent needs a target before the roll phase can end
        (in 1v1 the one opponent is the target)."""
        if self.selected is None or self.target is not None:
            return False
        return self.active_player.hero.ability(self.selected.ability).targets_opponent

    @property
    def defense_allowed(self) -> bool:
        """The Defensive Roll Phase happens only for an Attack whose damage is defendable.

        Never against an ultimate (its damage is ultimate, not defendable), never without a defender
        or a defensive ability.
        """
        if self.selected is None or self.defender is None:
            return False
        ability = self.active_player.hero.ability(self.selected.ability)
        if self.undefendable:
            return False
        if not ability.deals_damage or ability.damage_type is None or not ability.damage_type.defendable:
            return False
        return bool(self.defender.hero.defensive_abilities())

    # -- phases -----------------------------------------------------------------------------
    @_action
    def advance(self) -> Phase:
        """Ends the current phase and starts the next one the rules call for.

        Income is skipped on the start player's first turn, the Targeting Roll Phase in 1v1 (the one
        opponent is the target) and the Defensive Roll Phase unless :attr:`defense_allowed`. Leaving
        the last roll phase applies the exchange (:meth:`resolve`) if it was not applied yet.

        :raises IllegalActionError: when the game is over, a target is still to be chosen, a bonus
            or defense roll is still to be made, or the hand is above 6 cards in the Discard Phase.
        """
        self._check_playing()
        phase = self.phase
        if phase is Phase.UPKEEP:
            self._upkeep()
            if self.outcome is not None:
                return self.phase
            if self.active == self.start_player and self.active not in self._had_turn:
                self._note("Income Phase skipped: the start player skips the first Income Phase")
                self._enter(Phase.MAIN_1)
            elif self._status_moment("on_income"):
                self._note("Income Phase skipped (Concussion)")
                self._enter(Phase.MAIN_1)
            else:
                self._enter(Phase.INCOME)
                self._income()
        elif phase is Phase.INCOME:
            self._enter(Phase.MAIN_1)
        elif phase is Phase.MAIN_1:
            moment = self._status_moment("on_offensive_roll")
            if moment == "skip":
                self._note("Offensive Roll Phase skipped (Knockdown)")
                self._enter(Phase.MAIN_2)
            else:
                self.offensive_attempt_limit = OFFENSIVE_ROLL_ATTEMPTS - (moment == "one_less_attempt")
                self._enter(Phase.OFFENSIVE_ROLL)
        elif phase is Phase.OFFENSIVE_ROLL:
            self._leave_offense()
        elif phase is Phase.TARGETING_ROLL:
            if self.needs_target:
                raise IllegalActionError("choose the target first (Targeting Roll Phase)")
            self._after_targeting()
        elif phase is Phase.DEFENSIVE_ROLL:
            if self.defense_roll is None:
                raise IllegalActionError("roll the defense first (Defensive Roll Phase)")
            self._finish_roll_phase()
        elif phase is Phase.MAIN_2:
            self._enter(Phase.DISCARD)
        elif phase is Phase.DISCARD:
            player = self.active_player
            if player.hand > MAX_HAND:
                raise IllegalActionError(
                    f"{player.name} holds {player.hand} cards: sell down to {MAX_HAND} (Discard Phase)"
                )
            self._next_turn()
        return self.phase

    def _leave_offense(self) -> None:
        if self.selected is not None:
            self._check_bonus_rolled()
            self._check_status_rolled()
            self._activation_step()
        if self.selected is None or not self.needs_target and self.target is None:
            self._finish_roll_phase()
        elif self.mode is GameMode.ONE_VS_ONE:
            self._after_targeting()
        else:
            self._enter(Phase.TARGETING_ROLL)

    def _after_targeting(self) -> None:
        self._targeted_step()
        if self.defense_allowed:
            self._enter(Phase.DEFENSIVE_ROLL)
            assert self.defender is not None
            defenses = self.defender.hero.defensive_abilities()
            if len(defenses) == 1:
                self.defense = defenses[0].name
        else:
            self._finish_roll_phase()

    def _finish_roll_phase(self) -> None:
        if self.exchange is None:
            self._apply_exchange()
        if self.outcome is None:
            self._enter(Phase.MAIN_2)

    def _enter(self, phase: Phase) -> None:
        self.phase = phase
        self._note(phase.title)

    def _income(self) -> None:
        player = self.active_player
        gained = 1 if player.cp < MAX_CP else 0
        player.cp += gained
        player.hand += 1
        self._note(f"{player.name} gains {gained} CP and draws 1 card")

    def _next_turn(self) -> None:
        self._had_turn.add(self.active)
        for step in range(1, len(self.players) + 1):
            candidate = (self.active + step) % len(self.players)
            if self.team_health[self.players[candidate].team] > 0:
                self.active = candidate
                break
        self.turn += 1
        self._reset_roll_phase()
        self.phase = Phase.UPKEEP
        player = self.active_player
        self._note(f"turn {self.turn}: {player.name} ({player.hero.name})")

    def _reset_roll_phase(self) -> None:
        self.offensive_attempts = 0
        self.offensive_roll = None
        self.selected = None
        self.bonus_roll = None
        self.targeting_die = None
        self.target = None
        self.defense = None
        self.defense_roll = None
        self.defense_attempts_left = 0
        self.adjustments = []
        self.portions = []
        self.exchange = None
        self.undefendable = False
        """An Attack made undefendable by a spent status (Accuracy)."""
        self.counter_half: list[int] = []
        """Players who spent Retribution: half the damage they take goes back to the attacker."""
        self.choices: dict[str, str] = {}
        """"Or" phrases of this roll phase -> the option the table chose."""
        self.offensive_attempt_limit = OFFENSIVE_ROLL_ATTEMPTS
        self.status_rolled = False
        """The die of a status that acts after activation (Blinded) is rolled."""
        self.steps_resolved: list[str] = []
        """The roll phase's resolution steps already applied ("activation", "targeted", "defense")."""

    # -- offensive roll phase ---------------------------------------------------------------
    @_action
    def record_offensive_roll(self, roll: Roll | str) -> list[Activation]:
        """Records the five dice after a roll attempt; returns what they activate.

        :raises IllegalActionError: outside the Offensive Roll Phase, after the third attempt, or
            once an ability was selected. :raises InvalidRollError: unless the roll has 5 dice.
        """
        self._require_phase(Phase.OFFENSIVE_ROLL, "roll the offensive dice")
        roll = self._roll(roll, self.active_player.hero)
        if len(roll) != OFFENSIVE_DICE:
            raise InvalidRollError(f"an offensive roll has {OFFENSIVE_DICE} dice, not {len(roll)}: {roll.notation()!r}")
        if self.selected is not None:
            raise IllegalActionError(f"{self.selected.ability!r} is already activated (Offensive Roll Phase)")
        if self.offensive_attempts >= self.offensive_attempt_limit:
            raise IllegalActionError(
                f"no roll attempts left for {roll.notation()!r} (Offensive Roll Phase: up to {self.offensive_attempt_limit} roll attempts)"
            )
        self.offensive_attempts += 1
        self.offensive_roll = roll
        self._note(f"{self.active_player.name} rolls {roll.notation()} (attempt {self.offensive_attempts})")
        return self.activations()

    @_action
    def select_ability(self, name: str | None) -> Activation | None:
        """Activates the named offensive ability (name or alias), or none with ``None``.

        :raises IllegalActionError: if no roll was made or the Final Dice Result does not meet it.
        """
        self._require_phase(Phase.OFFENSIVE_ROLL, "activate an offensive ability")
        if self.status_rolled:
            raise IllegalActionError("the roll phase's ability is already settled (Blinded)")
        if name is None:
            self.selected = None
            self.target = None
            self._note(f"{self.active_player.name} activates no ability")
            return None
        hero = self.active_player.hero
        ability = hero.ability(name)
        if not ability.is_offensive:
            raise IllegalActionError(f"{ability.name!r} is not an offensive ability (Offensive Roll Phase)")
        if self.offensive_roll is None:
            raise IllegalActionError(f"roll before activating {ability.name!r} (Offensive Roll Phase)")
        for activation in self.activations():
            if activation.ability == ability.name:
                self.selected = activation
                if self.mode is GameMode.ONE_VS_ONE:
                    self.target = self.opponents()[0].index
                self._note(f"{self.active_player.name} activates {ability.name} (tier {activation.tier})")
                return activation
        raise IllegalActionError(
            f"{self.offensive_roll.notation()!r} does not meet {ability.name!r} "
            f"({ability.requirement_text}) (Activation Requirement)"
        )

    @_action
    def record_bonus_roll(self, roll: Roll | str) -> Effect:
        """Records the dice of the selected ability's "Roll N dice" effect; returns the whole effect."""
        if self.selected is None:
            raise IllegalActionError("no ability is activated (Roll [#])")
        hero = self.active_player.hero
        ability = hero.ability(self.selected.ability)
        if ability.bonus_roll is None:
            raise IllegalActionError(f"{ability.name!r} rolls no more dice (Roll [#])")
        if self.bonus_roll is not None:
            raise IllegalActionError(f"{ability.name!r} rolls its dice a single time (Roll [#])")
        roll = self._roll(roll, hero)
        assert self.offensive_roll is not None
        effect = resolve_offense(hero, ability, self.offensive_roll, roll)
        self.bonus_roll = roll
        self._note(f"{self.active_player.name} rolls {roll.notation()} for {ability.name}: {effect.describe()}")
        return effect

    @property
    def status_roll_needed(self) -> str | None:
        """The status (Blinded) whose die the active player rolls after activating, or None."""
        if self.phase is not Phase.OFFENSIVE_ROLL or self.selected is None or self.status_rolled:
            return None
        return next((n for n in self.active_player.statuses if find_status(n).fails_on), None)

    def _check_status_rolled(self) -> None:
        name = self.status_roll_needed
        if name is not None:
            raise IllegalActionError(f"roll 1 die for {name} first ({name})")

    @_action
    def record_status_roll(self, value: int | OneOf) -> bool:
        """The die a status makes the active player roll after activating (Blinded): on its failing
        faces the ability has no effect. The status is removed. Returns True when the ability stands.
        A die read as one of a few numbers (``OneOf``) is enough when they all say the same.

        :raises IllegalActionError: when no status asks for a die now.
        :raises InvalidRollError: on a die that is no face, or read as numbers that say differently.
        """
        self._check_playing()
        name = self.status_roll_needed
        if name is None:
            raise IllegalActionError("no status asks for a die now")
        if not isinstance(value, OneOf) and (isinstance(value, bool) or value not in range(1, 7)):
            raise InvalidRollError(f"a die shows 1 to 6, not {value!r}")
        status = find_status(name)
        fails = status.fails(value)
        rolled = said(value)
        player = self.active_player
        self.status_rolled = True
        self._remove_status(player, status.name, 1, why=f"rolled {rolled}")
        if fails:
            assert self.selected is not None
            self._note(f"{player.name} rolls {rolled} for {status.name}: {self.selected.ability} has no effect")
            self.selected = None
            self.target = None
            return False
        return True

    def _check_bonus_rolled(self) -> None:
        assert self.selected is not None
        ability = self.active_player.hero.ability(self.selected.ability)
        if ability.bonus_roll is not None and self.bonus_roll is None:
            raise IllegalActionError(
                f"{ability.name!r} rolls {ability.bonus_roll.dice} dice first (Roll [#])"
            )

    # -- targeting --------------------------------------------------------------------------
    @_action
    def record_targeting_roll(self, value: int | OneOf) -> TargetRule:
        """2v2: the targeting die. 1-2 the left opponent (the next to play), 3-4 the right one; on
        5 the opponents and on 6 the attacker then call :meth:`choose_target`. A die read as one
        of a few numbers (``OneOf``, say 3|4) is enough when they all say the same.

        :raises InvalidRollError: on a die that is no face, or read as numbers that say differently.
        """
        self._require_phase(Phase.TARGETING_ROLL, "roll for the target")
        if self.mode is not GameMode.TWO_VS_TWO:
            raise IllegalActionError("only 2v2 rolls for the target; choose it (Targeting Roll Phase)")
        if self.targeting_die is not None:
            raise IllegalActionError(f"the targeting die already shows {self.targeting_die} (Targeting Roll Phase)")
        return self._apply_targeting_die(value)

    def _apply_targeting_die(self, value: int | OneOf) -> TargetRule:
        rule = TargetRule.for_die(value)
        self.targeting_die = value
        self.target = None
        opponents = self.opponents()
        if rule in (TargetRule.LEFT, TargetRule.RIGHT):
            pick = opponents[0] if rule is TargetRule.LEFT or len(opponents) == 1 else opponents[1]
            self._set_target(pick)
        self._note(f"targeting die {said(value)}: {rule.value}")
        return rule

    @_action
    def choose_target(self, player: Player | int) -> Player:
        """Chooses the defender (King of the Hill; 2v2 after a 5 or 6). In King of the Hill,
        targeting a leader draws the attacker a card at once, unless the attacker is the only leader."""
        self._require_phase(Phase.TARGETING_ROLL, "choose a target")
        chosen = self._player(player)
        if self.target is not None:
            raise IllegalActionError(f"the target is already {self.players[self.target].name} (Targeting Roll Phase)")
        if chosen not in self.opponents():
            raise IllegalActionError(f"{chosen.name} is not an opponent still in the game (Targeting Roll Phase)")
        if self.mode is GameMode.TWO_VS_TWO and self.targeting_die not in (5, 6):
            raise IllegalActionError("roll the targeting die first; only a 5 or 6 lets someone choose (Targeting Roll Phase)")
        self._set_target(chosen)
        attack = self.selected is not None and self.active_player.hero.ability(self.selected.ability).is_attack
        if self.mode is GameMode.KING_OF_THE_HILL and attack:
            leaders = self.leaders()
            if chosen in leaders and leaders != [self.active_player]:
                self.active_player.hand += 1
                self._note(f"{self.active_player.name} attacks a leader and draws 1 card (King of the Hill)")
        return chosen

    def _set_target(self, player: Player) -> None:
        self.target = player.index
        self._note(f"target: {player.name}")

    # -- defensive roll phase ---------------------------------------------------------------
    @_action
    def choose_defense(self, name: str) -> str:
        """A defender with two defensive abilities picks one before rolling."""
        self._require_phase(Phase.DEFENSIVE_ROLL, "choose a defense")
        assert self.defender is not None
        if self.defense_roll is not None:
            raise IllegalActionError("the defense is chosen before rolling (Defensive Ability)")
        ability = self.defender.hero.ability(name)
        if not ability.is_defensive:
            raise IllegalActionError(f"{ability.name!r} is not a defensive ability (Defensive Ability)")
        self.defense = ability.name
        return ability.name

    @_action
    def record_defensive_roll(self, roll: Roll | str) -> Effect:
        """Records the defender's roll (a single attempt, unless the ability allows more)."""
        self._require_phase(Phase.DEFENSIVE_ROLL, "roll the defense")
        assert self.defender is not None
        if self.defense is None:
            names = ", ".join(a.name for a in self.defender.hero.defensive_abilities())
            raise IllegalActionError(f"choose the defense first: {names} (Defensive Ability)")
        ability = self.defender.hero.ability(self.defense)
        if self.defense_roll is None:
            self.defense_attempts_left = ability.roll_attempts
        if self.defense_attempts_left <= 0:
            raise IllegalActionError("the defensive dice are rolled a single time (Defensive Dice)")
        roll = self._roll(roll, self.defender.hero)
        if self.defense_roll is not None and ability.reroll_die_limit is not None:
            kept = Counter(self.defense_roll.faces) & Counter(roll.faces)
            changed = len(roll) - sum(kept.values())
            if changed > ability.reroll_die_limit:
                raise IllegalActionError(
                    f"{ability.name!r} rerolls at most {ability.reroll_die_limit} die, {roll.notation()!r} changes {changed} (Defensive Ability)"
                )
        effect = resolve_defense(self.defender.hero, ability, roll)
        self.defense_roll = roll
        self.defense_attempts_left -= 1
        self._note(f"{self.defender.name} defends with {ability.name}: {roll.notation()} -> {effect.describe()}")
        if self.defense_attempts_left == 0:
            self._defense_step()
        return effect

    # -- modifiers and resolution -----------------------------------------------------------
    @_action
    def modify_damage(self, amount: int) -> None:
        """A fixed change to the incoming damage from a card or status (+ adds, - prevents).

        :raises IllegalActionError: when it is made, if the damage waiting may not change that way:
            an ultimate's damage is never reduced, pure and collateral damage never increased,
            and only an Attack takes Attack Modifiers (Damage Type Chart, Attack Modifiers).
        """
        self._check_damage_change(adds=amount > 0, reduces=amount < 0, what=f"{amount:+d} dmg")
        self.adjustments.append(amount)

    @_action
    def add_portion(self, portion: Portion) -> None:
        """A multiplier or divider (e.g. Agility's "prevent half"), computed from the subtotal.

        :raises IllegalActionError: as :meth:`modify_damage`.
        """
        what = f"{'prevent' if portion.prevents else 'add'} {portion.fraction}"
        self._check_damage_change(adds=not portion.prevents, reduces=portion.prevents, what=what)
        self.portions.append(portion)

    @_action
    def resolve(self) -> Exchange:
        """Applies the roll phase's damage, prevention and healing together (Final DMG Total).

        Called by :meth:`advance` when leaving the last roll phase; call it earlier to show the result.
        """
        return self._resolve()

    def preview(self) -> Exchange:
        """What :meth:`resolve` would apply now, leaving the game as it is (the damage window shows it).

        :raises IllegalActionError: as :meth:`resolve`.
        """
        return self._scratch()._resolve()

    def _scratch(self) -> Game:
        """A throwaway copy of the state (no undo history, no record) to try an action on."""
        clone = Game.__new__(Game)
        clone.__dict__.update(self._snapshot())
        clone._history, clone._actions, clone._depth = [], [], 0
        return clone

    def _resolve(self) -> Exchange:
        if self.phase not in (Phase.OFFENSIVE_ROLL, Phase.TARGETING_ROLL, Phase.DEFENSIVE_ROLL):
            raise IllegalActionError(f"nothing to resolve in the {self.phase.title}")
        if self.exchange is not None:
            raise IllegalActionError("the roll phase is already resolved")
        if self.selected is not None:
            self._check_bonus_rolled()
            self._check_status_rolled()
            if self.needs_target:
                raise IllegalActionError("choose the target first (Targeting Roll Phase)")
        if self.phase is not Phase.DEFENSIVE_ROLL and self.defense_allowed and self.defense_roll is None:
            raise IllegalActionError("the defender has not rolled (Defensive Roll Phase)")
        if self.phase is Phase.DEFENSIVE_ROLL and self.defense_roll is None:
            raise IllegalActionError("roll the defense first (Defensive Roll Phase)")
        return self._apply_exchange()

    # The roll phase resolves in the book's steps (Turn Breakdown 4.4, 6.1, 6.4, 6.6): what needs no
    # target at activation, what the target suffers besides damage before the defense roll, the
    # defender's own effects after it, and damage, prevention and healing together at the end. The
    # statuses and CP a step gives can be spent in the breaks between them ("Then").

    def _ability(self) -> Ability | None:
        if self.selected is None or self.offensive_roll is None:
            return None
        return self.active_player.hero.ability(self.selected.ability)

    def _offense(self) -> Effect:
        """What the activated ability does; damage that is a share of CP counts the CP held now
        (the steps before damage use only its other effects)."""
        ability = self._ability()
        if ability is None:
            return Effect()
        assert self.offensive_roll is not None
        hero = self.active_player.hero
        effect = resolve_offense(hero, ability, self.offensive_roll, self.bonus_roll)
        if ability.cp_damage is not None:
            effect = effect + Effect(damage=cp_damage(ability, Effect(), self.active_player.cp))
        return effect

    def _defense(self) -> Effect:
        defender = self.defender
        if defender is None or self.defense is None or self.defense_roll is None:
            return Effect()
        return resolve_defense(defender.hero, defender.hero.ability(self.defense), self.defense_roll)

    def _step(self, name: str) -> bool:
        """Marks a resolution step done; False when it already was."""
        if name in self.steps_resolved:
            return False
        self.steps_resolved.append(name)
        return True

    def _activation_step(self) -> None:
        """Turn Breakdown 4.4: the effects that need no target (gain a status, gain CP, draw)."""
        if self._ability() is None or not self._step("activation"):
            return
        attacker = self.active_player
        offense = self._offense()
        if not offense.steal and offense.cp:
            attacker.cp = _clamp_cp(attacker.cp + offense.cp)
            self._note(f"{attacker.name} gains {offense.cp} CP")
        attacker.hand += offense.draw
        self._apply_statuses(offense, attacker, None, steps=("self",))

    def _targeted_step(self) -> None:
        """Defensive Roll Phase step 1: what the target suffers besides damage (inflicted
        statuses, CP stolen or lost, cards discarded), before the defender rolls."""
        defender = self.defender
        if self._ability() is None or defender is None or not self._step("targeted"):
            return
        attacker = self.active_player
        offense = self._offense()
        if offense.steal:
            # "Steal as much as they have": what the thief gains is what the opponent loses.
            gained = min(defender.cp, offense.cp)
            defender.cp -= gained
            attacker.cp = _clamp_cp(attacker.cp + gained)
        if offense.opponent_cp < 0:
            defender.cp -= min(defender.cp, -offense.opponent_cp)
        elif offense.opponent_cp > 0:
            defender.cp = _clamp_cp(defender.cp + offense.opponent_cp)
        defender.hand -= min(defender.hand, offense.opponent_discard)
        self._apply_statuses(offense, attacker, defender, steps=("targeted",))

    def _defense_step(self) -> None:
        """Defensive Roll Phase step 4: the defender's effects besides damage, prevention and healing."""
        defender = self.defender
        if defender is None or self.defense_roll is None or not self._step("defense"):
            return
        defense = self._defense()
        defender.cp = _clamp_cp(defender.cp + defense.cp)
        defender.hand += defense.draw
        self._apply_statuses(defense, defender, self.active_player, steps=("self", "targeted"))

    def _apply_exchange(self) -> Exchange:
        self._activation_step()
        self._targeted_step()
        self._defense_step()
        attacker = self.active_player
        ability = self._ability()
        offense = self._offense()
        defense = self._defense()
        defender = self.defender
        total: DamageTotal | None = None
        changes = {team: 0 for team in self.team_health}
        heal = {team: 0 for team in self.team_health}
        collateral = offense.collateral
        if ability is not None and not ability.is_attack and ability.damage_type is not None:
            collateral += offense.damage
        attack_taken = 0
        if ability is not None and ability.is_attack and defender is not None:
            assert ability.damage_type is not None
            adjustments = [*self.adjustments]
            targeted = sum(find_status(name).damage_taken for name in defender.statuses)
            if targeted and ability.damage_type.modifiable:
                adjustments.append(targeted)
            portions = [*self.portions]
            if defense.prevent:
                adjustments.append(-defense.prevent)
            if defense.prevent_half:
                portions.append(Portion.prevent_half(self.defense or ""))
            total = final_damage_total(
                offense.damage, adjustments=adjustments, portions=portions, damage_type=ability.damage_type
            )
            attack_taken = 0 if defense.negate else total.total
            changes[defender.team] -= attack_taken
        elif collateral:
            # Not an Attack: the prevention played against it applies to the collateral damage.
            collateral = final_damage_total(
                collateral, adjustments=self.adjustments, portions=self.portions, damage_type=DamageType.COLLATERAL
            ).total
        # Collateral has its own targeting: the defender of an Attack, otherwise each opponent.
        receivers = [defender] if defender is not None else (self.opponents() if collateral else [])
        for receiver in receivers:
            changes[receiver.team] -= collateral
        if defender is not None:
            heal[defender.team] += defense.heal
        changes[attacker.team] -= defense.counter
        if defender is not None and defender.index in self.counter_half:
            changes[attacker.team] -= -(-attack_taken // 2)
        if attack_taken > 0:
            changes[attacker.team] -= offense.self_damage
        heal[attacker.team] += offense.heal
        cap = self.starting_health + HEAL_ABOVE_START
        for team in self.team_health:
            health = self.team_health[team] + changes[team]
            # Healing cannot go above the cap; damage lands in the same instant.
            health = min(health + heal[team], max(cap, health)) if heal[team] else health
            self.team_health[team] = max(0, health)
        exchange = Exchange(
            attacker=attacker.index,
            defender=None if defender is None else defender.index,
            ability=None if ability is None else ability.name,
            offense=offense,
            defense=defense,
            damage=total,
            collateral=collateral,
            counter=defense.counter,
            health_after=tuple(self.team_health[t] for t in sorted(self.team_health)),
        )
        self.exchange = exchange
        # "Or" phrases apply as chosen, at the end if no earlier step took them.
        self._apply_statuses(offense, attacker, defender, steps=("choice",))
        if defender is not None:
            self._apply_statuses(defense, defender, attacker, steps=("choice",))
        self._note(f"health: {', '.join(f'{p.name} {self.health(p)}' for p in self.players)}")
        self._check_outcome()
        return exchange

    # -- status effects ---------------------------------------------------------------------
    def _apply_statuses(self, effect: Effect, actor: Player, other: Player | None, *, steps: tuple[str, ...]) -> None:
        """Gains, inflictions and removals an effect's phrases name, those of the resolution
        ``steps`` given (:func:`_phrase_step`); an "Or" phrase applies the option chosen with
        :meth:`choose` (unchosen, it is left to the table)."""
        for phrase in effect.statuses:
            if _phrase_step(phrase) not in steps:
                continue
            options = choice_options(phrase)
            if options:
                if phrase not in self.choices:
                    self._note(f"{actor.name}: {phrase} (no choice made; resolve it at the table)")
                    continue
                phrase = self.choices[phrase]
            raised = _STACK_RAISE.fullmatch(phrase)
            if raised is not None:
                # "Chi stack limit +1, fill Chi": the limit goes up for this player, then the stack is filled.
                name = find_status(raised.group(1)).name
                limit = self._raise_stack_limit(actor, name, int(raised.group(2)))
                self._add_status(actor, name, max(0, limit - actor.statuses.get(name, 0)), why=phrase)
                continue
            change = parse_status_phrase(phrase)
            if change is None:
                continue
            if change.verb == "remove-negative":
                for name in [n for n in actor.statuses if find_status(n).negative]:
                    self._remove_status(actor, name, actor.statuses[name], why=phrase)
            elif change.verb == "gain":
                self._add_status(actor, change.status, change.count, why=phrase)
            elif other is not None:
                self._add_status(other, change.status, change.count, why=phrase)

    def stack_limit(self, player: Player | int, name: str) -> int | None:
        """The most tokens of ``name`` the player may hold (None: the sources do not say)."""
        status = find_status(name)
        if status.stack_limit is None:
            return None
        return status.stack_limit + self._player(player).stack_bonus.get(status.name, 0)

    def _add_status(self, player: Player, name: str, count: int, *, why: str) -> int:
        status = find_status(name)
        have = player.statuses.get(status.name, 0)
        limit = self.stack_limit(player, status.name)
        new = have + count if limit is None else min(limit, have + count)
        if new > have:
            player.statuses[status.name] = new
        self._note(
            f"{player.name} {status.name} {have} -> {new}"
            + (f" (stack limit {limit})" if limit is not None and have + count > limit else "")
            + f" ({why})"
        )
        return new - have

    def _remove_status(self, player: Player, name: str, count: int, *, why: str) -> None:
        status = find_status(name)
        left = player.statuses.get(status.name, 0) - count
        if left > 0:
            player.statuses[status.name] = left
        else:
            player.statuses.pop(status.name, None)
        self._note(f"{player.name} loses {count} {status.name} ({why})")

    def _status_moment(self, moment: str) -> str:
        """The active player's status acting at ``moment`` (on_income, on_offensive_roll), removed as it acts."""
        player = self.active_player
        for name in list(player.statuses):
            value = str(getattr(find_status(name), moment))
            if value:
                self._remove_status(player, name, 1, why=f"{name} acts")
                return value
        return ""

    def _upkeep(self) -> None:
        """Upkeep Phase maintenance: status damage is accumulated and applied at the end of the phase."""
        player = self.active_player
        damage = 0
        for name, count in player.statuses.items():
            status = find_status(name)
            if status.upkeep_damage:
                damage += status.upkeep_damage * (count if status.per_stack else 1)
        if damage:
            team = player.team
            self.team_health[team] = max(0, self.team_health[team] - damage)
            self._note(f"{player.name} takes {damage} dmg from status effects (Upkeep Phase)")
            self._check_outcome()

    @_action
    def gain_status(self, player: Player | int, name: str, count: int = 1) -> int:
        """A manual correction: ``player`` gains (or, negative, loses) tokens the tray did not see
        (a card, an unknown effect). Stack limits hold. Returns the new count."""
        self._check_playing()
        who = self._player(player)
        status = find_status(name)
        if count >= 0:
            self._add_status(who, status.name, count, why="correction")
        else:
            if who.statuses.get(status.name, 0) < -count:
                raise IllegalActionError(f"{who.name} has {who.statuses.get(status.name, 0)} {status.name} (Removing Status Effects)")
            self._remove_status(who, status.name, -count, why="correction")
        return who.statuses.get(status.name, 0)

    @_action
    def raise_stack_limit(self, player: Player | int, name: str, by: int = 1) -> int:
        """The player's stack limit of ``name`` goes up for the rest of the game (Increasing Stack Limit)."""
        return self._raise_stack_limit(self._player(player), find_status(name).name, by)

    def _raise_stack_limit(self, who: Player, name: str, by: int) -> int:
        who.stack_bonus[name] = who.stack_bonus.get(name, 0) + by
        limit = self.stack_limit(who, name)
        self._note(f"{who.name}'s {name} stack limit is now {limit}")
        return limit or 0

    @_action
    def spend_status(
        self, player: Player | int, name: str, die: int | OneOf | None = None, remove: str | None = None
    ) -> bool:
        """``player`` spends a token of ``name`` (an Instant action: any time, any player's turn,
        unless the status says otherwise). ``die`` is the roll a status that rolls needs (read as
        one of a few numbers, ``OneOf``, when they all say the same); ``remove`` the negative
        status Cleanse removes. Returns True when the effect applied (the roll succeeded).

        :raises IllegalActionError: when the player has none, it is not spendable, the damage
            waiting cannot change that way, or an activated ultimate forbids the player any action
            (checked whatever the die shows: a failed roll still had to be a legal spend).
        """
        return self._spend(player, name, die, remove)

    def _spend(self, player: Player | int, name: str, die: int | OneOf | None, remove: str | None) -> bool:
        self._check_playing()
        who = self._player(player)
        status = find_status(name)
        if who.statuses.get(status.name, 0) <= 0:
            raise IllegalActionError(f"{who.name} has no {status.name} to spend (Spendable Status Effects)")
        if not status.spendable:
            raise IllegalActionError(f"{status.name} is not spent by its holder (Spendable Status Effects)")
        if self.ultimate_locks(who):
            raise IllegalActionError(
                f"{who.name} may take no action until the roll phase ends: an ultimate is activated (Ultimate Ability)"
            )
        if status.succeeds_on and die is None:
            raise IllegalActionError(f"{status.name} rolls 1 die first (Spendable Status Effects)")
        if die is not None and not isinstance(die, OneOf) and (isinstance(die, bool) or die not in range(1, 7)):
            raise InvalidRollError(f"a die shows 1 to 6, not {die!r}")
        success = not status.succeeds_on or (die is not None and status.succeeds(die))
        if success:
            self._spend_effect(who, status, remove)
        else:
            # The roll failed: the token is spent for nothing, but the spend had to be legal.
            scratch = self._scratch()
            scratch._spend_effect(scratch._player(who.index), status, remove)
        rolled = said(die) if die is not None else None
        self._remove_status(who, status.name, 1, why="spent" + ("" if success else f", rolled {rolled}: no effect"))
        return success

    def can_spend(self, player: Player | int, name: str) -> bool:
        """True when :meth:`spend_status` would be allowed now (its roll, if any, succeeding);
        the game is left as it is. What the damage window offers."""
        status = find_status(name)
        try:
            self._scratch()._spend(player, status.name, status.succeeds_on[0] if status.succeeds_on else None, None)
        except RulesError:
            return False
        return True

    def _spend_effect(self, who: Player, status: Status, remove: str | None) -> None:
        kind = status.spend
        attacking = who.index == self.active and self.selected is not None
        if kind is SpendKind.ADD_OR_PREVENT:
            kind = SpendKind.ADD if attacking else SpendKind.PREVENT
        what = f"{status.name}"
        if kind is SpendKind.PAY_TO_REMOVE:
            if who.cp < status.amount:
                raise IllegalActionError(f"{who.name} has {who.cp} CP, removing {status.name} costs {status.amount}")
            who.cp -= status.amount
            return
        if kind is SpendKind.REMOVE_NEGATIVE:
            negatives = [n for n in who.statuses if find_status(n).negative]
            target = find_status(remove).name if remove is not None else (negatives[0] if len(negatives) == 1 else None)
            if target is None or target not in negatives:
                raise IllegalActionError(
                    f"name the negative status {status.name} removes: {', '.join(negatives) or 'none in play'}"
                )
            self._remove_status(who, target, 1, why=status.name)
            return
        if kind in (SpendKind.ADD, SpendKind.UNDEFENDABLE):
            if not attacking:
                raise IllegalActionError(f"{status.name} is spent on your own Attack (Attack Modifiers)")
        else:
            self._check_receiver(who, status.name)
        if kind is SpendKind.ADD:
            self._check_damage_change(adds=True, reduces=False, what=what)
            assert self.selected is not None
            if self.selected.damage < status.needs_damage:
                raise IllegalActionError(f"{status.name} needs an Attack of {status.needs_damage} dmg or more")
            self.adjustments.append(status.amount)
        elif kind is SpendKind.UNDEFENDABLE:
            self._check_damage_change(adds=True, reduces=False, what=what)
            if self.defense_roll is not None:
                raise IllegalActionError(f"{status.name} is spent before the defense is rolled")
            self.undefendable = True
            if self.phase is Phase.DEFENSIVE_ROLL:
                self.defense = None
        elif kind is SpendKind.PREVENT:
            self._check_damage_change(adds=False, reduces=True, what=what)
            self.adjustments.append(-status.amount)
        elif kind is SpendKind.PREVENT_HALF:
            self._check_damage_change(adds=False, reduces=True, what=what)
            self.portions.append(Portion.prevent_half(status.name))
        elif kind is SpendKind.NEGATE:
            self._check_damage_change(adds=False, reduces=True, what=what)
            self.portions.append(Portion(Fraction(1), True, status.name))
        elif kind is SpendKind.COUNTER_HALF:
            self._check_damage_change(adds=False, reduces=True, what=what)
            self.counter_half.append(who.index)

    @_action
    def choose(self, option: str) -> str:
        """The table resolves an "Or": ``option`` is one of the options of a phrase the selected
        ability or the defense produces (``gain Evasive``). Returns the phrase it answers."""
        self._check_playing()
        pending = self.pending_choices()
        wanted = option.strip().lower()
        for phrase, options in pending.items():
            for candidate in options:
                if candidate.lower() == wanted or candidate.lower().split(" ", 1)[-1] == wanted:
                    self.choices[phrase] = candidate
                    self._note(f"choice: {candidate} (Or)")
                    return phrase
        offered = "; ".join(" or ".join(o) for o in pending.values()) or "nothing to choose"
        raise IllegalActionError(f"{option!r} is not an option now ({offered}) (Or)")

    def pending_choices(self) -> dict[str, tuple[str, ...]]:
        """The "Or" phrases of the current roll phase still to choose, with their options."""
        found: dict[str, tuple[str, ...]] = {}
        if self.selected is not None and self.offensive_roll is not None:
            hero = self.active_player.hero
            ability = hero.ability(self.selected.ability)
            if ability.bonus_roll is None or self.bonus_roll is not None:
                effect = resolve_offense(hero, ability, self.offensive_roll, self.bonus_roll)
                found.update({p: choice_options(p) for p in effect.statuses if choice_options(p)})
        return {p: o for p, o in found.items() if p not in self.choices}

    def _check_outcome(self) -> None:
        for player in self.players:
            # A status that saves its holder from defeat (Blessing of Divinity) acts first.
            if self.team_health[player.team] > 0:
                continue
            saver = next((n for n in player.statuses if find_status(n).defeat_health > 0), None)
            if saver is not None:
                self._remove_status(player, saver, 1, why="would be defeated")
                self.team_health[player.team] = find_status(saver).defeat_health
                self._note(f"{player.name} is not defeated ({saver}): health {self.team_health[player.team]}")
        alive = {team for team, health in self.team_health.items() if health > 0}
        if len(alive) == 1:
            self.outcome = Outcome(winner=alive.pop())
            self._note(f"game over: team {self.outcome.winner} wins")
        elif not alive:
            self.outcome = Outcome(winner=None)
            self._note("game over: a draw (everyone reached 0 health together)")

    # -- cards and CP -----------------------------------------------------------------------
    @_action
    def sell_card(self) -> int:
        """Sells (discards) a card for 1 CP in a Main Phase or the Discard Phase; returns the CP."""
        if self.phase not in (Phase.MAIN_1, Phase.MAIN_2, Phase.DISCARD):
            raise IllegalActionError(f"cards are sold in a Main Phase or the Discard Phase, not the {self.phase.title} (Sell)")
        player = self.active_player
        if player.hand <= 0:
            raise IllegalActionError(f"{player.name} has no card to sell (Sell)")
        player.hand -= 1
        player.cp = _clamp_cp(player.cp + 1)
        self._note(f"{player.name} sells a card: {player.cp} CP")
        return player.cp

    @_action
    def play_card(
        self,
        cost: int,
        instant: bool = False,
        *,
        player: Player | int | None = None,
        kind: CardKind | str | None = None,
        effect: CardEffect | str | None = None,
    ) -> int:
        """``player`` (default: the active player) plays a card and pays ``cost`` CP; returns the CP left.

        ``kind`` (default Instant with ``instant``, else Main Phase) says when it may be played:
        Main Phase action cards and upgrades on the player's own turn in a Main Phase; Roll Phase
        cards by any player in a roll phase; Instant cards by any player at any time. From an
        ultimate's activation to the end of the roll phase its opponents may do nothing.

        ``effect`` is what the card does that the tray keeps score of (:class:`CardEffect`: add or
        prevent N dmg, gain N CP, draw N, change or reroll a die of the roll in play); a card that
        changes the offensive dice after an ability was announced takes the announcement back.
        """
        card = CardKind(kind) if kind is not None else (CardKind.INSTANT if instant else CardKind.MAIN)
        payer = self.active_player if player is None else self._player(player)
        self._check_playing()
        if cost < 0:
            raise IllegalActionError(f"a card costs 0 CP or more, not {cost!r}")
        self._check_card_timing(payer, card)
        if payer.hand <= 0:
            raise IllegalActionError(f"{payer.name} has no card to play")
        if payer.cp < cost:
            raise IllegalActionError(f"{payer.name} has {payer.cp} CP, the card costs {cost} (Hero Cards)")
        payer.hand -= 1
        payer.cp -= cost
        done = ""
        if effect is not None:
            done = self._card_effect(payer, CardEffect.from_notation(effect) if isinstance(effect, str) else effect)
        self._note(f"{payer.name} plays a {card.title} ({cost} CP){done}: {payer.cp} CP left")
        return payer.cp

    def _card_effect(self, who: Player, effect: CardEffect) -> str:
        kind = effect.kind
        if kind is CardEffectKind.CP:
            who.cp = _clamp_cp(who.cp + effect.amount)
        elif kind is CardEffectKind.DRAW:
            who.hand += effect.amount
        elif kind is CardEffectKind.ADD:
            if who.team != self.active_player.team:
                raise IllegalActionError(f"{who.name} cannot add damage to an opponent's Attack (Attack Modifiers)")
            self._check_damage_change(adds=True, reduces=False, what=f"+{effect.amount} dmg")
            self.adjustments.append(effect.amount)
        elif kind is CardEffectKind.PREVENT:
            self._check_receiver(who, "a card")
            self._check_damage_change(adds=False, reduces=True, what=f"-{effect.amount} dmg")
            self.adjustments.append(-effect.amount)
        else:
            return self._alter_die(effect.die, effect.face)
        return f": {effect.notation()}"

    def _alter_die(self, die: int, face: int) -> str:
        """Changes die ``die`` (1-based) of the roll in play; an announced ability is taken back
        (the attacker announces again or rerolls: Offensive Roll Phase, step 3)."""
        if self.phase is Phase.OFFENSIVE_ROLL and self.offensive_roll is not None:
            if self.selected is not None and self.selected.unstoppable:
                raise IllegalActionError("an activated ultimate's dice can no longer be altered (Ultimate Ability)")
            roll = self.offensive_roll
            self.offensive_roll = self._replace_die(roll, die, face)
            if self.selected is not None:
                self._note(f"{self.selected.ability} is taken back: the dice changed")
                self.selected = None
                if self.mode is GameMode.ONE_VS_ONE:
                    self.target = None
            return f": die {die} -> {face}, dice {self.offensive_roll.notation()}"
        if self.phase is Phase.TARGETING_ROLL and self.targeting_die is not None:
            # "This die may be manipulated with cards, unless the Attack is an Ultimate Ability."
            if self.selected is not None and self.selected.unstoppable:
                raise IllegalActionError("the targeting die of an ultimate cannot be altered (Targeting Roll Phase)")
            if die != 1:
                raise IllegalActionError(f"the targeting roll has 1 die, not a die {die}")
            rule = self._apply_targeting_die(face)
            return f": targeting die -> {face}, {rule.value}"
        if self.phase is Phase.DEFENSIVE_ROLL and self.defense_roll is not None and self.exchange is None:
            self.defense_roll = self._replace_die(self.defense_roll, die, face)
            return f": defense die {die} -> {face}, dice {self.defense_roll.notation()}"
        raise IllegalActionError(f"no roll in play to alter in the {self.phase.title}")

    def _replace_die(self, roll: Roll, die: int, face: int) -> Roll:
        if not 1 <= die <= len(roll):
            raise IllegalActionError(f"no die {die} in {roll.notation()!r} (dice 1-{len(roll)})")
        faces = list(roll.faces)
        faces[die - 1] = face
        return Roll(tuple(faces))

    def _check_receiver(self, who: Player, what: str) -> None:
        """Only the player receiving the damage reduces it (2v2: not even a teammate)."""
        receivers = [self.defender] if self.defender is not None else self.opponents()
        if who.index not in [r.index for r in receivers if r is not None]:
            raise IllegalActionError(
                f"{who.name} cannot reduce another player's incoming damage with {what} (Spendable Status Effects)"
            )

    @_action
    def play_upgrade(self, ability: str, level: int, cost: int, player: Player | int | None = None) -> int:
        """Plays a Hero Upgrade card onto ``ability`` (level 2 or 3) in the owner's Main Phase.
        From level II to III only the difference in cost is paid (Hero Upgrades). Returns the CP left.

        What an upgraded ability does is not in the sources: the tray keeps the level, and the
        ability still resolves as its level I until the hero file gives its level II/III data.
        """
        owner = self.active_player if player is None else self._player(player)
        self._check_playing()
        self._check_card_timing(owner, CardKind.UPGRADE)
        name = owner.hero.ability(ability).name
        if level not in (2, 3):
            raise IllegalActionError(f"an upgrade is level II or III, not {level!r} (Hero Upgrades)")
        current, paid = owner.upgrades.get(name, (1, 0))
        if level <= current:
            raise IllegalActionError(f"{name} is already level {_ROMAN[current]} (Hero Upgrades)")
        due = max(0, cost - paid) if current == 2 else cost
        if owner.hand <= 0:
            raise IllegalActionError(f"{owner.name} has no card to play")
        if owner.cp < due:
            raise IllegalActionError(f"{owner.name} has {owner.cp} CP, the upgrade costs {due} (Hero Upgrades)")
        owner.hand -= 1
        owner.cp -= due
        owner.upgrades[name] = (level, cost)
        self._note(f"{owner.name} upgrades {name} to {_ROMAN[level]} for {due} CP")
        return owner.cp

    def _check_card_timing(self, player: Player, card: CardKind) -> None:
        """Raises unless ``player`` may play a ``card`` now (Action Cards; Ultimate Ability)."""
        if card in (CardKind.MAIN, CardKind.UPGRADE):
            if player.index != self.active:
                raise IllegalActionError(f"{player.name} plays {card.title}s only on their own turn ({card.title}s)")
            if self.phase not in MAIN_PHASES:
                raise IllegalActionError(f"{card.title}s are played in a Main Phase, not the {self.phase.title}")
        elif card is CardKind.ROLL and self.phase not in ROLL_PHASES:
            raise IllegalActionError(f"Roll Phase cards are played in a roll phase, not the {self.phase.title} (Roll Phase Action Cards)")
        if self.ultimate_locks(player):
            raise IllegalActionError(
                f"{player.name} may take no action until the roll phase ends: an ultimate is activated (Ultimate Ability)"
            )

    def ultimate_locks(self, player: Player | int) -> bool:
        """True while an activated ultimate forbids ``player`` (an opponent of it) any action."""
        who = self._player(player)
        return (
            self.phase in ROLL_PHASES
            and self.selected is not None
            and self.selected.unstoppable
            and who.team != self.active_player.team
        )

    @_action
    def set_health(self, player: Player | int, health: int) -> None:
        """A manual correction of a health dial (cards and statuses the tray does not see)."""
        if health < 0 or health > self.starting_health + HEAL_ABOVE_START:
            raise IllegalActionError(
                f"health {health!r} is outside 0-{self.starting_health + HEAL_ABOVE_START} (Health)"
            )
        self.team_health[self._player(player).team] = health
        self._check_outcome()

    # -- table actions in record notation (the rules.games.TableGame protocol) -------------------
    def play(self, action: Action | str) -> object:
        """Applies one table action written in record notation (docs/game-records.md), e.g.
        ``roll 1 2 3 4 5``, ``select Mighty Blow``, ``spend P2 Evasive 1``, ``card P2 instant 1``.

        :raises InvalidActionError: for an unknown verb or a malformed argument.
        :raises IllegalActionError: for an action the rules forbid now (nothing changes).
        """
        act = Action.from_notation(action) if isinstance(action, str) else action
        handler = _VERBS.get(act.verb)
        if handler is None:
            raise InvalidActionError(f"unknown action {act.verb!r} (actions: {', '.join(sorted(_VERBS))})")
        return handler(self, act.args)

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def winner_name(self) -> str | None:
        """The winning team's player names (``"A & C"`` in 2v2), ``"draw"``, or None while it goes on."""
        if self.outcome is None:
            return None
        if self.outcome.winner is None:
            return "draw"
        return " & ".join(p.name for p in self.players if p.team == self.outcome.winner)

    def to_json(self) -> dict[str, Any]:
        """``{"players": [{"name", "hero", "health", "cp", "cards", "statuses"}], "turn", "phase", "winner"}``."""
        return {
            "game": "dicethrone",
            "mode": self.mode.value,
            "players": [
                {
                    "name": p.name,
                    "hero": p.hero.id,
                    "health": self.health(p),
                    "cp": p.cp,
                    "cards": p.hand,
                    "statuses": dict(sorted(p.statuses.items())),
                }
                for p in self.players
            ],
            "turn": self.turn,
            "active": self.active_player.name,
            "phase": self.phase.value,
            "winner": self.winner_name(),
        }

    # -- undo -------------------------------------------------------------------------------
    @property
    def can_undo(self) -> bool:
        return bool(self._history)

    def undo(self) -> None:
        """Takes back the last action (a roll, a choice, a phase change).

        :raises IllegalActionError: when there is nothing to undo.
        """
        if not self._history:
            raise IllegalActionError("nothing to undo")
        self._restore(self._history.pop())
        self._actions.append("undo")  # a correction stays in the record

    @property
    def actions(self) -> list[str]:
        """Every table action so far, in record notation, corrections (``undo``) included."""
        return list(self._actions)

    def record_headers(self) -> list[tuple[str, str]]:
        """The game record's tags: game, mode, seed, the start player and each seat's hero and name."""
        headers = [("Game", "dicethrone"), ("Mode", self.mode.value)]
        if self.seed is not None:
            headers.append(("Seed", str(self.seed)))
        headers.append(("Start", f"P{self.start_player + 1}"))
        for player in self.players:
            headers.append((f"P{player.index + 1}", f"{player.hero.id} {player.name}"))
        return headers

    def copy(self) -> Game:
        """An independent copy (heroes are shared: they never change)."""
        return copy.deepcopy(self)

    def _snapshot(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in _OUTSIDE_SNAPSHOTS}
        return copy.deepcopy(state)

    def _restore(self, state: dict[str, Any]) -> None:
        kept = {k: self.__dict__[k] for k in _OUTSIDE_SNAPSHOTS}
        self.__dict__.clear()
        self.__dict__.update(copy.deepcopy(state))
        self.__dict__.update(kept)

    # -- helpers ----------------------------------------------------------------------------
    def _player(self, player: Player | int) -> Player:
        if isinstance(player, Player):
            return self.players[player.index]
        if not isinstance(player, int) or not 0 <= player < len(self.players):
            raise IllegalActionError(f"no player {player!r}")
        return self.players[player]

    def _roll(self, roll: Roll | str, hero: Hero) -> Roll:
        return Roll.from_notation(roll, hero) if isinstance(roll, str) else Roll.from_faces(roll.faces, hero)

    def _check_playing(self) -> None:
        if self.outcome is not None:
            raise IllegalActionError("the game is over")

    def _require_phase(self, phase: Phase, doing: str) -> None:
        self._check_playing()
        if self.phase is not phase:
            raise IllegalActionError(f"cannot {doing} in the {self.phase.title} ({phase.title} only)")

    def _check_damage_change(self, *, adds: bool, reduces: bool, what: str) -> None:
        self._check_playing()
        if self.phase not in ROLL_PHASES:
            raise IllegalActionError(f"{what}: not in the {self.phase.title} (Attack Modifiers)")
        if self.selected is None or self.exchange is not None:
            raise IllegalActionError(f"{what}: no damage is waiting to resolve (Attack Modifiers)")
        ability = self.active_player.hero.ability(self.selected.ability)
        if ability.is_attack:
            assert ability.damage_type is not None
            check_damage_change(ability.damage_type, adds=adds, reduces=reduces, what=what)
        elif ability.deals_collateral and not adds:
            return  # collateral damage is avoidable
        elif ability.deals_collateral:
            raise IllegalActionError(
                f"{what}: {ability.name!r} is not an Attack and collateral damage cannot be modified (Attack Modifiers)"
            )
        else:
            raise IllegalActionError(f"{what}: {ability.name!r} deals no damage to change (Attack Modifiers)")

    def _note(self, line: str) -> None:
        self.log.append(line)

    def __repr__(self) -> str:
        return (
            f"<Game {self.mode.value} turn {self.turn} {self.phase.value} active {self.active} "
            f"health {self.team_health}>"
        )


def _with_cp_damage(player: Player, activation: Activation) -> Activation:
    ability = player.hero.ability(activation.ability)
    if ability.cp_damage is None:
        return activation
    extra = cp_damage(ability, ability.tiers[activation.tier - 1].effect, player.cp)
    return replace(activation, damage=activation.damage + extra, expected_damage=activation.expected_damage + extra)


_OUTSIDE_SNAPSHOTS = ("_history", "_actions", "_depth")
_STACK_RAISE = re.compile(r"(.+) stack limit \+(\d+), fill \1")
_ROMAN = {1: "I", 2: "II", 3: "III"}


def _seat_of(game: Game, player: object) -> str:
    return f"P{game._player(player).index + 1}" if isinstance(player, (Player, int)) else str(player)


def _faces(roll: object) -> str:
    return roll.notation() if isinstance(roll, Roll) else " ".join(str(roll).split())


def _notation(game: Game, method: str, args: dict[str, Any]) -> str:
    """The record line of a table action that just succeeded (the inverse of :meth:`Game.play`)."""
    if method == "advance":
        return "advance"
    if method == "record_offensive_roll":
        return f"roll {_faces(args['roll'])}"
    if method == "select_ability":
        return "select none" if args["name"] is None else f"select {args['name']}"
    if method == "record_bonus_roll":
        return f"bonus {_faces(args['roll'])}"
    if method == "record_targeting_roll":
        return f"target-roll {args['value']}"
    if method == "choose_target":
        return f"target {_seat_of(game, args['player'])}"
    if method == "choose_defense":
        return f"defense {args['name']}"
    if method == "record_defensive_roll":
        return f"defend {_faces(args['roll'])}"
    if method == "modify_damage":
        return f"damage {args['amount']:+d}"
    if method == "add_portion":
        portion: Portion = args["portion"]
        return f"portion {'prevent' if portion.prevents else 'add'} {portion.fraction}"
    if method == "play_card":
        kind = args["kind"]
        card = CardKind(kind) if kind is not None else (CardKind.INSTANT if args["instant"] else CardKind.MAIN)
        who = game.active if args["player"] is None else args["player"]
        line = f"card {_seat_of(game, who)} {card.value} {args['cost']}"
        if args["effect"] is not None:
            effect = args["effect"]
            line += f" {effect.notation() if isinstance(effect, CardEffect) else ' '.join(str(effect).split())}"
        return line
    if method == "play_upgrade":
        who = game.active if args["player"] is None else args["player"]
        return f"upgrade {_seat_of(game, who)} {_ROMAN[args['level']]} {args['cost']} {args['ability']}"
    if method == "gain_status":
        return f"status {_seat_of(game, args['player'])} {args['count']:+d} {find_status(args['name']).name}"
    if method == "raise_stack_limit":
        return f"stack-limit {_seat_of(game, args['player'])} {args['by']:+d} {find_status(args['name']).name}"
    if method == "spend_status":
        line = f"spend {_seat_of(game, args['player'])} {find_status(args['name']).name}"
        if args["die"] is not None:
            line += f" {args['die']}"
        if args["remove"] is not None:
            line += f" remove {find_status(args['remove']).name}"
        return line
    if method == "record_status_roll":
        return f"status-roll {args['value']}"
    if method == "set_health":
        return f"health {_seat_of(game, args['player'])} {args['health']}"
    return {"resolve": "resolve", "sell_card": "sell", "choose": f"choose {args.get('option', '')}"}[method]


def _seat(game: Game, word: str) -> Player:
    """``P1``..``P4``: a seat in turn order."""
    seat = whole_number(word[1:]) if word[:1] in "Pp" else None
    if seat is None:
        raise InvalidActionError(f"expected a seat such as P1, got {word!r}")
    index = seat - 1
    if not 0 <= index < len(game.players):
        raise InvalidActionError(f"no seat {word!r} in a game of {len(game.players)}")
    return game.players[index]


def _die_read(word: str) -> int | OneOf:
    """A die as recorded: its number, or the numbers it was read as (``4|5``)."""
    if "|" in word:
        try:
            return OneOf.from_notation(word)
        except InvalidRollError as error:
            raise InvalidActionError(str(error)) from None
    return _number(word, "the die")


def _number(word: str, what: str) -> int:
    """A whole number with an optional sign (``+2``, ``-1``), in ASCII digits."""
    number = whole_number(word[1:] if word[:1] in "+-" else word)
    if number is None:
        raise InvalidActionError(f"expected a whole number for {what}, got {word!r}")
    return -number if word[:1] == "-" else number


def _args(args: tuple[str, ...], low: int, usage: str) -> tuple[str, ...]:
    if len(args) < low:
        raise InvalidActionError(f"expected {usage}")
    return args


def _spend(game: Game, args: tuple[str, ...]) -> object:
    _args(args, 2, "spend P<n> <status> [die] [remove <status>]")
    words = list(args[1:])
    remove = None
    if "remove" in words:
        at = words.index("remove")
        remove = " ".join(words[at + 1 :]) or None
        words = words[:at]
    read_die = words and (whole_number(words[-1]) is not None or "|" in words[-1])
    die = _die_read(words.pop()) if read_die else None
    return game.spend_status(_seat(game, args[0]), " ".join(words), die=die, remove=remove)


def _portion(game: Game, args: tuple[str, ...]) -> object:
    _args(args, 2, "portion prevent|add <fraction>")
    if args[0] not in ("prevent", "add"):
        raise InvalidActionError(f"expected prevent or add, got {args[0]!r}")
    try:
        fraction = Fraction(args[1])
    except ValueError:
        raise InvalidActionError(f"expected a fraction such as 1/2, got {args[1]!r}") from None
    game.add_portion(Portion(fraction, args[0] == "prevent"))
    return fraction


_VERBS: dict[str, Callable[[Game, tuple[str, ...]], object]] = {
    "advance": lambda g, a: g.advance(),
    "roll": lambda g, a: g.record_offensive_roll(" ".join(_args(a, 1, "roll <faces>"))),
    "select": lambda g, a: g.select_ability(None if a == ("none",) else " ".join(_args(a, 1, "select <ability>|none"))),
    "bonus": lambda g, a: g.record_bonus_roll(" ".join(_args(a, 1, "bonus <faces>"))),
    "target-roll": lambda g, a: g.record_targeting_roll(_die_read(_args(a, 1, "target-roll <die>|<die>|...")[0])),
    "target": lambda g, a: g.choose_target(_seat(g, _args(a, 1, "target P<n>")[0])),
    "defense": lambda g, a: g.choose_defense(" ".join(_args(a, 1, "defense <ability>"))),
    "defend": lambda g, a: g.record_defensive_roll(" ".join(_args(a, 1, "defend <faces>"))),
    "damage": lambda g, a: g.modify_damage(_number(_args(a, 1, "damage +N|-N")[0], "the damage")),
    "portion": _portion,
    "resolve": lambda g, a: g.resolve(),
    "sell": lambda g, a: g.sell_card(),
    "card": lambda g, a: g.play_card(
        _number(_args(a, 3, "card P<n> main|roll|instant <cost> [effect]")[2], "the cost"),
        player=_seat(g, a[0]),
        kind=_card_kind(a[1]),
        effect=" ".join(a[3:]) or None,
    ),
    "upgrade": lambda g, a: g.play_upgrade(
        " ".join(_args(a, 4, "upgrade P<n> II|III <cost> <ability>")[3:]),
        _level(a[1]),
        _number(a[2], "the cost"),
        player=_seat(g, a[0]),
    ),
    "spend": _spend,
    "choose": lambda g, a: g.choose(" ".join(_args(a, 1, "choose <option>"))),
    "status": lambda g, a: g.gain_status(
        _seat(g, _args(a, 3, "status P<n> +N|-N <status>")[0]), " ".join(a[2:]), _number(a[1], "the count")
    ),
    "stack-limit": lambda g, a: g.raise_stack_limit(
        _seat(g, _args(a, 3, "stack-limit P<n> +N <status>")[0]), " ".join(a[2:]), _number(a[1], "the rise")
    ),
    "status-roll": lambda g, a: g.record_status_roll(_die_read(_args(a, 1, "status-roll <die>|<die>|...")[0])),
    "health": lambda g, a: g.set_health(_seat(g, _args(a, 2, "health P<n> <health>")[0]), _number(a[1], "the health")),
    "undo": lambda g, a: g.undo(),
}


def _level(word: str) -> int:
    levels = {roman: level for level, roman in _ROMAN.items()}
    if word.upper() not in levels:
        raise InvalidActionError(f"expected an upgrade level II or III, got {word!r}")
    return levels[word.upper()]


def _card_kind(word: str) -> CardKind:
    try:
        return CardKind(word)
    except ValueError:
        raise InvalidActionError(f"expected main, roll, instant or upgrade, got {word!r}") from None


def _clamp_cp(cp: int) -> int:
    return max(0, min(MAX_CP, cp))


def _phrase_step(phrase: str) -> str:
    """When a status phrase resolves: ``choice`` (an "Or" the table chooses), ``self`` (gains and
    removals on the acting player: no target needed) or ``targeted`` (inflicted on the other)."""
    if choice_options(phrase):
        return "choice"
    if _STACK_RAISE.fullmatch(phrase) is not None:
        return "self"
    change = parse_status_phrase(phrase)
    if change is None or change.verb in ("gain", "remove-negative"):
        return "self"
    return "targeted"
