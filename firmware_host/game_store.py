"""Game records kept in the roll log's SQLite file: every game the tray plays, action by action.

The service calls :meth:`GameStore.sync` at start and after each step; new actions of the game in
play are appended, each batch in one transaction (a new game object starts a new record).
``dicetray games list|export N`` reads them back as :class:`rules.records.GameRecord` text
(docs/game-records.md). At start, :func:`resume_last_game` replays the last unfinished record so the
tray goes on where it was after any restart; a record that does not replay is kept aside.

>>> from rules.dicethrone.game import Game
>>> store = GameStore(":memory:")
>>> game = Game.new(["barbarian", "moon-elf"])
>>> _ = game.advance()
>>> store.sync(game)
1
>>> [(g.number, g.actions) for g in store.games()]
[(1, 1)]
>>> store.close()
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calibration.paths import state_directory
from firmware_host.errors import RollLogError, UsageError
from rules.errors import RulesError
from rules.games import Action
from rules.records import GameRecord, RecordError, replay

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    number INTEGER PRIMARY KEY AUTOINCREMENT,
    started REAL NOT NULL,
    tags TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS game_actions (
    game INTEGER NOT NULL REFERENCES games(number),
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE TABLE IF NOT EXISTS games_kept_aside (
    game INTEGER PRIMARY KEY REFERENCES games(number),
    at REAL NOT NULL,
    reason TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class StoredGame:
    number: int
    started: float
    tags: tuple[tuple[str, str], ...]
    actions: int
    kept_aside: str | None = None
    """Why the record is never resumed (it did not replay), or None."""

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number, "started": self.started, "tags": dict(self.tags), "actions": self.actions,
            "kept_aside": self.kept_aside,
        }  # fmt: skip


class GameStore:
    """Game records in the SQLite file at ``path`` (default: the roll log, ``rolls.sqlite3`` in the
    state directory; ``":memory:"`` for a throwaway store)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else state_directory() / "rolls.sqlite3"
        self._memory = str(path) == ":memory:"
        self._connection: sqlite3.Connection | None = None
        self._game: object | None = None
        self._number = 0
        self._written = 0

    def sync(self, game: Any) -> int:
        """Writes the actions ``game`` took since the last sync; returns how many.

        :raises RollLogError: naming the file when it cannot be written.
        """
        actions: list[str] = list(game.actions)
        try:
            db = self._connect()
            if game is not self._game:
                cursor = db.execute(
                    "INSERT INTO games (started, tags) VALUES (?, ?)", (time.time(), json.dumps(game.record_headers()))
                )
                db.commit()
                self._game, self._number, self._written = game, int(cursor.lastrowid or 0), 0
            new = actions[self._written :]
            now = time.time()
            db.executemany(
                "INSERT INTO game_actions (game, seq, at, action) VALUES (?, ?, ?, ?)",
                [(self._number, self._written + i, now, line) for i, line in enumerate(new)],
            )
            db.commit()
        except (sqlite3.Error, OSError) as error:
            # Drop the connection with its uncommitted rows: the next sync writes them again from
            # the last commit, and a folder that cannot be made (a file in its place) is tried again.
            self.close()
            raise RollLogError(f"cannot write the game record to {str(self.path)!r}: {error}") from error
        self._written += len(new)
        return len(new)

    def games(self) -> list[StoredGame]:
        """Every stored game, oldest first."""
        rows = self._read(
            "SELECT g.number, g.started, g.tags, COUNT(a.seq), k.reason FROM games g "
            "LEFT JOIN game_actions a ON a.game = g.number LEFT JOIN games_kept_aside k ON k.game = g.number "
            "GROUP BY g.number ORDER BY g.number"
        )
        return [
            StoredGame(n, started, tuple(tuple(t) for t in json.loads(tags)), count, aside)
            for n, started, tags, count, aside in rows
        ]

    def continue_game(self, number: int, game: Any) -> None:
        """Makes ``game`` (replayed from record ``number``) the game in play: the next :meth:`sync`
        appends its new actions to that record instead of starting another."""
        self._game, self._number, self._written = game, number, len(list(game.actions))

    def keep_aside(self, number: int, reason: str) -> None:
        """Marks record ``number`` as one never to resume again (it stays in the store, exportable).

        :raises RollLogError: naming the file when it cannot be written.
        """
        try:
            db = self._connect()
            db.execute(
                "INSERT OR REPLACE INTO games_kept_aside (game, at, reason) VALUES (?, ?, ?)", (number, time.time(), reason)
            )
            db.commit()
        except (sqlite3.Error, OSError) as error:
            self.close()
            raise RollLogError(f"cannot write to the game records in {str(self.path)!r}: {error}") from error

    def record(self, number: int) -> GameRecord:
        """Game ``number`` as a :class:`GameRecord`.

        :raises UsageError: when there is no such game (the message lists the numbers there are).
        """
        found = [g for g in self.games() if g.number == number]
        if not found:
            numbers = ", ".join(str(g.number) for g in self.games()) or "none yet"
            raise UsageError(f"no game {number} in {str(self.path)!r} (games: {numbers})")
        rows = self._read("SELECT seq, action FROM game_actions WHERE game = ? ORDER BY seq", (number,))
        source = f"{self.path}#{number}"
        # The action's place in the game stands for its line (a damaged action names it).
        actions = tuple((seq + 1, _action(line, f"{source}:{seq + 1}")) for seq, line in rows)
        return GameRecord(found[0].tags, actions, source)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _read(self, query: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if not self._memory and self._connection is None and not self.path.exists():
            return []
        try:
            return list(self._connect().execute(query, parameters))
        except (sqlite3.Error, OSError) as error:
            raise RollLogError(f"cannot read the game records in {str(self.path)!r}: {error}") from error

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            target = ":memory:" if self._memory else str(self.path)
            if not self._memory:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(target)
            connection.executescript(_SCHEMA)
            self._connection = connection
        return self._connection


def _action(line: object, where: str) -> Action:
    try:
        return Action.from_notation(str(line))
    except RulesError as error:
        raise RecordError(f"{where}: {error}") from None


def resume_last_game(store: GameStore, setup: Sequence[tuple[str, str]], *, search: Sequence[Path] = ()) -> Any:
    """The store's last game, replayed from its record, when it is unfinished and was set up as
    ``setup`` says (the record tags of a new game from the config: the game, its players and their
    heroes, teams or cards); the store then appends to that record. None when a new game is to
    start (the journal says why). A record that does not replay (damaged, a hero file since
    removed) is kept aside with a warning and never tried again, so it cannot stop the tray twice.

    ``search``: folders of custom hero files, as :func:`rules.records.replay` takes them.
    """
    try:
        games = store.games()
    except RollLogError as error:
        log.warning("%s; a new game starts", error)
        return None
    if not games or games[-1].kept_aside is not None:
        return None
    last = games[-1]
    try:
        game = replay(store.record(last.number), search=search)
    except (RulesError, RollLogError, UsageError) as error:
        reason = str(error)
        try:
            store.keep_aside(last.number, reason)
        except RollLogError as write_error:
            log.warning("%s", write_error)
        log.warning(
            "game %d in %s does not replay (%s): its record is kept aside (dicetray games export %d) and a new game starts",
            last.number, store.path, reason, last.number,
        )  # fmt: skip
        return None
    if game.finished:
        log.info("game %d is over; a new game starts", last.number)
        return None
    stored, wanted = _set_up(game.record_headers()), _set_up(setup)
    if stored != wanted:
        log.info(
            "game %d is set up as %s, the config as %s; a new game starts",
            last.number, _describe(stored), _describe(wanted),
        )  # fmt: skip
        return None
    store.continue_game(last.number, game)
    state = game.to_json()
    log.info(
        "resumed game %d from its record (%d actions): turn %s, %s%s",
        last.number, last.actions, state.get("turn"), state.get("phase"), _standing(state),
    )  # fmt: skip
    log.debug("resumed game %d state: %s", last.number, json.dumps(state, sort_keys=True))
    return game


# Tags a game's setup does not depend on: a seed is drawn for each game.
_NOT_SETUP = frozenset({"Seed"})


def _set_up(tags: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(key, value) for key, value in tags if key not in _NOT_SETUP]


def _describe(tags: Sequence[tuple[str, str]]) -> str:
    return " ".join(f"[{key} {value!r}]" for key, value in tags)


def _standing(state: dict[str, Any]) -> str:
    """Each player's health, CP and cards where the game keeps them (Dice Throne), else life."""
    parts = []
    for player in state.get("players", []):
        if "health" in player:
            parts.append(f"{player['name']} {player['health']} HP {player.get('cp', 0)} CP {player.get('cards', 0)} cards")
        elif "life" in player:
            parts.append(f"{player['name']} {player['life']} life")
    return (", " + ", ".join(parts)) if parts else ""
