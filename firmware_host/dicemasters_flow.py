"""The table flow of Dice Masters: the tray reads each roll; the OLED offers the Main Step and the
Attack Step as menus with the energy in the Reserve Pool already counted.

Whose die is whose comes from the side of the tray; which card a die belongs to from its body
colour (``colours``: per player, card id -> colour; Sidekicks too); its face from the face label the
reader gives (the face notation, :mod:`rules.dicemasters.faces`). Which copy of a card's dice was
drawn the tray cannot see, so the flow names them (dice from the Prep Area first, then the bag, then
the Used Pile when the bag runs out). The reroll is the reading after it: the dice that moved were
rerolled, and a second reroll is refused by the rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from firmware_host.choice_flow import Choice, ChoiceFlow, TrayDie, by_side, check_colours, side_of
from firmware_host.presenters import DENSE_CHARS, TITLE_CHARS, point_first, short
from firmware_host.transcript import EventSink
from rules.dicemasters.faces import FaceKind
from rules.dicemasters.game import Die, Game, Step, Zone
from rules.errors import IllegalActionError

MOVED = 0.03
"""How far (in tray widths) a die must move between two readings to count as rerolled."""


class DiceMastersFlow(ChoiceFlow):
    game_title = "Dice Masters"
    game: Game
    reads_calibrated_faces = True
    """Its dice show artwork: the tray reads them only with calibrated profiles, one per card."""

    def __init__(self, game: Game, colours: Sequence[Mapping[str, str]], on_event: EventSink | None = None) -> None:
        super().__init__(game, on_event)
        self.colours = [dict(c) for c in colours]
        """Per player: card id -> the body colour of its dice."""
        self._places: dict[str, tuple[float, float]] = {}
        """Where each die of the last roll lay (die id -> x, y)."""
        self._blocks: list[tuple[str, str]] = []

    def design_colours(self) -> dict[str, tuple[str, ...]]:
        """Card id -> the body colours its dice come in (any player's): the tray reads a die only
        with the profiles of the cards of its colour, when each card's profile is named by its id."""
        cards = dict.fromkeys(card for colours in self.colours for card in colours)
        return {card: tuple(dict.fromkeys(c[card] for c in self.colours if card in c)) for card in cards}

    # -- dice -------------------------------------------------------------------------------
    def wants_dice(self) -> bool:
        s = self.game.state
        return s.step is Step.CLEAR_AND_DRAW or (s.step is Step.ROLL and not s.rerolled)

    def _card_of(self, owner: int, die: TrayDie) -> str:
        for card, colour in self.colours[owner].items():
            if colour == die.colour:
                return card
        raise IllegalActionError(f"no card of {self.game.state.players[owner].name}'s has {die.colour!r} dice")

    def flow_state(self) -> dict[str, tuple[float, float]]:
        return dict(self._places)

    def restore_flow_state(self, state: Any) -> None:
        self._places = dict(state)

    def counts(self, die: TrayDie) -> bool:
        """Only the rolling player's side of the tray is read for the roll."""
        return side_of(die, 2) == self.game.state.active

    def faces_to_set(self, die: TrayDie) -> list[str]:
        """The faces of the card whose dice have this die's colour (the rolling player's); none
        when no card of theirs has it."""
        try:
            card = self._card_of(self.game.state.active, die)
        except IllegalActionError:
            return []
        if card not in self.game.cards:
            return []
        return list(dict.fromkeys(face.notation() for face in self.game.cards[card].faces))

    def readings_to_actions(self, dice: Sequence[TrayDie]) -> list[str]:
        s = self.game.state
        owner = s.active
        seen = by_side(dice, 2)[owner]
        if s.step is Step.CLEAR_AND_DRAW:
            return self._draw_and_roll(owner, seen)
        return [self._reroll(owner, seen)]

    def _draw_and_roll(self, owner: int, seen: Sequence[TrayDie]) -> list[str]:
        taken: set[str] = set()

        def pick(card: str, zones: Sequence[Zone]) -> Die | None:
            for zone in zones:
                for die in sorted(self.game.dice_in(owner, zone), key=lambda d: (len(d.id), d.id)):
                    if die.card == card and die.id not in taken:
                        taken.add(die.id)
                        return die
            return None

        named: list[tuple[TrayDie, Die]] = []
        rest: list[TrayDie] = []
        for tray_die in seen:
            die = pick(self._card_of(owner, tray_die), (Zone.PREP,))
            if die is None:
                rest.append(tray_die)
            else:
                named.append((tray_die, die))
        drawn: list[Die] = []
        for tray_die in rest:
            die = pick(self._card_of(owner, tray_die), (Zone.BAG, Zone.USED))
            if die is None:
                raise IllegalActionError(f"a {tray_die.colour} die that is not in the bag or the Used Pile")
            named.append((tray_die, die))
            drawn.append(die)
        self._places = {die.id: (t.x, t.y) for t, die in named}
        seat = f"P{owner + 1}"
        return [
            f"draw {seat} " + " ".join(d.id for d in drawn),
            f"roll {seat} " + " ".join(f"{die.id} {t.face}" for t, die in named),
        ]

    def _reroll(self, owner: int, seen: Sequence[TrayDie]) -> str:
        """The dice that moved since the roll were rerolled: matched to the rolled dice of the same
        card by nearest place."""
        rolled = [self.game.die(owner, die_id) for die_id in self.game.state.rolled]
        left = {d.id: d for d in rolled}
        moved: list[tuple[str, str]] = []
        for tray_die in seen:
            card = self._card_of(owner, tray_die)
            same = [d for d in left.values() if d.card == card]
            if not same:
                raise IllegalActionError(f"more {tray_die.colour} dice than were rolled")
            nearest = min(same, key=lambda d: _distance(self._places.get(d.id, (9.0, 9.0)), (tray_die.x, tray_die.y)))
            del left[nearest.id]
            if _distance(self._places.get(nearest.id, (9.0, 9.0)), (tray_die.x, tray_die.y)) > MOVED:
                moved.append((nearest.id, tray_die.face))
                self._places[nearest.id] = (tray_die.x, tray_die.y)
        if not moved:
            raise IllegalActionError("no die was rerolled")
        return f"reroll P{owner + 1} " + " ".join(f"{d} {f}" for d, f in moved)

    # -- menus ------------------------------------------------------------------------------
    def choices(self) -> list[Choice]:
        s = self.game.state
        if s.step is Step.MAIN or (s.step is Step.ROLL and s.rolled):
            return self._main_choices()  # a Main Step choice also ends the reroll chance
        if s.step is Step.ATTACK:
            return self._block_choices()
        if s.step is Step.BLOCKED:
            return self._global_choices(s.active) + self._global_choices(1 - s.active) + [Choice("deal damage", "damage")]
        if s.step is Step.DAMAGED:
            return [Choice("end the turn", f"end P{s.active + 1}")]
        return []

    def _main_choices(self) -> list[Choice]:
        s = self.game.state
        owner = s.active
        seat = f"P{owner + 1}"
        options: list[Choice] = []
        for card in self.game.affordable(owner):
            payment = self.game.payment_for(owner, card.cost, (card.energy_type,))
            if payment is not None:
                options.append(Choice(f"buy {card.name} ({card.cost})", f"buy {seat} {card.id} pay {_pay(payment)}"))
        for die in self.game.dice_in(owner, Zone.RESERVE):
            if die.face is not None and die.face.kind is FaceKind.CHARACTER:
                payment = self.game.payment_for(owner, die.face.fielding_cost)
                if payment is not None:
                    paid = f" pay {_pay(payment)}" if payment else ""
                    cost = f" ({die.face.fielding_cost})"
                    label = f"field {_die_label(die.id, DENSE_CHARS - 1 - len('field ') - len(cost))}{cost}"
                    options.append(Choice(label, f"field {seat} {die.id}{paid}"))
            elif die.face is not None and die.face.kind is FaceKind.ACTION:
                options.append(Choice(f"use {die.id}", f"action {seat} {die.id}"))
        options += self._global_choices(owner)
        attackers = [d.id for d in self.game.dice_in(owner, Zone.FIELD)]
        if attackers:
            options.append(Choice(f"attack with all {len(attackers)}", f"attack {seat} {' '.join(attackers)}"))
        options.append(Choice("end the turn", f"end {seat}"))
        return options

    def _global_choices(self, owner: int) -> list[Choice]:
        seat = f"P{owner + 1}"
        options: list[Choice] = []
        for card in self.game.cards.values():
            ability = card.global_ability
            if ability is None:
                continue
            payment = self.game.payment_for(owner, ability.cost, (ability.energy_type,))
            if payment is None:
                continue
            action = f"global {seat} {card.id} pay {_pay(payment)}"
            if ability.attack or ability.defence:
                for die in self.game.dice_in(owner, Zone.FIELD):
                    options.append(Choice(f"{self.game.state.players[owner].name[:5]}: {card.name} {die.id}",
                                          f"{action} target {seat} {die.id}"))
            else:
                options.append(Choice(f"{self.game.state.players[owner].name[:5]}: {card.name}", action))
        return options

    def _block_choices(self) -> list[Choice]:
        s = self.game.state
        defender = 1 - s.active
        used = {b for b, _ in self._blocks}
        attackers = [d.id for d in self.game.dice_in(s.active, Zone.FIELD) if d.attacking]
        options = [
            Choice(f"{blocker.id} blocks {attacker}", f"block-with {blocker.id} {attacker}")
            for blocker in self.game.dice_in(defender, Zone.FIELD) if blocker.id not in used
            for attacker in attackers
        ]
        pairs = " ".join(f"{b} {a}" for b, a in self._blocks)
        options.append(Choice("done blocking", f"block P{defender + 1} {pairs}".rstrip()))
        return options

    def play(self, action: str) -> bool:
        """A blocker chosen is held until "done blocking" declares them all at once."""
        if action.startswith("block-with "):
            _, blocker, attacker = action.split()
            self._blocks.append((blocker, attacker))
            self.selected = 0
            return True
        if action.startswith("block "):
            self._blocks = []
        return super().play(action)

    # -- display ----------------------------------------------------------------------------
    def title(self) -> str:
        """Whose turn it is and the step, the name shortened so the step fits the title line whole."""
        s = self.game.state
        return point_first(lambda name: f"{name(s.players[s.active].name)}: {s.step.value}", width=TITLE_CHARS)

    def status_lines(self) -> list[str]:
        """Each player's life, and the energy in the active player's Reserve Pool, its total first
        and each type by its initial (``Energy 9: 5M 1F 1B 2G``: mask, fist, bolt, shield, generic)."""
        s = self.game.state
        energy = self.game.energy(s.active)
        kinds = " ".join(f"{n}{t[:1].upper()}" for t, n in energy.items())
        return [
            "  ".join(f"{p.name[:6]} {p.life}" for p in s.players),
            f"Energy {sum(energy.values())}: {kinds}" if energy else "Energy: none",
        ]


def _die_label(die_id: str, width: int) -> str:
    """A die's id in ``width`` characters, its number kept: ``wonder-woman-champion-of-themyscira#1``
    becomes ``wonder-woman-cham.#1``."""
    if len(die_id) <= width:
        return die_id
    card, hash_, number = die_id.rpartition("#")
    if not hash_:
        return short(die_id, width)
    return short(card, max(2, width - len(number) - 1)) + "#" + number


def _pay(payment: Sequence[tuple[str, int | None]]) -> str:
    return " ".join(die if amount is None else f"{die}={amount}" for die, amount in payment)


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5)


def table_flow(game: Game, config: Any) -> DiceMastersFlow:
    """The flow that plays ``game`` at the tray, with the body colour of each card's dice from the
    config's setup: ``P1Colours`` (and ``P2Colours``) as ``card=colour`` words, e.g.
    ``sidekick=white batman=black anger-issues=red``. Every card whose dice a player has (the
    Sidekicks and the Basic Action cards too) needs a colour, each a colour the tray names and
    none twice for one player.

    :raises IllegalActionError: naming the tag and the card.
    """
    tags = config.tags
    colours: list[dict[str, str]] = []
    for owner, player in enumerate(game.state.players):
        tag = f"P{owner + 1}Colours"
        given: dict[str, str] = {}
        for word in tags.get(tag, "").split():
            card, equals, colour = word.partition("=")
            if not equals or not card or not colour:
                raise IllegalActionError(f"{tag}: {word!r} is not card=colour (e.g. sidekick=white)")
            given[card] = colour
        cards = game.cards_with_dice(owner)
        missing = [card for card in cards if card not in given]
        if missing:
            raise IllegalActionError(
                f"{tag}: no body colour for {player.name}'s {', '.join(missing)} dice (give {tag} = \"{' '.join(c + '=...' for c in cards)}\")"
            )
        unknown = [card for card in given if card not in cards]
        if unknown:
            raise IllegalActionError(f"{tag}: {player.name} has no {unknown[0]!r} dice (cards: {', '.join(cards)})")
        check_colours(tag, [given[card] for card in cards])
        colours.append({card: given[card] for card in cards})
    return DiceMastersFlow(game, colours)
