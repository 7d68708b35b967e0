"""The table flow of Marvel Heroes Battle Dice: what the tray asks for in each step.

The players roll their battle dice into the tray at once; the tray tells whose die is whose by the
side of the tray it lies on and which die it is by its body colour (:class:`TrayDie`), and the flow
writes the rolls, the tie-break rolls and the basic game's rerolls. Every choice the rules give a
player (the match-up, the battle stat, the figure a die held, powers, captures, unloading) is a menu
on the OLED::

    >>> from rules.battledice.game import Game
    >>> game = Game.from_tags({"P1": "Ann", "P1Team": "captain-america spider-man wolverine",
    ...     "P1Dice": "red blue green", "P2": "Bob", "P2Team": "ultron doc-ock magneto",
    ...     "P2Dice": "red blue green"})
    >>> flow = BattleDiceFlow(game)
    >>> [c.action for c in flow.choices()]
    ['reload P1', 'reload P2']
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from firmware_host.choice_flow import Choice, ChoiceFlow, TrayDie, by_side, check_colours, side_of
from firmware_host.transcript import EventSink
from rules.battledice.figures import battle_stats
from rules.battledice.game import Game, Option, Phase, Zone
from rules.errors import IllegalActionError


class BattleDiceFlow(ChoiceFlow):
    game_title = "Battle Dice"
    game: Game

    def __init__(self, game: Game, on_event: EventSink | None = None) -> None:
        super().__init__(game, on_event)
        self._stats: dict[int, str] = {}
        """Battle stats chosen so far after a tie (each player picks in turn)."""

    # -- menus ------------------------------------------------------------------------------
    def choices(self) -> list[Choice]:
        s = self.game.state
        names = [seat.name for seat in s.seats]
        phase = s.phase
        if phase is Phase.RELOAD:
            return [Choice(f"{names[i]}: reload", f"reload P{i + 1}") for i in range(len(names)) if self.game.reload_due(i)]
        if phase is Phase.MATCH_UP:
            return self._match_ups()
        battle = s.battle
        if battle is None:
            return self._unload_choices() if phase is Phase.UNLOAD else []
        if phase is Phase.BATTLE_STAT:
            waiting = [i for i in battle.stat_choosers if i not in self._stats]
            if len(battle.stat_choosers) == 1:
                return [Choice(f"{names[waiting[0]]}: {stat}", f"stat {stat}") for stat in battle_stats()]
            return [Choice(f"{names[waiting[0]]}: {stat}", f"choose-stat P{waiting[0] + 1} {stat}") for stat in battle_stats()]
        if phase is Phase.OPEN:
            seat, colour = next((st, c) for st, c in battle.dice if st not in battle.figures)
            return [
                Choice(f"{names[seat]} {colour}: {s.figures[f].name}", f"open P{seat + 1} {colour} {f}")
                for f in dict.fromkeys(s.seats[seat].loaded)
            ]
        if phase is Phase.POWERS:
            actor = battle.actor
            powers = self.game.usable_powers(actor)
            return [Choice(f"{names[actor]}: {p}", f"power P{actor + 1} {p}") for p in powers] + [
                Choice(f"{names[actor]}: pass", f"pass P{actor + 1}")
            ]
        if phase is Phase.CAPTURE:
            winner = battle.captures_left[0]
            return [
                Choice(f"{names[winner]} takes {s.figures[battle.figures[loser]].name}", f"capture P{winner + 1} P{loser + 1}")
                for loser in battle.losers
            ]
        return []

    def _match_ups(self) -> list[Choice]:
        s = self.game.state
        in_battle = sorted(self.game.strike_totals())
        dice = {i: [d for d in s.seats[i].in_zone(Zone.BATTLE)] for i in in_battle}
        chooser = s.chooser if s.chooser is not None else 0
        combos: list[tuple[tuple[int, str], ...]]
        if Option.MAYHEM in s.options:
            combos = [
                ((chooser, own.colour), (other, theirs.colour))
                for own in dice[chooser] for other in in_battle if other != chooser for theirs in dice[other]
            ]
        else:
            combos = [tuple((i, d.colour) for i, d in zip(in_battle, pick)) for pick in itertools.product(*dice.values())]
        return [
            Choice(
                " v ".join(f"{s.seats[i].name[:5]} {c} {s.seats[i].dice[c].roll}" for i, c in combo),
                "match " + " ".join(f"P{i + 1} {c}" for i, c in combo),
            )
            for combo in combos
        ]

    def _unload_choices(self) -> list[Choice]:
        s = self.game.state
        for index, seat in enumerate(s.seats):
            for die in seat.in_zone(Zone.BATTLE):
                return [
                    Choice(f"{seat.name} {die.colour}: {s.figures[f].name}", f"unload P{index + 1} {die.colour} {f}")
                    for f in dict.fromkeys(seat.loaded)
                ]
        return []

    def play(self, action: str) -> bool:
        """A stat chosen after a tie is held until every tied player has chosen."""
        if action.startswith("choose-stat "):
            _, seat, stat = action.split()
            self._stats[int(seat[1:]) - 1] = stat
            battle = self.game.state.battle
            if battle is not None and all(i in self._stats for i in battle.stat_choosers):
                chosen, self._stats = self._stats, {}
                return super().play("stat " + " ".join(f"P{i + 1} {st}" for i, st in sorted(chosen.items())))
            self.selected = 0
            return True
        return super().play(action)

    # -- dice -------------------------------------------------------------------------------
    def wants_dice(self) -> bool:
        return self.game.state.phase in (Phase.ROLL, Phase.TIEBREAK, Phase.REROLL)

    def counts(self, die: TrayDie) -> bool:
        """A die on the side of a seat the step's roll is not for (one that has rolled this
        round, or is not in the tie-break or the battle) is no part of it."""
        s = self.game.state
        seat = side_of(die, len(s.seats))
        if s.phase is Phase.TIEBREAK:
            return seat in s.tied
        if s.phase is Phase.REROLL and s.battle is not None:
            return seat in {battle_seat for battle_seat, _ in s.battle.dice}
        return seat not in s.rolled

    def faces_to_set(self, die: TrayDie) -> list[str]:
        """A battle die shows 1-6; with Popped Rolls, one that opened is set as ``popped``."""
        faces = [str(number) for number in range(1, 7)]
        return faces + (["popped"] if Option.POPPED_ROLLS in self.game.state.options else [])

    def readings_to_actions(self, dice: Sequence[TrayDie]) -> list[str]:
        """Rolls by side of the tray: each seat still to roll, its dice by colour; a tie-break is
        one die per tied player; a basic game's reroll is the match-up's dice again."""
        s = self.game.state
        sides = by_side(dice, len(s.seats))
        if s.phase is Phase.TIEBREAK:
            rolls = []
            for seat in s.tied:
                if len(sides[seat]) != 1:
                    raise IllegalActionError(f"{s.seats[seat].name} rolls one empty die for the tie-break")
                rolls.append(f"P{seat + 1} {sides[seat][0].face}")
            return ["tiebreak " + " ".join(rolls)]
        if s.phase is Phase.REROLL:
            battle = s.battle
            assert battle is not None
            words = []
            for seat, colour in battle.dice:
                face = next((d.face for d in sides[seat] if d.colour == colour), None)
                if face is None:
                    raise IllegalActionError(f"{s.seats[seat].name}'s {colour} die is not in the tray")
                words.append(f"P{seat + 1} {colour} {face}")
            return ["reroll " + " ".join(words)]
        actions = []
        for seat, seen in enumerate(sides):
            if seat in s.rolled or not seen:
                continue
            actions.append(f"roll P{seat + 1} " + " ".join(f"{d.colour} {d.face}" for d in seen))
        if not actions:
            raise IllegalActionError("no battle dice in the tray")
        return actions

    # -- display ----------------------------------------------------------------------------
    def title(self) -> str:
        return f"Round {self.game.state.round}: {self.game.state.phase.value}"

    def status_lines(self) -> list[str]:
        s = self.game.state
        strike = self.game.strike_totals()
        battle = self.game.battle_totals()
        lines = []
        for index, seat in enumerate(s.seats):
            parts = [seat.name[:6]]
            if index in strike:
                parts.append(f"ST {strike[index]}")
            if index in battle:
                parts.append(f"BT {battle[index]}")
            parts.append(f"held {len(seat.holding)}")
            lines.append(" ".join(parts))
        return lines


def table_flow(game: Game, config: Any) -> BattleDiceFlow:
    """The flow that plays ``game`` at the tray, once each seat's dice colours (``P1Dice``...) are
    colours the tray tells apart."""
    for number, seat in enumerate(game.state.seats, start=1):
        check_colours(f"P{number}Dice", list(seat.dice))
    return BattleDiceFlow(game)
