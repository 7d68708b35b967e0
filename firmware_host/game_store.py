"""Game records kept in the roll log's SQLite file: every game the tray plays, action by action.

The service calls :meth:`GameStore.sync` after each step; new actions of the game in play are
appended (a new game object starts a new record). ``dicetray games list|export N`` reads them back
as :class:`rules.records.GameRecord` text (docs/game-records.md).

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
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calibration.paths import state_directory
from firmware_host.errors import RollLogError, UsageError
from rules.games import Action
from rules.records import GameRecord

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
"""


@dataclass(frozen=True)
class StoredGame:
    number: int
    started: float
    tags: tuple[tuple[str, str], ...]
    actions: int

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "started": self.started, "tags": dict(self.tags), "actions": self.actions}


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
            "SELECT g.number, g.started, g.tags, COUNT(a.seq) FROM games g "
            "LEFT JOIN game_actions a ON a.game = g.number GROUP BY g.number ORDER BY g.number"
        )
        return [StoredGame(n, started, tuple(tuple(t) for t in json.loads(tags)), count) for n, started, tags, count in rows]

    def record(self, number: int) -> GameRecord:
        """Game ``number`` as a :class:`GameRecord`.

        :raises UsageError: when there is no such game (the message lists the numbers there are).
        """
        found = [g for g in self.games() if g.number == number]
        if not found:
            numbers = ", ".join(str(g.number) for g in self.games()) or "none yet"
            raise UsageError(f"no game {number} in {str(self.path)!r} (games: {numbers})")
        rows = self._read("SELECT action FROM game_actions WHERE game = ? ORDER BY seq", (number,))
        actions = tuple((0, Action.from_notation(line)) for (line,) in rows)
        return GameRecord(found[0].tags, actions, f"{self.path}#{number}")

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
