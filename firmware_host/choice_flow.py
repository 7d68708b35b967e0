"""The table flow of a game played from a menu of choices and dice read in the tray.

Battle Dice and Dice Masters are played the same way at the tray: in each step the OLED shows what
to do and a short list of choices (NEXT moves, SELECT takes, BACK undoes the last action), or asks
for dice, which the tray reads (:class:`TrayDie`). Each game's flow (:mod:`firmware_host.battledice_flow`,
:mod:`firmware_host.dicemasters_flow`) says which choices there are and what a reading means; this
base plays the actions on the game and emits one :class:`~firmware_host.transcript.FlowEvent` per
action, so the event stream's subscribers (journal, roll log, presenters) work for every game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from firmware_host.transcript import EventSink, FlowEvent, FlowEventKind
from hardware.buttons import ButtonEvent
from hardware.screens import ScreenState
from rules.errors import RulesError
from rules.games import Action, TableGame

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

    # -- what a game's flow says ------------------------------------------------------------
    def choices(self) -> list[Choice]:
        """The menu in the current step (empty when the step waits for dice)."""
        return []

    def wants_dice(self) -> bool:
        """True when the step waits for a roll in the tray."""
        return False

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
        try:
            actions = self.readings_to_actions(dice)
        except RulesError as error:
            self._refuse(error)
            return False
        played = 0
        for action in actions:
            if not self.play(action):
                for _ in range(played):
                    self.game.undo()
                return False
            played += 1
        return True

    def press(self, button: ButtonEvent) -> None:
        """NEXT moves down the menu, SELECT plays the highlighted choice, BACK undoes."""
        options = self.choices()
        if button is ButtonEvent.NEXT and options:
            self.selected = (self.selected + 1) % len(options)
        elif button is ButtonEvent.SELECT and options:
            self.play(options[min(self.selected, len(options) - 1)].action)
        elif button is ButtonEvent.BACK:
            self.undo()

    def choose(self, action: str) -> bool:
        """Plays the menu line whose action is ``action`` (as SELECT on it would)."""
        for index, option in enumerate(self.choices()):
            if option.action == action:
                self.selected = index
                return self.play(action)
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
        if not self.game.can_undo:
            self.message = "nothing to undo"
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
        if self.on_event is not None:
            self.on_event(FlowEvent(kind, text, {"game": self.game_title, "phase": self._step(), **data}))


def by_side(dice: Sequence[TrayDie], seats: int) -> list[list[TrayDie]]:
    """The dice of each seat by the side of the tray they lie on (equal strips from the left),
    each seat's dice left to right."""
    sides: list[list[TrayDie]] = [[] for _ in range(seats)]
    for die in sorted(dice, key=lambda d: (d.x, d.y)):
        sides[min(seats - 1, max(0, int(die.x * seats)))].append(die)
    return sides
