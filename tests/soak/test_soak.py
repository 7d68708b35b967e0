"""Soak: the service on the simulated tray, rolling on and on, playing the game from the buttons.

Checks that every roll that comes to rest is read exactly once (no missed or doubled reads), that
nothing is read while the tray moves, and that memory (RSS) stays flat. ``scripts/soak.sh`` runs
the long version (10 minutes of simulated rolling; ``DICETRAY_SOAK_SECONDS`` changes it); a short
version with a few rolls runs in the normal suite.
"""

from __future__ import annotations

import collections
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_host.game_flow import GameFlow, Step
from firmware_host.rolllog import RollLog
from firmware_host.service import TrayService
from hardware.buttons import ButtonEvent, SimulatedButtons
from hardware.camera import SimPhase, SimulatedTraySource
from hardware.display import DummyDisplay
from hardware.lights import StatusLight
from rules.dicethrone.game import Game
from vision.reader import DiceReader

FPS = 30.0


def rss_mb() -> float:
    """Resident memory of this process now (not the peak), from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


@dataclass
class SoakReport:
    rolls_at_rest: int = 0
    reads_per_roll: collections.Counter[int] = field(default_factory=collections.Counter)
    reads_while_moving: int = 0
    values_matching: int = 0
    games: int = 1
    rss: list[tuple[float, float]] = field(default_factory=list)  # (simulated s, MB)
    frames: int = 0
    wall_s: float = 0.0
    cpu_ms_per_frame: float = 0.0

    @property
    def missed(self) -> list[int]:
        return [roll for roll in range(1, self.rolls_at_rest + 1) if self.reads_per_roll[roll] == 0]

    @property
    def doubled(self) -> list[int]:
        return [roll for roll, count in self.reads_per_roll.items() if count > 1]


def soak(tmp_path: Path, *, seconds: float | None = None, rolls: int | None = None, seed: int = 11) -> SoakReport:
    """Runs the service until ``seconds`` of simulated time or ``rolls`` rolls at rest, pressing
    NEXT whenever the game waits for a button (and a fresh game when one ends)."""
    pins = MockFactory(pin_class=MockPWMPin)
    sim = SimulatedTraySource(seed, fps=FPS, hold_s=1.0)
    buttons = SimulatedButtons(pin_factory=pins)
    service = TrayService(
        open_source=lambda: sim,
        reader=DiceReader(),
        flow=GameFlow(Game.new(["barbarian", "moon-elf"])),
        display=DummyDisplay(),
        roll_log=RollLog(tmp_path / "soak.sqlite3"),
        light=StatusLight(pin_factory=pins),
        buttons=buttons,
    )
    report = SoakReport()
    last_sample = -1e9
    settled_at = 0.0
    started, cpu_started = time.perf_counter(), time.process_time()
    service.start()
    try:
        while True:
            if seconds is not None and sim.timestamp >= seconds:
                break
            if rolls is not None and sim.rolls_settled >= rolls and sim.phase is SimPhase.SETTLED:
                # Let the last roll's stillness window pass before counting.
                if report.reads_per_roll[sim.rolls_settled] or sim.timestamp - settled_at > 1.0:
                    break
            readings = service.stats.readings
            service.step()
            if sim.phase is SimPhase.SETTLED and sim.rolls_settled > report.rolls_at_rest:
                report.rolls_at_rest = sim.rolls_settled
                settled_at = sim.timestamp
            if service.stats.readings > readings:
                report.reads_per_roll[sim.rolls_settled] += 1
                if sim.phase is not SimPhase.SETTLED:
                    report.reads_while_moving += 1
                truth = sorted(sim.settled_values or ())
                read = sorted(int(v) for v in service.roll_log.readings(limit=1)[0].notation.split() if v != "?")
                report.values_matching += truth == read
            # The players: NEXT whenever the game waits for a button rather than for dice. A roll
            # the game cannot use (the tray always throws five dice; a defense may need three) is
            # keyed in by hand: NEXT to enter it, NEXT to accept each die.
            flow = service.flow
            if flow.step in (Step.REROLL, Step.CORRECT, Step.OVER) or (
                flow.step is not Step.ROLL and flow.expected_dice == 0
            ):
                if flow.step is Step.OVER:
                    report.games += 1  # NEXT starts the next game
                buttons.press(ButtonEvent.NEXT)
            if sim.timestamp - last_sample >= 10.0:
                # gpiozero's mock pins keep every state they were ever in (the LED's breathing
                # pattern adds dozens a second); real pins keep none, so the history is not ours.
                for pin in (5, 6, 13, 17, 22, 27):
                    pins.pin(pin).clear_states()
                report.rss.append((sim.timestamp, rss_mb()))
                last_sample = sim.timestamp
    finally:
        service.close()
        pins.reset()
    report.frames = service.stats.frames
    report.wall_s = time.perf_counter() - started
    report.cpu_ms_per_frame = (time.process_time() - cpu_started) / max(report.frames, 1) * 1000
    return report


def check(report: SoakReport) -> None:
    print(
        f"\nsoak: {report.frames} frames, {report.rolls_at_rest} rolls at rest, "
        f"{sum(report.reads_per_roll.values())} reads ({report.values_matching} matching the truth), "
        f"{report.games} games, wall {report.wall_s:.0f} s, CPU {report.cpu_ms_per_frame:.1f} ms/frame "
        f"(simulated tray rendering included), RSS {[round(mb, 1) for _, mb in report.rss]} MB"
    )
    assert report.rolls_at_rest >= 1
    assert report.missed == [], f"rolls never read: {report.missed}"
    assert report.doubled == [], f"rolls read twice: {report.doubled}"
    assert report.reads_while_moving == 0


def test_soak_a_few_rolls(tmp_path: Path) -> None:
    check(soak(tmp_path, rolls=3))


@pytest.mark.soak
def test_soak_ten_minutes_of_rolling(tmp_path: Path) -> None:
    seconds = float(os.environ.get("DICETRAY_SOAK_SECONDS", "600"))
    report = soak(tmp_path, seconds=seconds)
    check(report)
    assert report.rolls_at_rest >= seconds / 10
    # Memory flat: after the first minute (imports, caches, the first games), RSS grows < 15 MB.
    settled = [mb for t, mb in report.rss if t >= min(60.0, seconds / 4)]
    assert settled, report.rss
    assert max(settled) - settled[0] < 15.0, report.rss
