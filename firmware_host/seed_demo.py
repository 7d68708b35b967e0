"""The demos of Battle Dice and Dice Masters: a game played on the simulated tray, by itself.

Each roll is a frame of the simulated tray (:func:`hardware.sim.render.render_tray`): coloured
Battle Dice with pips, read by the product's reader (:class:`vision.reader.DiceReader`), or Dice
Masters dice whose faces are artwork (a glyph per energy type, a star for a character face),
which the tray reads from a calibrated profile; the simulator's truth stands in for that profile
here (at the demo's 40 px a die, corner numbers are misread about one read in ten:
docs/dice-masters.md), and for the body colour of those dice, which the reader measures for the
Battle Dice it reads. The players' choices are button presses on the game's menus (SELECT to the
choice, NEXT), picked from a seeded generator, so a seed always plays the same game. Every display frame is written as a PNG and the
game's record is left as ``DIR/game.dtr``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

from firmware_host.battledice_flow import BattleDiceFlow
from firmware_host.choice_flow import ChoiceFlow, TrayDie
from firmware_host.dicemasters_flow import DiceMastersFlow
from firmware_host.transcript import FlowEvent, Transcript
from hardware.buttons import ButtonEvent
from hardware.sim.faces import DieDesign, DieStyle, FaceArt
from hardware.sim.render import RenderedTray, render_tray
from hardware.sim.scene import Background, Camera, DiePose, TrayScene
from rules.dicemasters.cards import Card
from rules.records import GameRecord
from vision.types import DieReading

GAMES = ("battle-dice", "dice-masters")

# Battle Dice: each player's dice have their own colours, so colour and side of the tray agree.
BATTLE_DICE = {
    "P1": "Ann", "P1Team": "captain-america spider-man wolverine", "P1Dice": "red blue green",
    "P2": "Bob", "P2Team": "ultron doc-ock magneto", "P2Dice": "yellow purple orange",
}
TIEBREAK_COLOUR = "white"
"""The empty battle die rolled to break a Strike Total tie."""

# Dice Masters: the seed's Demo Game, a body colour per card.
DICE_MASTERS = {
    "P1": "Patricia", "P1Cards": "martian-manhunter batman",
    "P2": "Jimmy", "P2Cards": "wonder-woman-champion-of-themyscira zatanna",
    "Basic": "anger-issues villainous-pact", "Life": "10",
}
_BASIC_COLOURS = {"anger-issues": "red", "villainous-pact": "grey"}
DICE_MASTERS_COLOURS: tuple[Mapping[str, str], ...] = (
    {"sidekick": "white", "martian-manhunter": "green", "batman": "black", **_BASIC_COLOURS},
    {"sidekick": "ivory", "wonder-woman-champion-of-themyscira": "blue", "zatanna": "purple", **_BASIC_COLOURS},
)
ENERGY_GLYPHS = {"mask": "skull", "fist": "pow", "bolt": "bolt", "shield": "shield", "generic": "star"}
"""The artwork the simulated Dice Masters dice show for each energy type."""
CHARACTER_GLYPH = "heart"
ACTION_GLYPH = "flame"

_STEP_LIMIT = 3000

Throw = tuple[int, str, DieDesign, int, "tuple[float, float] | None"]
"""One die thrown: value up, body colour, design, side of the tray (seat), and where it lies when
it stays put (a die not rerolled), as fractions of the frame."""


@dataclass(frozen=True)
class SeedDemoResult:
    game: str
    transcript: tuple[str, ...]
    winner: str | None
    actions: int
    rolls: int
    frames_shown: int
    read_by_reader: int
    """Dice whose face the product's reader read (Battle Dice pips)."""
    from_truth: int
    """Dice whose face came from the simulator's truth (artwork faces; a die the reader missed)."""
    colours_by_reader: int = 0
    """Dice whose body colour (whose die it is) the reader measured, rather than the truth."""

    @property
    def finished(self) -> bool:
        return self.winner is not None


class _Screen:
    """The transcript, and the OLED (PNG frames in the demo's folder) shown by the presenters
    after every event and every button press."""

    def __init__(self, out: Path, transcript: Transcript) -> None:
        from firmware_host.presenters import Presenters
        from hardware.display import CaptureDisplay

        self.display = CaptureDisplay(out, replace_existing=True)
        self.transcript = transcript
        self.presenters = Presenters(display=self.display)

    def __call__(self, event: FlowEvent) -> None:
        self.transcript(event)
        self.show()

    def show(self) -> None:
        self.presenters.refresh()


class SeedGameDemo:
    """Plays one game of Battle Dice or Dice Masters on the simulated tray."""

    def __init__(self, game: str, out: str | Path, seed: int = 0, *, echo: TextIO | None = None,
                 turn_limit: int = 60) -> None:
        from rules.games import find_game
        from vision.reader import DiceReader

        if game not in GAMES:
            raise ValueError(f"no demo of {game!r} (demos: {', '.join(GAMES)})")
        self.name = game
        self.out = Path(out)
        self.rng = np.random.default_rng([seed, 13])
        self.transcript = Transcript(echo=echo)
        self.screen = _Screen(self.out, self.transcript)
        self.reader = DiceReader()
        self.turn_limit = turn_limit
        self.rolls = self.read_by_reader = self.from_truth = self.colours_by_reader = 0
        tags = BATTLE_DICE if game == "battle-dice" else DICE_MASTERS
        table = find_game(game).from_tags(tags)
        self.flow: ChoiceFlow
        if game == "battle-dice":
            self.flow = BattleDiceFlow(table, on_event=self.screen)  # type: ignore[arg-type]
        else:
            self.flow = DiceMastersFlow(table, DICE_MASTERS_COLOURS, on_event=self.screen)  # type: ignore[arg-type]
        self.screen.presenters.flow = self.flow
        self.tags = tags
        self._avoid: list[tuple[float, float]] = []

    # -- playing ----------------------------------------------------------------------------
    def play(self) -> SeedDemoResult:
        self.screen.show()
        for _ in range(_STEP_LIMIT):
            if self.flow.is_over or self._turns() > self.turn_limit:
                break
            if self.flow.wants_dice() and not (self.flow.menu() and self.rng.random() < 0.5):
                self._throw()
            else:
                self._press_a_choice()
        self.screen.display.close()
        record = GameRecord.of(self.flow.game)
        (self.out / "game.dtr").write_text(record.notation(), encoding="utf-8")
        (self.out / "transcript.txt").write_text(self.transcript.text(), encoding="utf-8")
        return SeedDemoResult(
            game=self.name,
            transcript=self.transcript.lines,
            winner=self.flow.game.to_json()["winner"],
            actions=len(self.flow.game.actions),
            rolls=self.rolls,
            frames_shown=self.screen.display.frames_written,
            read_by_reader=self.read_by_reader,
            from_truth=self.from_truth,
            colours_by_reader=self.colours_by_reader,
        )

    def _turns(self) -> int:
        return int(self.flow.game.to_json()["turn"])

    def _press_a_choice(self) -> None:
        """Presses SELECT to a choice and NEXT, as a player would; Dice Masters players prefer
        buying, fielding and attacking to ending the turn."""
        options = self.flow.menu()
        if not options:
            return
        weights = np.array([_weight(o.action) for o in options], float)
        pick = int(self.rng.choice(len(options), p=weights / weights.sum()))
        while self.flow.selected != pick:
            self.flow.press(ButtonEvent.SELECT)
            self.screen.show()
        self.flow.press(ButtonEvent.NEXT)

    # -- the simulated tray -----------------------------------------------------------------
    def _throw(self) -> None:
        """The dice this step rolls, thrown into the simulated tray, rendered, read and played."""
        specs = self._dice_to_throw()
        if not specs:
            self._press_a_choice()
            return
        seen = self._render_and_read(specs)
        self.rolls += 1
        if not self.flow.on_dice(seen):
            self._press_a_choice()

    def _dice_to_throw(self) -> list[Throw]:
        """(value up, colour, design, side 0/1) of each die thrown now."""
        if isinstance(self.flow, BattleDiceFlow):
            return self._battle_dice()
        assert isinstance(self.flow, DiceMastersFlow)
        return self._dice_masters()

    def _battle_dice(self) -> list[Throw]:
        from rules.battledice.game import Phase, Zone

        game = self.flow.game
        s = game.state  # type: ignore[attr-defined]
        pips = DieDesign.pips()
        throws: list[Throw] = []
        if s.phase is Phase.TIEBREAK:
            return [(self._d6(), TIEBREAK_COLOUR, pips, seat, None) for seat in s.tied]
        if s.phase is Phase.REROLL:
            return [(self._d6(), colour, pips, seat, None) for seat, colour in s.battle.dice]
        for seat, player in enumerate(s.seats):
            if seat in s.rolled:
                continue
            ready = [d for d in player.in_zone(Zone.READY) if d.loaded][: s.mode.dice_per_round]
            throws += [(self._d6(), die.colour, pips, seat, None) for die in ready]
        return throws

    def _dice_masters(self) -> list[Throw]:
        from rules.dicemasters.game import Step, Zone

        flow = self.flow
        assert isinstance(flow, DiceMastersFlow)
        game = flow.game
        s = game.state
        owner = s.active
        if s.step is Step.ROLL:
            # The reroll: some dice at random thrown again; the others lie where they are.
            rolled = [game.die(owner, d) for d in s.rolled]
            self._avoid = list(flow._places.values())  # a thrown die lands somewhere new
            again = [d for d in rolled if self.rng.random() < 0.35] or [rolled[int(self.rng.integers(len(rolled)))]]
            throws: list[Throw] = []
            for die in rolled:
                card = game.cards[die.card]
                design = _design(card)
                colour = flow.colours[owner][die.card]
                if die in again or die.face is None:
                    throws.append((self._d6(), colour, design, owner, None))
                else:
                    throws.append((1 + card.faces.index(die.face), colour, design, owner, flow._places[die.id]))
            return throws
        prep = game.dice_in(owner, Zone.PREP)
        bag = game.dice_in(owner, Zone.BAG)
        pool = bag if len(bag) >= 4 else bag + [
            d for d in game.dice_in(owner, Zone.USED) if d not in bag
        ]
        count = min(4, len(pool))
        drawn = list(bag) if len(bag) < count else []
        rest = [d for d in pool if d not in drawn]
        order = self.rng.permutation(len(rest))
        drawn += [rest[int(i)] for i in order[: count - len(drawn)]]
        return [
            (self._d6(), flow.colours[owner][d.card], _design(game.cards[d.card]), owner, None)
            for d in (*prep, *drawn)
        ]

    def _d6(self) -> int:
        return int(self.rng.integers(1, 7))

    def _render_and_read(self, specs: Sequence[Throw]) -> list[TrayDie]:
        """Renders the dice lying on their sides of the tray; each die's face and body colour from
        the reader when it can read it (pips), else from the simulator's truth; place from the truth."""
        tray, places = render_throw(specs, self.rng, avoid=self._avoid)
        self._avoid = []
        pips = all(design.name == "pips" for _, _, design, _, _ in specs)
        reading = self.reader.read(tray.frame) if pips else None
        seen = []
        for (value, colour, design, _, _), truth, (x, y) in zip(specs, tray.truth, places):
            face = self._face(design, value)
            if reading is not None:
                read = _nearest(reading.dice, truth.box)
                if read is not None and read.value is not None:
                    face = str(read.value)
                    self.read_by_reader += 1
                    if read.colour is not None:
                        colour = read.colour.name
                        self.colours_by_reader += 1
                else:
                    self.from_truth += 1
            else:
                self.from_truth += 1
            seen.append(TrayDie(face=face, colour=colour, x=x, y=y))
        return seen

    def _face(self, design: DieDesign, value: int) -> str:
        if design.name == "pips":
            return str(value)
        art = design.face(value)
        return art.symbol or art.label


def render_throw(
    specs: Sequence[Throw], rng: np.random.Generator, *, avoid: Sequence[tuple[float, float]] = ()
) -> tuple[RenderedTray, list[tuple[float, float]]]:
    """The simulated tray (640x480, wood) with the dice of ``specs`` lying on their sides of it,
    and where each lies (fractions of the frame). A grid of places per side, 4 across and 4 down:
    a die that stays keeps its place, a thrown one takes a free place away from ``avoid`` (where
    dice lay before)."""
    camera = Camera(640, 480, 0.0, 40.0)
    taken = [p for *_, p in specs if p is not None] + list(avoid)
    free: dict[int, list[tuple[float, float]]] = {}
    for side in {spec[3] for spec in specs}:
        grid = [((40 + 75 * col + 320 * side) / camera.width, (60 + 110 * row) / camera.height)
                for row in range(4) for col in range(4)]
        free[side] = [g for g in grid if all(abs(g[0] - t[0]) + abs(g[1] - t[1]) > 0.08 for t in taken)]
    poses = []
    places = []
    for value, colour, design, side, place in specs:
        if place is None:
            gx, gy = free[side].pop(0)
            place = (gx + float(rng.uniform(-0.01, 0.01)), gy + float(rng.uniform(-0.03, 0.03)))
        x, y = camera.unproject(place[0] * camera.width, place[1] * camera.height)
        ink = "black" if colour in ("white", "ivory", "yellow", "orange") else "white"
        poses.append(DiePose(value, x, y, float(rng.uniform(0, 90)), design, DieStyle.parse(f"{colour}/{ink}")))
        places.append(place)
    scene = TrayScene(camera=camera, background=Background("wood"), dice=tuple(poses))
    return render_tray(scene, rng), places


def _nearest(dice: Sequence[DieReading], box: tuple[int, int, int, int]) -> DieReading | None:
    cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
    best, best_d = None, 40.0
    for die in dice:
        bx, by, bw, bh = die.box
        d = ((bx + bw / 2 - cx) ** 2 + (by + bh / 2 - cy) ** 2) ** 0.5
        if d < best_d:
            best, best_d = die, d
    return best


def _design(card: Card) -> DieDesign:
    """A Dice Masters die as the simulated tray draws it: a glyph per face, the face notation as
    the face's symbol (what a calibrated profile of the die reads)."""
    faces = []
    for value, face in enumerate(card.faces, start=1):
        if face.kind.value == "energy":
            glyph = ENERGY_GLYPHS[face.energy_type]
        elif face.kind.value == "character":
            glyph = CHARACTER_GLYPH
        else:
            glyph = ACTION_GLYPH
        faces.append(FaceArt.glyph_face(value, glyph, number=True, symbol=face.notation()))
    return DieDesign(f"dicemasters-{card.id}", tuple(faces))


def _weight(action: str) -> float:
    verb = action.split()[0]
    return {"buy": 6.0, "field": 8.0, "attack": 10.0, "damage": 10.0, "end": 1.0, "global": 2.0,
            "pass": 3.0, "block-with": 3.0, "block": 2.0}.get(verb, 2.0)


def run_seed_demo(game: str, out: str | Path, seed: int = 0, *, echo: TextIO | None = None,
                  turn_limit: int = 60) -> SeedDemoResult:
    """Plays a demo game of ``game`` (``battle-dice`` or ``dice-masters``) into ``out``."""
    return SeedGameDemo(game, out, seed, echo=echo, turn_limit=turn_limit).play()
