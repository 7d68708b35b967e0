"""Marvel Heroes Battle Dice as the seed plays it (``003_...``): the basic and the standard game,
multiplayer, and the options (popped rolls count as 1, Two Minute Warning, Multiplayer Mayhem).

Each round every player rolls three loaded battle dice (one in the basic game) into the Battle
Zone; the lowest Strike Total chooses the match-up (a tie is broken by rolling an empty die), the
lowest single die in the match-up chooses the battle stat (a tie lets each choose), the dice are
opened, powers are applied, and the highest Battle Total captures the losers' figures. After each
battle the dice still in the Battle Zone make the new Strike Totals. Table actions are written in
record notation (docs/battle-dice.md)::

    >>> game = Game.from_tags({"P1": "Ann", "P1Team": "captain-america spider-man wolverine",
    ...     "P1Dice": "red blue green", "P2": "Bob", "P2Team": "ultron doc-ock magneto",
    ...     "P2Dice": "red blue green"})
    >>> for line in ("reload P1", "reload P2", "roll P1 red 3 blue 4 green 6", "roll P2 red 2 blue 4 green 6"):
    ...     _ = game.play(line)
    >>> game.strike_totals(), game.state.chooser
    ({0: 13, 1: 12}, 1)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.battledice.figures import (
    Figure,
    FigureDataError,
    Target,
    battle_stats,
    check_team,
    load_figure,
    power,
    stat_name,
)
from rules.dice import whole_number as ascii_whole_number
from rules.errors import IllegalActionError, RulesError
from rules.games import InvalidActionError
from rules.table import SnapshotGame, seat_index, whole_number

GAME_NAME = "battledice"


class Mode(enum.Enum):
    BASIC = "basic"
    """Starter Set: three figures and three dice each, one die rolled per battle."""
    STANDARD = "standard"
    """Teams by agreed Value, three dice rolled per round."""

    @property
    def dice_per_round(self) -> int:
        return 1 if self is Mode.BASIC else 3


class Option(enum.Enum):
    """Options all players agree to before the game (Options)."""

    POPPED_ROLLS = "popped-rolls"
    """A battle die that pops open on a roll counts as a 1."""
    TWO_MINUTE_WARNING = "two-minute-warning"
    """Once called, battle stats are rolled in turn: Intelligence, Strength, Speed, ... and round again."""
    MAYHEM = "multiplayer-mayhem"
    """Every battle is one-on-one: a match-up is one die of the chooser's and one of an opponent's."""


class Zone(enum.Enum):
    STAGING = "staging"
    READY = "ready"
    BATTLE = "battle"
    DICE = "dice"


class Phase(enum.Enum):
    RELOAD = "reload"
    """Someone must reload before rolling (fewer loaded dice in the Ready Zone than a battle takes)."""
    ROLL = "roll"
    TIEBREAK = "tiebreak"
    """A Strike Total tie: the tied players roll an empty die, lowest chooses."""
    MATCH_UP = "match-up"
    REROLL = "reroll"
    """Basic game: the battle dice tied, they are rolled again."""
    BATTLE_STAT = "battle-stat"
    OPEN = "open"
    POWERS = "powers"
    CAPTURE = "capture"
    UNLOAD = "unload"
    """The round ended: the dice left in the Battle Zone are opened and unloaded to Staging."""
    OVER = "over"


@dataclass
class Die:
    colour: str
    zone: Zone = Zone.STAGING
    loaded: bool = False
    roll: int | None = None
    """The face it shows in the Battle Zone."""


@dataclass
class Seat:
    name: str
    team: tuple[str, ...]
    """The figure ids the player brought."""
    dice: dict[str, Die]
    staging: list[str]
    """Figures in the Staging Zone (out of their dice)."""
    loaded: list[str] = field(default_factory=list)
    """Figures inside this player's loaded dice; which figure is in which die is hidden until opened."""
    holding: list[tuple[int, str]] = field(default_factory=list)
    """Captured figures: (owner's seat, figure id), one row per opponent."""
    strike_bonus: int = 0
    """What powers add to the Strike Total this round (Telepathy)."""

    def in_zone(self, zone: Zone) -> list[Die]:
        return [die for die in self.dice.values() if die.zone is zone]

    def ready_loaded(self) -> list[Die]:
        return [die for die in self.in_zone(Zone.READY) if die.loaded]


@dataclass
class Battle:
    """The current match-up."""

    dice: list[tuple[int, str]]
    """(seat, die colour) in the match-up."""
    chooser: int
    """Who chose the match-up (powers and captures start with them)."""
    stat_choosers: list[int] = field(default_factory=list)
    stats: dict[int, str] = field(default_factory=dict)
    figures: dict[int, str] = field(default_factory=dict)
    bonus: dict[int, int] = field(default_factory=dict)
    applied: list[tuple[str, str]] = field(default_factory=list)
    """(power, what it affected): each power affects a figure or player once (Applying Powers)."""
    actor: int = 0
    passes: int = 0
    winners: list[int] = field(default_factory=list)
    losers: list[int] = field(default_factory=list)
    captures_left: list[int] = field(default_factory=list)


@dataclass
class State:
    mode: Mode
    options: frozenset[Option]
    agreed_value: int | None
    seats: list[Seat]
    figures: dict[str, Figure]
    phase: Phase = Phase.RELOAD
    round: int = 1
    chooser: int | None = None
    tied: list[int] = field(default_factory=list)
    rolled: set[int] = field(default_factory=set)
    battle: Battle | None = None
    two_minute_warning: bool = False
    stats_rolled: int = 0
    strike_powers: list[tuple[str, str]] = field(default_factory=list)
    """Strike Total powers applied this round (they last the round; each affects a player once)."""
    winner: int | None = None


class Game(SnapshotGame[State]):
    """A game of Battle Dice in progress. Build it with :meth:`new` or :meth:`from_tags`."""

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        names: Sequence[str],
        teams: Sequence[Sequence[str]],
        dice: Sequence[Sequence[str]],
        *,
        mode: Mode | str = Mode.STANDARD,
        agreed_value: int | None = 30,
        options: Sequence[Option | str] = (),
        figure_directories: Sequence[Path] = (),
    ) -> Game:
        """A new game: one name, team (figure ids) and set of dice (colours) per seat, in seat order
        (play goes to the left, which is the next seat). Teams are checked against ``agreed_value``
        (the standard game; pass None to skip) and the unique / cosmic limits.

        :raises IllegalActionError: for a team the rules refuse or a seat count below two.
        :raises FigureDataError: for a figure file that does not validate.
        """
        mode = Mode(mode)
        if not len(names) == len(teams) == len(dice) or len(names) < 2:
            raise IllegalActionError("each of two or more players needs a name, a team and dice")
        chosen = frozenset(Option(o) for o in options)
        figures: dict[str, Figure] = {}
        seats: list[Seat] = []
        for name, team, colours in zip(names, teams, dice):
            loaded = [load_figure(f, figure_directories) for f in team]
            if mode is Mode.STANDARD and agreed_value is not None:
                result = check_team(loaded, agreed_value)
                if not result.ok:
                    raise IllegalActionError(f"{name}'s team: " + "; ".join(text for _, text in result.problems))
            elif any(loaded.count(f) > 1 and f.unique for f in loaded):
                raise IllegalActionError(f"{name}'s team has a unique figure twice (Unique and Cosmic)")
            if len(set(colours)) != len(colours) or not colours:
                raise IllegalActionError(f"{name}'s dice need distinct colours, not {list(colours)}")
            figures.update((f.id, f) for f in loaded)
            seats.append(Seat(name=name, team=tuple(team), dice={c: Die(c) for c in colours}, staging=list(team)))
        game = cls(State(mode=mode, options=chosen, agreed_value=agreed_value, seats=seats, figures=figures))
        game.note(f"round 1: {', '.join(names)} load their battle dice")
        return game

    @classmethod
    def from_tags(cls, tags: Mapping[str, str], search: Sequence[Path] = ()) -> Game:
        """A new game from a record's tags: ``Mode``, ``Value``, ``Options``, ``Figures`` (a
        directory of figure files) and per seat ``P<n>`` (name), ``P<n>Team`` (figure ids) and
        ``P<n>Dice`` (die colours). See docs/battle-dice.md.

        ``search`` (the tray's custom hero folders, which :func:`rules.records.replay` hands every game)
        holds Dice Throne hero files, not figures: a record names its own figure folder in ``Figures``.

        :raises IllegalActionError: naming the tag that is missing or wrong.
        """
        names: list[str] = []
        while f"P{len(names) + 1}" in tags:
            names.append(tags[f"P{len(names) + 1}"].strip() or f"Player {len(names) + 1}")
        if len(names) < 2:
            raise IllegalActionError('the record needs [P1 "<name>"], [P1Team "..."] and [P1Dice "..."] per seat')
        teams: list[list[str]] = []
        dice: list[list[str]] = []
        for n in range(1, len(names) + 1):
            for suffix, into in (("Team", teams), ("Dice", dice)):
                if f"P{n}{suffix}" not in tags:
                    raise IllegalActionError(f"no [P{n}{suffix} ...] tag")
                into.append(tags[f"P{n}{suffix}"].split())
        try:
            mode = Mode(tags.get("Mode", "standard"))
        except ValueError:
            raise IllegalActionError(f"[Mode {tags['Mode']!r}]: expected basic or standard") from None
        value_text = tags.get("Value", "30")
        agreed_value = ascii_whole_number(value_text)
        if agreed_value is None:
            raise IllegalActionError(f"[Value {value_text!r}]: expected the agreed team Value, a whole number")
        try:
            options = [Option(o) for o in tags.get("Options", "").split()]
        except ValueError as error:
            raise IllegalActionError(
                f"[Options {tags['Options']!r}]: {error} (options: {', '.join(o.value for o in Option)})"
            ) from None
        directories = [Path(tags["Figures"])] if "Figures" in tags else []
        try:
            return cls.new(
                names, teams, dice, mode=mode, agreed_value=agreed_value, options=options,
                figure_directories=directories,
            )
        except FigureDataError:
            raise
        except RulesError as error:
            raise IllegalActionError(str(error)) from None

    def record_headers(self) -> list[tuple[str, str]]:
        s = self.state
        tags = [("Game", GAME_NAME), ("Mode", s.mode.value)]
        if s.agreed_value is not None:
            tags.append(("Value", str(s.agreed_value)))
        if s.options:
            tags.append(("Options", " ".join(sorted(o.value for o in s.options))))
        for n, seat in enumerate(s.seats, start=1):
            tags += [(f"P{n}", seat.name), (f"P{n}Team", " ".join(seat.team)), (f"P{n}Dice", " ".join(seat.dice))]
        return tags

    # -- reading ----------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.state.phase is Phase.OVER

    def strike_totals(self) -> dict[int, int]:
        """Each seat with dice in the Battle Zone: their sum, with this round's power bonuses."""
        totals: dict[int, int] = {}
        for index, seat in enumerate(self.state.seats):
            rolled = seat.in_zone(Zone.BATTLE)
            if rolled:
                totals[index] = sum(die.roll or 0 for die in rolled) + seat.strike_bonus
        return totals

    def battle_totals(self) -> dict[int, int]:
        """Each opened figure in the match-up: its die + its battle stat + power bonuses."""
        battle = self.state.battle
        if battle is None:
            return {}
        totals: dict[int, int] = {}
        for seat, colour in battle.dice:
            if seat in battle.figures and seat in battle.stats:
                die = self.state.seats[seat].dice[colour]
                figure = self.state.figures[battle.figures[seat]]
                totals[seat] = (die.roll or 0) + figure.stat(battle.stats[seat]) + battle.bonus.get(seat, 0)
        return totals

    def uncaptured(self, seat: int) -> list[str]:
        """The seat's figures that no opponent holds."""
        captured = [f for other in self.state.seats for owner, f in other.holding if owner == seat]
        left = list(self.state.seats[seat].team)
        for figure in captured:
            left.remove(figure)
        return left

    def reload_due(self, seat: int) -> bool:
        """Fewer loaded dice in the Ready Zone than a battle takes, and figures in Staging to load."""
        player = self.state.seats[seat]
        return len(player.ready_loaded()) < self.state.mode.dice_per_round and bool(player.staging) and bool(
            player.in_zone(Zone.STAGING) or player.in_zone(Zone.DICE)
        )

    def prompt(self) -> str:
        """What the table does next, one line (the OLED's prompt)."""
        s = self.state
        names = [seat.name for seat in s.seats]
        if s.phase is Phase.OVER:
            return f"winner: {names[s.winner or 0]}"
        if s.phase is Phase.RELOAD:
            due = [names[i] for i in range(len(names)) if self.reload_due(i)]
            return f"reload: {', '.join(due)}"
        if s.phase is Phase.ROLL:
            waiting = [names[i] for i in self._rollers() if i not in s.rolled]
            return f"round {s.round}: roll {s.mode.dice_per_round} dice: {', '.join(waiting)}"
        if s.phase is Phase.TIEBREAK:
            return f"Strike Total tie: {', '.join(names[i] for i in s.tied)} roll an empty die"
        if s.phase is Phase.MATCH_UP:
            return f"{names[s.chooser or 0]} chooses the match-up"
        battle = s.battle
        if s.phase is Phase.UNLOAD or battle is None:
            return "unload the Battle Zone's dice"
        if s.phase is Phase.REROLL:
            return "the battle dice tied: roll them again"
        if s.phase is Phase.BATTLE_STAT:
            choosers = [names[i] for i in battle.stat_choosers]
            return f"battle stat: {' and '.join(choosers)} {'choose' if len(choosers) > 1 else 'chooses'}"
        if s.phase is Phase.OPEN:
            return "open the battle dice"
        if s.phase is Phase.POWERS:
            return f"{names[battle.actor]}: powers, or pass"
        return f"{names[battle.captures_left[0]]} captures a losing figure"

    def to_json(self) -> dict[str, Any]:
        s = self.state
        strike = self.strike_totals()
        return {
            "game": GAME_NAME,
            "mode": s.mode.value,
            "players": [
                {
                    "name": seat.name,
                    "team": list(seat.team),
                    "uncaptured": self.uncaptured(i),
                    "strike_total": strike.get(i),
                    "staging": sorted(seat.staging),
                    "ready": sorted(d.colour for d in seat.in_zone(Zone.READY)),
                    "battle": {d.colour: d.roll for d in seat.in_zone(Zone.BATTLE)},
                    "dice_zone": sorted(d.colour for d in seat.in_zone(Zone.DICE)),
                    "holding": [f"P{owner + 1} {figure}" for owner, figure in seat.holding],
                }
                for i, seat in enumerate(s.seats)
            ],
            "turn": s.round,
            "round": s.round,
            "phase": s.phase.value,
            "chooser": None if s.chooser is None else s.seats[s.chooser].name,
            "prompt": self.prompt(),
            "winner": None if s.winner is None else s.seats[s.winner].name,
        }

    def summary_lines(self) -> list[str]:
        """The final state as text for ``dicetray replay``."""
        lines = []
        for player in self.to_json()["players"]:
            lines.append(
                f"  {player['name']}: {len(player['uncaptured'])} of {len(player['team'])} figures free, "
                f"holding {', '.join(player['holding']) or 'nobody'}"
            )
        return lines

    # -- actions ----------------------------------------------------------------------------
    def _seat(self, text: str) -> int:
        return seat_index(text, len(self.state.seats))

    def _die(self, seat: int, colour: str) -> Die:
        player = self.state.seats[seat]
        if colour not in player.dice:
            raise InvalidActionError(f"{player.name} has no {colour!r} die (dice: {', '.join(player.dice)})")
        return player.dice[colour]

    def _expect(self, *phases: Phase) -> None:
        if self.state.phase not in phases:
            raise IllegalActionError(f"not now: the game is in its {self.state.phase.value} step ({self.prompt()})")

    def reload(self, seat: int, colours: Sequence[str] = ()) -> list[str]:
        """Loads the figures in the seat's Staging Zone into empty dice, dice in Staging first,
        then from the Dice Zone (Reloading); ``colours`` names the dice when the player chooses.
        Returns the colours loaded.

        :raises IllegalActionError: when no reload is due, or the dice named break the rule that no
            die stays in the Dice Zone while figures are left in Staging.
        """
        self._expect(Phase.RELOAD)
        if not self.reload_due(seat):
            raise IllegalActionError(f"{self.state.seats[seat].name} has loaded dice enough: no reload (Reloading)")
        player = self.state.seats[seat]
        empty = player.in_zone(Zone.STAGING) + player.in_zone(Zone.DICE)
        count = min(len(player.staging), len(empty))
        if colours:
            chosen = [self._die(seat, c) for c in colours]
            if any(d not in empty for d in chosen) or len(set(colours)) != len(colours):
                raise IllegalActionError("reload only empty dice from the Staging and Dice Zones, each once")
            if len(chosen) != count:
                raise IllegalActionError(
                    f"load {count} dice: every figure in Staging while dice are free (Reloading)"
                )
        else:
            chosen = empty[:count]
        for die in chosen:
            die.zone, die.loaded = Zone.READY, True
        player.loaded.extend(player.staging[:count])
        # Which figure went into which die stays hidden: the figures loaded are a pool until opened.
        player.loaded.sort()
        del player.staging[:count]
        player.staging.sort()
        self.note(f"{player.name} loads {', '.join(d.colour for d in chosen)}")
        if not any(self.reload_due(i) for i in range(len(self.state.seats))):
            self.state.phase = Phase.ROLL
        return [d.colour for d in chosen]

    def _rollers(self) -> list[int]:
        return [i for i, seat in enumerate(self.state.seats) if seat.ready_loaded() and self.uncaptured(i)]

    def _face(self, text: str) -> int:
        if text.lower() == "popped":
            if Option.POPPED_ROLLS not in self.state.options:
                raise IllegalActionError("a die that pops open is reloaded and rolled again (Popped Rolls)")
            return 1
        value = whole_number(text, "a battle die")
        if not 1 <= value <= 6:
            raise InvalidActionError(f"a battle die shows 1-6, not {value}")
        return value

    def roll(self, seat: int, faces: Sequence[tuple[str, str]]) -> int:
        """The seat rolls loaded dice from its Ready Zone into the Battle Zone: (colour, face) pairs,
        three in the standard game (fewer when fewer are loaded), one in the basic. Returns the
        Strike Total. When everyone has rolled, the lowest Strike Total chooses the match-up.
        """
        self._expect(Phase.ROLL)
        s = self.state
        player = s.seats[seat]
        if seat in s.rolled:
            raise IllegalActionError(f"{player.name} has rolled this round; a die in the Battle Zone is not re-rolled")
        if seat not in self._rollers():
            raise IllegalActionError(f"{player.name} has no loaded dice: done until the next round")
        wanted = min(s.mode.dice_per_round, len(player.ready_loaded()))
        if len(faces) != wanted:
            raise IllegalActionError(f"{player.name} rolls {wanted} loaded dice, not {len(faces)}")
        dice = [self._die(seat, colour) for colour, _ in faces]
        if len({d.colour for d in dice}) != len(dice) or any(d not in player.ready_loaded() for d in dice):
            raise IllegalActionError(f"roll loaded dice from the Ready Zone, each once (ready: "
                                     f"{', '.join(d.colour for d in player.ready_loaded())})")
        values = [self._face(face) for _, face in faces]
        for die, value in zip(dice, values):
            die.zone, die.roll = Zone.BATTLE, value
        s.rolled.add(seat)
        self.note(f"{player.name} rolls {' '.join(f'{d.colour} {d.roll}' for d in dice)}")
        if all(i in s.rolled for i in self._rollers()) or not any(i not in s.rolled for i in self._rollers()):
            self._choose_match_up()
        return self.strike_totals()[seat]

    def _choose_match_up(self) -> None:
        """The lowest Strike Total chooses; a tie goes to a roll of empty dice; one seat with dice
        left (or none) ends the round."""
        s = self.state
        totals = self.strike_totals()
        if len(totals) < 2:
            self._end_round()
            return
        if s.mode is Mode.BASIC:
            # One die each: the match-up is every die, and the lowest die chooses the stat (and
            # announces powers first); tied dice are rolled again.
            dice = [(i, s.seats[i].in_zone(Zone.BATTLE)[0].colour) for i in sorted(totals)]
            s.chooser = None
            s.battle = Battle(dice=dice, chooser=dice[0][0])
            self._choose_stat_choosers()
            return
        lowest = min(totals.values())
        tied = [i for i, total in totals.items() if total == lowest]
        if len(tied) > 1:
            s.tied, s.chooser, s.phase = tied, None, Phase.TIEBREAK
            self.note(f"Strike Totals tie at {lowest}: {', '.join(s.seats[i].name for i in tied)} roll an empty die")
        else:
            s.chooser, s.phase = tied[0], Phase.MATCH_UP
            self.note(f"Strike Totals {self._totals_text(totals)}: {s.seats[tied[0]].name} chooses the match-up")

    def _totals_text(self, totals: Mapping[int, int]) -> str:
        return ", ".join(f"{self.state.seats[i].name} {t}" for i, t in totals.items())

    def tiebreak(self, rolls: Mapping[int, int]) -> int | None:
        """The tied players' rolls of an empty battle die (Strike Total Ties): the lowest chooses
        the match-up; a new tie among the lowest rolls again. Returns the chooser, or None."""
        self._expect(Phase.TIEBREAK)
        s = self.state
        if set(rolls) != set(s.tied):
            raise IllegalActionError(f"the tie-break is rolled by {', '.join(f'P{i + 1}' for i in s.tied)}")
        if any(not 1 <= v <= 6 for v in rolls.values()):
            raise InvalidActionError("a battle die shows 1-6")
        lowest = min(rolls.values())
        tied = [i for i in s.tied if rolls[i] == lowest]
        if len(tied) > 1:
            s.tied = tied
            self.note("the tie-break ties: roll again")
            return None
        s.tied, s.chooser, s.phase = [], tied[0], Phase.MATCH_UP
        self.note(f"{s.seats[tied[0]].name} wins the tie-break ({lowest}) and chooses the match-up")
        return tied[0]

    def match_up(self, dice: Sequence[tuple[int, str]]) -> list[int]:
        """The chooser picks one rolled die from each player with dice in the Battle Zone (with
        Multiplayer Mayhem: one of their own and one of an opponent's). Returns who chooses the
        battle stat: the lowest single die; a tie lets each choose."""
        self._expect(Phase.MATCH_UP)
        s = self.state
        chooser = s.chooser
        assert chooser is not None
        seats = [seat for seat, _ in dice]
        in_battle = sorted(self.strike_totals())
        if len(set(seats)) != len(seats):
            raise IllegalActionError("one die from each player in the match-up")
        if Option.MAYHEM in s.options:
            if len(seats) != 2 or chooser not in seats:
                raise IllegalActionError("Multiplayer Mayhem: one of your dice and one of an opponent's")
        elif sorted(seats) != in_battle:
            raise IllegalActionError(
                f"the match-up takes one die from each of {', '.join(f'P{i + 1}' for i in in_battle)}"
            )
        for seat, colour in dice:
            if self._die(seat, colour).zone is not Zone.BATTLE:
                raise IllegalActionError(f"P{seat + 1}'s {colour} die is not in the Battle Zone")
        s.battle = Battle(dice=list(dice), chooser=chooser)
        self.note(
            f"{s.seats[chooser].name} matches "
            + " v ".join(f"{s.seats[seat].name}'s {colour} ({s.seats[seat].dice[colour].roll})" for seat, colour in dice)
        )
        return self._choose_stat_choosers()

    def _choose_stat_choosers(self) -> list[int]:
        s = self.state
        battle = s.battle
        assert battle is not None
        rolls = {seat: s.seats[seat].dice[colour].roll or 0 for seat, colour in battle.dice}
        lowest = min(rolls.values())
        choosers = [seat for seat, _ in battle.dice if rolls[seat] == lowest]
        if len(choosers) > 1 and s.mode is Mode.BASIC:
            s.phase = Phase.REROLL
            self.note("the battle dice tie: roll them again (basic game)")
            return []
        battle.stat_choosers = choosers
        if s.mode is Mode.BASIC:
            battle.chooser = choosers[0]  # "starting with the player who chose the battle stat"
        if s.two_minute_warning:
            stat = battle_stats()[s.stats_rolled % len(battle_stats())]
            s.stats_rolled += 1
            battle.stats = {seat: stat for seat, _ in battle.dice}
            s.phase = Phase.OPEN
            self.note(f"Two Minute Warning: the battle stat is {stat}")
            return []
        s.phase = Phase.BATTLE_STAT
        self.note(f"{' and '.join(s.seats[i].name for i in choosers)} choose the battle stat")
        return choosers

    def reroll(self, faces: Sequence[tuple[int, str, str]]) -> list[int]:
        """Basic game: the tied battle dice rolled again ((seat, colour, face) for each)."""
        self._expect(Phase.REROLL)
        battle = self.state.battle
        assert battle is not None
        if sorted((seat, colour) for seat, colour, _ in faces) != sorted(battle.dice):
            raise IllegalActionError("roll the dice of the match-up again, each once")
        for seat, colour, face in faces:
            self._die(seat, colour).roll = self._face(face)
        return self._choose_stat_choosers()

    def choose_stat(self, stats: Mapping[int, str]) -> None:
        """The battle stat: one for the match-up from the chooser, or one per player after a tie."""
        self._expect(Phase.BATTLE_STAT)
        battle = self.state.battle
        assert battle is not None
        try:
            chosen = {seat: stat_name(text) for seat, text in stats.items()}
        except FigureDataError as error:
            raise InvalidActionError(str(error)) from None
        if len(battle.stat_choosers) == 1:
            if len(set(chosen.values())) != 1 or not set(chosen) <= set(battle.stat_choosers):
                raise IllegalActionError(
                    f"{self.state.seats[battle.stat_choosers[0]].name} chooses the battle stat (lowest battle die)"
                )
            battle.stats = {seat: next(iter(chosen.values())) for seat, _ in battle.dice}
        else:
            if sorted(chosen) != sorted(battle.stat_choosers):
                raise IllegalActionError("the battle dice tied: each player names their figure's stat")
            battle.stats = dict(chosen)
        self.note("battle stat: " + ", ".join(f"{self.state.seats[i].name} {st}" for i, st in battle.stats.items()))
        self.state.phase = Phase.OPEN

    def open_die(self, seat: int, colour: str, figure: str) -> None:
        """A battle die of the match-up is opened: the figure inside comes out."""
        self._expect(Phase.OPEN)
        s = self.state
        battle = s.battle
        assert battle is not None
        if (seat, colour) not in battle.dice:
            raise IllegalActionError(f"P{seat + 1}'s {colour} die is not in the match-up")
        if seat in battle.figures:
            raise IllegalActionError(f"P{seat + 1}'s die is open already")
        self._take_loaded(seat, figure)
        battle.figures[seat] = figure
        if len(battle.figures) == len(battle.dice):
            battle.actor, battle.passes, s.phase = battle.chooser, 0, Phase.POWERS
            self.note(f"Battle Totals {self._totals_text(self.battle_totals())}")

    def _take_loaded(self, seat: int, figure: str) -> None:
        player = self.state.seats[seat]
        if figure not in player.loaded:
            raise IllegalActionError(
                f"{player.name} has no {figure!r} in a loaded die (loaded: {', '.join(player.loaded) or 'none'})"
            )
        player.loaded.remove(figure)

    def _powers_turn(self, seat: int) -> Battle:
        """The battle, when it is ``seat``'s turn to announce powers or pass."""
        self._expect(Phase.POWERS)
        battle = self.state.battle
        assert battle is not None
        if seat != battle.actor:
            raise IllegalActionError(
                f"{self.state.seats[battle.actor].name} announces powers or passes now (Activate Powers)"
            )
        return battle

    def use_power(self, seat: int, name: str) -> str:
        """The player whose turn it is to apply powers uses one of their figure's activated powers
        (an icon of the battle stat's colour, or a white one). A power the tray knows is applied
        (each power affects a figure or player once); others are shown for the table. Returns the
        text to show."""
        s = self.state
        battle = self._powers_turn(seat)
        figure = s.figures[battle.figures[seat]]
        active = figure.active_powers(battle.stats[seat])
        found = next((p for p in active if p.lower() == name.lower()), None)
        if found is None:
            raise IllegalActionError(
                f"{figure.name}'s {name!r} is not activated by {battle.stats[seat]} "
                f"(activated: {', '.join(active) or 'none'})"
            )
        used = power(found)
        battle.passes = 0
        if not used.effect:
            self.note(f"{figure.name}: {used.name} - apply at the table: {used.text or 'see the Reference Card'}")
            return used.text
        for target, amount in used.effect:
            affected = f"figure {seat}" if target is Target.BATTLE_TOTAL else f"player {seat}"
            if (used.name, affected) in battle.applied or (
                target is Target.STRIKE_TOTAL and (used.name, affected) in self.state.strike_powers
            ):
                raise IllegalActionError(
                    f"{used.name} already affects {s.seats[seat].name}'s "
                    f"{'figure' if target is Target.BATTLE_TOTAL else 'Strike Total'}: each power affects a "
                    "figure or player once (Applying Powers)"
                )
            battle.applied.append((used.name, affected))
            if target is Target.BATTLE_TOTAL:
                battle.bonus[seat] = battle.bonus.get(seat, 0) + amount
            else:
                s.seats[seat].strike_bonus += amount
                self.state.strike_powers.append((used.name, affected))
        self.note(f"{figure.name}: {used.name} ({used.text})")
        return used.text

    def usable_powers(self, seat: int) -> list[str]:
        """The seat's activated powers that can still do something in this battle: a power the tray
        applies drops out once it affects its figure or player (each power affects them once)."""
        s = self.state
        battle = s.battle
        if battle is None or seat not in battle.figures or seat not in battle.stats:
            return []
        usable = []
        for name in s.figures[battle.figures[seat]].active_powers(battle.stats[seat]):
            known = power(name)
            targets = [
                (known.name, f"figure {seat}" if target is Target.BATTLE_TOTAL else f"player {seat}")
                for target, _ in known.effect
            ]
            if not targets or not all(t in battle.applied or t in s.strike_powers for t in targets):
                usable.append(name)
        return usable

    def adjust(self, seat: int, amount: int) -> None:
        """A change to a Battle Total from a power the table applies (one the tray shows as text)."""
        self._expect(Phase.POWERS)
        battle = self.state.battle
        assert battle is not None
        if seat not in battle.figures:
            raise IllegalActionError(f"P{seat + 1} has no figure in this battle")
        battle.bonus[seat] = battle.bonus.get(seat, 0) + amount

    def pass_powers(self, seat: int) -> None:
        """The player passes; play goes left. When all pass in a row the battle is decided."""
        battle = self._powers_turn(seat)
        battle.passes += 1
        order = self._left_of(battle.chooser, [st for st, _ in battle.dice])
        if battle.passes >= len(order):
            self._decide()
            return
        battle.actor = order[(order.index(seat) + 1) % len(order)]

    def _left_of(self, first: int, seats: Sequence[int]) -> list[int]:
        """``seats`` in turn order starting with ``first`` and going left (the next seat)."""
        count = len(self.state.seats)
        return sorted(seats, key=lambda i: (i - first) % count)

    def _decide(self) -> None:
        """Highest Battle Total wins; a tie for the highest is a draw among those players."""
        s = self.state
        battle = s.battle
        assert battle is not None
        totals = self.battle_totals()
        best = max(totals.values())
        battle.winners = self._left_of(battle.chooser, [i for i, t in totals.items() if t == best])
        battle.losers = self._left_of(battle.chooser, [i for i, t in totals.items() if t != best])
        self.note(f"Battle Totals {self._totals_text(totals)}")
        for seat in battle.winners:
            self._to_staging(seat)
        if not battle.losers:
            self.note("a tie: every figure and die goes to its own Staging Zone")
            self._after_battle()
            return
        battle.captures_left = list(battle.winners)
        if len(battle.winners) == 1 and len(battle.losers) == 1:
            self._capture(battle.winners[0], battle.losers[0])
        else:
            s.phase = Phase.CAPTURE

    def _to_staging(self, seat: int) -> None:
        battle = self.state.battle
        assert battle is not None
        colour = dict(battle.dice)[seat]
        die = self.state.seats[seat].dice[colour]
        die.zone, die.loaded, die.roll = Zone.STAGING, False, None
        self.state.seats[seat].staging.append(battle.figures[seat])
        self.state.seats[seat].staging.sort()

    def capture(self, winner: int, loser: int) -> None:
        """A winning player (in turn from the match-up's chooser) takes one losing figure."""
        self._expect(Phase.CAPTURE)
        battle = self.state.battle
        assert battle is not None
        if winner != battle.captures_left[0]:
            raise IllegalActionError(f"{self.state.seats[battle.captures_left[0]].name} captures now (Battle Total Ties)")
        if loser not in battle.losers:
            raise IllegalActionError(f"P{loser + 1} lost nothing in this battle to capture")
        self._capture(winner, loser)

    def _capture(self, winner: int, loser: int) -> None:
        s = self.state
        battle = s.battle
        assert battle is not None
        figure = battle.figures[loser]
        s.seats[winner].holding.append((loser, figure))
        s.seats[winner].holding.sort()
        battle.losers.remove(loser)
        battle.captures_left.remove(winner)
        colour = dict(battle.dice)[loser]
        die = s.seats[loser].dice[colour]
        die.zone, die.loaded, die.roll = Zone.DICE, False, None
        self.note(f"{s.seats[winner].name} captures {s.figures[figure].name}")
        if battle.captures_left and battle.losers:
            return
        for other in battle.losers:
            # Losers no winner took keep their figure (to Staging); their empty die goes to the Dice Zone.
            s.seats[other].staging.append(battle.figures[other])
            die = s.seats[other].dice[dict(battle.dice)[other]]
            die.zone, die.loaded, die.roll = Zone.DICE, False, None
        self._after_battle()

    def _after_battle(self) -> None:
        s = self.state
        s.battle = None
        free = [i for i in range(len(s.seats)) if self.uncaptured(i)]
        if len(free) == 1:
            s.winner, s.phase = free[0], Phase.OVER
            self.note(f"{s.seats[free[0]].name} is the only one with uncaptured figures: {s.seats[free[0]].name} wins")
            return
        self._choose_match_up()

    def _end_round(self) -> None:
        s = self.state
        if any(seat.in_zone(Zone.BATTLE) for seat in s.seats):
            s.phase = Phase.UNLOAD
            self.note("the round ends: open and unload the dice left in the Battle Zone")
            return
        self._next_round()

    def unload(self, seat: int, colour: str, figure: str) -> None:
        """At the end of a round a die left in the Battle Zone is unloaded: figure and die to Staging."""
        self._expect(Phase.UNLOAD)
        die = self._die(seat, colour)
        if die.zone is not Zone.BATTLE:
            raise IllegalActionError(f"P{seat + 1}'s {colour} die is not in the Battle Zone")
        self._take_loaded(seat, figure)
        player = self.state.seats[seat]
        player.staging.append(figure)
        player.staging.sort()
        die.zone, die.loaded, die.roll = Zone.STAGING, False, None
        if not any(p.in_zone(Zone.BATTLE) for p in self.state.seats):
            self._next_round()

    def _next_round(self) -> None:
        s = self.state
        s.round += 1
        s.rolled, s.chooser = set(), None
        s.strike_powers = []
        for seat in s.seats:
            seat.strike_bonus = 0
        s.phase = Phase.RELOAD if any(self.reload_due(i) for i in range(len(s.seats))) else Phase.ROLL
        self.note(f"round {s.round}")

    def use_dice_rule(self, seat: int, colour: str) -> None:
        """A die rule (inside the lid of a die in the Dice Zone) is played: the die goes to Staging.
        What the rule does is the table's to apply."""
        die = self._die(seat, colour)
        if die.zone is not Zone.DICE:
            raise IllegalActionError(f"P{seat + 1}'s {colour} die is not in the Dice Zone: no rule to play (Dice Rules)")
        die.zone = Zone.STAGING
        self.note(f"{self.state.seats[seat].name} plays the rule of the {colour} die")

    def call_two_minute_warning(self) -> None:
        """From now on battle stats are rolled in turn instead of chosen (the option must be agreed)."""
        if Option.TWO_MINUTE_WARNING not in self.state.options:
            raise IllegalActionError("the Two Minute Warning is an option agreed before the game (Options)")
        if self.state.two_minute_warning:
            raise IllegalActionError("the Two Minute Warning is on already")
        self.state.two_minute_warning = True
        self.note("Two Minute Warning: battle stats go Intelligence, Strength, Speed, ...")


def _pairs(args: Sequence[str], what: str) -> list[tuple[str, str]]:
    if not args or len(args) % 2:
        raise InvalidActionError(f"{what}: expected pairs of words")
    return [(args[i], args[i + 1]) for i in range(0, len(args), 2)]


def _seat_pairs(game: Game, args: Sequence[str], what: str) -> list[tuple[int, str]]:
    return [(game._seat(seat), value) for seat, value in _pairs(args, what)]


def _roll(game: Game, args: tuple[str, ...]) -> object:
    if not args:
        raise InvalidActionError("roll P1 <colour> <face> ...")
    return game.roll(game._seat(args[0]), _pairs(args[1:], "roll P1 red 3 blue 4 green 6"))


def _reroll(game: Game, args: tuple[str, ...]) -> object:
    if len(args) % 3 or not args:
        raise InvalidActionError("reroll P1 <colour> <face> P2 <colour> <face>")
    return game.reroll([(game._seat(args[i]), args[i + 1], args[i + 2]) for i in range(0, len(args), 3)])


def _stat(game: Game, args: tuple[str, ...]) -> object:
    battle = game.state.battle
    if len(args) == 1 and battle is not None and battle.stat_choosers:
        game.choose_stat({battle.stat_choosers[0]: args[0]})
        return None
    game.choose_stat(dict(_seat_pairs(game, args, "stat P1 <stat> P2 <stat>")))
    return None


def _power(game: Game, args: tuple[str, ...]) -> object:
    if len(args) < 2:
        raise InvalidActionError("power P1 <power name>")
    return game.use_power(game._seat(args[0]), " ".join(args[1:]))


def _three(args: tuple[str, ...], usage: str) -> tuple[str, str, str]:
    if len(args) != 3:
        raise InvalidActionError(usage)
    return args[0], args[1], args[2]


def _one(args: tuple[str, ...], usage: str) -> str:
    if len(args) != 1:
        raise InvalidActionError(usage)
    return args[0]


def _open(game: Game, args: tuple[str, ...]) -> object:
    seat, colour, figure = _three(args, "open P1 <colour> <figure id>")
    game.open_die(game._seat(seat), colour, figure)
    return None


def _unload(game: Game, args: tuple[str, ...]) -> object:
    seat, colour, figure = _three(args, "unload P1 <colour> <figure id>")
    game.unload(game._seat(seat), colour, figure)
    return None


def _tiebreak(game: Game, args: tuple[str, ...]) -> object:
    return game.tiebreak({seat: whole_number(v, "a tie-break die") for seat, v in _seat_pairs(game, args, "tiebreak P1 2 P2 4")})


def _capture(game: Game, args: tuple[str, ...]) -> object:
    if len(args) != 2:
        raise InvalidActionError("capture P1 P3 (the winner, then the loser whose figure they take)")
    game.capture(game._seat(args[0]), game._seat(args[1]))
    return None


def _adjust(game: Game, args: tuple[str, ...]) -> object:
    if len(args) != 2:
        raise InvalidActionError("adjust P1 +2 (a Battle Total change the table applies)")
    game.adjust(game._seat(args[0]), whole_number(args[1], "adjust"))
    return None


def _dice_rule(game: Game, args: tuple[str, ...]) -> object:
    if len(args) != 2:
        raise InvalidActionError("dice-rule P1 <colour>")
    game.use_dice_rule(game._seat(args[0]), args[1])
    return None


def _reload(game: Game, args: tuple[str, ...]) -> object:
    if not args:
        raise InvalidActionError("reload P1 [colours]")
    return game.reload(game._seat(args[0]), args[1:])


def _two_minute(game: Game, args: tuple[str, ...]) -> object:
    if args:
        raise InvalidActionError("two-minute-warning takes no arguments")
    game.call_two_minute_warning()
    return None


Game.VERBS = {
    "reload": _reload,
    "roll": _roll,
    "tiebreak": _tiebreak,
    "match": lambda g, a: g.match_up(_seat_pairs(g, a, "match P2 green P1 red")),
    "reroll": _reroll,
    "stat": _stat,
    "open": _open,
    "power": _power,
    "adjust": _adjust,
    "pass": lambda g, a: g.pass_powers(g._seat(_one(a, "pass P1"))),
    "capture": _capture,
    "unload": _unload,
    "dice-rule": _dice_rule,
    "two-minute-warning": _two_minute,
}
