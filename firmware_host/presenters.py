"""Presenters: what the OLED shows and the status LED says, from the table flow's view.

The Dice Throne table flow (:class:`firmware_host.game_flow.GameFlow`) decides the game and emits
:class:`~firmware_host.transcript.FlowEvent` values; it draws nothing. A presenter turns a
:class:`~firmware_host.game_flow.FlowView` (a value) into a picture: :func:`oled_screen` into a
:class:`hardware.screens.ScreenState`, :func:`led_status` into a :class:`hardware.lights.TrayStatus`.
:class:`Presenters` subscribes both to the flow's event stream and shows what changed, so the
outputs need no hand-wired branches.

>>> from firmware_host.game_flow import GameFlow
>>> from rules.dicethrone.game import Game
>>> view = GameFlow(Game.new(["barbarian", "moon-elf"])).view()
>>> oled_screen(view).title, led_status(view).value
('Main 1 Player 1', 'waiting-for-input')
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from firmware_host.events import TrayEvent, TrayEventKind
from hardware.errors import HardwareError
from hardware.lights import TrayStatus
from hardware.screens import DieCell, PlayerStatus, ScreenState
from rules.dicethrone.game import Phase
from rules.dicethrone.heroes import Hero
from vision.types import DieReading

if TYPE_CHECKING:
    from firmware_host.choice_flow import ChoiceFlow
    from firmware_host.game_flow import FlowView, GameFlow

log = logging.getLogger(__name__)

_PHASE_NAMES = {
    Phase.UPKEEP: "Upkeep", Phase.INCOME: "Income", Phase.MAIN_1: "Main 1",
    Phase.OFFENSIVE_ROLL: "Offense", Phase.TARGETING_ROLL: "Target",
    Phase.DEFENSIVE_ROLL: "Defense", Phase.MAIN_2: "Main 2", Phase.DISCARD: "Discard",
}  # fmt: skip

_PROMPTS = {
    "over": "NEXT: new game",
    "roll": "Roll; NEXT: key in",
    "reroll": "Reroll or NEXT: set",
    "correct": "SEL value  NEXT ok",
    "cost": "SEL cost  NEXT pay",
    "amount": "SEL dmg  NEXT play",
    "spend-die": "SEL die  NEXT spend",
    "damage": "SEL act  NEXT apply",
    "health": "SEL change  NEXT set",
}


DENSE_CHARS = 32
"""Characters of a dense line across the screen (misc-fixed 4x6 in 128 pixels)."""
TITLE_CHARS = 21
"""Characters of the title line (the tray's 5x7 capitals, 6 pixels a character, in 126 pixels)."""


def short(name: str, width: int = 8) -> str:
    """A name cut to ``width`` characters for the small screen."""
    return name if len(name) <= width else name[: width - 1] + "."


def short_name(name: str, width: int) -> str:
    """A player's name in at most ``width`` characters, the readable way: a numbered name keeps
    its number (``Player 2`` -> ``P2``, which a cut would lose), any other is cut with a dot."""
    number = re.search(r"(\d+)$", name)
    if len(name) > width and number and len(name) > len(number.group(1)) and len(number.group(1)) < width:
        return name[0] + number.group(1)
    return short(name, width)


def point_first(point: Callable[[Callable[[str], str]], str], context: str = "", width: int = DENSE_CHARS) -> str:
    """A line that says its point first and fits ``width`` characters without cutting a number:
    ``point(name)`` writes the point with each player's name passed through ``name``; the names
    are shortened until it fits (``Player 1`` -> ``P1``, ``Barbarian`` -> ``Barba.``), and
    ``context`` follows after a colon only when it fits whole.

    >>> point_first(lambda name: f"7 dmg to {name('Player 1')}, +2 HP {name('Player 1')}", "Longbow")
    '7 dmg to P1, +2 HP P1: Longbow'
    """
    for size in (width, 8, 6, 4, 2):
        line = point(lambda name: short_name(name, size))
        if len(line) <= width:
            break
    if context and len(line) + 2 + len(context) <= width:
        line += f": {context}"
    return line


def symbol_codes(hero: Hero) -> dict[str, str]:
    """The shortest upper-case prefix telling each of the hero's symbols apart (SW, ST, H)."""
    symbols = sorted(set(hero.symbol_for(face) for face in range(1, 7)))
    codes: dict[str, str] = {}
    for symbol in symbols:
        for size in range(1, len(symbol) + 1):
            prefix = symbol[:size]
            if not any(other != symbol and other.startswith(prefix) for other in symbols):
                codes[symbol] = prefix.upper()
                break
        else:
            codes[symbol] = symbol.upper()
    return codes


def face_label(view: FlowView, value: int) -> str:
    """A die's value with its symbol (``3 sword``); the targeting die is a plain number."""
    if view.roll_kind.value in ("targeting", "status"):
        return str(value)
    return f"{value} {view.dice_hero.symbol_for(value)}"


def led_status(view: FlowView) -> TrayStatus:
    """The status LED's state."""
    step = view.step.value
    if view.rolling:
        return TrayStatus.ROLLING
    if step in ("reroll", "correct"):
        return TrayStatus.REROLL_DIE
    if step == "choose" and view.roll_kind.value == "offense":
        if any(o.kind.value == "activate" for o in view.options):
            return TrayStatus.ABILITY_READY
        return TrayStatus.NO_ABILITY
    return TrayStatus.WAITING_FOR_INPUT


def oled_screen(view: FlowView) -> ScreenState:
    """What the OLED shows: title, players, dice, a few lines with the highlighted choice, prompt."""
    g = view.game
    step = view.step.value
    attempt: tuple[int, int] | None = None
    if g.phase is Phase.OFFENSIVE_ROLL and step != "over":
        shown = g.offensive_attempts + (1 if view.wants_dice and step == "roll" else 0)
        limit = g.offensive_attempt_limit  # 3, or 2 when Entangled
        attempt = (min(max(shown, 1), limit), limit)
    players = tuple(PlayerStatus(short(p.name, 7), g.health(p), p.cp, active=p.index == g.active) for p in g.players)
    keep = set(view.keep)
    dice = tuple(_cell(view, i, d, i in keep) for i, d in enumerate(view.dice))
    body = 3 if view.dice else 5  # small-font lines between the dice row (when shown) and the prompt
    lines = ([view.message] if view.message else []) + list(view.lines)
    selected: int | None = None
    if step == "correct" and view.fixing is not None:
        lines = [f"Die {view.fixing + 1}: {face_label(view, view.fix_value)}"]
    elif step == "cost":
        payer = g.active_player if view.card_player is None else g.players[view.card_player]
        lines = [f"Card cost: {view.cost} CP", f"{short(payer.name, 8)}: {payer.cp} CP to spend"]
    elif step == "amount":
        lines = [f"Card: {'+' if view.card_effect == 'add' else '-'}{view.amount} dmg", f"for {view.cost} CP"]
    elif step == "spend-die" and view.spending is not None:
        # what the tray made of the die rolled for it, above what the buttons set
        lines = ([view.message] if view.message else []) + [f"{view.spending[1]}: roll 1 die", f"Die shows {view.amount}"]
    elif step == "health" and view.adjusting is not None:
        player = g.players[view.adjusting]
        now = g.health(player)
        lines = [f"{player.name}: {now} HP", f"Change {view.change:+d}: {max(0, now + view.change)} HP"]
    elif view.options:
        # The message and the explanation, then a window of the choices that always shows the
        # highlighted one.
        lines = lines[: body - 1]
        room = body - len(lines)
        start = min(view.selected, max(0, len(view.options) - room))
        window = view.options[start : start + room]
        selected = len(lines) + view.selected - start
        lines += [option.label for option in window]
    return ScreenState(
        title=_title(view),
        attempt=attempt,
        players=players,
        dice=dice,
        die_cursor=view.fixing if step == "correct" else None,
        lines=tuple(lines[:body]),
        selected=selected,
        dense=True,
        prompt=_prompt(view),
    )


def _cell(view: FlowView, index: int, die: DieReading, keep: bool) -> DieCell:
    if view.step.value == "correct" and index == view.fixing:
        return DieCell(_code(view, view.fix_value), keep=keep)
    if not die.ok or die.value is None:
        return DieCell.unknown(_unsure_code(view, die))
    return DieCell(_code(view, die.value), keep=keep)


def _unsure_code(view: FlowView, die: DieReading) -> str:
    """An unsure die whose candidates share a symbol: ``?`` and the symbol's letter (``?S``)."""
    if not die.candidate_values or view.roll_kind.value in ("targeting", "status"):
        return "?"
    hero = view.dice_hero
    symbols = {hero.symbol_for(value) for value in die.candidate_values}
    return f"?{symbol_codes(hero)[symbols.pop()]}" if len(symbols) == 1 else "?"


def _code(view: FlowView, value: int) -> str:
    """A die on the display: its number and the first letter of its symbol (``3S``)."""
    if view.roll_kind.value in ("targeting", "status"):
        return str(value)
    hero = view.dice_hero
    return f"{value}{symbol_codes(hero)[hero.symbol_for(value)]}"


def _title(view: FlowView) -> str:
    g = view.game
    if view.step.value == "over":
        return "Game over"
    who = g.defender if g.phase is Phase.DEFENSIVE_ROLL and g.defender is not None else g.active_player
    # The title line holds about 20 characters, 16 beside the attempt counter.
    room = (16 if g.phase is Phase.OFFENSIVE_ROLL else 20) - len(_PHASE_NAMES[g.phase]) - 1
    return f"{_PHASE_NAMES[g.phase]} {short(who.name, room)}"


def _prompt(view: FlowView) -> str:
    step = view.step.value
    if step in _PROMPTS:
        return _PROMPTS[step]
    if step == "choose" and view.wants_dice:
        return "Roll again or NEXT"
    return "SEL choose  NEXT ok"


MENU_LINES = 5
"""Small-font lines between the title and the prompt on a menu screen."""


def menu_screen(flow: ChoiceFlow) -> ScreenState:
    """What the OLED shows for a game played from menus (Battle Dice, Dice Masters): the step and
    player, the game's lines, a window of the choices that always shows the highlighted one, and
    the prompt (``roll the dice`` when the step waits for a roll)."""
    lines = ([flow.message] if flow.message else []) + flow.status_lines()
    options = flow.menu()
    selected: int | None = None
    if options:
        lines = lines[: max(1, MENU_LINES - 3)]
        room = MENU_LINES - len(lines)
        start = min(flow.selected, max(0, len(options) - room))
        selected = len(lines) + flow.selected - start
        lines += [option.label for option in options[start : start + room]]
    return ScreenState(
        title=flow.title(),
        lines=tuple(lines[:MENU_LINES]),
        selected=selected,
        dense=True,
        prompt=_menu_prompt(flow),
    )


def _menu_prompt(flow: ChoiceFlow) -> str:
    if flow.setting_die:
        return "set the die"
    if flow.correcting:
        return "change a die or play"
    return "roll the dice" if flow.wants_dice() else flow.prompt()


def menu_status(flow: ChoiceFlow) -> TrayStatus:
    """The LED for a menu game: waiting for a roll, for a choice, a refused action, or off at the end."""
    if flow.is_over:
        return TrayStatus.OFF
    if flow.message:
        return TrayStatus.ERROR
    return TrayStatus.ROLLING if flow.wants_dice() else TrayStatus.WAITING_FOR_INPUT


class Screen(Protocol):
    def show(self, image: Any) -> None: ...


class Light(Protocol):
    def show(self, status: TrayStatus) -> None: ...


PageSink = Callable[[ScreenState, TrayStatus], None]
"""Where the page's view goes (the table app): the game's screen and the LED, not the PIN over it."""


@dataclass(frozen=True)
class TrayCondition:
    """What the tray itself is going through, from its :class:`~firmware_host.events.TrayEvent`
    values: drawn over the game's screen."""

    camera_lost: bool = False
    log_not_saved: bool = False
    pin: str | None = None
    """The pairing PIN while it is shown, else None."""
    url: str = ""
    """The table app's address, shown (and as a QR code) with the PIN."""

    def after(self, event: TrayEvent) -> TrayCondition:
        """The condition once ``event`` happened."""
        kind = event.kind
        if kind in (TrayEventKind.CAMERA_LOST, TrayEventKind.CAMERA_BACK):
            return replace(self, camera_lost=kind is TrayEventKind.CAMERA_LOST)
        if kind in (TrayEventKind.ROLL_LOG_DOWN, TrayEventKind.ROLL_LOG_BACK):
            return replace(self, log_not_saved=kind is TrayEventKind.ROLL_LOG_DOWN)
        if kind is TrayEventKind.PAIRING:
            return replace(self, pin=event.data.get("pin"), url=str(event.data.get("url", "")))
        return self


def tray_view(screen: ScreenState, status: TrayStatus, condition: TrayCondition) -> tuple[ScreenState, TrayStatus]:
    """The game's screen and LED with what the tray is going through drawn over them (CAMERA LOST,
    LOG NOT SAVED), as the table app's page shows them too."""
    if condition.camera_lost:
        screen = replace(
            screen, banner="CAMERA LOST", lines=("Check the camera cable",), selected=None, prompt="Retrying...",
        )  # fmt: skip
        status = TrayStatus.CAMERA_LOST
    if condition.log_not_saved:
        screen = replace(screen, prompt="LOG NOT SAVED")
    return screen, status


def pairing_screen(pin: str, url: str, *, log_not_saved: bool = False) -> ScreenState:
    """The pairing screen: the PIN first, then the address without its scheme (host, then port,
    so neither is cut beside the code), what to do, and a QR code of the address to scan; an
    unsaved roll log still says so."""
    where = url.removeprefix("http://").rstrip("/")
    host, colon, port = where.rpartition(":")
    address = (host, colon + port) if colon and not where.endswith("]") else (where,)
    return ScreenState(
        banner=f"PIN {pin}",
        lines=(*(address if where else ()), "Scan the QR,", "type the PIN"),
        prompt="LOG NOT SAVED" if log_not_saved else "",
        qr=url,
    )


class Presenters:
    """The OLED and the LED as subscribers of the event stream: after each event (and on
    :meth:`refresh`) the screen and the LED are worked out again from the flow and the tray's
    condition, and drawn only when they changed. No event, no drawing.

    Use as the flow's ``on_event`` or subscribe it to the service's
    :class:`~firmware_host.events.EventStream`.

    :param page: called with the page's view (the game's screen and LED) when it changes, or None.
    """

    def __init__(
        self,
        flow: GameFlow | ChoiceFlow | None = None,
        *,
        display: Screen | None = None,
        light: Light | None = None,
        page: PageSink | None = None,
    ) -> None:
        self.flow = flow
        self.display = display
        self.light = light
        self.page = page
        self.condition = TrayCondition()
        self.shown_screen: ScreenState | None = None
        self.shown_status: TrayStatus | None = None
        self.screens_shown = 0
        """Screens drawn and sent to the display."""
        self._page_view: tuple[ScreenState, TrayStatus] | None = None

    def __call__(self, event: object) -> None:
        if isinstance(event, TrayEvent):
            self.condition = self.condition.after(event)
        self.refresh()

    def refresh(self) -> None:
        if self.flow is None:
            return
        from hardware.screens import render_screen

        from firmware_host.choice_flow import ChoiceFlow

        if isinstance(self.flow, ChoiceFlow):
            screen, status = menu_screen(self.flow), menu_status(self.flow)
        else:
            view = self.flow.view()
            screen, status = oled_screen(view), led_status(view)
        screen, status = tray_view(screen, status, self.condition)
        page_view = (screen, status)
        if self.condition.pin is not None:
            screen = pairing_screen(self.condition.pin, self.condition.url, log_not_saved=self.condition.log_not_saved)
        if screen != self.shown_screen:
            if self.display is not None:
                try:
                    self.display.show(render_screen(screen))
                except HardwareError as error:
                    log.warning("the display failed: %s", error)
            self.shown_screen = screen
            self.screens_shown += 1
        if status != self.shown_status:
            if self.light is not None:
                try:
                    self.light.show(status)
                except HardwareError as error:
                    log.warning("the status LED failed: %s", error)
            self.shown_status = status
        if page_view != self._page_view and self.page is not None:
            self._page_view = page_view
            self.page(*page_view)
