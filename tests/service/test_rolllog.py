"""The SQLite roll log: round trips, durability under kill -9, and faults that keep rows to retry."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from firmware_host.errors import RollLogError
from firmware_host.rolllog import KEEP_BACKUPS, RollLog, reading_notation
from vision.types import DieReading, DieStatus, FrameReading

REPO = Path(__file__).resolve().parents[2]


def die(value: int | None, x: int, status: DieStatus = DieStatus.OK) -> DieReading:
    return DieReading(value=value, confidence=0.97, box=(x, 100, 40, 40), status=status, face=str(value))


READING = FrameReading(
    dice=(die(6, 300), die(3, 100), die(None, 200, DieStatus.COCKED), die(1, 400), die(1, 500)), ms=7.5
)


def test_round_trip_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    with RollLog(path) as log:
        reading_id = log.record_reading(READING, at=100.0)
        log.record_score("roll", "Roll 1/3: 1 1 3 6 ?", {"activations": ["Smack"]}, reading_id=reading_id, at=101.0)
        log.record_correction("Die 3 set to 4", {"die": 2, "value": 4}, reading_id=reading_id, at=102.0)
    with RollLog(path) as log:
        (reading,) = log.readings()
        assert reading.id == reading_id
        assert reading.notation == "3 ? 6 1 1"
        assert not reading.all_ok
        assert reading.dice == READING.dice
        assert reading.ms == 7.5
        (score,) = log.scores()
        assert (score.reading_id, score.kind, score.data) == (reading_id, "roll", {"activations": ["Smack"]})
        (correction,) = log.corrections()
        assert (correction.reading_id, correction.text, correction.data) == (reading_id, "Die 3 set to 4", {"die": 2, "value": 4})
        assert log.integrity_check() == "ok"


def test_the_default_file_is_in_the_state_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DICETRAY_STATE_DIR", str(tmp_path / "state"))
    with RollLog() as log:
        log.record_reading(READING)
    assert (tmp_path / "state" / "rolls.sqlite3").is_file()


def test_wal_and_full_sync_are_on(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    with RollLog(path) as log:
        log.record_reading(READING)
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute("PRAGMA user_version").fetchone()[0] == 2
    finally:
        connection.close()


def test_a_log_from_schema_1_is_upgraded_and_keeps_its_readings(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE readings (id TEXT PRIMARY KEY, at REAL NOT NULL, notation TEXT NOT NULL, all_ok INTEGER NOT NULL,"
        " ms REAL NOT NULL, dice TEXT NOT NULL);"
        "INSERT INTO readings VALUES ('old', 1.0, '4', 1, 5.0, '[{\"box\": [0, 0, 9, 9], \"value\": 4}]');"
        "PRAGMA user_version=1;"
    )
    old.close()
    with RollLog(path) as log:
        log.record_reading(FrameReading((die(2, 10),)), at=2.0, dice_set="monk")
        assert [(r.notation, r.dice_set) for r in log.readings()] == [("4", None), ("2", "monk")]
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == 2
    finally:
        connection.close()


def test_limit_gives_the_latest_rows_oldest_first(tmp_path: Path) -> None:
    with RollLog(tmp_path / "r.sqlite3") as log:
        for at in range(5):
            log.record_reading(READING, at=float(at))
        assert [r.at for r in log.readings(limit=2)] == [3.0, 4.0]


def test_reading_notation_marks_unread_dice() -> None:
    assert reading_notation(READING) == "3 ? 6 1 1"
    assert reading_notation(FrameReading()) == ""


WRITER = textwrap.dedent(
    """
    import sys
    from firmware_host.rolllog import RollLog
    from vision.types import DieReading, DieStatus, FrameReading
    reading = FrameReading(dice=tuple(DieReading(v, 0.9, (v * 50, 10, 40, 40), DieStatus.OK, str(v)) for v in range(1, 6)))
    log = RollLog(sys.argv[1])
    while True:
        row = log.record_reading(reading)
        log.record_score("roll", "x" * 2000, {"row": row}, reading_id=row)
        print(row, flush=True)
    """
)


def kill_repeatedly(writer: str, path: Path, kills: int, seed: int, rows: tuple[int, int]) -> list[str]:
    """Runs ``writer`` on ``path`` and kills it with SIGKILL after a random number of ``rows``, again
    and again; returns the row ids it printed (each printed only once committed)."""
    committed: list[str] = []
    rng = random.Random(seed)
    for _ in range(kills):
        process = subprocess.Popen([sys.executable, "-c", writer, str(path)], stdout=subprocess.PIPE, text=True, cwd=REPO)
        assert process.stdout is not None
        for _ in range(rng.randint(*rows)):
            committed.append(process.stdout.readline().strip())
        process.send_signal(signal.SIGKILL)
        # Rows the writer printed before dying were committed too.
        committed.extend(line.strip() for line in process.stdout if line.strip())
        process.stdout.close()
        assert process.wait() == -signal.SIGKILL
    return committed


def test_kill_9_mid_write_loses_nothing_committed(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    committed = kill_repeatedly(WRITER, path, kills=6, seed=5, rows=(5, 60))
    with RollLog(path) as log:
        assert log.integrity_check() == "ok"
        on_disk = {r.id for r in log.readings()}
        assert set(committed) <= on_disk
        scored = {s.reading_id for s in log.scores()}
        assert set(committed) <= scored


def test_a_full_disk_keeps_rows_and_retries_in_order(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    log = RollLog(path, max_page_count=12)
    written: list[str] = []
    with pytest.raises(RollLogError) as caught:
        for _ in range(200):
            written.append(log.record_score("roll", "y" * 3000))
    message = str(caught.value)
    assert repr(str(path)) in message and "full" in message
    assert log.pending == 1
    with pytest.raises(RollLogError, match="2 rows kept to retry"):
        log.record_score("roll", "z")
    # Space comes back (the cap applies to the next opening): the kept rows go in, in order.
    log.max_page_count = None
    log.flush()
    assert log.pending == 0
    texts = [s.text for s in log.scores()]
    assert texts[-2][0] == "y" and texts[-1] == "z"
    assert len(texts) == len(written) + 2
    assert log.integrity_check() == "ok"
    log.close()


def test_an_unopenable_folder_keeps_rows_until_it_is_fixed(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the folder should be")
    log = RollLog(blocker / "rolls.sqlite3")
    with pytest.raises(RollLogError, match=r"roll log '.*state/rolls.sqlite3' cannot be opened"):
        log.record_reading(READING)
    assert log.pending == 1
    blocker.unlink()
    log.record_reading(READING)
    assert log.pending == 0
    assert len(log.readings()) == 2
    log.close()


def _make_read_only(path: Path) -> None:
    """Read-only even for root: the immutable attribute (root ignores file modes)."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)]).returncode != 0:
            pytest.skip("running as root without a working chattr: no way to make a file read-only")
    else:
        path.chmod(0o444)
        path.parent.chmod(0o555)


def _make_writable(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        path.parent.chmod(0o755)
        path.chmod(0o644)


def test_a_read_only_file_is_named_and_rows_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    with RollLog(path) as log:
        log.record_reading(READING)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rolls.sqlite3"]  # WAL folded in on close
    _make_read_only(path)
    try:
        log = RollLog(path)
        with pytest.raises(RollLogError, match=r"roll log '.*rolls.sqlite3' cannot be written: attempt to write a readonly"):
            log.record_reading(READING)
        assert log.pending == 1
    finally:
        _make_writable(path)
    log.flush()  # the file is writable again: the kept row goes in
    assert log.pending == 0
    assert len(log.readings()) == 2
    log.close()


def test_a_file_that_is_not_a_roll_log_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    path.write_bytes(b"holiday photos, not a database" * 100)
    log = RollLog(path)
    with pytest.raises(RollLogError, match="file is not a database"):
        log.record_reading(READING)
    assert log.pending == 1
    assert path.read_bytes().startswith(b"holiday photos")
    log.close()  # the failed last flush is logged, not raised


PAIRED_WRITER = textwrap.dedent(
    """
    import sys
    from firmware_host.rolllog import RollLog
    from vision.types import DieReading, DieStatus, FrameReading
    reading = FrameReading(dice=tuple(DieReading(v, 0.9, (v * 50, 10, 40, 40), DieStatus.OK, str(v)) for v in range(1, 6)))
    log = RollLog(sys.argv[1])
    while True:
        with log.transaction():
            row = log.record_reading(reading)
            log.record_score("roll", "x" * 2000, {"row": row}, reading_id=row)
        print(row, flush=True)
    """
)


def test_kill_9_never_leaves_a_reading_without_its_score(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    committed = kill_repeatedly(PAIRED_WRITER, path, kills=8, seed=11, rows=(3, 40))
    with RollLog(path) as log:
        assert log.integrity_check() == "ok"
        readings = {r.id for r in log.readings()}
        scored = {s.reading_id for s in log.scores()}
    assert len(committed) >= 8 * 3 and set(committed) <= readings
    assert readings == scored


def _damage(path: Path) -> None:
    """Overwrites the middle of the file (its table pages, not the SQLite header) with noise."""
    data = bytearray(path.read_bytes())
    assert len(data) > 3 * 4096
    data[4096 : 3 * 4096] = random.Random(3).randbytes(2 * 4096)
    path.write_bytes(bytes(data))


def test_a_damaged_roll_log_is_kept_aside_and_a_new_one_starts(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "rolls.sqlite3"
    with RollLog(path) as log:
        for _ in range(40):
            log.record_score("roll", "x" * 500)
    _damage(path)
    damaged_bytes = path.read_bytes()
    log = RollLog(path)
    with caplog.at_level("ERROR"):
        log.record_reading(READING)
    assert log.damaged is not None and log.damaged.name.startswith("rolls.sqlite3.damaged-")
    assert log.damaged.read_bytes() == damaged_bytes  # kept as it was, for whoever wants to rescue it
    assert any("failed its integrity check" in r.message and str(log.damaged) in r.message for r in caplog.records)
    assert log.integrity_check() == "ok" and len(log.readings()) == 1
    log.close()


def test_backup_is_a_consistent_copy_taken_while_the_log_is_written(tmp_path: Path) -> None:
    path = tmp_path / "rolls.sqlite3"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert writer.stdout is not None
        for _ in range(20):
            writer.stdout.readline()
        log = RollLog(path)
        copies = [log.backup() for _ in range(KEEP_BACKUPS + 2)]
        log.close()
    finally:
        writer.kill()
        writer.communicate()
    kept = sorted((tmp_path / "backups").glob("rolls-*.sqlite3"))
    assert kept == sorted(copies[-KEEP_BACKUPS:])
    with RollLog(kept[-1]) as copy:
        assert copy.integrity_check() == "ok"
        assert len(copy.readings()) >= 20
    explicit = RollLog(path).backup(tmp_path / "elsewhere" / "copy.sqlite3")
    assert explicit.is_file() and not list(explicit.parent.glob(".*partial"))


def test_roll_log_check_and_backup_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware_host.cli import main

    path = tmp_path / "rolls.sqlite3"
    with RollLog(path) as log:
        log.record_reading(READING)
    config = tmp_path / "config.toml"
    config.write_text(f'roll_log = "{path}"\n')
    assert main(["roll-log", "check", "--config", str(config)]) == 0
    assert "ok, 1 readings" in capsys.readouterr().out
    assert main(["roll-log", "backup", "--config", str(config), "--to", str(tmp_path / "copy.sqlite3")]) == 0
    with RollLog(tmp_path / "copy.sqlite3") as copy:
        assert len(copy.readings()) == 1
    _damage_small(path)
    assert main(["roll-log", "check", "--config", str(config)]) == 1
    assert "kept aside" in capsys.readouterr().out


def _damage_small(path: Path) -> None:
    with RollLog(path) as log:
        for _ in range(40):
            log.record_score("roll", "x" * 500)
    _damage(path)


def test_calibrated_dice_are_logged_with_label_number_and_symbol(tmp_path: Path) -> None:
    calibrated = FrameReading(
        dice=(
            DieReading(1, 0.98, (100, 100, 40, 40), DieStatus.OK, face="sword-1", symbol="sword"),
            DieReading(None, 0.4, (200, 100, 40, 40), DieStatus.UNREADABLE, symbol="sword", reason="sword 1 or 3",
                       candidates=("sword-1", "sword-3"), candidate_values=(1, 3)),
            DieReading(6, 0.97, (300, 100, 40, 40), DieStatus.OK, face="6"),
        ),
        ms=9.0,
    )
    assert reading_notation(calibrated) == "sword-1:1:sword (sword-1|sword-3) 6"
    with RollLog(tmp_path / "rolls.sqlite3") as log:
        log.record_reading(calibrated, at=10.0)
        (logged,) = log.readings()
    assert logged.notation == "sword-1:1:sword (sword-1|sword-3) 6"
