"""The demo: a short 1v1 Dice Throne game played on the simulated tray, start to finish, by itself.

Everything between the dice and the display is the product's own code, as in ``dicetray run``:
:class:`~firmware_host.service.TrayService` takes frames from a live
:class:`~hardware.camera.SimulatedTraySource`, waits for :class:`~vision.settle.SettleDetector` to
call a roll settled, reads it with :class:`~vision.reader.DiceReader`, hands the reading to
:class:`~firmware_host.game_flow.GameFlow`, and shows the result on a
:class:`~hardware.display.CaptureDisplay` (a PNG per display frame) and a status LED on gpiozero mock
pins. The buttons are gpiozero mock pins too (:class:`~hardware.buttons.SimulatedButtons`).

What stands in for the people at the table is :class:`DemoTable`: it throws the dice (keeping the
dice the display advises keeping), presses the buttons (in the damage window it spends each status
that changes the damage and plays one card a game), and, looking at the dice the way a player
would (the simulator's ground truth), rerolls a cocked die (taking the roll back with BACK if it
was read anyway), sets a misread die from the buttons, and keys a roll in when nothing was read.
Its choices come from a seeded generator, so the same seed plays the same game and prints the same
transcript.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

import numpy as np

from firmware_host.game_flow import GameFlow, OptionKind, RollKind, Step
from firmware_host.transcript import FlowEventKind, Transcript
from hardware.buttons import ButtonEvent
from hardware.errors import DisplayUnavailable
from hardware.sim.render import DieTruth
from rules.dicethrone.heroes import Hero
from vision.types import DieReading, DieStatus, FrameReading

__all__ = ["DemoResult", "DemoTable", "run_demo", "DEMO_HEROES"]


class Reader(Protocol):
    """What reads a settled frame (:class:`vision.reader.DiceReader`, or one to test against)."""

    def read(self, frame: np.ndarray) -> FrameReading: ...


DEMO_HEROES = ("barbarian", "moon-elf")
DEMO_TURNS = 6
"""Three turns each: long enough to see every phase, short enough to finish in seconds."""

# The simulated camera runs at a low frame rate: a roll still tumbles for about a second of tray
# time, but takes a third of the frames (and rendering time) it would at 30 fps.
DEMO_FPS = 10.0
_FRAMES_PER_ROLL = 120  # give up on a roll that never settles after this many frames
_STILL_FRAMES = 10  # frames the dice lie still with no reading before the player keys them in
_COCKED_THROW = 2  # from the second throw on, the first that throws two dice or more leaves one cocked


@dataclass(frozen=True)
class DemoResult:
    """What a demo run did."""

    transcript: tuple[str, ...]
    outcome: str
    frames_shown: int  # display frames written as PNG
    camera_frames: int
    readings: int
    rerolls: int  # readings the flow asked to reroll (a die cocked or unreadable, dice missing)
    corrections: int  # dice set from the buttons
    seconds: float
    finished: bool  # the game reached its end (a defeat or the turn limit)


class DemoTable:
    """The people at the table: they throw the dice the game asks for and press the buttons.

    :param seed: seeds the simulated tray and every choice, so a seed always plays the same game.
    :param out: folder for the display frames (``frame_000001.png``...).
    :param turn_limit: turns before the game ends with the leader named (if nobody falls first).
    :param echo: where the transcript is printed as the game goes (None: not printed).
    :param reader: reads the settled frames (default: :class:`vision.reader.DiceReader`).
    :param live: the table app (:class:`firmware_host.web.TrayWeb`, started) to play on, or None;
        with one, the tray goes on serving after the game until Ctrl-C or SIGTERM.
    :param pace_s: seconds to wait after each press, so a watcher can follow.
    """

    def __init__(
        self,
        out: str | Path,
        seed: int = 0,
        *,
        heroes: Sequence[Hero | str] = DEMO_HEROES,
        names: Sequence[str] | None = None,
        turn_limit: int = DEMO_TURNS,
        echo: TextIO | None = None,
        reader: Reader | None = None,
        live: Any = None,
        pace_s: float = 0.0,
    ) -> None:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        from firmware_host.rolllog import RollLog
        from firmware_host.service import TrayService
        from hardware.buttons import SimulatedButtons
        from hardware.camera import SimulatedTraySource
        from hardware.display import CaptureDisplay
        from hardware.lights import StatusLight
        from rules.dicethrone.game import Game
        from vision.reader import DiceReader
        from vision.settle import SettleDetector

        self.seed = seed
        # The output folder first: a folder that cannot be written stops the demo before it starts.
        self.display = CaptureDisplay(out, replace_existing=True)
        self._rng = np.random.default_rng([seed, 7])
        self.transcript = Transcript(echo=echo)
        from firmware_host.heroes import find_hero

        # Custom heroes too, found as score and odds find them.
        players = [find_hero(hero) if isinstance(hero, str) else hero for hero in heroes]
        game = Game.new(players, names=list(names) if names is not None else None)
        self.flow = GameFlow(game, on_event=self.transcript, turn_limit=turn_limit)
        self.tray = SimulatedTraySource(seed, auto_roll=False, fps=DEMO_FPS, roll_s=(0.5, 0.8), pickup=False)
        self.pins = MockFactory(pin_class=MockPWMPin)
        self.light = StatusLight(pin_factory=self.pins)
        self.buttons = SimulatedButtons(pin_factory=self.pins)
        self.service = TrayService(
            open_source=lambda: self.tray,
            reader=reader if reader is not None else DiceReader(),
            flow=self.flow,
            display=self.display,
            roll_log=RollLog(":memory:"),
            light=self.light,
            buttons=self.buttons,
            detector=SettleDetector(),
            clock=lambda: self.tray.timestamp,
            sleep=lambda seconds: None,
            live=live,
        )
        self.live = live
        self.pace_s = pace_s  # seconds between presses, so a watcher on the table app can follow
        self._throws = 0
        self._cards_played = 0
        self._window_tries: dict[tuple[int, object], set[tuple[object, ...]]] = {}
        self._cocked_shown = False
        self._rerolls_in_a_row = 0

    # ----------------------------------------------------------------------------- playing

    def play(self) -> DemoResult:
        """Plays until the game ends; closes everything (the display shows OFFLINE last)."""
        started = time.perf_counter()
        try:
            self.service.start()
            for _ in range(2000):  # a bound, not a plan: a game takes a few hundred steps
                if self.flow.is_over:
                    break
                self._turn_step()
            if self.live is not None:
                self._serve_until_stopped()
        finally:
            self.service.close()
        events = self.transcript.events
        return DemoResult(
            transcript=self.transcript.lines,
            outcome=self.flow.outcome,
            frames_shown=self.display.frames_written,
            camera_frames=self.tray.frame_index,
            readings=sum(e.kind is FlowEventKind.READING for e in events),
            rerolls=sum(e.kind is FlowEventKind.REROLL for e in events),
            corrections=sum(e.kind is FlowEventKind.CORRECTION for e in events),
            seconds=time.perf_counter() - started,
            finished=self.flow.is_over,
        )

    def _turn_step(self) -> None:
        """One decision at the table, then the tray runs until the game has taken it in."""
        flow = self.flow
        step = flow.step
        if step is Step.ROLL:
            self._throw(keep=())
        elif step is Step.REROLL:
            self._fix_reroll()
        elif step is Step.CORRECT:
            self._key_in(self._true_values())
        elif step is Step.CHOOSE and flow.roll_kind is RollKind.OFFENSE:
            self._offense_choice()
        elif step is Step.DAMAGE:
            if not self._correct_misreads():
                self._damage_window()
        else:
            # Income, main phases, discard, targeting, defense choice: the highlighted choice is
            # the sensible one (sell when the hand is over six, else go on).
            self._press(ButtonEvent.NEXT)

    def _offense_choice(self) -> None:
        flow = self.flow
        if self._correct_misreads():
            return
        keep = flow.suggested_keep
        rolls_left = flow.game.roll_attempts_left
        if rolls_left > 0 and len(keep) < len(flow.dice):
            self._throw(keep=keep)
            return
        # Done rolling: activate the best ability (the first choice), or none.
        first = flow.selected
        if first is None or first.kind is not OptionKind.ACTIVATE:
            self._choose(OptionKind.PASS)
        self._press(ButtonEvent.NEXT)

    def _damage_window(self) -> None:
        """Before the damage is applied: spend each status that changes it (a status that rolls
        rolls its die), play one card a game when there is CP for it, then apply the damage."""
        flow = self.flow
        key = (flow.game.turn, flow.game.phase)
        tried = self._window_tries.setdefault(key, set())
        for option in flow.options:
            if option.kind is OptionKind.SPEND and (option.index, option.name) not in tried:
                tried.add((option.index, option.name))
                self._choose(OptionKind.SPEND, index=option.index, name=option.name)
                self._press(ButtonEvent.NEXT)
                if flow.step is Step.SPEND_DIE:
                    # the status's die is rolled into the tray beside the roll's dice
                    die = int(self._rng.integers(1, 7))
                    lying = len(self.tray.last.truth) if self.tray.last else 0
                    self._roll_until_read([die], keep=range(lying))
                    if flow.step is Step.SPEND_DIE:  # not read, or read as numbers that differ: set it
                        shown = flow.view().amount
                        self._press(*[ButtonEvent.SELECT] * ((die - shown) % 6), ButtonEvent.NEXT)
                return
        cards = [o for o in flow.options if o.kind in (OptionKind.CARD_ADD, OptionKind.CARD_PREVENT)]
        if cards and not self._cards_played and ("card",) not in tried:
            option = cards[0]
            tried.add(("card",))
            if flow.game.players[option.index or 0].cp >= 1:
                # A Roll Phase card for 1 CP: +2 dmg for the attacker, prevent 2 for the defender.
                self._cards_played += 1
                self._choose(option.kind, index=option.index)
                self._press(ButtonEvent.NEXT, ButtonEvent.SELECT, ButtonEvent.NEXT, ButtonEvent.SELECT, ButtonEvent.NEXT)
                return
        self._press(ButtonEvent.NEXT)

    def _fix_reroll(self) -> None:
        """A die could not be read: a cocked one is rerolled, as at the table; anything else
        (dice missing, a die unreadable) is keyed in from the buttons."""
        flow = self.flow
        dice = flow.dice
        bad = [i for i, d in enumerate(dice) if not d.ok]
        missing = bool(flow.options) and flow.options[0].kind is OptionKind.ENTER
        cocked = all(dice[i].status is DieStatus.COCKED for i in bad)
        if not missing and cocked and self._rerolls_in_a_row < 2:
            self._rerolls_in_a_row += 1
            self._throw(keep=tuple(i for i in range(len(dice)) if i not in bad))
            return
        if missing:
            values = self._true_values()
        else:
            values = [t.value if t is not None else 1 for t in self._truth_for(dice)]
        self._press(ButtonEvent.NEXT)  # set the first marked die
        self._key_in(values)

    def _key_in(self, values: Sequence[int]) -> None:
        """Sets each die the flow asks for to its value: SELECT up to it, NEXT."""
        flow = self.flow
        for _ in range(2 * len(values) + 2):  # each pass sets one die; a bound, not a plan
            if flow.step is not Step.CORRECT:
                return
            fixing = flow.fixing
            assert fixing is not None
            index, shown = fixing
            self._press(*[ButtonEvent.SELECT] * ((values[index] - shown) % 6), ButtonEvent.NEXT)

    def _correct_misreads(self) -> bool:
        """Sets any die the reader got wrong to what the player sees; True if one was."""
        flow = self.flow
        truth = self._truth_for(flow.dice)
        leaning = [i for i, t in enumerate(truth) if t is not None and t.status is DieStatus.COCKED]
        if leaning and self._rerolls_in_a_row < 2:
            # A die leaning on another was read anyway: at the table it does not count. BACK takes
            # the roll back, and only the leaning die is thrown again, for the same attempt.
            self._rerolls_in_a_row += 1
            keep = self._layout_indices([i for i in range(len(flow.dice)) if i not in leaning])
            self._press(ButtonEvent.BACK)
            self._throw(keep=(), layout_keep=keep)
            return True
        for index, (die, true) in enumerate(zip(flow.dice, truth)):
            if true is None or die.value == true.value:
                continue
            self._choose(OptionKind.FIX, index=index)
            self._press(ButtonEvent.NEXT)
            fixing = flow.fixing
            if fixing is None:
                return True
            self._press(*[ButtonEvent.SELECT] * ((true.value - fixing[1]) % 6), ButtonEvent.NEXT)
            return True
        return False

    # ----------------------------------------------------------------------------- the tray

    def _throw(self, keep: Sequence[int], layout_keep: Sequence[int] | None = None) -> None:
        """Throws every die not kept (the dice the roll needs), then runs the tray until it is read.

        ``keep`` counts the flow's dice left to right; ``layout_keep`` the simulator's own.
        """
        flow = self.flow
        needed = flow.expected_dice
        if layout_keep is None:
            layout_keep = self._layout_indices(keep) if keep else ()
        thrown = needed - len(layout_keep)
        self._throws += 1
        cocked: tuple[int, ...] = ()
        if not self._cocked_shown and self._throws >= _COCKED_THROW and thrown >= 2:
            # Once per game a die lands leaning on another, so the reroll prompt is seen.
            self._cocked_shown = True
            cocked = (len(layout_keep) + int(self._rng.integers(thrown)),)
        values = [int(v) for v in self._rng.integers(1, 7, size=thrown)]
        if not self._roll_until_read(values, keep=layout_keep, cocked=cocked):
            # Never read (the dice never settled, or the reader found nothing): key it in by hand.
            if flow.step is Step.CHOOSE:
                self._choose(OptionKind.ENTER)
            self._press(ButtonEvent.NEXT)
            self._key_in(self._true_values())
        if self.flow.step is not Step.REROLL:
            self._rerolls_in_a_row = 0

    def _roll_until_read(self, values: Sequence[int], keep: Sequence[int] = (), cocked: Sequence[int] = ()) -> bool:
        """Rolls ``values`` into the tray (beside the ``keep`` dice) and runs it until the service
        reads the dice; False when no reading came."""
        settles = self.tray.rolls_settled
        self.tray.roll(list(values), keep=keep, cocked=tuple(cocked))
        seen = self._readings()
        still = 0
        for _ in range(_FRAMES_PER_ROLL):
            self.service.step()
            if self._readings() > seen:
                return True
            if self.tray.rolls_settled > settles:
                still += 1
                if still > _STILL_FRAMES:
                    return False  # at rest for a while and still no reading: the reader found nothing
        return self._readings() > seen

    def _serve_until_stopped(self) -> None:
        """After the game: the tray goes on (camera, the page's buttons) until Ctrl-C or SIGTERM."""
        import signal

        stop = threading.Event()
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            while not stop.is_set():
                self.service.step()
                stop.wait(1.0 / DEMO_FPS)
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)

    def _press(self, *events: ButtonEvent) -> None:
        """Presses the buttons one after another; the tray takes them all in its next step (and
        shows the screen after each), as it would quick presses between two camera frames."""
        if not events:
            return
        for event in events:
            self.buttons.press(event)
        self.service.step()
        if self.pace_s:
            time.sleep(self.pace_s)

    def _choose(self, kind: OptionKind, index: int | None = None, name: str | None = None) -> None:
        """Presses SELECT until the wanted choice is highlighted."""
        flow = self.flow
        options = flow.options
        current = flow.selected
        wanted = [
            i for i, option in enumerate(options)
            if option.kind is kind and (index is None or option.index == index) and (name is None or option.name == name)
        ]
        if not wanted or current is None:
            return
        at = options.index(current)
        self._press(*[ButtonEvent.SELECT] * ((wanted[0] - at) % len(options)))

    def _readings(self) -> int:
        return sum(e.kind is FlowEventKind.READING for e in self.transcript.events)

    # ----------------------------------------------------------------------------- the truth

    def _truth_for(self, dice: Sequence[DieReading]) -> list[DieTruth | None]:
        """The die under each read box: what the player sees there."""
        truth = self.tray.settled_truth or (self.tray.last.truth if self.tray.last else ())
        matched: list[DieTruth | None] = []
        for die in dice:
            if die.box[2] == 0:
                matched.append(None)
                continue
            cx, cy = die.box[0] + die.box[2] / 2, die.box[1] + die.box[3] / 2
            best = min(
                truth,
                key=lambda t: (t.box[0] + t.box[2] / 2 - cx) ** 2 + (t.box[1] + t.box[3] / 2 - cy) ** 2,
                default=None,
            )
            matched.append(best)
        return matched

    def _true_values(self) -> list[int]:
        truth = self.tray.settled_truth or (self.tray.last.truth if self.tray.last else ())
        ordered = sorted(truth, key=lambda t: (t.box[0], t.box[1]))
        values = [t.value for t in ordered]
        needed = self.flow.expected_dice or len(values)
        return (values + [1] * needed)[:needed]

    def _layout_indices(self, keep: Sequence[int]) -> tuple[int, ...]:
        """The simulator's index of each kept die (the flow counts dice left to right)."""
        truth = self.tray.last.truth if self.tray.last else ()
        dice = self.flow.dice
        chosen: list[int] = []
        for index in keep:
            box = dice[index].box
            cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
            order = sorted(
                range(len(truth)),
                key=lambda j: (truth[j].box[0] + truth[j].box[2] / 2 - cx) ** 2
                + (truth[j].box[1] + truth[j].box[3] / 2 - cy) ** 2,
            )
            chosen.append(next(j for j in order if j not in chosen))
        return tuple(sorted(chosen))


def run_demo(
    out: str | Path = "demo-out",
    seed: int = 0,
    *,
    turn_limit: int = DEMO_TURNS,
    echo: TextIO | None = None,
    reader: Reader | None = None,
    heroes: Sequence[str] = DEMO_HEROES,
    live: Any = None,
    pace_s: float = 0.0,
) -> DemoResult:
    """Plays the demo game (Barbarian against Moon Elf, or the two ``heroes`` given, custom ones
    included) and returns what happened; the transcript and the game record are also left in
    ``out/transcript.txt`` and ``out/game.dtr`` beside the display frames. Each player is named
    after their hero.

    :raises DisplayUnavailable: ``out`` cannot be written (before anything is played).
    :raises UnknownHeroError: a hero not found (nothing is played).
    """
    from firmware_host.heroes import find_hero
    from rules.records import GameRecord

    found = [find_hero(hero) for hero in heroes]
    taken = [hero.name for hero in found]
    names = [hero.name if taken.count(hero.name) == 1 else f"{hero.name} {seat}" for seat, hero in enumerate(found, start=1)]
    table = DemoTable(
        out, seed, heroes=found, names=names, turn_limit=turn_limit, echo=echo, reader=reader, live=live, pace_s=pace_s
    )
    result = table.play()
    path = Path(out) / "transcript.txt"
    record = Path(out) / "game.dtr"
    table.flow.game.seed = seed
    try:
        path.write_text(table.transcript.text(), encoding="utf-8")
        record.write_text(GameRecord.of(table.flow.game).notation(), encoding="utf-8")
    except OSError as error:
        raise DisplayUnavailable(f"cannot write the transcript to {str(path)!r}: {error}") from error
    return result
