"""Dice Masters as the seed plays it (``004_...``): two players, each with a bag of dice.

A turn: Clear and Draw (four dice from the bag, refilled from the Used Pile when it runs out), Roll
and Reroll (the drawn dice and the Prep Area's, then one group reroll), the Main Step (buy dice,
field characters, use action dice and Global Abilities, paying energy from the Reserve Pool), the
Attack Step (attackers, blockers, damage, knock-outs, unblocked damage to life) and Cleanup. Dice
are named ``<card>#<n>`` (``sidekick#3``) and faces are written as in :mod:`rules.dicemasters.faces`.
Table actions are in record notation (docs/dice-masters.md)::

    >>> game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], life=10)
    >>> _ = game.play("draw P1 sidekick#1 sidekick#2 sidekick#3 sidekick#4")
    >>> _ = game.play("roll P1 sidekick#1 fist sidekick#2 mask sidekick#3 bolt sidekick#4 shield")
    >>> game.energy(0)
    {'mask': 1, 'fist': 1, 'bolt': 1, 'shield': 1}
    >>> [card.id for card in game.affordable(0)]
    ['batman']
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.dicemasters.cards import Card, CardKind, load_card
from rules.dicemasters.faces import ENERGY_TYPES, GENERIC, Face, FaceKind
from rules.dice import whole_number as ascii_whole_number
from rules.errors import IllegalActionError, InvalidRollError, RulesError
from rules.games import Action, InvalidActionError
from rules.table import SnapshotGame, seat_index, whole_number

GAME_NAME = "dicemasters"
DRAW_COUNT = 4
"""Dice drawn from the bag in each Clear and Draw Step."""
DEFAULT_LIFE = 20
"""Tournament life (the play mat counts 20 to 1); the Demo Game starts at 10."""
BASIC_ACTIONS = ("anger-issues", "villainous-pact")
"""The Demo Game's Basic Action Cards."""


class Zone(enum.Enum):
    BAG = "bag"
    PREP = "prep"
    RESERVE = "reserve"
    """The Reserve Pool: rolled dice, faces up."""
    OUT = "out"
    """Out of Play: spent this turn (to the Used Pile at the end of the turn)."""
    USED = "used"
    FIELD = "field"
    """The Field Zone; a die in the Attack Zone (attacking or blocking) is still in the field."""
    CARD = "card"
    """Not yet bought: on its card."""


class Step(enum.Enum):
    SETUP = "setup"
    """Before the first turn: dice may be placed (a position to start from)."""
    CLEAR_AND_DRAW = "clear-and-draw"
    ROLL = "roll"
    """Rolled, the one group reroll not yet taken."""
    MAIN = "main"
    ATTACK = "attack"
    """Attackers declared: the opponent declares blockers."""
    BLOCKED = "blocked"
    """Blockers declared: actions and Global Abilities, then damage."""
    DAMAGED = "damaged"
    """Damage dealt and knock-outs done: card effects of the knock-outs, then Cleanup."""
    OVER = "over"


@dataclass
class Die:
    id: str
    card: str
    owner: int
    zone: Zone
    face: Face | None = None
    damage: int = 0
    attack_bonus: int = 0
    defence_bonus: int = 0
    attacking: bool = False
    blocking: str | None = None
    """The attacker this die blocks."""

    @property
    def attack(self) -> int:
        return max(0, (self.face.attack if self.face else 0) + self.attack_bonus)

    @property
    def defence(self) -> int:
        return max(0, (self.face.defence if self.face else 0) + self.defence_bonus)


@dataclass
class Player:
    name: str
    cards: tuple[str, ...]
    life: int


@dataclass
class State:
    players: list[Player]
    dice: dict[str, Die]
    """Every die by its id (``P1:sidekick#1``)."""
    start_life: int
    active: int = 0
    turn: int = 1
    step: Step = Step.SETUP
    rerolled: bool = False
    rolled: list[str] = field(default_factory=list)
    assigned: dict[str, dict[str, int]] = field(default_factory=dict)
    """Attacker -> blocker -> damage, for an attacker with more than one blocker."""
    winner: int | None = None
    draw: bool = False


def _key(owner: int, die: str) -> str:
    return f"P{owner + 1}:{die}"


class Game(SnapshotGame[State]):
    """A game of Dice Masters in progress. Build it with :meth:`new` or :meth:`from_tags`."""

    cards: dict[str, Card]

    def __init__(
        self, state: State, cards: dict[str, Card], basic_actions: Sequence[str], start_step: Step
    ) -> None:
        super().__init__(state)
        self.cards = cards
        """Every card in the game by id (they never change; snapshots leave them out)."""
        self._basic_actions = tuple(basic_actions)
        self._start_step = start_step
        self._first_active = state.active

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        names: Sequence[str],
        teams: Sequence[Sequence[str]],
        *,
        life: int = DEFAULT_LIFE,
        basic_actions: Sequence[str] = BASIC_ACTIONS,
        start_player: int = 0,
        start_step: Step | str = Step.CLEAR_AND_DRAW,
        card_directories: Sequence[Path] = (),
    ) -> Game:
        """A new game: each player's cards (ids) and the Basic Action Cards in the centre. Every
        player has eight Sidekick dice in the bag; card dice wait on their cards until bought.
        ``start_step`` ``main`` starts from a position placed with ``place`` actions.

        :raises IllegalActionError: for a count of players other than two or a card used twice.
        """
        if len(names) != 2 or len(teams) != 2:
            raise IllegalActionError("Dice Masters is played by two players here (the seed's rules)")
        if not 0 <= start_player < 2:
            raise IllegalActionError(f"no player {start_player + 1} to start")
        cards = {"sidekick": load_card("sidekick", card_directories)}
        dice: dict[str, Die] = {}
        for owner, team in enumerate(teams):
            if len(set(team)) != len(team):
                raise IllegalActionError(f"{names[owner]} brings a card twice")
            for card_id in team:
                card = load_card(card_id, card_directories)
                if card.kind is CardKind.SIDEKICK or card.basic:
                    raise IllegalActionError(f"{card.name} is not a team card (Basic Actions are in the centre)")
                cards[card.id] = card
                for n in range(1, card.dice + 1):
                    dice[_key(owner, f"{card.id}#{n}")] = Die(f"{card.id}#{n}", card.id, owner, Zone.CARD)
            for n in range(1, cards["sidekick"].dice + 1):
                dice[_key(owner, f"sidekick#{n}")] = Die(f"sidekick#{n}", "sidekick", owner, Zone.BAG)
        for card_id in basic_actions:
            card = load_card(card_id, card_directories)
            if not card.basic:
                raise IllegalActionError(f"{card.name} is not a Basic Action card")
            cards[card.id] = card
        players = [Player(name=name, cards=tuple(team), life=life) for name, team in zip(names, teams)]
        step = Step(start_step)
        if step not in (Step.CLEAR_AND_DRAW, Step.MAIN):
            raise IllegalActionError(f"a game starts at clear-and-draw or, from placed dice, main; not {step.value}")
        state = State(players=players, dice=dice, start_life=life, active=start_player)
        state.step = Step.SETUP if step is Step.MAIN else Step.CLEAR_AND_DRAW
        game = cls(state, cards, basic_actions, step)
        game.note(f"turn 1: {players[start_player].name} starts; life {life} each")
        return game

    @classmethod
    def from_tags(cls, tags: Mapping[str, str], search: Sequence[Path] = ()) -> Game:
        """A new game from a record's tags: ``P1``/``P2`` (names), ``P1Cards``/``P2Cards`` (card ids),
        ``Basic`` (the Basic Action card ids), ``Life``, ``Start`` (``P1``), ``Step`` (``main`` to
        start from placed dice), ``Cards`` (a directory of card files).

        ``search`` (the tray's custom hero folders, which :func:`rules.records.replay` hands every game)
        holds Dice Throne hero files, not cards: a record names its own card folder in ``Cards``.

        :raises IllegalActionError: naming the tag that is missing or wrong.
        """
        names, teams = [], []
        for n in (1, 2):
            if f"P{n}" not in tags or f"P{n}Cards" not in tags:
                raise IllegalActionError(f'the record needs [P{n} "<name>"] and [P{n}Cards "<card ids>"]')
            names.append(tags[f"P{n}"].strip())
            teams.append(tags[f"P{n}Cards"].split())
        life_text = tags.get("Life", str(DEFAULT_LIFE))
        life = ascii_whole_number(life_text)
        if life is None or life < 1:
            raise IllegalActionError(f"[Life {life_text!r}]: expected the starting life, a whole number")
        start = tags.get("Start", "P1")
        if start not in ("P1", "P2"):
            raise IllegalActionError(f"[Start {start!r}]: expected P1 or P2")
        try:
            step = Step(tags.get("Step", Step.CLEAR_AND_DRAW.value))
        except ValueError:
            raise IllegalActionError(f"[Step {tags['Step']!r}]: expected clear-and-draw or main") from None
        basic = tags["Basic"].split() if "Basic" in tags else list(BASIC_ACTIONS)
        directories = [Path(tags["Cards"])] if "Cards" in tags else []
        return cls.new(
            names, teams, life=life, basic_actions=basic, start_player=int(start[1]) - 1,
            start_step=step, card_directories=directories,
        )

    def record_headers(self) -> list[tuple[str, str]]:
        s = self.state
        tags = [("Game", GAME_NAME), ("Life", str(s.start_life))]
        for n, player in enumerate(s.players, start=1):
            tags += [(f"P{n}", player.name), (f"P{n}Cards", " ".join(player.cards))]
        tags.append(("Basic", " ".join(self._basic_actions)))
        tags.append(("Start", f"P{self._first_active + 1}"))
        if self._start_step is Step.MAIN:
            tags.append(("Step", Step.MAIN.value))
        return tags

    # -- reading ----------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.state.step is Step.OVER

    def die(self, owner: int, die_id: str) -> Die:
        """The die ``die_id`` (``sidekick#3``) of player ``owner``.

        :raises InvalidActionError: when the player has no such die.
        """
        found = self.state.dice.get(_key(owner, die_id))
        if found is None:
            raise InvalidActionError(f"{self.state.players[owner].name} has no die {die_id!r}")
        return found

    def dice_in(self, owner: int, zone: Zone) -> list[Die]:
        return [d for d in self.state.dice.values() if d.owner == owner and d.zone is zone]

    def energy(self, owner: int) -> dict[str, int]:
        """The energy in the player's Reserve Pool by type (generic included), types in card order."""
        counts: Counter[str] = Counter()
        for die in self.dice_in(owner, Zone.RESERVE):
            if die.face is not None and die.face.kind is FaceKind.ENERGY:
                counts[die.face.energy_type] += die.face.energy
        return {t: counts[t] for t in (*ENERGY_TYPES, GENERIC) if counts[t]}

    def cards_with_dice(self, owner: int) -> list[str]:
        """Every card whose dice the player has or may buy: the dice they start with (Sidekicks),
        their own cards and the Basic Actions, each once."""
        start = (d.card for d in self.state.dice.values() if d.owner == owner)
        return list(dict.fromkeys([*start, *self.state.players[owner].cards, *self._basic_actions]))

    def buyable(self, owner: int) -> list[Card]:
        """The cards the player may buy from: their own and the Basic Actions, with dice left."""
        ids = [*self.state.players[owner].cards, *self._basic_actions]
        return [self.cards[c] for c in ids if self._next_die_on(owner, self.cards[c]) is not None]

    def affordable(self, owner: int) -> list[Card]:
        """The cards the Reserve Pool can buy a die of now: enough energy, one of the card's type."""
        energy = self.energy(owner)
        total = sum(energy.values())
        return [
            card for card in self.buyable(owner)
            if total >= card.cost and (not card.energy_type or energy.get(card.energy_type, 0) >= 1)
        ]

    def prompt(self) -> str:
        """What the table does next, one line (the OLED's prompt)."""
        s = self.state
        name = s.players[s.active].name
        other = s.players[1 - s.active].name
        return {
            Step.SETUP: "place the dice, then play",
            Step.CLEAR_AND_DRAW: f"{name}: draw {DRAW_COUNT} dice",
            Step.ROLL: f"{name}: reroll once, or play",
            Step.MAIN: "buy, field, attack or end",
            Step.ATTACK: f"{other}: declare blockers",
            Step.BLOCKED: "actions and globals, then damage",
            Step.DAMAGED: "knock-outs, then end the turn",
            Step.OVER: "a tie" if s.draw else f"winner: {s.players[s.winner or 0].name}",
        }[s.step]

    def to_json(self) -> dict[str, Any]:
        s = self.state

        def zone(owner: int, where: Zone) -> list[str]:
            return sorted(d.id + (f" {d.face}" if d.face is not None and where in (Zone.RESERVE, Zone.FIELD) else "")
                          for d in self.dice_in(owner, where))

        return {
            "game": GAME_NAME,
            "players": [
                {
                    "name": p.name,
                    "cards": list(p.cards),
                    "life": p.life,
                    "energy": self.energy(i),
                    "bag": len(self.dice_in(i, Zone.BAG)),
                    "prep": zone(i, Zone.PREP),
                    "reserve": zone(i, Zone.RESERVE),
                    "field": zone(i, Zone.FIELD),
                    "used": zone(i, Zone.USED),
                }
                for i, p in enumerate(s.players)
            ],
            "turn": s.turn,
            "active": s.players[s.active].name,
            "phase": s.step.value,
            "prompt": self.prompt(),
            "winner": "draw" if s.draw else (None if s.winner is None else s.players[s.winner].name),
        }

    def summary_lines(self) -> list[str]:
        """The final state as text for ``dicetray replay``."""
        return [
            f"  {p['name']}: {p['life']} life, field {', '.join(p['field']) or 'empty'}"
            for p in self.to_json()["players"]
        ]

    # -- helpers ----------------------------------------------------------------------------
    def _seat(self, text: str) -> int:
        return seat_index(text, 2)

    def _expect(self, *steps: Step) -> None:
        if self.state.step not in steps:
            raise IllegalActionError(f"not now: the game is in its {self.state.step.value} step ({self.prompt()})")

    def before_action(self, action: Action) -> None:
        """The first action that is not ``place`` ends the setup."""
        if action.verb != "place" and self.state.step is Step.SETUP:
            self.state.step = self._start_step

    def _active_only(self, owner: int, what: str) -> None:
        if owner != self.state.active:
            raise IllegalActionError(f"only {self.state.players[self.state.active].name} {what} on their turn")

    def _next_die_on(self, owner: int, card: Card) -> Die | None:
        owners = (0, 1) if card.basic else (owner,)
        waiting = [d for d in self.state.dice.values() if d.card == card.id and d.zone is Zone.CARD and d.owner in owners]
        if card.basic:
            bought = sum(1 for d in self.state.dice.values() if d.card == card.id)
            return Die(f"{card.id}#{bought + 1}", card.id, owner, Zone.CARD) if bought < card.dice else None
        return min(waiting, key=lambda d: int(d.id.split("#")[1])) if waiting else None

    # -- setup ------------------------------------------------------------------------------
    def place(self, owner: int, die_id: str, zone: Zone, face: str | None) -> None:
        """Before the first turn, a die starts in ``zone`` (on ``face`` in the Reserve Pool or field)."""
        self._expect(Step.SETUP)
        die = self._die_or_card_die(owner, die_id)
        die.zone = zone
        die.face = self._face_of(die, face) if face is not None else None
        if zone in (Zone.RESERVE, Zone.FIELD) and die.face is None:
            raise IllegalActionError(f"a die in the {zone.value} shows a face: place {die_id} {zone.value} <face>")

    def _die_or_card_die(self, owner: int, die_id: str) -> Die:
        key = _key(owner, die_id)
        if key not in self.state.dice:
            card_id, _, number = die_id.partition("#")
            card = self.cards.get(card_id)
            copy_number = ascii_whole_number(number)
            if card is None or not card.basic or copy_number is None or not 1 <= copy_number <= card.dice:
                return self.die(owner, die_id)
            self.state.dice[key] = Die(die_id, card_id, owner, Zone.CARD)
        return self.state.dice[key]

    def _face_of(self, die: Die, notation: str) -> Face:
        try:
            return self.cards[die.card].face(notation)
        except InvalidRollError as error:
            raise InvalidActionError(f"{die.id}: {error}") from None

    # -- clear and draw, roll and reroll ----------------------------------------------------
    def draw(self, owner: int, dice: Sequence[str]) -> None:
        """Clear and Draw: the active player draws four dice from the bag. When the bag holds fewer,
        they are drawn, the Used Pile goes into the bag and the rest are drawn from it."""
        self._expect(Step.CLEAR_AND_DRAW)
        self._active_only(owner, "draws")
        bag = self.dice_in(owner, Zone.BAG)
        used = self.dice_in(owner, Zone.USED)
        wanted = min(DRAW_COUNT, len(bag) + len(used))
        drawn = [self.die(owner, d) for d in dice]
        if len(drawn) != wanted or len(set(dice)) != len(dice):
            raise IllegalActionError(f"draw {wanted} different dice (Clear and Draw)")
        if len(bag) >= wanted:
            if any(d.zone is not Zone.BAG for d in drawn):
                raise IllegalActionError("the dice drawn come from the bag")
        else:
            if not all(d in drawn for d in bag) or any(d.zone not in (Zone.BAG, Zone.USED) for d in drawn):
                raise IllegalActionError(
                    f"the bag holds {len(bag)}: draw them all, then refill the bag from the Used Pile and draw the rest"
                )
            for die in used:
                die.zone = Zone.BAG
            self.note(f"{self.state.players[owner].name} refills the bag with {len(used)} dice from the Used Pile")
        for die in drawn:
            die.zone, die.face = Zone.PREP, None
        self.state.step = Step.ROLL
        self.state.rolled = []
        self.state.rerolled = False
        self.note(f"{self.state.players[owner].name} draws {', '.join(dice)}")

    def roll(self, owner: int, faces: Sequence[tuple[str, str]]) -> dict[str, int]:
        """The drawn dice and the Prep Area's, rolled into the Reserve Pool. Returns the energy."""
        self._expect(Step.ROLL)
        self._active_only(owner, "rolls")
        if self.state.rolled:
            raise IllegalActionError("the dice are rolled; reroll them once as a group (Roll and Reroll)")
        prep = self.dice_in(owner, Zone.PREP)
        named = [self.die(owner, d) for d, _ in faces]
        if sorted(d.id for d in named) != sorted(d.id for d in prep):
            raise IllegalActionError(
                f"roll the dice drawn and those in the Prep Area: {', '.join(sorted(d.id for d in prep))}"
            )
        for die, (_, face) in zip(named, faces):
            die.zone, die.face = Zone.RESERVE, self._face_of(die, face)
        self.state.rolled = [d.id for d in named]
        self.note(f"{self.state.players[owner].name} rolls " + " ".join(f"{d} {f}" for d, f in faces))
        return self.energy(owner)

    def reroll(self, owner: int, faces: Sequence[tuple[str, str]]) -> dict[str, int]:
        """The one group reroll: any of the rolled dice, all at once. A second is refused."""
        self._active_only(owner, "rerolls")
        if self.state.rerolled:
            raise IllegalActionError("no second reroll, even of dice not rerolled the first time (Roll and Reroll)")
        self._expect(Step.ROLL)
        if not self.state.rolled:
            raise IllegalActionError("roll first")
        for die_id, face in faces:
            die = self.die(owner, die_id)
            if die.id not in self.state.rolled or die.zone is not Zone.RESERVE:
                raise IllegalActionError(f"{die_id} was not rolled this turn")
            die.face = self._face_of(die, face)
        if len({d for d, _ in faces}) != len(faces):
            raise IllegalActionError("each die is rerolled once")
        self.state.rerolled = True
        self.state.step = Step.MAIN
        self.note(f"{self.state.players[owner].name} rerolls " + " ".join(f"{d} {f}" for d, f in faces))
        return self.energy(owner)

    def _main(self) -> None:
        """A Main Step action ends the Roll and Reroll Step (the reroll chance is gone)."""
        if self.state.step is Step.ROLL and self.state.rolled:
            self.state.step = Step.MAIN
            self.state.rerolled = True

    # -- paying -----------------------------------------------------------------------------
    def _pay(self, payer: int, payment: Sequence[tuple[str, int | None]], cost: int, types: Sequence[str]) -> None:
        """Spends energy from the payer's Reserve Pool. ``payment`` is (die, amount) with amount None
        for the whole face; a part of a non-generic face spins the die down to the face showing what
        is left. Generic energy not spent at once is lost; non-generic energy may not be wasted.
        ``types`` are the energy types the payment must include, one unit each."""
        spent: Counter[str] = Counter()
        typed = 0
        generic = 0
        spins: list[tuple[Die, Face | None]] = []
        seen: set[str] = set()
        for die_id, amount in payment:
            die = self.die(payer, die_id)
            if die_id in seen:
                raise IllegalActionError(f"{die_id} is paid with once")
            seen.add(die_id)
            face = die.face
            if die.zone is not Zone.RESERVE or face is None or face.kind is not FaceKind.ENERGY:
                raise IllegalActionError(f"{die_id} shows no energy in the Reserve Pool (Spending Energy)")
            if amount is None or amount == face.energy:
                used, rest = face.energy, None
            else:
                if face.generic:
                    raise IllegalActionError(
                        f"{die_id}: generic energy is spent whole; what is not spent at once is lost (Spending Energy)"
                    )
                if not 1 <= amount < face.energy:
                    raise IllegalActionError(f"{die_id} shows {face.energy} energy, not {amount} to spend")
                left = face.energy - amount
                rest = next(
                    (f for f in sorted(self.cards[die.card].faces, key=lambda f: f.bursts)
                     if f.kind is FaceKind.ENERGY and f.energy_type == face.energy_type and f.energy == left),
                    None,
                )
                if rest is None:
                    raise IllegalActionError(f"{die_id} has no face showing the {left} energy left to spin down to")
                used = amount
            if face.generic:
                generic += used
            else:
                typed += used
                spent[face.energy_type] += used
            spins.append((die, rest))
        if typed + generic < cost:
            raise IllegalActionError(f"{typed + generic} energy paid, the cost is {cost}")
        if typed > cost:
            raise IllegalActionError(
                f"{typed} non-generic energy for a cost of {cost}: spin a die down to spend part of it (partial spending)"
            )
        need = Counter(t for t in types if t)
        for energy_type, count in need.items():
            if spent[energy_type] < count:
                raise IllegalActionError(
                    f"at least one {energy_type} energy must pay for each {energy_type} card (Purchasing a Die)"
                )
        on_turn = payer == self.state.active
        for die, rest in spins:
            if rest is not None:
                die.face = rest  # spun down: stays in the Reserve Pool
            else:
                die.zone, die.face = (Zone.OUT if on_turn else Zone.USED), None

    def payment_for(self, owner: int, cost: int, types: Sequence[str] = ()) -> list[tuple[str, int | None]] | None:
        """A way to pay ``cost`` from the player's Reserve Pool with one energy of each type in
        ``types``: typed energy first (spinning a die down rather than wasting it), generic dice
        last (whole). None when the Reserve Pool cannot pay."""
        pool = sorted(
            (d for d in self.dice_in(owner, Zone.RESERVE) if d.face is not None and d.face.kind is FaceKind.ENERGY),
            key=lambda d: (d.face.generic if d.face else True, d.face.energy if d.face else 0, d.id),
        )
        chosen: dict[str, int] = {}
        left = cost

        def take(die: Die) -> bool:
            nonlocal left
            assert die.face is not None
            if die.face.generic:
                chosen[die.id] = die.face.energy
                left -= die.face.energy
                return True
            amount = min(die.face.energy, left)
            if amount < die.face.energy and not any(
                f.kind is FaceKind.ENERGY and f.energy_type == die.face.energy_type and f.energy == die.face.energy - amount
                for f in self.cards[die.card].faces
            ):
                return False
            chosen[die.id] = amount
            left -= amount
            return True

        for energy_type in (t for t in types if t):
            die = next((d for d in pool if d.id not in chosen and d.face and d.face.energy_type == energy_type), None)
            if die is None or left <= 0 or not take(die):
                return None
        for die in pool:
            if left <= 0:
                break
            if die.id not in chosen:
                take(die)
        if left > 0:
            return None
        whole = {d.id: d.face.energy for d in pool if d.face is not None}
        return [(die_id, None if whole[die_id] == amount else amount) for die_id, amount in chosen.items()]

    # -- main step --------------------------------------------------------------------------
    def buy(self, owner: int, card_ids: Sequence[str], payment: Sequence[tuple[str, int | None]]) -> list[str]:
        """Buys one die of each card named (several at once to spend a generic die whole). The dice
        go to the Used Pile. Returns their ids."""
        self._main()
        self._expect(Step.MAIN)
        self._active_only(owner, "buys dice")
        cards: list[Card] = []
        for card_id in card_ids:
            card = self.cards.get(card_id)
            if card is None or card.kind is CardKind.SIDEKICK or (
                not card.basic and card_id not in self.state.players[owner].cards
            ):
                raise IllegalActionError(f"{self.state.players[owner].name} cannot buy from {card_id!r} "
                                         "(their own cards and the Basic Actions)")
            cards.append(card)
        bought: list[Die] = []
        for card in cards:
            die = self._next_die_on(owner, card)
            if die is None:
                raise IllegalActionError(f"no {card.name} dice left on the card")
            key = _key(owner, die.id)
            self.state.dice.setdefault(key, die)
            bought.append(self.state.dice[key])
            # Bought dice go to the Used Pile (a failed payment undoes this with the whole action).
            bought[-1].zone, bought[-1].face = Zone.USED, None
        self._pay(owner, payment, sum(c.cost for c in cards), [c.energy_type for c in cards])
        self.note(f"{self.state.players[owner].name} buys {', '.join(d.id for d in bought)}")
        return [d.id for d in bought]

    def field(self, owner: int, die_ids: Sequence[str], payment: Sequence[tuple[str, int | None]]) -> None:
        """Fields character dice from the Reserve Pool, paying their fielding costs in any energy."""
        self._main()
        self._expect(Step.MAIN)
        self._active_only(owner, "fields characters")
        dice = [self.die(owner, d) for d in die_ids]
        for die in dice:
            if die.zone is not Zone.RESERVE or die.face is None or die.face.kind is not FaceKind.CHARACTER:
                raise IllegalActionError(f"{die.id} is not a character face in the Reserve Pool (Field Characters)")
        if any(die_id in {d for d, _ in payment} for die_id in die_ids):
            raise IllegalActionError("a die being fielded cannot pay for itself")
        cost = sum(d.face.fielding_cost for d in dice if d.face is not None)
        if cost or payment:
            self._pay(owner, payment, cost, ())
        for die in dice:
            die.zone = Zone.FIELD
        self.note(f"{self.state.players[owner].name} fields {', '.join(f'{d.id} {d.face}' for d in dice)}")
        for die in dice:
            self._burst(die)

    def _burst(self, die: Die) -> str:
        """A face with bursts used: the card's matching burst text, for the table (Bursts)."""
        text = self.cards[die.card].burst_text(die.face.bursts if die.face else 0)
        if text:
            self.note(f"{die.id} burst: {text}")
        return text

    def use_global(self, owner: int, card_id: str, payment: Sequence[tuple[str, int | None]],
                   target: tuple[int, str] | None) -> str:
        """Any player uses a Global Ability of a card in the game (their own, their opponent's or a
        Basic Action) in the Main Step, or after blockers are declared. Returns its text."""
        self._main()
        self._expect(Step.MAIN, Step.BLOCKED)
        card = self.cards.get(card_id)
        if card is None or card.global_ability is None:
            raise IllegalActionError(f"{card_id!r} has no Global Ability in this game")
        ability = card.global_ability
        self._pay(owner, payment, ability.cost, (ability.energy_type,))
        if ability.attack or ability.defence:
            if target is None:
                raise IllegalActionError(f"{card.name}'s Global Ability needs a target: target P1 <die>")
            die = self.die(*target)
            if die.zone is not Zone.FIELD:
                raise IllegalActionError(f"{die.id} is not in the field: effects target character dice in the field")
            die.attack_bonus += ability.attack
            die.defence_bonus += ability.defence
        self.note(f"{self.state.players[owner].name} uses {card.name}: {ability.text}")
        return ability.text

    def use_action(self, owner: int, die_id: str) -> str:
        """The active player uses an action die from the Reserve Pool (no energy): Out of Play."""
        self._main()
        self._expect(Step.MAIN, Step.ATTACK, Step.BLOCKED)
        self._active_only(owner, "uses action dice")
        die = self.die(owner, die_id)
        if die.zone is not Zone.RESERVE or die.face is None or die.face.kind is not FaceKind.ACTION:
            raise IllegalActionError(f"{die_id} shows no action face in the Reserve Pool")
        text = self.cards[die.card].text
        self.note(f"{self.state.players[owner].name} uses {die_id}: {text}")
        burst = self._burst(die)
        die.zone, die.face = Zone.OUT, None
        return " ".join(t for t in (text, burst) if t)

    def bonus(self, owner: int, die_id: str, attack: int, defence: int) -> None:
        """A bonus a card's text gives (the table applies it): +A / +D until the end of the turn.
        A die whose defence falls to 0 is knocked out."""
        die = self.die(owner, die_id)
        if die.zone is not Zone.FIELD:
            raise IllegalActionError(f"{die_id} is not in the field")
        die.attack_bonus += attack
        die.defence_bonus += defence
        if die.defence == 0:
            self._knock_out(die)

    def move(self, owner: int, die_id: str, zone: Zone, face: str | None) -> None:
        """A card's text moves a die (a knocked-out die returns to the field, a die is drawn to the
        Prep Area); from an empty bag the Used Pile refills it first."""
        die = self.die(owner, die_id)
        if zone is Zone.PREP and die.zone in (Zone.BAG, Zone.USED):
            bag = self.dice_in(owner, Zone.BAG)
            if not bag:
                for used in self.dice_in(owner, Zone.USED):
                    used.zone = Zone.BAG
            if die.zone is not Zone.BAG:
                raise IllegalActionError(f"{die_id} is not in the bag to draw")
        die.zone = zone
        if zone is Zone.FIELD:
            if face is None and die.face is None:
                raise IllegalActionError(f"{die_id} needs a face in the field")
            if face is not None:
                die.face = self._face_of(die, face)
        elif zone is not Zone.RESERVE:
            die.face = self._face_of(die, face) if face else None
        self.note(f"{self.state.players[owner].name}'s {die_id} moves to the {zone.value} (card text)")

    def change_life(self, owner: int, amount: int) -> int:
        """A card's text changes a player's life; it never goes above the start (Fundamental Rules)."""
        player = self.state.players[owner]
        player.life = max(0, min(self.state.start_life, player.life + amount))
        self._check_life()
        return player.life

    # -- attack -----------------------------------------------------------------------------
    def declare_attackers(self, owner: int, die_ids: Sequence[str]) -> None:
        """Fielded characters into the Attack Zone; the Main Step ends and the characters left in the
        Reserve Pool go to the Used Pile."""
        self._main()
        self._expect(Step.MAIN)
        self._active_only(owner, "attacks")
        if not die_ids:
            raise IllegalActionError("name the attackers, or end the turn (no attack ends it at once)")
        dice = [self.die(owner, d) for d in die_ids]
        if any(d.zone is not Zone.FIELD for d in dice) or len(set(die_ids)) != len(die_ids):
            raise IllegalActionError("attack with fielded characters, each once")
        self._unfielded_to_used(owner)
        for die in dice:
            die.attacking = True
        self.state.step = Step.ATTACK
        self.note(f"{self.state.players[owner].name} attacks with {', '.join(die_ids)}")

    def _unfielded_to_used(self, owner: int) -> None:
        for die in self.dice_in(owner, Zone.RESERVE):
            if die.face is not None and die.face.kind is FaceKind.CHARACTER:
                die.zone, die.face = Zone.USED, None

    def declare_blockers(self, owner: int, pairs: Sequence[tuple[str, str]]) -> None:
        """The defender's fielded characters each block one attacker (several may block one)."""
        self._expect(Step.ATTACK)
        if owner == self.state.active:
            raise IllegalActionError("the defending player declares blockers")
        attacker_ids = {d.id for d in self.dice_in(self.state.active, Zone.FIELD) if d.attacking}
        blockers = [b for b, _ in pairs]
        if len(set(blockers)) != len(blockers):
            raise IllegalActionError("a blocker blocks one attacker only")
        for blocker_id, attacker_id in pairs:
            blocker = self.die(owner, blocker_id)
            if blocker.zone is not Zone.FIELD:
                raise IllegalActionError(f"{blocker_id} is not a fielded character")
            if attacker_id not in attacker_ids:
                raise IllegalActionError(f"{attacker_id} is not attacking")
            blocker.blocking = attacker_id
        self.state.step = Step.BLOCKED
        self.note(
            f"{self.state.players[owner].name} blocks " + (", ".join(f"{a} with {b}" for b, a in pairs) or "nothing")
        )

    def assign(self, attacker_id: str, split: Mapping[str, int]) -> None:
        """How an attacker blocked by several characters divides its damage (all of it)."""
        self._expect(Step.BLOCKED)
        attacker = self.die(self.state.active, attacker_id)
        blockers = {b.id for b in self._blockers_of(attacker)}
        if set(split) != blockers or sum(split.values()) != attacker.attack or min(split.values()) < 0:
            raise IllegalActionError(
                f"{attacker_id} assigns all its {attacker.attack} damage among its blockers {sorted(blockers)}"
            )
        self.state.assigned[attacker_id] = dict(split)

    def _blockers_of(self, attacker: Die) -> list[Die]:
        return [d for d in self.dice_in(1 - self.state.active, Zone.FIELD) if d.blocking == attacker.id]

    def deal_damage(self) -> dict[str, int]:
        """Damage happens at once: blocked attackers and their blockers damage each other, unblocked
        attackers damage the defending player (then go Out of Play); then every character with
        damage at least its defence is knocked out to its owner's Prep Area. Returns life."""
        self._expect(Step.BLOCKED)
        s = self.state
        defender = 1 - s.active
        attackers = [d for d in self.dice_in(s.active, Zone.FIELD) if d.attacking]
        unblocked = 0
        for attacker in attackers:
            blockers = self._blockers_of(attacker)
            if not blockers:
                unblocked += attacker.attack
                continue
            if len(blockers) == 1:
                split = {blockers[0].id: attacker.attack}
            elif attacker.id in s.assigned:
                split = s.assigned[attacker.id]
            else:
                raise IllegalActionError(f"{attacker.id} has {len(blockers)} blockers: assign its damage first")
            for blocker in blockers:
                blocker.damage += split.get(blocker.id, 0)
                attacker.damage += blocker.attack
        for attacker in attackers:
            if not self._blockers_of(attacker):
                attacker.zone, attacker.face, attacker.attacking = Zone.OUT, None, False
        s.players[defender].life = max(0, s.players[defender].life - unblocked)
        self.note(f"{unblocked} unblocked damage: {s.players[defender].name} at {s.players[defender].life} life")
        for die in list(s.dice.values()):
            if die.zone is Zone.FIELD and (die.attacking or die.blocking) and die.damage >= die.defence:
                self._knock_out(die)
        s.step = Step.DAMAGED
        self._check_life()
        return {p.name: p.life for p in s.players}

    def _knock_out(self, die: Die) -> None:
        self.note(f"{die.id} ({self.state.players[die.owner].name}) is knocked out")
        die.zone, die.face, die.attacking, die.blocking = Zone.PREP, None, False, None

    def _check_life(self) -> None:
        s = self.state
        down = [i for i, p in enumerate(s.players) if p.life <= 0]
        if len(down) == 2:
            s.draw, s.step = True, Step.OVER
            self.note("both players reach 0 at once: a tie")
        elif down:
            s.winner, s.step = 1 - down[0], Step.OVER
            self.note(f"{s.players[down[0]].name} is at 0 life: {s.players[1 - down[0]].name} wins")

    def end_turn(self, owner: int) -> None:
        """Ends the turn (at once when the active player does not attack): Cleanup, then the
        opponent's turn. Cleanup: damage and bonuses clear; blockers and blocked characters return
        to the field; only energy faces stay in the Reserve Pool; Out of Play goes to the Used Pile."""
        self._main()
        self._expect(Step.MAIN, Step.DAMAGED)
        self._active_only(owner, "ends the turn")
        s = self.state
        if s.step is Step.MAIN:
            self._unfielded_to_used(owner)
        for die in s.dice.values():
            die.damage = die.attack_bonus = die.defence_bonus = 0
            die.attacking, die.blocking = False, None
            if die.zone is Zone.RESERVE and (die.face is None or die.face.kind is not FaceKind.ENERGY):
                die.zone, die.face = Zone.USED, None
            if die.zone is Zone.OUT:
                die.zone = Zone.USED
        s.assigned = {}
        s.active = 1 - s.active
        s.turn += 1
        s.step = Step.CLEAR_AND_DRAW
        self.note(f"turn {s.turn}: {s.players[s.active].name}")


def _pairs(args: Sequence[str], usage: str) -> list[tuple[str, str]]:
    if len(args) % 2:
        raise InvalidActionError(usage)
    return [(args[i], args[i + 1]) for i in range(0, len(args), 2)]


def _payment(words: Sequence[str]) -> list[tuple[str, int | None]]:
    paid: list[tuple[str, int | None]] = []
    for word in words:
        die, sep, amount = word.partition("=")
        paid.append((die, whole_number(amount, f"paying with {die}") if sep else None))
    return paid


def _split_pay(args: Sequence[str]) -> tuple[list[str], list[tuple[str, int | None]], list[str]]:
    """``X Y pay A B=1 target P2 D`` -> ([X, Y], [(A, None), (B, 1)], [P2, D])."""
    words = list(args)
    target: list[str] = []
    if "target" in words:
        at = words.index("target")
        words, target = words[:at], words[at + 1:]
    if "pay" in words:
        at = words.index("pay")
        return words[:at], _payment(words[at + 1:]), target
    return words, [], target


def _player_and_rest(game: Game, args: tuple[str, ...], usage: str) -> tuple[int, tuple[str, ...]]:
    if not args:
        raise InvalidActionError(usage)
    return game._seat(args[0]), args[1:]


def _zone(text: str) -> Zone:
    try:
        return Zone(text)
    except ValueError:
        raise InvalidActionError(f"no zone {text!r} (zones: {', '.join(z.value for z in Zone)})") from None


def _place(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "place P1 <die> <zone> [face]")
    if len(rest) not in (2, 3):
        raise InvalidActionError("place P1 <die> <zone> [face]")
    game.place(seat, rest[0], _zone(rest[1]), rest[2] if len(rest) == 3 else None)
    return None


def _move(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "move P1 <die> <zone> [face]")
    if len(rest) not in (2, 3):
        raise InvalidActionError("move P1 <die> <zone> [face]")
    game.move(seat, rest[0], _zone(rest[1]), rest[2] if len(rest) == 3 else None)
    return None


def _buy(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "buy P1 <card> ... pay <die>[=N] ...")
    cards, paid, _ = _split_pay(rest)
    return game.buy(seat, cards, paid)


def _field(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "field P1 <die> ... [pay <die>[=N] ...]")
    dice, paid, _ = _split_pay(rest)
    game.field(seat, dice, paid)
    return None


def _global(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "global P1 <card> pay <die>[=N] ... [target P2 <die>]")
    card, paid, target = _split_pay(rest)
    if len(card) != 1 or len(target) not in (0, 2):
        raise InvalidActionError("global P1 <card> pay <die>[=N] ... [target P2 <die>]")
    return game.use_global(seat, card[0], paid, (game._seat(target[0]), target[1]) if target else None)


def _bonus(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "bonus P1 <die> +1A [-1D]")
    if not rest:
        raise InvalidActionError("bonus P1 <die> +1A [-1D]")
    attack = defence = 0
    for word in rest[1:]:
        amount, letter = word[:-1], word[-1:].upper()
        if letter not in ("A", "D"):
            raise InvalidActionError(f"a bonus is +NA or +ND, not {word!r}")
        value = whole_number(amount, "a bonus")
        attack, defence = (attack + value, defence) if letter == "A" else (attack, defence + value)
    game.bonus(seat, rest[0], attack, defence)
    return None


def _assign(game: Game, args: tuple[str, ...]) -> object:
    if len(args) < 3 or len(args) % 2 == 0:
        raise InvalidActionError("assign <attacker> <blocker> N <blocker> N")
    game.assign(args[0], {b: whole_number(n, "damage") for b, n in _pairs(args[1:], "assign")})
    return None


def _die_faces(game: Game, args: tuple[str, ...], verb: str) -> tuple[int, list[tuple[str, str]]]:
    seat, rest = _player_and_rest(game, args, f"{verb} P1 <die> <face> ...")
    return seat, _pairs(rest, f"{verb} P1 <die> <face> ...")


def _roll(game: Game, args: tuple[str, ...]) -> object:
    return game.roll(*_die_faces(game, args, "roll"))


def _reroll(game: Game, args: tuple[str, ...]) -> object:
    return game.reroll(*_die_faces(game, args, "reroll"))


def _draw(game: Game, args: tuple[str, ...]) -> object:
    seat, dice = _player_and_rest(game, args, "draw P1 <die> <die> <die> <die>")
    game.draw(seat, dice)
    return None


def _attack(game: Game, args: tuple[str, ...]) -> object:
    seat, dice = _player_and_rest(game, args, "attack P1 <die> ...")
    game.declare_attackers(seat, dice)
    return None


def _action(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "action P1 <die>")
    if len(rest) != 1:
        raise InvalidActionError("action P1 <die>")
    return game.use_action(seat, rest[0])


def _end(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "end P1")
    if rest:
        raise InvalidActionError("end P1")
    game.end_turn(seat)
    return None


def _life(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "life P1 +N")
    if len(rest) != 1:
        raise InvalidActionError("life P1 +N")
    return game.change_life(seat, whole_number(rest[0], "life"))


def _damage(game: Game, args: tuple[str, ...]) -> object:
    if args:
        raise InvalidActionError("damage takes no arguments")
    return game.deal_damage()


def _block(game: Game, args: tuple[str, ...]) -> object:
    seat, rest = _player_and_rest(game, args, "block P2 <blocker> <attacker> ...")
    game.declare_blockers(seat, _pairs(rest, "block P2 <blocker> <attacker> ..."))
    return None


Game.VERBS = {
    "place": _place,
    "draw": _draw,
    "roll": _roll,
    "reroll": _reroll,
    "buy": _buy,
    "field": _field,
    "global": _global,
    "action": _action,
    "bonus": _bonus,
    "move": _move,
    "life": _life,
    "attack": _attack,
    "block": _block,
    "assign": _assign,
    "damage": _damage,
    "end": _end,
}
