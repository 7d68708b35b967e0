"""The table flow of a game played from a menu of choices and dice read in the tray.

Battle Dice and Dice Masters are played the same way at the tray: in each step the OLED shows what
to do and a short list of choices, or asks for dice, which the tray reads (:class:`TrayDie`). The
buttons mean what they mean in Dice Throne (:mod:`firmware_host.game_flow`), so a table never
relearns them: SELECT moves to the next choice, NEXT takes the highlighted one, BACK undoes the last
action. Each game's flow (:mod:`firmware_host.battledice_flow`,
:mod:`firmware_host.dicemasters_flow`) says which choices there are and what a reading means; this
base plays the actions on the game and emits one :class:`~firmware_host.transcript.FlowEvent` per
action, so the event stream's subscribers (journal, roll log, presenters) work for every game.

The tray service (:class:`firmware_host.service.TrayService`) drives a flow as it drives Dice
Throne's: :meth:`ChoiceFlow.on_reading` takes a settled reading, :meth:`ChoiceFlow.on_button` a
press, and both return the events the step caused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from firmware_host.transcript import EventSink, FlowEvent, FlowEventKind
from hardware.buttons import ButtonEvent
from hardware.screens import ScreenState
from rules.errors import IllegalActionError, RulesError
from rules.games import Action, TableGame
from vision.types import DieReading, DieStatus, FrameReading


@dataclass(frozen=True)
class TrayDie:
    """One die as a game's flow needs it from the tray.

    ``face`` is the face label (a number ``"4"`` for a Battle Die, a face notation such as
    ``"2fist"`` or ``"L1:0:1/1"`` for a Dice Masters die, ``"popped"`` for a Battle Die that opened);
    ``colour`` the named body colour; ``x`` and ``y`` its place in the tray, 0-1 from the left and
    the top (the left half is the first player's side).
    """

    face: str
    colour: str = ""
    x: float = 0.5
    y: float = 0.5

    @classmethod
    def of(cls, die: DieReading, frame_size: tuple[int, int]) -> TrayDie:
        """The die as read: a calibrated die's symbol (the face as the game names it, e.g. a Dice
        Masters face notation), else its face label, else its number; its named body colour; the
        centre of its box as a share of the frame (``frame_size``: width, height)."""
        x, y, w, h = die.box
        width, height = frame_size
        face = die.symbol or (die.face if die.face and not die.face.isdigit() else str(die.value))
        return cls(
            face=face,
            colour=die.colour.name if die.colour is not None else "",
            x=(x + w / 2) / max(1, width),
            y=(y + h / 2) / max(1, height),
        )


@dataclass(frozen=True)
class Choice:
    """One line of the menu: what it says and the table action it plays (record notation)."""

    label: str
    action: str


class ChoiceFlow:
    """Plays a :class:`~rules.games.TableGame` from the buttons and the tray's readings."""

    game_title = "Game"

    def __init__(self, game: TableGame, on_event: EventSink | None = None) -> None:
        self.game = game
        self.on_event = on_event
        self.selected = 0
        self.message = ""
        self.rolling = False
        """The tray saw dice moving since the last reading (the LED shows rolling)."""
        self.last_dice: tuple[DieReading, ...] = ()
        """The dice of the last settled reading, as read (the table app shows them)."""
        self._pending: list[FlowEvent] = []
        self._unread: tuple[TrayDie, ...] = ()
        """The last reading's dice while some are set by hand, in its order; () when none is."""
        self._to_set: dict[int, list[str]] = {}
        """Each unread die of that reading (its index) and the faces it may be set to."""
        self._set: dict[int, str] = {}
        """The faces the table set so far."""
        self._reviewing = False
        """The dice of a roll taken back are offered to correct, die by die, then played again."""
        self._read_roll: tuple[tuple[TrayDie, ...], int, int, Any] | None = None
        """The last reading played as the roll: its dice, how many actions it played, the
        record's length after them (BACK right after takes them all back to correct a die), and
        the flow's own state before it (:meth:`flow_state`)."""

    # -- what a game's flow says ------------------------------------------------------------
    def choices(self) -> list[Choice]:
        """The menu in the current step (empty when the step waits for dice)."""
        return []

    def wants_dice(self) -> bool:
        """True when the step waits for a roll in the tray."""
        return False

    def counts(self, die: TrayDie) -> bool:
        """Whether the step's roll takes this die (a game whose roll is one player's passes over
        the other side of the tray): an unread die it does not take holds nothing up."""
        return True

    def faces_to_set(self, die: TrayDie) -> list[str]:
        """The faces the table may set a die to that the tray could not read (as its game names
        them); none when this game cannot tell, and the dice are rolled again."""
        return []

    def readings_to_actions(self, dice: Sequence[TrayDie]) -> list[str]:
        """The table actions a settled reading stands for in this step."""
        return []

    def title(self) -> str:
        return self.game_title

    def status_lines(self) -> list[str]:
        """Lines about the game shown above the menu."""
        return []

    # -- input ------------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.game.finished

    def on_dice(self, dice: Sequence[TrayDie]) -> bool:
        """A settled reading: played as the step's roll. Returns False (and says why on the
        display) when the rules refuse it; the game is then as before the reading."""
        if not self.wants_dice():
            self.message = "not a roll now"
            return False
        before = self.flow_state()
        try:
            actions = self.readings_to_actions(dice)
        except RulesError as error:
            self.restore_flow_state(before)
            self._refuse(error)
            return False
        played = 0
        for action in actions:
            if not self.play(action):
                for _ in range(played):
                    self.game.undo()
                self.restore_flow_state(before)
                return False
            played += 1
        self._read_roll = (tuple(dice), played, len(self.game.actions), before)
        return True

    def flow_state(self) -> Any:
        """What a game's flow keeps of the tray beside the game (where the dice lay), so that a
        roll refused or taken back leaves it as before; None when it keeps nothing."""
        return None

    def restore_flow_state(self, state: Any) -> None:
        """Puts back what :meth:`flow_state` returned."""

    def press(self, button: ButtonEvent) -> None:
        """SELECT moves down the menu, NEXT plays the highlighted choice, BACK undoes (while dice
        are being set, BACK leaves them to be rolled again); a held press counts as a short one."""
        options = self.menu()
        pressed = ButtonEvent(button).button
        if pressed == "select" and options:
            self.selected = (self.selected + 1) % len(options)
        elif pressed == "next" and options:
            self._take(options[min(self.selected, len(options) - 1)].action)
        elif pressed == "back" and self._unread:
            self._roll_again()
        elif pressed == "back":
            self.undo()

    # -- dice set by hand -------------------------------------------------------------------
    @property
    def setting_die(self) -> TrayDie | None:
        """The unread die the menu sets now (the table picks its face), or None."""
        index = self._next_to_set()
        return None if index is None else self._unread[index]

    @property
    def setting_index(self) -> int | None:
        """That die's place in the last reading (:attr:`last_dice`), or None."""
        return self._next_to_set()

    @property
    def correcting(self) -> bool:
        """Whether the dice of a roll taken back are offered to correct before it is played again."""
        return self._reviewing

    def menu(self) -> list[Choice]:
        """The menu now: the faces of the die being set, then "roll them again"; the dice of a
        roll taken back to correct, then "play these dice"; else the step's :meth:`choices`."""
        index = self._next_to_set()
        if index is not None:
            place = _place(self._unread[index])
            lines = [Choice(f"{place} die: {face}", f"{_SET_FACE} {index} {face}") for face in self._to_set[index]]
            return lines + [Choice("roll them again", _ROLL_AGAIN)]
        if self._reviewing:
            lines = [
                Choice(f"{_place(die)} die: {self._set.get(i, die.face)}", f"{_CHANGE} {i}")
                for i, die in enumerate(self._unread)
                if self.counts(die) and self.faces_to_set(die)
            ]
            return lines + [Choice("play these dice", _PLAY), Choice("roll them again", _ROLL_AGAIN)]
        return self.choices()

    def line_for_die(self, die: int, face: str | None = None) -> int | None:
        """The menu line (its index) that sets die ``die`` of the last reading to ``face``, or,
        with no face, the line that opens it for changing; None when the menu has no such line."""
        wanted = f"{_CHANGE} {die}" if face is None else f"{_SET_FACE} {die} {face}"
        return next((i for i, line in enumerate(self.menu()) if line.action == wanted), None)

    def _next_to_set(self) -> int | None:
        return next((i for i in sorted(self._to_set) if i not in self._set), None)

    def _take(self, action: str) -> bool:
        """Plays a menu line: a face set by hand, or a table action."""
        words = action.split()
        if words and words[0] == _ROLL_AGAIN:
            self._roll_again()
            return True
        if words and words[0] == _SET_FACE:
            return self._set_face(int(words[1]), " ".join(words[2:]))
        if words and words[0] == _CHANGE:
            self._change(int(words[1]))
            return True
        if words and words[0] == _PLAY:
            return self._play_set_dice()
        return self.play(action)

    def _change(self, index: int) -> None:
        """Offers the faces of a die of the roll taken back, the face it was read as first."""
        die = self._unread[index]
        shown = self._set.pop(index, die.face)
        faces = self.faces_to_set(die)
        self._to_set = {index: [shown, *(f for f in faces if f != shown)] if shown in faces else faces}
        self.selected = 0

    def _set_face(self, index: int, face: str) -> bool:
        if index not in self._to_set or face not in self._to_set[index]:
            self.message = f"not a face to set now: {face}"
            return False
        self._set[index] = face
        self.selected = 0
        self._emit(FlowEventKind.PROMPT, f"the {_place(self._unread[index])} die is set to {face}", die=index, face=face)
        if self._next_to_set() is not None or self._reviewing:
            return True
        return self._play_set_dice()

    def _play_set_dice(self) -> bool:
        dice = [TrayDie(self._set.get(i, d.face), d.colour, d.x, d.y) for i, d in enumerate(self._unread)]
        self._forget_unread()
        self.message = ""
        return self.on_dice(dice)

    def _roll_again(self) -> None:
        self._forget_unread()
        self.message = "roll the dice again"
        self._emit(FlowEventKind.REROLL, "the unread dice are rolled again")

    def _forget_unread(self) -> None:
        if self._unread:
            self._unread, self._to_set, self._set, self._reviewing = (), {}, {}, False
            self.selected = 0

    # -- the tray service's side ------------------------------------------------------------
    def on_reading(self, reading: FrameReading) -> list[FlowEvent]:
        """A settled reading of the tray, played as the step's roll when the step wants one.

        A die the reader was unsure of is never guessed: the game stays as it was, and the menu
        offers the faces it may be (likeliest first), so the table sets it, or "roll them again";
        where the game cannot say what a die may be, the display says which die to roll again.
        A die unsure only between faces that the game names alike (its candidates share one
        symbol: two faces of a Dice Masters die with the same notation) is read as that face. An
        empty tray is nothing.
        """
        self.rolling = False
        self._forget_unread()
        if not reading.dice or not self.wants_dice():
            return self._drain()
        self.last_dice = reading.dice
        size = reading.frame_size or _extent(reading.dice)
        trays = [TrayDie.of(d, size) for d in reading.dice]
        unread = [i for i, d in enumerate(reading.dice) if not _known_to_the_game(d) and self.counts(trays[i])]
        if unread:
            where = ", ".join(_place(trays[i]) for i in unread)
            faces = {i: _likeliest_first(self.faces_to_set(trays[i]), reading.dice[i]) for i in unread}
            if all(faces.values()):
                self._unread, self._to_set = tuple(trays), faces
                self.message = f"{len(unread)} unread: set or roll again"  # the menu says where
                self._emit(FlowEventKind.REROLL,
                           f"not read: {len(unread)} of {len(reading.dice)} dice ({where}): set or roll again")
                return self._drain()
            self.message = f"roll again: {len(unread)} unread ({where})"
            self._emit(FlowEventKind.REROLL, f"not read: {len(unread)} of {len(reading.dice)} dice ({where})")
            return self._drain()
        self.on_dice(trays)
        return self._drain()

    def on_button(self, event: ButtonEvent) -> list[FlowEvent]:
        """One press (see :meth:`press`); returns the events it caused."""
        self.rolling = False
        self.press(event)
        return self._drain()

    def on_rolling(self) -> None:
        """The tray saw dice moving: the LED shows rolling until the next settled reading (dice
        being set by hand have moved: they wait for that reading)."""
        self._forget_unread()
        if self.wants_dice():
            self.rolling = True

    @property
    def options(self) -> tuple[Choice, ...]:
        """The menu now (what the table app offers to choose from)."""
        return tuple(self.menu())

    def _drain(self) -> list[FlowEvent]:
        events, self._pending = self._pending, []
        return events

    def choose(self, action: str) -> bool:
        """Plays the menu line whose action is ``action`` (as SELECT on it would)."""
        for index, option in enumerate(self.menu()):
            if option.action == action:
                self.selected = index
                return self._take(action)
        self.message = f"not a choice now: {action}"
        return False

    def play(self, action: str) -> bool:
        """Plays one table action; an illegal one is shown (with its rule) and changes nothing."""
        before = self._step()
        logged = len(self.game.log)
        try:
            self.game.play(Action.from_notation(action))
        except RulesError as error:
            self._refuse(error)
            return False
        self.message = ""
        self.selected = 0
        kind = FlowEventKind.ROLL if action.split()[0] in ("roll", "reroll", "tiebreak") else FlowEventKind.PROMPT
        self._emit(kind, "; ".join(self.game.log[logged:]) or action, action=action)
        if self.game.finished:
            self._emit(FlowEventKind.GAME_OVER, f"game over: {self.game.to_json()['winner']}")
        elif self._step() != before:
            self._emit(FlowEventKind.PHASE, f"{self.title()}: {self.prompt()}")
        return True

    def undo(self) -> None:
        """Takes the last action back; right after a roll read from the tray, the whole roll,
        whose dice are then offered to correct (a die the tray misread) and play again."""
        if not self.game.can_undo:
            self.message = "nothing to undo"
            return
        read, self._read_roll = self._read_roll, None
        if read is not None and len(self.game.actions) == read[2]:
            for _ in range(read[1]):  # just played: the undo history holds them all
                self.game.undo()
            self.restore_flow_state(read[3])
            self._unread, self._to_set, self._set, self._reviewing = read[0], {}, {}, True
            self.selected = 0
            self.message = "change a die, or play or roll again"
            self._emit(FlowEventKind.UNDO, "BACK: the roll is taken back: change a die the tray misread, then play it")
            return
        self.game.undo()
        self.selected = 0
        self._emit(FlowEventKind.UNDO, "BACK: the last action is taken back")

    # -- output -----------------------------------------------------------------------------
    def prompt(self) -> str:
        state = self.game.to_json()
        return str(state.get("prompt", ""))

    def screen(self) -> ScreenState:
        """What the OLED shows now (:func:`firmware_host.presenters.menu_screen`)."""
        from firmware_host.presenters import menu_screen

        return menu_screen(self)

    def _step(self) -> Any:
        return self.game.to_json().get("phase")

    def _refuse(self, error: RulesError) -> None:
        self.message = str(error)
        self._emit(FlowEventKind.REROLL, f"refused: {error}")

    def _emit(self, kind: FlowEventKind, text: str, **data: Any) -> None:
        """To ``on_event`` when there is one, else kept for the next :meth:`on_reading` or
        :meth:`on_button` to return."""
        event = FlowEvent(kind, text, {"game": self.game_title, "phase": self._step(), **data})
        if self.on_event is not None:
            self.on_event(event)
        else:
            self._pending.append(event)


_SET_FACE = "@set"
_CHANGE = "@change"
_PLAY = "@play"
_ROLL_AGAIN = "@roll-again"
"""Menu lines that are no table action (no game's verb starts with ``@``)."""


def _likeliest_first(faces: Sequence[str], die: DieReading) -> list[str]:
    """``faces`` with those the reader took the die for first, likeliest first."""
    named = [*die.candidates, *(str(n) for n in die.candidate_values)]
    first = [face for face in dict.fromkeys(named) if face in faces]
    return first + [face for face in faces if face not in first]


def _known_to_the_game(die: DieReading) -> bool:
    """Read, or unsure only between faces that show one symbol (what a game reads of them)."""
    return die.ok or (die.status is DieStatus.UNREADABLE and bool(die.symbol) and bool(die.candidates))


def check_colours(tag: str, colours: Sequence[str]) -> None:
    """The tray tells one player's dice apart by body colour: each must be a colour the reader
    names (:data:`vision.colour.COLOUR_NAMES`) and none twice.

    :raises IllegalActionError: naming ``tag`` and the colour.
    """
    from vision.colour import COLOUR_NAMES

    for colour in colours:
        if colour not in COLOUR_NAMES:
            raise IllegalActionError(f"{tag}: the tray cannot tell a {colour!r} die (colours: {', '.join(COLOUR_NAMES)})")
    twice = sorted(c for c, n in Counter(colours).items() if n > 1)
    if twice:
        raise IllegalActionError(f"{tag}: two dice of one player are {twice[0]}: the tray tells them apart by colour")


def _extent(dice: Sequence[DieReading]) -> tuple[int, int]:
    """A frame size for a reading that does not carry one: just past its farthest die."""
    return (max(d.box[0] + d.box[2] for d in dice) + 1, max(d.box[1] + d.box[3] for d in dice) + 1)


def _place(die: TrayDie) -> str:
    """Where a die lies, in words a player finds it by (``left top``)."""
    across = "left" if die.x < 1 / 3 else "right" if die.x > 2 / 3 else "middle"
    down = "top" if die.y < 1 / 3 else "bottom" if die.y > 2 / 3 else "centre"
    return f"{across} {down}"


def by_side(dice: Sequence[TrayDie], seats: int) -> list[list[TrayDie]]:
    """The dice of each seat by the side of the tray they lie on (equal strips from the left),
    each seat's dice left to right."""
    sides: list[list[TrayDie]] = [[] for _ in range(seats)]
    for die in sorted(dice, key=lambda d: (d.x, d.y)):
        sides[side_of(die, seats)].append(die)
    return sides


def side_of(die: TrayDie, seats: int) -> int:
    """The seat whose side of the tray (equal strips from the left) the die lies on."""
    return min(seats - 1, max(0, int(die.x * seats)))
