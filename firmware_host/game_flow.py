"""The Dice Throne table flow: settled readings and button presses in, rules-engine actions and
game events out.

:class:`GameFlow` sits between the tray and :class:`rules.dicethrone.game.Game`. The rules engine decides
everything about the game (phases, roll attempts, activation, targeting, defense, damage, health,
CP, statuses, the end); the flow turns the table's inputs into rules actions and emits a
:class:`~firmware_host.transcript.FlowEvent` for each step. It draws nothing: :meth:`GameFlow.view`
is a value the presenters in :mod:`firmware_host.presenters` turn into the OLED screen and the
status LED. The buttons:

- NEXT acts on the highlighted choice: continue to the next phase, activate an ability, confirm a
  die's value, choose a target.
- SELECT cycles the choices: the ability to activate, the ability to aim for (its dice to keep are
  underlined), a die to correct, or the value of the die being set.
- BACK undoes the last step (a roll, a choice, a correction, a phase change).

Before damage lands there is a window (the rulebook's "one last opportunity"): SELECT offers each
player's statuses that change the damage and a card that adds or prevents damage, the active player
first; NEXT applies the damage.

A die the reader could not trust is never guessed: the LED asks for that die to be rerolled, or the
player sets its value from the buttons; a die read wrong is corrected the same way. When no reading
comes at all, NEXT lets the player key the whole roll in.

Every step is a :class:`~firmware_host.transcript.FlowEvent`, given to ``on_event`` and returned by
:meth:`GameFlow.on_reading` and :meth:`GameFlow.on_button`, so the service can log it.

>>> from rules.dicethrone.game import Game
>>> flow = GameFlow(Game.new(["barbarian", "moon-elf"]))
>>> flow.step, flow.game.phase.title
(<Step.PROMPT: 'prompt'>, 'Main Phase (1)')
"""

from __future__ import annotations

import copy
import enum
import math
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from firmware_host.presenters import face_label, point_first as _point_first, short as _short
from firmware_host.transcript import EventSink, FlowEvent, FlowEventKind, format_line
from hardware.buttons import ButtonEvent
from hardware.lights import TrayStatus
from hardware.screens import ScreenState
from rules.dice import Roll
from rules.dicethrone.effects import resolve_defense, resolve_offense
from rules.errors import RulesError
from rules.dicethrone.game import OFFENSIVE_ROLL_ATTEMPTS, MAX_HAND, CardKind, Exchange, Game, GameMode, Phase, Player, TargetRule
from rules.dicethrone.statuses import SpendKind, find_status
from rules.dicethrone.heroes import Hero
from rules.dicethrone.scoring import Activation, activations
from rules.unsure import OneOf, UnsureFace, said, settle
from vision.types import DieReading, DieStatus, FrameReading

__all__ = ["FlowView", "GameFlow", "Step", "RollKind", "Option", "OptionKind", "ordered_dice"]


class Step(str, enum.Enum):
    """What the flow is waiting for, inside the rules engine's current phase."""

    PROMPT = "prompt"  # a duty done by hand (draw, play or sell cards, discard): NEXT when done
    ROLL = "roll"  # waiting for the dice to settle in the tray
    REROLL = "reroll"  # a die could not be read (or dice are missing): reroll, or set it by hand
    CORRECT = "correct"  # setting one die's value: SELECT cycles 1-6, NEXT confirms, BACK cancels
    COST = "cost"  # paying for a card: SELECT cycles the CP cost, NEXT pays, BACK cancels
    HEALTH = "health"  # a health dial set by hand: SELECT cycles the change, NEXT sets, BACK cancels
    CHOOSE = "choose"  # a scored roll: SELECT cycles the choices, NEXT acts on the highlighted one
    TARGET = "target"  # choosing the defender (more than two players)
    OR = "or"  # an "Or" in the ability's text: SELECT cycles the options, NEXT takes one
    DEFENSE = "defense"  # a defender with two defensive abilities picks one before rolling
    DAMAGE = "damage"  # the damage window: statuses and cards before the damage; NEXT applies it
    SPEND_DIE = "spend-die"  # a status that rolls (Evasive): SELECT cycles its die, NEXT spends it
    AMOUNT = "amount"  # a card's damage change: SELECT cycles 1-6, NEXT plays the card
    OVER = "over"  # the game has ended


class RollKind(str, enum.Enum):
    """Which roll the tray is waiting for."""

    OFFENSE = "offense"
    BONUS = "bonus"  # an ability's "Roll N dice"
    TARGETING = "targeting"  # the 2v2 targeting die
    STATUS = "status"  # the die a status rolls after activation (Blinded)
    DEFENSE = "defense"


class OptionKind(str, enum.Enum):
    CONTINUE = "continue"  # end this phase
    SELL = "sell"  # sell a card for 1 CP (main and discard phases)
    PLAY = "play"  # play a card from the hand, paying its CP cost (main phases)
    ADJUST = "adjust"  # change this player's health by hand (statuses and cards the tray cannot see)
    ACTIVATE = "activate"  # activate this ability now
    AIM = "aim"  # roll on for this ability: shows the dice to keep
    PASS = "pass"  # activate nothing this turn
    FIX = "fix"  # correct the value of one die
    TARGET = "target"  # attack this opponent
    DEFENSE = "defense"  # defend with this ability
    NEW_GAME = "new-game"  # after the end: the same players again, the next seat starting
    ACCEPT = "accept"  # keep this defensive roll (when another attempt is allowed)
    ENTER = "enter"  # key the whole roll in from the buttons (no usable reading)
    SPEND = "spend"  # a player spends a status now (the damage window)
    OR_OPTION = "or-option"  # one option of an "Or"
    CARD_ADD = "card-add"  # a player plays a card adding damage to the Attack
    CARD_PREVENT = "card-prevent"  # a player plays a card preventing their incoming damage


@dataclass(frozen=True)
class Option:
    """One of the choices SELECT cycles through; NEXT acts on the highlighted one."""

    kind: OptionKind
    label: str
    name: str | None = None  # ability name, for ACTIVATE, AIM and DEFENSE
    index: int | None = None  # die index for FIX, player index for TARGET
    keep: tuple[int, ...] = ()  # for AIM: indices of the dice to keep
    probability: float | None = None


@dataclass
class _Table:
    """The flow's own state next to the game; copied whole for undo."""

    step: Step = Step.PROMPT
    roll_kind: RollKind = RollKind.OFFENSE
    expected: int = 0  # dice the awaited roll needs
    dice: list[DieReading] = field(default_factory=list)  # the roll, left to right
    recorded: bool = False  # the dice are recorded in the game (a fix re-records them)
    options: list[Option] = field(default_factory=list)
    selected: int = 0
    fixing: int | None = None
    fix_value: int = 1
    cost: int = 0  # CP cost of the card being played
    card_player: int | None = None  # who plays the card (None: the active player)
    card_effect: str = ""  # "add" or "prevent" for a damage-window card, "" for a main-phase card
    amount: int = 1  # the card's damage change, or the die of a status that rolls
    spending: tuple[int, str] | None = None  # (player, status) waiting for its die
    adjusting: int | None = None  # player whose health is being set by hand
    change: int = 0  # the health change being set
    lines: list[str] = field(default_factory=list)  # what the screen explains above the choices
    message: str = ""  # a refusal or a problem, shown until the next step
    keep: tuple[int, ...] = ()  # die indices the odds advise keeping
    settled: Roll | OneOf | None = None  # the roll (or lone die) as recorded when unsure numbers do not matter
    lying: list[DieReading] = field(default_factory=list)  # every die of the last reading: a lone die is the new one
    rolling: bool = False
    outcome: str = ""


@dataclass(frozen=True)
class FlowView:
    """A snapshot of the table flow for presenters: the game, the step and what it offers."""

    game: Game
    step: Step
    roll_kind: RollKind
    wants_dice: bool
    rolling: bool
    dice: tuple[DieReading, ...]
    keep: tuple[int, ...]
    options: tuple[Option, ...]
    selected: int
    fixing: int | None
    fix_value: int
    cost: int
    card_player: int | None
    card_effect: str
    amount: int
    spending: tuple[int, str] | None
    adjusting: int | None
    change: int
    message: str
    lines: tuple[str, ...]
    dice_hero: Hero
    """Whose dice are on the tray (the defender's during the defense)."""


@dataclass
class _Undo:
    """How to take back one step: the table before it, and how many game actions it made."""

    table: _Table
    game_actions: int = 0


HEALTH_CHANGES: tuple[int, ...] = (-1, -2, -3, -4, -5, -10, +1, +2, +3, +4, +5, +10)
"""The changes SELECT offers when a health dial is set by hand (poison, a card, a misplayed heal)."""


def _quiet(table: _Table) -> _Table:
    """The table without its passing message: a step that only said something is not undone."""
    return replace(table, message="", rolling=False)


def ordered_dice(reading: FrameReading) -> list[DieReading]:
    """The dice left to right (then top to bottom): the order the display shows and fixes use."""
    return sorted(reading.dice, key=lambda d: (d.box[0], d.box[1]))


_WINDOW_SPENDS = (
    SpendKind.ADD, SpendKind.PREVENT, SpendKind.ADD_OR_PREVENT, SpendKind.PREVENT_HALF,
    SpendKind.NEGATE, SpendKind.COUNTER_HALF,
)  # fmt: skip
"""Statuses the damage window offers: the ones that change the damage waiting."""


def _why(die: DieReading) -> str:
    """Why a die is not read, short: its status, or the faces it may be (``sword 1 or 3``)."""
    return die.reason if die.candidates and die.reason else die.status.value


def _die_fields(die: int | OneOf) -> dict[str, Any]:
    """A lone die in an event: its number, or none and the numbers it was read as."""
    return {"die": None, "read_as": list(die.numbers)} if isinstance(die, OneOf) else {"die": die}


def _read_as(die: DieReading) -> OneOf | None:
    """An unreadable die's numbers, when the reader gave two or more it may be; else None (one
    count, or "no pip face", is no choice between numbers)."""
    numbers = tuple(dict.fromkeys(die.candidate_values))
    return OneOf(numbers) if die.status is DieStatus.UNREADABLE and len(numbers) >= 2 else None


def _new_dice(dice: Sequence[DieReading], lying: Sequence[DieReading]) -> list[DieReading]:
    """The dice of ``dice`` that lie where none of ``lying`` (the last roll's) lay: each centre
    more than half a die from every one of theirs."""

    def centre(die: DieReading) -> tuple[float, float, float]:
        x, y, w, h = die.box
        return x + w / 2, y + h / 2, max(w, h)

    before = [centre(d) for d in lying]
    new = []
    for die in dice:
        x, y, size = centre(die)
        if all(math.hypot(x - bx, y - by) > 0.5 * max(size, bsize) for bx, by, bsize in before):
            new.append(die)
    return new


def _activated(hero: Hero, roll: Roll) -> frozenset[tuple[str, int]]:
    """What an offensive roll does: the abilities it activates, with their tiers."""
    return frozenset((a.ability, a.tier) for a in activations(hero, roll))


def _status_code(name: str) -> str:
    """A status in three letters (four for two words) on the small screen: Chi, Eva, SnAt."""
    words = name.split()
    return words[0][:3] if len(words) == 1 else "".join(w[:2] for w in words[:2])


def _who(player: Player) -> str:
    """A player and their hero ("Ana (Barbarian)"), or just the name when it is the hero's."""
    if player.name.casefold() == player.hero.name.casefold():
        return player.name
    return f"{player.name} ({player.hero.name})"


class GameFlow:
    """Drives one :class:`rules.dicethrone.game.Game` from the tray's readings and buttons.

    :param game: the game, usually fresh from :meth:`rules.dicethrone.game.Game.new`.
    :param on_event: called with every :class:`FlowEvent` (a :class:`Transcript` prints them; the
        service logs them).
    :param turn_limit: end the game after this many turns with the leader named (the demo's short
        game); None plays until a team is defeated.
    :param alternatives: how many abilities still to aim for are shown with their odds.
    """

    UNDO_DEPTH = 100
    """Steps BACK can take back; older ones are forgotten so an evening's game stays small."""
    EVENT_MEMORY = 2000
    """Events kept in :attr:`events` (every event still goes to ``on_event``)."""

    def __init__(
        self,
        game: Game,
        *,
        on_event: EventSink | None = None,
        turn_limit: int | None = None,
        alternatives: int = 2,
    ) -> None:
        if turn_limit is not None and turn_limit < 1:
            raise ValueError(f"turn_limit must be 1 or more, got {turn_limit!r}")
        self._game = game
        self._on_event = on_event
        self._turn_limit = turn_limit
        self._alternatives = alternatives
        self._t = _Table()
        self._history: list[_Undo] = []
        self._current: _Undo | None = None
        self._fresh = False
        self._events: deque[FlowEvent] = deque(maxlen=self.EVENT_MEMORY)
        self._pending: list[FlowEvent] = []
        self._warm_up()
        self._turn_header()
        self._enter_phase()
        self._flush()

    def _warm_up(self) -> None:
        """Builds each hero's odds tables now (up to a second each) rather than on the first roll,
        so every reading reaches the display in a blink."""
        from rules.dicethrone.odds import odds

        for player in self._game.players:
            odds(player.hero, None, OFFENSIVE_ROLL_ATTEMPTS)

    def __repr__(self) -> str:
        return f"<GameFlow {self._game!r} step {self._t.step.value}>"

    # ================================================================================ inputs

    def on_reading(self, reading: FrameReading) -> list[FlowEvent]:
        """A settled reading of the tray: the roll the flow is waiting for, or ignored.

        Dice rolled in the Income or first Main Phase start the Offensive Roll Phase: a player who
        rolls has finished with cards, and need not press NEXT first.
        """
        t, g = self._t, self._game
        t.rolling = False
        if t.step is Step.SPEND_DIE and reading.dice:
            self._run(lambda: self._spend_from_tray(reading))
            return self._flush()
        if t.step is Step.PROMPT and g.phase in (Phase.INCOME, Phase.MAIN_1) and reading.dice:
            self._run(lambda: self._roll_from_main(reading))
            return self._flush()
        if not self._wants_dice():
            if t.step is Step.CHOOSE and t.roll_kind is RollKind.OFFENSE and reading.dice:
                t.message = "No rolls left: choose"
                self._emit(FlowEventKind.PROMPT, "A roll with no roll attempts left is not counted",
                           ignored=reading.to_json())
            return self._flush()
        self._run(lambda: self._accept_reading(reading))
        return self._flush()

    def _roll_from_main(self, reading: FrameReading) -> None:
        while self._game.phase is not Phase.OFFENSIVE_ROLL:
            self._advance()
        self._accept_reading(reading)

    def on_button(self, event: ButtonEvent) -> list[FlowEvent]:
        """One button press. Held presses count as short ones."""
        self._t.rolling = False
        button = ButtonEvent(event).button
        if button == "back":
            self._undo()
        elif button == "select":
            self._select()
        else:
            self._run(self._next)
        return self._flush()

    def on_rolling(self) -> None:
        """The tray saw the dice move: the LED shows rolling until the next settled reading."""
        if self._wants_dice() or self._t.step is Step.SPEND_DIE:
            self._t.rolling = True

    # ================================================================================ outputs

    @property
    def game(self) -> Game:
        return self._game

    @property
    def step(self) -> Step:
        return self._t.step

    @property
    def roll_kind(self) -> RollKind | None:
        """Which roll the tray is waiting for, or None."""
        return self._t.roll_kind if self._wants_dice() else None

    @property
    def expected_dice(self) -> int:
        """How many dice the awaited roll needs (0 when no roll is awaited)."""
        return self._t.expected if self._wants_dice() else 0

    @property
    def dice(self) -> tuple[DieReading, ...]:
        """The current roll, left to right, as read or corrected."""
        return tuple(self._t.dice)

    @property
    def values(self) -> tuple[int | None, ...]:
        return tuple(d.value if d.ok else None for d in self._t.dice)

    @property
    def options(self) -> tuple[Option, ...]:
        return tuple(self._t.options)

    @property
    def selected(self) -> Option | None:
        return self._t.options[self._t.selected] if self._t.options else None

    @property
    def fixing(self) -> tuple[int, int] | None:
        """(die index, value shown) while a die's value is being set."""
        if self._t.step is not Step.CORRECT or self._t.fixing is None:
            return None
        return self._t.fixing, self._t.fix_value

    @property
    def suggested_keep(self) -> tuple[int, ...]:
        """Indices of the dice the odds advise keeping (for the highlighted aim, else the best)."""
        option = self.selected
        if option is not None and option.kind is OptionKind.AIM:
            return option.keep
        return self._t.keep

    @property
    def message(self) -> str:
        return self._t.message

    @property
    def is_over(self) -> bool:
        return self._t.step is Step.OVER

    @property
    def outcome(self) -> str:
        """How the game ended (winner, draw, or the leader at the turn limit); empty while playing."""
        return self._t.outcome

    def status(self) -> TrayStatus:
        """The status LED's state (:func:`firmware_host.presenters.led_status` of :meth:`view`)."""
        from firmware_host.presenters import led_status

        return led_status(self.view())

    def screen(self) -> ScreenState:
        """What the display shows now (:func:`firmware_host.presenters.oled_screen` of :meth:`view`)."""
        from firmware_host.presenters import oled_screen

        return oled_screen(self.view())

    def view(self) -> FlowView:
        """What the table sees now, for the presenters (OLED, LED, web): a value, copied."""
        t = self._t
        return FlowView(
            game=self._game,
            step=t.step,
            roll_kind=t.roll_kind,
            wants_dice=self._wants_dice(),
            rolling=t.rolling,
            dice=tuple(t.dice),
            keep=self.suggested_keep if t.step is Step.CHOOSE else (),
            options=tuple(t.options),
            selected=t.selected,
            fixing=t.fixing,
            fix_value=t.fix_value,
            cost=t.cost,
            card_player=t.card_player,
            card_effect=t.card_effect,
            amount=t.amount,
            spending=t.spending,
            adjusting=t.adjusting,
            change=t.change,
            message=t.message,
            lines=tuple(t.lines),
            dice_hero=self._hero_for_dice(),
        )

    @property
    def events(self) -> tuple[FlowEvent, ...]:
        return tuple(self._events)

    @property
    def transcript(self) -> tuple[str, ...]:
        return tuple(format_line(event) for event in self._events)

    # ================================================================================ steps

    def _run(self, action: Callable[[], None]) -> None:
        """One undoable step: a refused rules action leaves everything as it was and says why."""
        entry = _Undo(copy.deepcopy(self._t))
        self._current = entry
        mark = len(self._pending)
        try:
            action()
        except RulesError as error:
            for _ in range(entry.game_actions):
                self._game.undo()
            del self._pending[mark:]
            self._t = entry.table
            self._t.message = str(error)
            self._emit(FlowEventKind.PROMPT, f"Not allowed: {error}", refused=str(error))
            return
        finally:
            self._current = None
        if self._fresh:
            self._fresh = False
        elif entry.game_actions or _quiet(entry.table) != _quiet(self._t):
            self._history.append(entry)
            del self._history[: -self.UNDO_DEPTH]

    def _act(self, method: Callable[..., Any], *args: Any) -> Any:
        """Calls one undoable rules-engine action and counts it for BACK."""
        result = method(*args)
        if self._current is not None:
            self._current.game_actions += 1
        return result

    def _undo(self) -> None:
        if not self._history:
            self._t.message = "Nothing to undo"
            self._emit(FlowEventKind.UNDO, "BACK: nothing to undo", undone=None)
            return
        entry = self._history.pop()
        for _ in range(entry.game_actions):
            if self._game.can_undo:
                self._game.undo()
        undone = self._t.step
        self._t = entry.table
        self._t.message = ""
        self._t.rolling = False
        g = self._game
        where = f"BACK: back to the {g.phase.title}"
        if g.phase is Phase.OFFENSIVE_ROLL:
            made = g.offensive_attempts
            where += f" after roll {made}/{g.offensive_attempt_limit}" if made else " before the first roll"
        self._emit(
            FlowEventKind.UNDO,
            where,
            undone=undone.value,
            step=self._t.step.value,
            phase=self._game.phase.value,
        )

    def _select(self) -> None:
        t = self._t
        t.message = ""
        if t.step is Step.CORRECT:
            t.fix_value = t.fix_value % 6 + 1
        elif t.step is Step.COST:
            payer = self._game.active_player if t.card_player is None else self._game.players[t.card_player]
            t.cost = (t.cost + 1) % (payer.cp + 1)
        elif t.step in (Step.AMOUNT, Step.SPEND_DIE):
            t.amount = t.amount % 6 + 1
        elif t.step is Step.HEALTH:
            t.change = HEALTH_CHANGES[(HEALTH_CHANGES.index(t.change) + 1) % len(HEALTH_CHANGES)]
        elif t.options:
            t.selected = (t.selected + 1) % len(t.options)

    def _next(self) -> None:
        t = self._t
        t.message = ""
        if t.step is Step.CORRECT:
            self._confirm_fix()
            return
        if t.step is Step.COST:
            if t.card_effect:
                t.step, t.amount = Step.AMOUNT, 1
            else:
                self._play_card()
            return
        if t.step is Step.AMOUNT:
            self._play_card()
            return
        if t.step is Step.SPEND_DIE:
            assert t.spending is not None
            self._spend(t.spending[0], t.spending[1], t.amount)
            return
        if t.step is Step.HEALTH:
            self._set_health()
            return
        if t.step is Step.ROLL:
            self._enter_by_hand()
            return
        option = self.selected
        if option is None:
            return
        kind = option.kind
        if kind is OptionKind.CONTINUE and t.step is Step.DAMAGE and self._game.exchange is None:
            self._apply_damage()
        elif kind is OptionKind.CONTINUE:
            self._advance()
        elif kind is OptionKind.OR_OPTION:
            assert option.name is not None
            phrase = self._act(self._game.choose, option.name)
            self._emit(FlowEventKind.ABILITY, f"{self._game.active_player.name} chooses {option.name} ({phrase})",
                       choice=option.name, phrase=phrase)
            self._on_after_attack_choice()
        elif kind is OptionKind.SPEND:
            assert option.index is not None and option.name is not None
            if find_status(option.name).succeeds_on:
                t.step, t.spending, t.amount = Step.SPEND_DIE, (option.index, option.name), 1
            else:
                self._spend(option.index, option.name, None)
        elif kind in (OptionKind.CARD_ADD, OptionKind.CARD_PREVENT):
            t.step, t.cost, t.card_player = Step.COST, 0, option.index
            t.card_effect = "add" if kind is OptionKind.CARD_ADD else "prevent"
        elif kind is OptionKind.SELL:
            cp = self._act(self._game.sell_card)
            player = self._game.active_player
            self._emit(FlowEventKind.PROMPT, f"{player.name} sells a card: {cp} CP, {player.hand} cards",
                       player=player.index, cp=cp, hand=player.hand)
            self._enter_phase(announce=False)
        elif kind is OptionKind.PLAY:
            t.step, t.cost, t.card_player, t.card_effect = Step.COST, 0, None, ""
        elif kind is OptionKind.ADJUST:
            t.step, t.adjusting, t.change = Step.HEALTH, option.index, HEALTH_CHANGES[0]
        elif kind is OptionKind.FIX:
            assert option.index is not None
            self._start_fix(option.index)
        elif kind is OptionKind.ENTER:
            self._enter_by_hand()
        elif kind is OptionKind.AIM:
            kept = " ".join(self._face_label(self._value(i)) for i in option.keep) or "nothing"
            t.message = f"Keep {kept}, roll the rest"
        elif kind is OptionKind.ACTIVATE:
            self._activate(option.name)
        elif kind is OptionKind.PASS:
            self._activate(None)
        elif kind is OptionKind.NEW_GAME:
            self._new_game()
        elif kind is OptionKind.ACCEPT:
            g = self._game
            assert g.defender is not None and g.defense is not None and g.defense_roll is not None
            effect = resolve_defense(g.defender.hero, g.defender.hero.ability(g.defense), g.defense_roll)
            self._resolve_defense(effect.describe())
        elif kind is OptionKind.TARGET:
            assert option.index is not None
            chosen = self._act(self._game.choose_target, option.index)
            self._emit(FlowEventKind.TARGET, f"Target: {_who(chosen)}", target=chosen.index)
            self._on_after_attack_choice()
        elif kind is OptionKind.DEFENSE:
            name = self._act(self._game.choose_defense, option.name)
            self._emit(FlowEventKind.DEFENSE, f"{self._defender().name} defends with {name}", defense=name)
            self._await_roll(RollKind.DEFENSE)

    # ================================================================================ phases

    def _advance(self) -> None:
        self._act(self._game.advance)
        self._after_roll_phase()
        self._enter_phase()

    def _after_roll_phase(self) -> None:
        """Reports the exchange once the rules engine has applied it (leaving the roll phases)."""
        g = self._game
        exchange = g.exchange
        if exchange is None or self._t.step is Step.DAMAGE:
            return
        if g.phase in (Phase.MAIN_2,) or g.outcome is not None:
            if exchange.ability is not None:
                self._report_exchange(exchange)

    def _enter_phase(self, announce: bool = True) -> None:
        """Sets up the step for the game's current phase (and passes phases with nothing to do)."""
        g, t = self._game, self._t
        if g.outcome is not None:
            self._game_over()
            return
        if g.phase is Phase.UPKEEP:
            if self._turn_limit is not None and g.turn > self._turn_limit:
                self._turn_limit_reached()
                return
            if announce and g.turn > 1:
                self._turn_header()
            # The tray tracks no upkeep effects (statuses are kept by hand): pass straight on.
            entered = self._act(g.advance)
            if entered is Phase.MAIN_1:
                self._emit(FlowEventKind.PHASE, "Income Phase skipped: the start player's first turn", phase="income")
            self._enter_phase()
            return
        player = g.active_player
        t.dice, t.recorded, t.fixing, t.keep, t.selected = [], False, None, (), 0
        t.options, t.lines = [], []
        statuses = self._statuses_line()
        if g.phase is Phase.INCOME:
            t.step = Step.PROMPT
            t.lines = [f"+1 CP ({player.cp} CP)", "Draw 1 card"] + ([statuses] if statuses else [])
            t.options = [Option(OptionKind.CONTINUE, "Done: main phase")]
            if announce:
                self._emit(FlowEventKind.PHASE, f"Income Phase: {player.name} gains 1 CP ({player.cp} CP) and draws 1 card",
                           phase=g.phase.value, cp=player.cp, hand=player.hand)
        elif g.phase in (Phase.MAIN_1, Phase.MAIN_2):
            t.step = Step.PROMPT
            t.lines = [f"Play cards ({player.cp} CP, {player.hand} cards)"] + ([statuses] if statuses else [])
            if g.phase is Phase.MAIN_2 and g.exchange is not None and g.exchange.ability is not None:
                t.lines.insert(0, self._damage_text(g.exchange, point_first=True))
            label = "Done: roll" if g.phase is Phase.MAIN_1 else "Done: discard"
            t.options = [Option(OptionKind.CONTINUE, label)]
            if player.hand > 0:  # nothing to play or sell from an empty hand
                t.options += [
                    Option(OptionKind.PLAY, "Play a card (pay CP)"),
                    Option(OptionKind.SELL, "Sell a card (+1 CP)"),
                ]
            t.options += [
                Option(OptionKind.ADJUST, f"Set health: {_short(p.name, 9)}\t{g.health(p)}", index=p.index)
                for p in g.players
            ]
            if announce:
                self._emit(FlowEventKind.PHASE, f"{g.phase.title}: {player.name} has {player.cp} CP, {player.hand} cards",
                           phase=g.phase.value, cp=player.cp, hand=player.hand)
        elif g.phase is Phase.DISCARD:
            t.step = Step.PROMPT
            over = player.hand - MAX_HAND
            t.lines = [f"Discard down to {MAX_HAND}: sell {over}" if over > 0 else f"Hand {player.hand}: keep it"]
            sell = Option(OptionKind.SELL, "Sell a card (+1 CP)")
            done = Option(OptionKind.CONTINUE, "Done: end turn")
            t.options = [sell, done] if over > 0 else [done, sell] if player.hand > 0 else [done]
            if announce:
                text = f"Discard Phase: {player.name} holds {player.hand} cards"
                if over > 0:
                    text += f", sells down to {MAX_HAND}"
                self._emit(FlowEventKind.PHASE, text, phase=g.phase.value, hand=player.hand)
        elif g.phase is Phase.OFFENSIVE_ROLL:
            # A game resumed from its record mid-phase goes on from the step it was at: a restart
            # neither asks for a roll taken already nor loses the choice it offers.
            if g.selected is not None:
                self._after_activation()
                return
            if g.offensive_roll is not None and g.offensive_roll.fully_numbered:
                self._show_offense(g.offensive_roll)
                return
            if announce:
                self._emit(FlowEventKind.PHASE, f"Offensive Roll Phase: {player.name} rolls 5 dice", phase=g.phase.value)
            self._await_roll(RollKind.OFFENSE)
        elif g.phase is Phase.TARGETING_ROLL:
            if announce:
                self._emit(FlowEventKind.PHASE, "Targeting Roll Phase", phase=g.phase.value)
            if g.mode is GameMode.TWO_VS_TWO and g.targeting_die is None:
                self._await_roll(RollKind.TARGETING)
            else:
                self._choose_target()
        elif g.phase is Phase.DEFENSIVE_ROLL:
            defender = self._defender()
            if announce:
                self._emit(FlowEventKind.PHASE, f"Defensive Roll Phase: {_who(defender)} defends",
                           phase=g.phase.value, defender=defender.index)
            if g.defense is not None and g.defense_roll is not None and g.defense_roll.fully_numbered and g.exchange is None:
                self._show_dice(RollKind.DEFENSE, g.defense_roll)  # resumed after the defensive roll
                self._after_defense_roll(g.defense)
            elif g.defense is None:
                t.step = Step.DEFENSE
                t.lines = [f"{defender.name}: choose a defense"]
                t.options = [Option(OptionKind.DEFENSE, a.name, name=a.name) for a in defender.hero.defensive_abilities()]
            else:
                self._await_roll(RollKind.DEFENSE)

    def start_game(self, game: Game) -> list[FlowEvent]:
        """Puts ``game`` on the table in place of the one being played (a game started from the
        table app: other heroes, mode or names). The old game cannot be undone."""
        self._play(game)
        return self._flush()

    def _new_game(self) -> None:
        """The same players and heroes again; the next seat starts. The old game cannot be undone."""
        old = self._game
        start = (old.start_player + 1) % len(old.players)
        self._play(
            Game.new([p.hero for p in old.players], mode=old.mode, start_player=start, names=[p.name for p in old.players])
        )

    def _play(self, game: Game) -> None:
        self._game = game
        self._history.clear()
        self._fresh = True  # this step starts the history; it is not a step BACK can take back
        self._t = _Table()
        self._emit(FlowEventKind.NEW_GAME, f"New game: {', '.join(_who(p) for p in self._game.players)}",
                   players=[p.name for p in self._game.players], heroes=[p.hero.id for p in self._game.players])
        self._turn_header()
        self._enter_phase()

    def _turn_header(self) -> None:
        g = self._game
        player = g.active_player
        table = ", ".join(f"{p.name} {g.health(p)} HP {p.cp} CP" for p in g.players)
        self._emit(FlowEventKind.TURN, f"Turn {g.turn}: {_who(player)} | {table}",
                   turn=g.turn, player=player.index, hero=player.hero.id,
                   health={p.name: g.health(p) for p in g.players}, cp={p.name: p.cp for p in g.players})

    def _game_over(self) -> None:
        g, t = self._game, self._t
        t.step, t.options, t.keep = Step.OVER, [], ()
        outcome = g.outcome
        assert outcome is not None
        if outcome.winner is None:
            t.outcome = "A draw: everyone fell together"
        else:
            winners = [p for p in g.players if p.team == outcome.winner]
            names = " and ".join(f"{_who(p)}" for p in winners)
            t.outcome = f"{names} {'win' if len(winners) > 1 else 'wins'}"
        win = "win" if outcome.winner is not None and len(winners) > 1 else "wins"
        shown = t.outcome if outcome.winner is None else _point_first(
            lambda name: " and ".join(name(p.name) for p in winners) + f" {win}", "")
        t.lines = [shown, self._health_line(point_first=True)]
        t.options, t.selected = [Option(OptionKind.NEW_GAME, "New game")], 0
        self._emit(FlowEventKind.GAME_OVER, f"Game over: {t.outcome}. {self._health_line()}",
                   winner=outcome.winner, health={p.name: g.health(p) for p in g.players})

    def _turn_limit_reached(self) -> None:
        g, t = self._game, self._t
        top = max(g.health(p) for p in g.players)
        leaders = [p for p in g.players if g.health(p) == top]
        t.step, t.options, t.dice, t.keep = Step.OVER, [], [], ()
        if len(leaders) == len(g.players):
            t.outcome = f"Turn limit: all level at {top} HP"
        else:
            names = " and ".join(f"{_who(p)}" for p in leaders)
            lead = "lead" if len(leaders) > 1 else "leads"
            t.outcome = f"Turn limit: {names} {lead} with {top} HP"
        shown = t.outcome if len(leaders) == len(g.players) else _point_first(
            lambda name: " and ".join(name(p.name) for p in leaders) + f" {lead} with {top} HP", "turn limit")
        t.lines = [shown, self._health_line(point_first=True)]
        t.options, t.selected = [Option(OptionKind.NEW_GAME, "New game")], 0
        self._emit(FlowEventKind.GAME_OVER, f"Game over after {self._turn_limit} turns. {t.outcome}. {self._health_line()}",
                   turns=self._turn_limit, leaders=[p.index for p in leaders],
                   health={p.name: g.health(p) for p in g.players})

    def _health_line(self, point_first: bool = False) -> str:
        """Everyone's health: ``Ana 50 HP, Bo 47 HP``; for the OLED with names shortened to fit."""
        g = self._game
        if point_first:
            return _point_first(lambda name: ", ".join(f"{name(p.name)} {g.health(p)} HP" for p in g.players))
        return ", ".join(f"{p.name} {g.health(p)} HP" for p in g.players)

    # ================================================================================ rolls

    def _wants_dice(self) -> bool:
        t = self._t
        if t.step in (Step.ROLL, Step.REROLL):
            return True
        if t.step is Step.CORRECT and not t.recorded:
            return True  # setting an unread die by hand, the player may still reroll it instead
        g = self._game
        if t.step is Step.CHOOSE and t.roll_kind is RollKind.OFFENSE:
            return g.roll_attempts_left > 0
        if t.step is Step.CHOOSE and t.roll_kind is RollKind.DEFENSE:
            # A defense with a second roll attempt (Ninja's Blink) takes another roll until accepted.
            return g.phase is Phase.DEFENSIVE_ROLL and g.exchange is None and g.defense_attempts_left > 0
        return False

    def _show_offense(self, roll: Roll) -> None:
        """The roll the game holds, as if just read: its dice, then the choices it offers."""
        self._show_dice(RollKind.OFFENSE, roll)
        self._score_offense(roll, self._game.active_player.hero)

    def _show_dice(self, kind: RollKind, roll: Roll) -> None:
        """A roll the game recorded already (a game resumed from its record) as the dice on the tray."""
        t = self._t
        t.roll_kind, t.expected, t.recorded = kind, len(roll.faces), True
        t.dice = [DieReading(value, 1.0, (0, 0, 0, 0), DieStatus.OK, str(value)) for value in roll.numbers]

    def _await_roll(self, kind: RollKind) -> None:
        t = self._t
        t.step, t.roll_kind = Step.ROLL, kind
        t.expected = self._dice_for(kind)
        t.dice, t.recorded, t.options, t.keep, t.selected = [], False, [], (), 0
        t.lines = [self._roll_request()]

    def _dice_for(self, kind: RollKind) -> int:
        g = self._game
        if kind is RollKind.OFFENSE:
            return 5
        if kind in (RollKind.TARGETING, RollKind.STATUS):
            return 1
        if kind is RollKind.BONUS:
            assert g.selected is not None
            bonus = g.active_player.hero.ability(g.selected.ability).bonus_roll
            assert bonus is not None
            return bonus.dice
        assert g.defense is not None
        return self._defender().hero.ability(g.defense).defense_dice

    def _roll_request(self) -> str:
        g, t = self._game, self._t
        n = t.expected
        dice = f"{n} {'die' if n == 1 else 'dice'}"
        # The roll first; who rolls is in the title too, so it follows only when it fits.
        if t.roll_kind is RollKind.OFFENSE:
            return _point_first(lambda name: f"Roll {dice}", g.active_player.name)
        if t.roll_kind is RollKind.BONUS:
            return _point_first(lambda name: f"Roll {dice}", g.selected.ability if g.selected else "bonus")
        if t.roll_kind is RollKind.TARGETING:
            return "Roll 1 die for the target"
        if t.roll_kind is RollKind.STATUS:
            return _point_first(lambda name: f"Roll 1 die: {g.status_roll_needed}", g.active_player.name)
        return _point_first(lambda name: f"Roll {dice}: {g.defense}", self._defender().name)

    def _accept_reading(self, reading: FrameReading) -> None:
        t = self._t
        dice = ordered_dice(reading)
        expected = self._dice_for(t.roll_kind)
        new_word = ""
        if t.roll_kind in (RollKind.STATUS, RollKind.TARGETING) and len(dice) != expected:
            # a lone die rolled beside the dice of the roll before, which still lie in the tray
            new = _new_dice(dice, t.lying)
            if len(new) < len(dice):
                dice, new_word = new, " new"
        t.lying = list(reading.dice)
        shown = " ".join(self._reading_label(d) for d in dice) or "no dice"
        self._emit(FlowEventKind.READING, f"Read {shown}", roll=t.roll_kind.value, reading=reading.to_json())
        t.message = ""
        if len(dice) != expected:
            # A die off the tray or two read as one: nothing to correct die by die, roll again.
            t.step, t.expected, t.dice, t.recorded = Step.REROLL, expected, dice, False
            t.options = [Option(OptionKind.ENTER, "Key in the dice")]
            t.selected = 0
            t.lines = [f"Saw {len(dice)} new dice, need {expected}" if new_word else f"Saw {len(dice)} of {expected} dice"]
            t.message = ""
            t.dice = [DieReading(None, 0.0, (0, 0, 0, 0), DieStatus.UNREADABLE) for _ in range(expected)]
            self._emit(FlowEventKind.REROLL, f"Saw {len(dice)}{new_word} dice, need {expected}: roll them again",
                       seen=len(dice), expected=expected)
            return
        t.dice, t.expected, t.recorded, t.settled = dice, expected, False, None
        bad, t.settled = self._unresolved(dice)
        if bad:
            t.step = Step.REROLL
            t.lines = [f"Reroll die {' '.join(str(i + 1) for i in bad)} or set it"]
            t.options = [Option(OptionKind.FIX, f"Set die {i + 1} ({_why(dice[i])})", index=i) for i in bad]
            t.selected = 0
            marks = ", ".join(f"die {i + 1} {_why(dice[i])}" for i in bad)
            self._emit(FlowEventKind.REROLL, f"Cannot read {marks}: reroll it or set it with the buttons",
                       dice=[i + 1 for i in bad], statuses=[dice[i].status.value for i in bad])
            return
        self._record()

    def _unresolved(self, dice: Sequence[DieReading]) -> tuple[list[int], Roll | OneOf | None]:
        """The dice to set at the table, and the roll when every die is known or its unsure
        number does not change what the roll does.

        Dice read as one of a few numbers (a calibrated die's ``sword 1 or 3``, a plain die's
        ``4 or 5``) are settled by the rules (:func:`rules.unsure.settle`) in the rolls whose
        record may keep a die as its symbol (:meth:`_roll_outcome`): what the roll does is
        decided from the candidates, and only a die whose number changes it is asked for. A
        lone status or targeting die is recorded as its numbers (``4|5``) when they all say
        the same (:meth:`_lone_die`)."""
        bad = [i for i, d in enumerate(dice) if not d.ok]
        if not bad:
            return [], None
        if any(_read_as(dice[i]) is None for i in bad):
            return bad, None
        if self._t.roll_kind in (RollKind.STATUS, RollKind.TARGETING):
            read = _read_as(dice[0])
            lone = self._lone_die(read) if read is not None else None
            return ([], lone) if lone is not None else (bad, None)
        outcome = self._roll_outcome()
        if outcome is None:
            return bad, None
        faces: list[UnsureFace] = [d.value if d.ok and d.value is not None else tuple(d.candidate_values) for d in dice]
        settled = settle(faces, self._hero_for_dice(), outcome)
        return list(settled.to_set), settled.roll

    def _roll_outcome(self) -> Callable[[Roll], Hashable] | None:
        """What the awaited roll does, as the rules reckon it, for a roll that may be recorded
        with a die kept as its symbol: the offensive roll (the abilities it activates), a bonus
        roll and a defensive roll of one attempt (their effect). ``None`` for the others: a
        status or targeting die is recorded by its number, and a defense rolled again (Blink)
        counts the dice it changes by their faces."""
        g, kind = self._game, self._t.roll_kind
        if kind is RollKind.OFFENSE:
            attacker = g.active_player.hero
            return lambda roll: _activated(attacker, roll)
        if kind is RollKind.BONUS and g.selected is not None and g.offensive_roll is not None:
            hero, offense = g.active_player.hero, g.offensive_roll
            ability = hero.ability(g.selected.ability)
            return lambda roll: resolve_offense(hero, ability, offense, roll)
        if kind is RollKind.DEFENSE and g.defense is not None:
            defender = self._defender().hero
            defense = defender.ability(g.defense)
            if defense.roll_attempts == 1:
                return lambda roll: resolve_defense(defender, defense, roll)
        return None

    def _lone_die(self, die: OneOf) -> OneOf | None:
        """The status or targeting die read as ``die``'s numbers, when they all say the same
        (Blinded fails on 1-2, so 4 or 5 stands; 3 or 4 targets the right opponent); else None."""
        g = self._game
        try:
            if self._t.roll_kind is RollKind.TARGETING:
                TargetRule.for_die(die)
            else:
                name = g.status_roll_needed
                if name is None:
                    return None
                find_status(name).fails(die)
        except RulesError:
            return None
        return die

    def _lone_value(self) -> int | OneOf:
        """The status or targeting die as recorded: its number, or the numbers it was read as."""
        settled = self._t.settled
        return settled if isinstance(settled, OneOf) else self._value(0)

    def _record(self) -> None:
        """The dice are all known: record them as the awaited roll, then show what they do."""
        g, t = self._game, self._t
        kind = t.roll_kind
        if kind in (RollKind.STATUS, RollKind.TARGETING):
            self._record_lone_die()
            return
        # the roll as read, or with a die kept as its symbol where its number does not matter
        read = t.settled if isinstance(t.settled, Roll) else Roll(tuple(self._value(i) for i in range(len(t.dice))))
        if kind is RollKind.OFFENSE:
            self._act(g.record_offensive_roll, read)
            t.recorded = True
            self._score_offense(read, g.active_player.hero)
        elif kind is RollKind.BONUS:
            effect = self._act(g.record_bonus_roll, read)
            t.recorded = True
            self._emit(FlowEventKind.ROLL, f"Bonus roll {read.notation()}: {effect.describe()}",
                       roll_kind=kind.value, roll=read.notation(), effect=effect.describe())
            self._on_after_attack_choice()
        else:
            defender = self._defender()
            effect = self._act(g.record_defensive_roll, read)
            t.recorded = True
            symbols = " ".join(read.symbols(defender.hero))
            self._emit(FlowEventKind.DEFENSE,
                       f"{defender.name} defends ({g.defense}): {read.notation()} ({symbols}) -> {effect.describe()}",
                       roll=read.notation(), defense=g.defense, effect=effect.describe())
            self._after_defense_roll(effect.describe())

    def _record_lone_die(self) -> None:
        """Records the status or targeting die: its number, or the numbers it was read as."""
        g, t = self._game, self._t
        die = self._lone_value()
        if t.roll_kind is RollKind.STATUS:
            name = g.status_roll_needed
            stands = self._act(g.record_status_roll, die)
            t.recorded = True
            outcome = "the ability stands" if stands else "the ability has no effect"
            self._emit(FlowEventKind.ROLL, f"{g.active_player.name} rolls {said(die)} for {name}: {outcome}",
                       roll_kind=t.roll_kind.value, status=name, stands=stands, **_die_fields(die))
            self._after_activation()
        else:
            rule = self._act(g.record_targeting_roll, die)
            t.recorded = True
            self._emit(FlowEventKind.TARGET, f"Targeting die {said(die)}: {rule.value}", rule=rule.value, **_die_fields(die))
            if g.target is not None:
                target = g.players[g.target]
                self._emit(FlowEventKind.TARGET, f"Target: {_who(target)}", target=target.index)
                self._on_after_attack_choice()
            else:
                self._choose_target()

    def _after_defense_roll(self, effect: str) -> None:
        """Another roll attempt offered (Ninja's Blink), or the damage window."""
        t = self._t
        if self._game.defense_attempts_left > 0:
            t.step, t.selected = Step.CHOOSE, 0
            t.lines = [f"Defense: {effect}"]
            t.options = [Option(OptionKind.ACCEPT, "Keep this defense")]
            t.options += [Option(OptionKind.FIX, f"Fix die {i + 1}", index=i) for i in range(len(t.dice))]
        else:
            self._resolve_defense(effect)

    def _score_offense(self, roll: Roll, hero: Hero) -> None:
        """Activations, the odds of the best alternatives with the rolls left, and the dice to keep."""
        from rules.dicethrone.odds import odds

        g, t = self._game, self._t
        activations = g.activations()
        rolls_left = g.roll_attempts_left
        symbols = " ".join(roll.symbols(hero))
        options: list[Option] = [
            Option(OptionKind.ACTIVATE, f"{a.ability}{self._tier(a)}\t{self._amount(a)}", name=a.ability)
            for a in activations
        ]
        aims: list[Option] = []
        keep: tuple[int, ...] = ()
        if rolls_left > 0 and roll.fully_numbered:
            report = odds(hero, roll, rolls_left)
            keep = self._indices(roll, report.best.keep) if report.best is not None else ()
            active = {a.ability for a in activations}
            ranked = sorted(
                (a for a in report.abilities if a.ability not in active and a.probability > 0),
                key=lambda a: -a.probability,
            )
            for alternative in ranked[: self._alternatives]:
                kept = self._indices(roll, alternative.keep)
                aims.append(Option(OptionKind.AIM, f"{alternative.ability}\t{alternative.probability:.0%}",
                                   name=alternative.ability, keep=kept, probability=alternative.probability))
        options += aims
        options.append(Option(OptionKind.PASS, "No ability"))
        options += [Option(OptionKind.FIX, f"Fix die {i + 1}", index=i) for i in range(len(t.dice))]
        if rolls_left > 0:
            options.append(Option(OptionKind.ENTER, "Key in the next roll"))
        t.step, t.options, t.selected, t.keep = Step.CHOOSE, options, 0, keep
        best = activations[0] if activations else None
        t.lines = [f"Best: {best.ability}{self._tier(best)}" if best else "Best: none yet"]
        attempt = g.offensive_attempts
        text = f"Roll {attempt}/{g.offensive_attempt_limit}: {roll.notation()} ({symbols})"
        text += f"; activates {', '.join(a.ability + self._tier(a) for a in activations)}" if activations else "; activates nothing"
        if aims:
            text += f"; with {rolls_left} {'roll' if rolls_left == 1 else 'rolls'} left: " + ", ".join(
                f"{o.name} {o.probability:.0%}" for o in aims
            )
        if keep:
            text += f"; keep {' '.join(str(roll.faces[i]) for i in keep)}"
        elif rolls_left > 0 and not roll.fully_numbered:
            text += "; the odds need every die's number"
        elif rolls_left > 0:
            text += "; reroll them all"
        self._emit(FlowEventKind.ROLL, text, attempt=attempt, roll=roll.notation(), symbols=symbols.split(),
                   activations=[a.to_json() for a in activations], rolls_left=rolls_left,
                   odds={o.name: o.probability for o in aims}, keep=[roll.faces[i] for i in keep])

    def _activate(self, name: str | None) -> None:
        g = self._game
        activation: Activation | None = self._act(g.select_ability, name)
        player = g.active_player
        if activation is None:
            self._emit(FlowEventKind.ABILITY, f"{player.name} activates no ability", ability=None)
            self._advance()
            return
        self._emit(FlowEventKind.ABILITY,
                   f"{player.name} activates {activation.ability}{self._tier(activation)}: {activation.effect}",
                   **activation.to_json())
        self._after_activation()

    def _after_activation(self) -> None:
        """A status die (Blinded), then the ability's own dice, then targeting, defense or the window."""
        g = self._game
        if g.status_roll_needed is not None:
            self._await_roll(RollKind.STATUS)
            return
        if g.selected is None:
            self._advance()  # the ability came to nothing
            return
        if g.selected.bonus_dice and g.bonus_roll is None:
            self._await_roll(RollKind.BONUS)
            return
        self._on_after_attack_choice()

    def _choose_target(self) -> None:
        g, t = self._game, self._t
        leaders = g.leaders() if g.mode is GameMode.KING_OF_THE_HILL else []
        t.step, t.selected, t.dice, t.keep = Step.TARGET, 0, [], ()
        t.lines = [f"{g.active_player.name}: choose a target"]
        t.options = [
            Option(OptionKind.TARGET, f"{p.name} {g.health(p)} HP{' (leader)' if p in leaders else ''}", index=p.index)
            for p in g.opponents()
        ]

    def _resolve_defense(self, defense: str) -> None:
        self._open_window(f"Defense: {defense}")

    def _on_after_attack_choice(self) -> None:
        """After the ability (and its target): the defense, or the damage window, or straight on."""
        g, t = self._game, self._t
        pending = g.pending_choices()
        if pending:
            phrase, options = next(iter(pending.items()))
            t.step, t.selected = Step.OR, 0
            t.lines = [f"{g.active_player.name}: choose one", phrase]
            t.options = [Option(OptionKind.OR_OPTION, option, name=option) for option in options]
            return
        ability = None if g.selected is None else g.active_player.hero.ability(g.selected.ability)
        waiting = ability is not None and (ability.is_attack or ability.deals_collateral)
        if waiting and not g.needs_target and not g.defense_allowed and g.phase is not Phase.TARGETING_ROLL:
            self._open_window(f"{ability.name if ability else ''}: no defense")
        elif waiting and g.phase is Phase.TARGETING_ROLL and g.target is not None and not g.defense_allowed:
            self._open_window(f"{ability.name if ability else ''}: no defense")
        else:
            self._advance()

    def _open_window(self, first: str) -> None:
        """The damage window (Defensive Roll Phase, step 5): before the damage is applied, each
        player may spend statuses or play cards, the active player first, then in turn order.
        The screen shows what the damage would be now; NEXT applies it."""
        g, t = self._game, self._t
        exchange = g.preview()
        t.step, t.selected, t.spending = Step.DAMAGE, 0, None
        # Three lines fit above the choices: what the damage would be now, the statuses in play.
        t.lines = [self._damage_text(exchange, point_first=True), self._statuses_line() or first]
        t.options = [Option(OptionKind.CONTINUE, "Apply damage")]
        order = [g.players[(g.active + k) % len(g.players)] for k in range(len(g.players))]
        for player in order:
            for name in player.statuses:
                if find_status(name).spend in _WINDOW_SPENDS and g.can_spend(player, name):
                    t.options.append(Option(OptionKind.SPEND, f"{_short(player.name, 6)}: {name}", name=name, index=player.index))
        for player in order:
            if player.hand <= 0 or g.ultimate_locks(player):
                continue
            if player.team == g.active_player.team and player.index == g.active:
                t.options.append(Option(OptionKind.CARD_ADD, f"{_short(player.name, 6)}: card +dmg", index=player.index))
            if g.defender is not None and player.index == g.defender.index:
                t.options.append(Option(OptionKind.CARD_PREVENT, f"{_short(player.name, 6)}: card -dmg", index=player.index))
        t.options += [Option(OptionKind.FIX, f"Fix die {i + 1}", index=i) for i in range(len(t.dice))]

    def _apply_damage(self) -> None:
        g = self._game
        exchange: Exchange = self._act(g.resolve)
        self._report_exchange(exchange)
        if g.outcome is not None:
            self._game_over()
            return
        self._advance()

    def _spend(self, player: int, name: str, die: int | OneOf | None) -> None:
        g = self._game
        success = self._act(g.spend_status, player, name, die)
        who = g.players[player]
        rolled = f" (rolled {said(die)}{'' if success else ': no effect'})" if die is not None else ""
        fields = _die_fields(die) if die is not None else {"die": None}
        self._emit(FlowEventKind.STATUS, f"{who.name} spends {name}{rolled}",
                   player=player, status=name, success=success, **fields)
        self._open_window(self._window_note())

    def _spend_from_tray(self, reading: FrameReading) -> None:
        """The die a status rolls to be spent (Evasive), as the tray read it: spent with it when
        it is read, or read as numbers that all say the same; else shown to be set by hand."""
        t = self._t
        assert t.spending is not None
        player, name = t.spending
        # the roll's dice may still lie in the tray: the status's die is the one that is new
        new = _new_dice(reading.dice, t.lying)
        t.lying = list(reading.dice)  # a second token's die is new beside this one
        if len(new) != 1:
            t.message = f"Roll 1 die for {name}, saw {len(new)} new"
            return
        die = new[0]
        if die.ok and die.value is not None:
            self._spend(player, name, die.value)
            return
        if die.candidate_values:
            t.amount = die.candidate_values[0]  # the likeliest number to start setting it from
        read = _read_as(die)
        if read is not None:
            try:
                find_status(name).succeeds(read)
            except RulesError:
                t.message = f"Read {read.said()}: set it"
                return
            self._spend(player, name, read)
            return
        t.message = f"Die not read ({_why(die)}): set it"

    def _window_note(self) -> str:
        g = self._game
        return f"{g.selected.ability if g.selected else 'Damage'}: before it lands"

    def _statuses_line(self) -> str:
        """Every player's status tokens in a few letters each: ``Ben Chi2 Eva1``."""
        g = self._game
        parts = []
        for player in g.players:
            if player.statuses:
                tokens = " ".join(f"{_status_code(n)}{c}" for n, c in sorted(player.statuses.items()))
                parts.append(f"{_short(player.name, 5)} {tokens}")
        return "; ".join(parts)

    def _report_exchange(self, exchange: Exchange) -> None:
        g = self._game
        self._emit(FlowEventKind.DAMAGE, f"{self._damage_text(exchange)}. {self._health_line()}",
                   ability=exchange.ability, defender=exchange.defender,
                   damage=None if exchange.damage is None else exchange.damage.total,
                   collateral=exchange.collateral, counter=exchange.counter,
                   offense=exchange.offense.describe(), defense=exchange.defense.describe(),
                   health={p.name: g.health(p) for p in g.players}, cp={p.name: p.cp for p in g.players})

    def _damage_text(self, exchange: Exchange, point_first: bool = False) -> str:
        """What an exchange does: ``Longbow: Bo takes 7 dmg, Ann heals 2`` for the transcript, or
        with ``point_first`` for the OLED ``7 dmg to Bo, +2 HP Ann: Longbow`` (the amounts before
        the names, shorter names rather than a cut, the ability only when it fits)."""
        g = self._game
        attacker = g.players[exchange.attacker]
        facts: list[tuple[str, int, str]] = []  # (what, amount, who)
        if exchange.defender is not None:
            taken = 0 if exchange.damage is None or exchange.defense.negate else exchange.damage.total
            facts.append(("dmg", taken + exchange.collateral, g.players[exchange.defender].name))
        if exchange.counter:
            facts.append(("back", exchange.counter, attacker.name))
        if exchange.offense.heal:
            facts.append(("heal", exchange.offense.heal, attacker.name))
        if exchange.defense.heal and exchange.defender is not None:
            facts.append(("heal", exchange.defense.heal, g.players[exchange.defender].name))
        if exchange.offense.cp:
            facts.append(("cp", exchange.offense.cp, attacker.name))
        if point_first:
            forms = {"dmg": "{n} dmg to {who}", "back": "{n} dmg back to {who}", "heal": "+{n} HP {who}", "cp": "{n:+d} CP {who}"}
            return _point_first(
                lambda name: ", ".join(forms[what].format(n=n, who=name(who)) for what, n, who in facts) or "No damage",
                exchange.ability or "",
            )
        forms = {"dmg": "{who} takes {n} dmg", "back": "{who} takes {n} back", "heal": "{who} heals {n}", "cp": "{who} {n:+d} CP"}
        parts = [forms[what].format(n=n, who=who) for what, n, who in facts]
        return f"{exchange.ability}: " + (", ".join(parts) if parts else "no damage")

    # ================================================================================ fixes

    def _play_card(self) -> None:
        g, t = self._game, self._t
        if t.card_effect:
            effect = f"{t.card_effect} {t.amount}"
            payer, cost = t.card_player, t.cost
            cp = self._act(lambda: g.play_card(cost, player=payer, kind=CardKind.ROLL, effect=effect))
        else:
            effect = ""
            cp = self._act(g.play_card, t.cost)
        player = g.active_player if t.card_player is None else g.players[t.card_player]
        what = f" ({'+' if t.card_effect == 'add' else '-'}{t.amount} dmg)" if effect else ""
        self._emit(FlowEventKind.PROMPT, f"{player.name} plays a card{what} for {t.cost} CP: {cp} CP, {player.hand} cards",
                   player=player.index, cost=t.cost, cp=cp, hand=player.hand, effect=effect or None)
        if effect:
            t.card_player, t.card_effect = None, ""
            self._open_window(self._window_note())
        else:
            self._enter_phase(announce=False)

    def _set_health(self) -> None:
        g, t = self._game, self._t
        assert t.adjusting is not None
        player = g.players[t.adjusting]
        before = g.health(player)
        self._act(g.set_health, player.index, max(0, before + t.change))
        self._emit(FlowEventKind.HEALTH, f"{player.name}'s health set by hand: {before} -> {g.health(player)} HP",
                   player=player.index, was=before, now=g.health(player))
        t.adjusting = None
        if g.outcome is not None:
            self._game_over()
        else:
            self._enter_phase(announce=False)

    def _enter_by_hand(self) -> None:
        """No usable reading (camera trouble, a die off the tray): the roll is keyed in die by die."""
        t = self._t
        t.expected = self._dice_for(t.roll_kind)
        t.dice = [DieReading(None, 0.0, (0, 0, 0, 0), DieStatus.UNREADABLE) for _ in range(t.expected)]
        t.recorded = False
        self._start_fix(0)

    def _start_fix(self, index: int) -> None:
        t = self._t
        t.step, t.fixing = Step.CORRECT, index
        die = t.dice[index]
        # A die read as one of a few faces starts at the likeliest.
        t.fix_value = die.value if die.value is not None else die.candidate_values[0] if die.candidate_values else 1

    def _confirm_fix(self) -> None:
        t = self._t
        assert t.fixing is not None
        index, value = t.fixing, t.fix_value
        was = t.dice[index]
        fixed = replace(was, value=value, status=DieStatus.OK, face=str(value), confidence=1.0, symbol=None, reason=None,
                        candidates=(), candidate_values=())
        if was.box[2] == 0:
            how = "keyed in"  # no die was read there: the whole roll is keyed in by hand
        elif was.value is not None:
            how = f"read {was.value}"
        else:
            how = f"was {was.status.value}"
        self._emit(FlowEventKind.CORRECTION,
                   f"Die {index + 1} set to {self._face_label(value)} ({how})",
                   die=index + 1, was=was.value, status=was.status.value, now=value, roll=t.roll_kind.value)
        if t.recorded:
            # The roll is already in the game: take it back and record the corrected one in its place.
            # BACK after this goes back to before the roll, the same as undoing the roll itself.
            dice = list(t.dice)
            dice[index] = fixed
            self._history.pop()  # entering the fix
            roll_step = self._history.pop()  # the step that recorded the misread roll
            for _ in range(roll_step.game_actions):
                self._game.undo()
            if self._current is not None:
                self._current.table = copy.deepcopy(roll_step.table)
            self._t = roll_step.table
            self._t.dice, self._t.expected, self._t.recorded = dice, len(dice), False
            t = self._t
        else:
            t.dice[index] = fixed
        remaining, t.settled = self._unresolved(t.dice)
        if remaining:
            self._start_fix(remaining[0])
            return
        t.fixing = None
        self._record()

    # ================================================================================ small pieces

    def _defender(self) -> Player:
        defender = self._game.defender
        assert defender is not None
        return defender

    def _value(self, index: int) -> int:
        value = self._t.dice[index].value
        assert value is not None
        return value

    def _hero_for_dice(self) -> Hero:
        g = self._game
        if self._t.roll_kind is RollKind.DEFENSE and g.defender is not None:
            return g.defender.hero
        return g.active_player.hero

    def _face_label(self, value: int) -> str:
        return face_label(self.view(), value)

    def _reading_label(self, die: DieReading) -> str:
        return die.text() if die.ok else f"[{_why(die)}]"

    @staticmethod
    def _tier(activation: Activation) -> str:
        return f" {'I' * activation.tier}" if activation.tiers > 1 else ""

    @staticmethod
    def _amount(activation: Activation) -> str:
        return f"{activation.damage} dmg" if activation.damage else ""

    @staticmethod
    def _indices(roll: Roll, keep: Sequence[Any]) -> tuple[int, ...]:
        """Die indices holding the kept faces (the odds name faces, the display marks dice)."""
        used: list[int] = []
        for face in keep:
            for i, value in enumerate(roll.faces):
                if value == face and i not in used:
                    used.append(i)
                    break
        return tuple(sorted(used))

    # ================================================================================ events

    def _emit(self, kind: FlowEventKind, text: str, **data: Any) -> None:
        g = self._game
        data.setdefault("turn", g.turn)
        data.setdefault("phase", g.phase.value)
        self._pending.append(FlowEvent(kind, text, data))

    def _flush(self) -> list[FlowEvent]:
        events, self._pending = self._pending, []
        for event in events:
            self._events.append(event)
            if self._on_event is not None:
                self._on_event(event)
        return events


# ================================================================================ at the tray


def game_from_config(config: Any) -> Game:
    """A new Dice Throne game: ``config.heroes`` (ids or custom hero files) seated in order, one
    per name in ``config.players`` (:class:`firmware_host.config.GameConfig`).

    :raises ValueError: naming ``game.heroes`` when the heroes do not seat the players or one
        does not load.
    """
    from firmware_host.heroes import find_hero

    if len(config.heroes) != len(config.players):
        raise ValueError(f"game.heroes has {len(config.heroes)} heroes for {len(config.players)} players; give one each")
    try:
        heroes = [find_hero(hero) for hero in config.heroes]  # custom heroes too
    except RulesError as error:  # unknown hero, or a hero file that does not load
        raise ValueError(f"game.heroes: {error}") from None
    return Game.new(heroes, names=[name.strip() for name in config.players])


def table_flow(game: Game, config: Any) -> GameFlow:
    """The flow that plays ``game`` at the tray (the config adds nothing to Dice Throne's)."""
    return GameFlow(game)
