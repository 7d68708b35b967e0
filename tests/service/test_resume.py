"""A game survives any restart: `dicetray run` killed with SIGKILL at points of a turn, or stopped
with SIGTERM, goes on with the same game when it starts again; a record that does not replay is kept
aside and a new game starts."""

from __future__ import annotations

import json
import logging
import queue
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from firmware_host.config import parse_config
from firmware_host.game_flow import GameFlow, Step
from firmware_host.game_store import GameStore, resume_last_game
from rules.dicethrone.game import Game, Phase
from tests.service.test_run_command import REPO, dicetray

SEATS = [("barbarian", "Ann"), ("moon-elf", "Bob")]

# A turn as the tray records it, to the two places a restart can find a game besides the offensive
# roll: the defender about to roll, and the next turn with health, CP, cards and a status changed.
FIRST_TURN = ["advance", "sell", "advance", "roll 1 2 3 4 1", "select Mighty Blow", "advance"]
TO_TURN_TWO = [*FIRST_TURN, "defend 4 4 1 1 1", "status P2 +1 Daze", "advance", "advance", "advance", "advance", "advance"]


def new_game(seats: list[tuple[str, str]] = SEATS) -> Game:
    return Game.new([hero for hero, _ in seats], names=[name for _, name in seats])


SETUP = new_game().record_headers()
"""The record tags the config sets a new game up with."""


def stored_game(path: Path, lines: list[str]) -> Game:
    """A game played to ``lines`` and written to the store at ``path`` as the tray writes it."""
    game = new_game()
    for line in lines:
        game.play(line)
    store = GameStore(path)
    store.sync(game)
    store.close()
    return game


# -- resuming, in the process ---------------------------------------------------------------------


def test_the_last_unfinished_game_is_resumed_and_its_record_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    before = stored_game(path, TO_TURN_TWO)
    store = GameStore(path)
    game = resume_last_game(store, SETUP)
    assert game is not None and game.to_json() == before.to_json()
    game.play("advance")
    assert store.sync(game) == 1
    assert [g.number for g in store.games()] == [1]  # the same record, not a second game
    assert [str(a) for _, a in store.record(1).actions] == [*TO_TURN_TWO, "advance"]
    store.close()


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE game_actions SET action = 'roll 1 2 three' WHERE seq = 3",  # a row that does not parse
        "UPDATE game_actions SET action = 'roll 1 2 3' WHERE seq = 3",  # a row the rules refuse
        "UPDATE games SET tags = '[[\"Game\", \"dicethrone\"], [\"P1\", \"no-such-hero Ann\"], [\"P2\", \"moon-elf Bob\"]]'",
    ],
    ids=["unreadable-action", "illegal-action", "hero-file-removed"],
)
def test_a_record_that_does_not_replay_is_kept_aside_and_a_new_game_starts(tmp_path: Path, caplog, damage: str) -> None:
    path = tmp_path / "rolls.sqlite3"
    stored_game(path, FIRST_TURN)
    with sqlite3.connect(path) as db:
        db.execute(damage)
    db.close()
    store = GameStore(path)
    with caplog.at_level(logging.WARNING, logger="firmware_host.game_store"):
        assert resume_last_game(store, SETUP) is None
    assert "game 1 in" in caplog.text and "does not replay" in caplog.text and "kept aside" in caplog.text
    assert store.games()[0].kept_aside
    caplog.clear()
    assert resume_last_game(store, SETUP) is None  # never tried again: no warning a second time
    assert "does not replay" not in caplog.text
    store.close()


def test_a_finished_game_or_other_players_start_a_new_game(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    stored_game(path, [*FIRST_TURN[:2], "health P2 0"])
    store = GameStore(path)
    assert resume_last_game(store, SETUP) is None  # Bob is defeated: that game is over
    store.close()
    stored_game(path, FIRST_TURN)
    store = GameStore(path)
    assert resume_last_game(store, new_game([("barbarian", "Ann"), ("monk", "Cy")]).record_headers()) is None
    assert resume_last_game(store, SETUP) is not None
    store.close()


def test_a_resumed_flow_is_at_the_step_it_was_at(tmp_path: Path) -> None:
    """After the third roll attempt the choices are shown again, not a fourth roll awaited; after the
    defender's roll the damage window is open."""
    game = new_game()
    for line in ["advance", "advance", "roll 1 2 3 4 1", "roll 1 2 3 4 1", "roll 1 2 3 4 1"]:
        game.play(line)
    flow = GameFlow(game)
    assert flow.step is Step.CHOOSE and flow.values == (1, 2, 3, 4, 1) and flow.roll_kind is None
    game = new_game()
    for line in [*FIRST_TURN, "defend 4 4 1 1 1"]:
        game.play(line)
    flow = GameFlow(game)
    assert flow.step is Step.DAMAGE and game.phase is Phase.DEFENSIVE_ROLL


def test_the_config_key_and_the_flag_turn_resuming_off(tmp_path: Path) -> None:
    assert parse_config("").game.resume is True
    assert parse_config("[game]\nresume = false\n").game.resume is False
    config = tmp_path / "c.toml"
    config.write_text(
        'camera = "sim:2"\ngpio = "mock"\ndisplay = "none"\nroll_log = "rolls.sqlite3"\n[game]\nplayers = ["Ann", "Bob"]\n'
    )
    stored_game(tmp_path / "rolls.sqlite3", TO_TURN_TWO)
    result = dicetray("run", "--config", str(config), "--max-frames", "5", "--new-game")
    assert result.returncode == 0, result.stderr
    assert "a new game starts" in result.stdout and "Turn 1: Ann" in result.stdout
    store = GameStore(tmp_path / "rolls.sqlite3")
    assert [g.number for g in store.games()] == [1, 2]
    store.close()


# -- restarts of the real process -----------------------------------------------------------------


class Tray:
    """`dicetray run` on the simulated tray in a process of its own, its journal read line by line."""

    def __init__(self, config: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "firmware_host", "run", "--config", str(config)],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        self.journal: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def wait_for(self, pattern: str, timeout: float = 90.0, *, required: bool = True) -> re.Match[str] | None:
        """The first journal line from now on matching ``pattern`` within ``timeout`` seconds; None
        when none came and it is not ``required``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                if not required:
                    return None
                raise AssertionError(f"no {pattern!r} within {timeout} s; journal:\n" + "\n".join(self.journal[-30:])) from None
            if line is None:
                raise AssertionError(f"the tray ended before {pattern!r}; journal:\n" + "\n".join(self.journal[-30:]))
            self.journal.append(line)
            found = re.search(pattern, line)
            if found:
                return found

    def end(self, how: signal.Signals) -> int:
        self.process.send_signal(how)
        code = self.process.wait(timeout=60)
        while self._lines.get(timeout=10) is not None:
            pass
        assert self.process.stdout is not None
        self.process.stdout.close()
        return code

    def resumed_state(self) -> dict[str, object]:
        found = self.wait_for(r"resumed game \d+ state: (\{.*\})")
        assert found is not None
        return json.loads(found.group(1))


def recorded_state(log: Path) -> tuple[dict[str, object], list[str]]:
    """What `dicetray replay --json` makes of the store's last game (exported with `dicetray games`),
    and the record's actions."""
    listed = dicetray("games", "list", "--log", str(log), "--json")
    number = json.loads(listed.stdout)[-1]["number"]
    record = log.parent / "game.dtr"
    exported = dicetray("games", "export", str(number), "--log", str(log), "--out", str(record))
    assert exported.returncode == 0, exported.stderr
    replayed = dicetray("replay", str(record), "--json")
    assert replayed.returncode == 0, replayed.stderr
    actions = [line for line in record.read_text().splitlines() if line and not line.startswith("[")]
    return json.loads(replayed.stdout), actions


# Where each kill lands, by the journal line it follows: before the first roll, a reading read but
# perhaps not yet committed, after each roll attempt, and the defender's roll in the damage window.
FRESH_GAME = [
    (signal.SIGKILL, r"tray service running"),
    (signal.SIGKILL, r"settled: read"),
    (signal.SIGKILL, r"Roll 1/3"),
    (signal.SIGKILL, r"Roll 2/3"),
    (signal.SIGTERM, r"Roll 3/3"),
    (signal.SIGKILL, r"A roll with no roll attempts left"),
]
DEFENDER_ROLLING = [
    (signal.SIGKILL, r"settled: read"),
    (signal.SIGKILL, r"Bob defends"),
    (signal.SIGTERM, r"tray service running"),
]
SECOND_TURN = [
    (signal.SIGKILL, r"Roll 1/3"),
    (signal.SIGTERM, r"Roll 2/3"),
    (signal.SIGKILL, r"Roll 3/3"),
]
RESTARTS: dict[str, tuple[list[str] | None, list[tuple[signal.Signals, str]]]] = {
    "fresh-game": (None, FRESH_GAME),
    "defender-rolling": (FIRST_TURN, DEFENDER_ROLLING),
    "second-turn": (TO_TURN_TWO, SECOND_TURN),
}
FIGURES: dict[str, list[int]] = {}


@pytest.mark.parametrize("seed", list(RESTARTS))
def test_a_game_resumes_exactly_after_kill_9_and_sigterm(tmp_path: Path, seed: str) -> None:
    """Each run is stopped at the next point of the turn; the next run must resume the game the
    record holds (the same health, CP, cards, statuses, turn and phase as `dicetray replay --json`
    of it), every roll the killed run told the table must be in that record, and it is the next run
    to be stopped."""
    log = tmp_path / "rolls.sqlite3"
    config = tmp_path / "c.toml"
    config.write_text(
        'camera = "sim:2"\ngpio = "mock"\ndisplay = "none"\nroll_log = "rolls.sqlite3"\nlog_level = "debug"\n'
        '[game]\nplayers = ["Ann", "Bob"]\nheroes = ["barbarian", "moon-elf"]\n'
    )
    lines, stops = RESTARTS[seed]
    if lines is not None:
        stored_game(log, lines)
    tried = resumed = late = 0
    tray = Tray(config)
    try:
        if lines is not None:
            tray.resumed_state()
        for how, point in stops:
            # A kill racing the commit may land after it: then the next point can be past already,
            # and the run is stopped a few rolls later instead (still a point of the same turn).
            if tray.wait_for(point, 20.0, required=False) is None:
                tray.wait_for(r"tray service running|settled", 60.0)
                late += 1
            code = tray.end(how)
            assert code == (-signal.SIGKILL if how is signal.SIGKILL else 0), "\n".join(tray.journal[-20:])
            told = [f"roll {m.group(1)}" for m in (re.search(r"Roll \d/\d: ([\d ]+) \(", line) for line in tray.journal) if m]
            assert not [line for line in tray.journal if "Traceback" in line or line.startswith("ERROR")]
            expected, actions = recorded_state(log)
            assert set(told) <= set(actions), (told, actions)  # nothing the table was told is lost
            tried += 1
            tray = Tray(config)
            state = tray.resumed_state()
            for key in ("players", "turn", "phase", "active"):
                assert state[key] == expected[key], (how.name, point, key)
            resumed += state == expected
        tray.wait_for(r"tray service running")  # SIGTERM is handled from here on
        assert tray.end(signal.SIGTERM) == 0
        store = GameStore(log)
        assert len(store.games()) == 1  # every restart went on with the same record
        store.close()
    finally:
        if tray.process.poll() is None:
            tray.end(signal.SIGKILL)
    FIGURES[seed] = [tried, resumed]
    print(f"\n{seed}: {tried} restarts ({', '.join(h.name for h, _ in stops)}), {resumed} resumed exactly, {late} stopped past their point")
    assert resumed == tried


def test_dice_still_lying_in_the_tray_after_a_restart_are_not_a_new_roll(tmp_path: Path, replay_scenes: Path) -> None:
    """The tray stops (the replay ends: a clean stop) with the first roll read; at the next start the
    camera sees the same dice where they lay: still roll attempt 1 of 3, no reroll lost."""
    import shutil

    still = tmp_path / "still"
    still.mkdir()
    for frame in sorted(replay_scenes.glob("frame_*.png"))[:12]:  # one still scene
        shutil.copy(frame, still / frame.name)
    config = tmp_path / "c.toml"
    config.write_text(
        f'camera = "replay:{still}"\ngpio = "mock"\ndisplay = "none"\nroll_log = "rolls.sqlite3"\n'
        '[game]\nplayers = ["Ann", "Bob"]\n'
    )
    first = dicetray("run", "--config", str(config))
    assert first.returncode == 0 and "Roll 1/3" in first.stdout, first.stdout
    again = dicetray("run", "--config", str(config))
    assert again.returncode == 0, again.stderr
    assert "resumed game 1" in again.stdout and "Roll 1/3" in again.stdout  # the roll shown again
    assert "not a new roll" in again.stdout and "Roll 2/3" not in again.stdout, again.stdout
    _, actions = recorded_state(tmp_path / "rolls.sqlite3")
    assert [a for a in actions if a.startswith("roll")] == [actions[-1]]
