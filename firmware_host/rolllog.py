"""The roll log: every settled reading, what was scored, and every correction, in SQLite.

Durability: the database runs in WAL mode with ``synchronous=FULL``. Each row is written in its own
transaction, or with the rows that belong to it in one (:meth:`RollLog.transaction`: a reading and
what it scored), so a process killed mid-write (kill -9, the watchdog's SIGABRT) loses nothing that
was committed and never leaves a half row or a reading without its score. ``FULL`` rather than ``NORMAL`` because the tray's plug gets
pulled: with ``NORMAL`` a power cut may drop the last few commits of the WAL; a roll every few seconds
makes the extra fsync free.

Faults: when a write fails (disk full, a read-only file or folder, a file that is not a roll log) the
row stays in memory, :class:`~firmware_host.errors.RollLogError` names the file, and the next write or
:meth:`RollLog.flush` tries again, in order. Rows are given their ids (``uuid4`` hex) before they
reach the disk, so a score can name its reading while both are still pending.

Damage: the first opening of a file runs ``PRAGMA integrity_check``. A roll log that fails it is
moved aside (``rolls.sqlite3.damaged-<time>``, with its WAL), the error log says where, and a new log
is started; a file that is no SQLite database at all is never moved, only refused. :meth:`RollLog.backup`
copies the log with SQLite's online backup API while the tray keeps writing.

>>> from vision.types import FrameReading
>>> log = RollLog(":memory:")
>>> reading_id = log.record_reading(FrameReading(), at=0.0)
>>> [r.id == reading_id for r in log.readings()]
[True]
>>> log.close()
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import logging
import os
import sqlite3
import time
import uuid
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from calibration.paths import state_directory
from firmware_host.errors import RollLogError
from vision.datafile import fsync_path
from vision.types import DieReading, FrameReading

__all__ = [
    "LoggedCorrection",
    "LoggedReading",
    "LoggedScore",
    "RollLog",
    "RollLogError",
    "lies_where_it_lay",
    "reading_notation",
]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS readings (
    id TEXT PRIMARY KEY,
    at REAL NOT NULL,
    notation TEXT NOT NULL,
    all_ok INTEGER NOT NULL,
    ms REAL NOT NULL,
    dice TEXT NOT NULL,
    dice_set TEXT
);
CREATE TABLE IF NOT EXISTS scores (
    id TEXT PRIMARY KEY,
    reading_id TEXT REFERENCES readings(id),
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS corrections (
    id TEXT PRIMARY KEY,
    reading_id TEXT REFERENCES readings(id),
    at REAL NOT NULL,
    text TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS readings_at ON readings(at);
"""
# What each older schema needs to become the current one.
_UPGRADES = {
    1: "ALTER TABLE readings ADD COLUMN dice_set TEXT;",  # version 2: whose dice were thrown
}

# Rows waiting for a writable disk; far more than an evening of rolls, and a bound on memory.
MAX_PENDING = 50_000

# Backups kept in the backup folder; older ones are removed after each new one.
KEEP_BACKUPS = 7

_SQLITE_HEADER = b"SQLite format 3\x00"


def reading_notation(reading: FrameReading) -> str:
    """The dice left to right as face values, ``?`` for a die that could not be read: ``"3 ? 6"``;
    a calibrated die with its label and symbol, an unsure one with its candidates
    (``"sword-1:1:sword (sword-1|sword-3) 6"``, :meth:`vision.types.DieReading.text`)."""
    ordered = sorted(reading.dice, key=lambda d: (d.box[0], d.box[1]))
    return " ".join(d.text() for d in ordered)


def lies_where_it_lay(die: DieReading, before: DieReading) -> bool:
    """Whether ``die`` is ``before`` not thrown again: the same face and status, its centre within a
    third of a die's side of where ``before`` was (a few pixels of camera jitter; a thrown die never
    lands back on its spot with the same face up but by rare chance)."""
    x, y, w, h = die.box
    bx, by, bw, bh = before.box
    reach = max(8.0, 0.35 * max(w, h))
    near = abs((x + w / 2) - (bx + bw / 2)) <= reach and abs((y + h / 2) - (by + bh / 2)) <= reach
    return near and die.value == before.value and die.status == before.status


@dataclass(frozen=True)
class LoggedReading:
    """A settled reading as logged. ``dice_set`` names whose dice the game was waiting for when it
    was read (a hero id in Dice Throne), None outside a game or in a log from before it was kept."""

    id: str
    at: float
    notation: str
    all_ok: bool
    ms: float
    dice: tuple[DieReading, ...]
    dice_set: str | None = None


@dataclass(frozen=True)
class LoggedScore:
    id: str
    reading_id: str | None
    at: float
    kind: str
    text: str
    data: Mapping[str, Any]


@dataclass(frozen=True)
class LoggedCorrection:
    id: str
    reading_id: str | None
    at: float
    text: str
    data: Mapping[str, Any]


_Row = tuple[str, tuple[Any, ...]]  # an INSERT statement and its parameters


class RollLog:
    """The SQLite roll log at ``path`` (default ``rolls.sqlite3`` in the state directory; ``":memory:"``
    for a throwaway log). Opened lazily, so a log that cannot be opened yet does not stop the tray.

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: str | Path | None = None, *, max_page_count: int | None = None) -> None:
        self.path = Path(path) if path is not None else state_directory() / "rolls.sqlite3"
        self._memory = str(path) == ":memory:"
        # Caps the file size in pages (applied when the file is next opened): a "full disk" on demand.
        self.max_page_count = max_page_count
        self._connection: sqlite3.Connection | None = None
        self._pending: deque[_Row] = deque()
        self._dropped = 0
        self._held = 0
        self._checked = self._memory
        self.damaged: Path | None = None
        """Where a roll log that failed its integrity check was moved, when one did."""

    def __repr__(self) -> str:
        return f"RollLog({str(self.path)!r})"

    def __enter__(self) -> RollLog:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """Rows not yet on disk (waiting for a retry)."""
        return len(self._pending)

    def record_reading(self, reading: FrameReading, *, at: float | None = None, dice_set: str | None = None) -> str:
        """Logs a settled reading, with whose dice were thrown (``dice_set``) when known; returns its id.

        :raises RollLogError: it could not be written now; it is kept and written on the next try.
        """
        row_id = uuid.uuid4().hex
        dice = json.dumps([d.to_json() for d in reading.dice], sort_keys=True)
        self._write(
            "INSERT OR IGNORE INTO readings (id, at, notation, all_ok, ms, dice, dice_set) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row_id, _now(at), reading_notation(reading), int(reading.all_ok), float(reading.ms), dice, dice_set),
        )
        return row_id

    def record_score(
        self,
        kind: str,
        text: str,
        data: Mapping[str, Any] | None = None,
        *,
        reading_id: str | None = None,
        at: float | None = None,
    ) -> str:
        """Logs what a roll scored (a roll's activations, an ability used, a defense, damage, the end
        of the game) with its transcript line and data; returns its id.

        :raises RollLogError: as :meth:`record_reading`.
        """
        row_id = uuid.uuid4().hex
        self._write(
            "INSERT OR IGNORE INTO scores (id, reading_id, at, kind, text, data) VALUES (?, ?, ?, ?, ?, ?)",
            (row_id, reading_id, _now(at), kind, text, _json(data)),
        )
        return row_id

    def record_correction(
        self,
        text: str,
        data: Mapping[str, Any] | None = None,
        *,
        reading_id: str | None = None,
        at: float | None = None,
    ) -> str:
        """Logs a die value set by hand over what was read; returns its id.

        :raises RollLogError: as :meth:`record_reading`.
        """
        row_id = uuid.uuid4().hex
        self._write(
            "INSERT OR IGNORE INTO corrections (id, reading_id, at, text, data) VALUES (?, ?, ?, ?, ?)",
            (row_id, reading_id, _now(at), text, _json(data)),
        )
        return row_id

    @contextlib.contextmanager
    def transaction(self) -> Iterator[RollLog]:
        """Rows recorded inside land in one transaction when the block ends: all or none of them
        (a reading and its score). Nothing is written inside the block, so nothing raises there.

        :raises RollLogError: at the end of the block, as :meth:`flush`; the rows stay pending.
        """
        self._held += 1
        try:
            yield self
        finally:
            self._held -= 1
        if not self._held:
            self.flush()

    def flush(self) -> None:
        """Writes the pending rows, oldest first, in one transaction (rows kept through an outage
        go in together, in order).

        :raises RollLogError: the log cannot be written; the rows not yet written stay pending.
        """
        if not self._pending:
            return
        connection = self._connect()
        rows = list(self._pending)
        try:
            with connection:  # one transaction: committed whole, or rolled back whole
                for statement, parameters in rows:
                    # OR IGNORE: a row already on disk is a commit whose acknowledgement was lost.
                    connection.execute(statement, parameters)
        except sqlite3.Error as error:
            # Reopen next time: a connection opened on a read-only file stays read-only even
            # after the file is made writable again.
            self._disconnect()
            raise self._error("cannot be written", error) from None
        for _ in rows:
            self._pending.popleft()

    def _write(self, statement: str, parameters: tuple[Any, ...]) -> None:
        if len(self._pending) >= MAX_PENDING:
            self._pending.popleft()
            self._dropped += 1
            log.error("roll log %s: %d rows dropped while it could not be written", self.path, self._dropped)
        self._pending.append((statement, parameters))
        if not self._held:
            self.flush()

    # -- reading back ----------------------------------------------------------------------------

    def readings(self, limit: int | None = None) -> list[LoggedReading]:
        """Logged readings, oldest first (the last ``limit`` when given)."""
        rows = self._select("SELECT id, at, notation, all_ok, ms, dice, dice_set FROM readings", limit)
        return [
            LoggedReading(
                id=row[0],
                at=row[1],
                notation=row[2],
                all_ok=bool(row[3]),
                ms=row[4],
                dice=tuple(DieReading.from_json(d) for d in json.loads(row[5])),
                dice_set=row[6],
            )
            for row in rows
        ]

    def scores(self, limit: int | None = None) -> list[LoggedScore]:
        rows = self._select("SELECT id, reading_id, at, kind, text, data FROM scores", limit)
        return [LoggedScore(row[0], row[1], row[2], row[3], row[4], json.loads(row[5])) for row in rows]

    def corrections(self, limit: int | None = None) -> list[LoggedCorrection]:
        rows = self._select("SELECT id, reading_id, at, text, data FROM corrections", limit)
        return [LoggedCorrection(row[0], row[1], row[2], row[3], json.loads(row[4])) for row in rows]

    def integrity_check(self) -> str:
        """SQLite's own check of the file: ``"ok"`` when sound."""
        try:
            row = self._connect().execute("PRAGMA integrity_check").fetchone()
        except sqlite3.Error as error:
            raise self._error("cannot be checked", error) from None
        return str(row[0])

    def backup(self, target: str | Path | None = None) -> Path:
        """Copies the log with SQLite's online backup API (a consistent copy while rows keep coming)
        to ``target``, default a timestamped file in ``backups/`` beside the log, keeping the newest
        :data:`KEEP_BACKUPS` there. The copy is written beside its target and renamed into place.

        :raises RollLogError: the log cannot be read or the copy cannot be written; names the file.
        """
        if self._memory:
            raise RollLogError("an in-memory roll log has nothing to back up")
        folder = self.path.parent / "backups"
        if target is None:
            stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
            destination = folder / f"{self.path.stem}-{stamp}.sqlite3"
        else:
            destination = Path(target)
        source = self._connect()
        partial = destination.with_name(f".{destination.name}.partial")
        try:
            destination.parent.mkdir(parents=True, exist_ok=True)
            partial.unlink(missing_ok=True)
            copy = sqlite3.connect(str(partial))
            try:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")
            finally:
                copy.close()
            fsync_path(partial)
            os.replace(partial, destination)
            fsync_path(destination.parent)
        except (OSError, sqlite3.Error) as error:
            with contextlib.suppress(OSError):
                partial.unlink()
            detail = getattr(error, "strerror", None) or str(error)
            raise RollLogError(f"roll log {str(self.path)!r}: backup to {str(destination)!r} failed: {detail}") from None
        if target is None:
            for old in sorted(folder.glob(f"{self.path.stem}-*.sqlite3"))[:-KEEP_BACKUPS]:
                with contextlib.suppress(OSError):
                    old.unlink()
        return destination

    def close(self) -> None:
        """Tries a last flush (a failure is logged; the rows are lost only with the process) and closes."""
        if self._pending:
            try:
                self.flush()
            except RollLogError as error:
                log.error("%s; %d rows not written", error, len(self._pending))
        self._disconnect()

    # -- internals -------------------------------------------------------------------------------

    def _select(self, query: str, limit: int | None) -> list[tuple[Any, ...]]:
        try:
            connection = self._connect()
            if limit is None:
                return list(connection.execute(f"{query} ORDER BY at, rowid"))
            rows = list(connection.execute(f"{query} ORDER BY at DESC, rowid DESC LIMIT ?", (limit,)))
            return rows[::-1]
        except sqlite3.Error as error:
            raise self._error("cannot be read", error) from None

    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None:
            return self._connection
        try:
            if not self._memory:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(str(self.path), timeout=5.0)
        except (OSError, sqlite3.Error) as error:
            raise self._error("cannot be opened", error) from None
        if not self._checked:
            problem = _integrity_problem(connection)
            if problem is not None and self._is_sqlite_file():
                connection.close()
                self._set_aside(problem)
                return self._connect()
            self._checked = problem is None
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            if self.max_page_count is not None:
                connection.execute(f"PRAGMA max_page_count={int(self.max_page_count)}")
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise RollLogError(
                    f"roll log {str(self.path)!r} has schema version {version}, newer than this "
                    f"dicetray's {SCHEMA_VERSION}"
                )
            if version < SCHEMA_VERSION:
                # A new file gets the whole schema; an older log only its upgrades, in one transaction.
                upgrades = "".join(_UPGRADES[v] for v in range(version, SCHEMA_VERSION)) if version else ""
                connection.executescript(f"BEGIN; {_SCHEMA} {upgrades} PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")
        except sqlite3.Error as error:
            connection.close()
            raise self._error("cannot be opened", error) from None
        except RollLogError:
            connection.close()
            raise
        self._connection = connection
        return connection

    def _is_sqlite_file(self) -> bool:
        try:
            with self.path.open("rb") as stream:
                return stream.read(len(_SQLITE_HEADER)) == _SQLITE_HEADER
        except OSError:
            return False

    def _set_aside(self, problem: str) -> None:
        """Moves a damaged log (and its WAL and shared-memory files) aside, for a new one to start."""
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        try:
            for suffix in ("", "-wal", "-shm"):
                part = Path(f"{self.path}{suffix}")
                if part.exists():
                    os.replace(part, Path(f"{aside}{suffix}"))
        except OSError as error:
            raise RollLogError(
                f"roll log {str(self.path)!r} failed its integrity check ({problem}) and cannot be moved "
                f"aside: {error.strerror or error}"
            ) from None
        self.damaged = aside
        self._checked = True
        log.error(
            "roll log %s failed its integrity check (%s): kept aside as %s; a new roll log starts",
            self.path, problem, aside,
        )  # fmt: skip

    def _disconnect(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _error(self, what: str, error: BaseException) -> RollLogError:
        detail = getattr(error, "strerror", None) or str(error)
        pending = f"; {len(self._pending)} rows kept to retry" if self._pending else ""
        return RollLogError(f"roll log {str(self.path)!r} {what}: {detail}{pending}")


def _integrity_problem(connection: sqlite3.Connection) -> str | None:
    """None when ``PRAGMA integrity_check`` says ok (or the file is new), else what it found."""
    try:
        rows = connection.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.DatabaseError as error:
        return str(error)
    found = [str(row[0]) for row in rows]
    return None if found == ["ok"] else "; ".join(found[:3])


def _now(at: float | None) -> float:
    return time.time() if at is None else float(at)


def _json(data: Mapping[str, Any] | None) -> str:
    return json.dumps(dict(data or {}), sort_keys=True, default=str)
