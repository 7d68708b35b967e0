"""Game records in the roll log and on the command line: `dicetray replay`, `dicetray games`."""

import json
import os
import sqlite3
from pathlib import Path

import pytest

from firmware_host.cli import main
from firmware_host.errors import RollLogError
from firmware_host.game_store import GameStore
from rules.dicethrone.game import Game, Phase
from rules.records import GameRecord, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def played_game():
    game = Game.new(["barbarian", "moon-elf"], names=["Ann", "Bob"])
    while game.phase is not Phase.OFFENSIVE_ROLL:
        game.advance()
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    game.advance()
    game.record_defensive_roll("4 4 1 1 1")
    game.advance()
    return game


def test_the_store_appends_only_new_actions_and_starts_a_record_per_game(tmp_path):
    path = tmp_path / "rolls.sqlite3"
    store = GameStore(path)
    game = played_game()
    assert store.sync(game) == len(game.actions)
    assert store.sync(game) == 0
    game.advance()
    assert store.sync(game) == 1
    store.sync(Game.new(["monk", "paladin"]))
    assert [g.number for g in store.games()] == [1, 2]
    record = store.record(1)
    assert [str(a) for _, a in record.actions] == game.actions
    assert replay(record).to_json() == game.to_json()
    store.close()


def test_games_list_and_export_then_replay(tmp_path, capsys):
    path = tmp_path / "rolls.sqlite3"
    store = GameStore(path)
    game = played_game()
    store.sync(game)
    store.close()
    assert main(["games", "list", "--log", str(path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["number"] == 1 and listed[0]["tags"]["P1"] == "barbarian Ann"
    out = tmp_path / "game.dtr"
    assert main(["games", "export", "1", "--log", str(path), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["replay", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == game.to_json()


def test_export_of_a_missing_game_names_the_games_there_are(tmp_path, capsys):
    path = tmp_path / "rolls.sqlite3"
    store = GameStore(path)
    store.sync(played_game())
    store.close()
    assert main(["games", "export", "7", "--log", str(path)]) == 2
    err = capsys.readouterr().err
    assert "no game 7" in err and "(games: 1)" in err


def test_replay_json_has_the_documented_shape(capsys):
    assert main(["replay", str(EXAMPLES / "king-of-the-hill.dtr"), "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert set(state) >= {"players", "turn", "phase", "winner"}
    assert set(state["players"][0]) >= {"name", "hero", "health", "cp", "cards", "statuses"}
    assert state["winner"] == "Cy"


def test_replay_of_an_unfinished_game_has_no_winner(tmp_path, capsys):
    out = tmp_path / "g.dtr"
    out.write_text(GameRecord.of(played_game()).notation(), encoding="utf-8")
    assert main(["replay", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["winner"] is None


@pytest.mark.parametrize(
    "text, message",
    [
        ('[Game "dicethrone"]\n[P1 "barbarian A"]\n[P2 "monk B"]\nadvance\nroll 1 2 3\n', "g.dtr:5: 'roll 1 2 3'"),
        ("\xff\xfe", "the record"),
    ],
)
def test_replay_errors_name_the_file_and_line_and_exit_2(tmp_path, capsys, text, message):
    out = tmp_path / "g.dtr"
    out.write_bytes(text.encode("latin-1") if text.startswith("\xff") else text.encode())
    assert main(["replay", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_service_writes_the_game_it_plays_into_the_roll_log(tmp_path, capsys):
    from firmware_host.demo import DemoTable

    path = tmp_path / "rolls.sqlite3"
    table = DemoTable(tmp_path / "frames", seed=2, turn_limit=2)
    table.service.game_store = GameStore(path)
    table.play()
    game = table.flow.game
    assert main(["games", "export", "1", "--log", str(path), "--out", str(tmp_path / "g.dtr")]) == 0
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "g.dtr"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == game.to_json()
    assert main(["games", "list", "--log", str(path)]) == 0
    assert "1v1" in capsys.readouterr().out


def test_a_store_whose_folder_is_a_file_raises_a_roll_log_error_naming_it(tmp_path):
    (tmp_path / "state").write_text("a file where the roll log's folder should be")
    store = GameStore(tmp_path / "state" / "rolls.sqlite3")
    with pytest.raises(RollLogError, match="state"):
        store.sync(played_game())


def test_a_write_that_fails_halfway_is_written_whole_by_the_next_sync(tmp_path):
    path = tmp_path / "rolls.sqlite3"
    store = GameStore(path)
    game = Game.new(["barbarian", "moon-elf"])
    store.sync(game)
    with sqlite3.connect(path) as db:  # the disk refuses the second action of the next batch
        db.executescript(
            "CREATE TABLE refuse (on_seq INTEGER);"
            "INSERT INTO refuse VALUES (1);"
            "CREATE TRIGGER full_disk BEFORE INSERT ON game_actions "
            "WHEN NEW.seq IN (SELECT on_seq FROM refuse) BEGIN SELECT RAISE(ABORT, 'disk full'); END;"
        )
    db.close()
    game.advance()
    game.advance()
    with pytest.raises(RollLogError, match="disk full"):
        store.sync(game)
    db = sqlite3.connect(path, timeout=0.2)  # the store holds no half-written transaction
    with db:
        db.execute("DELETE FROM refuse")
    db.close()
    assert store.sync(game) == 2
    assert [str(a) for _, a in store.record(1).actions] == game.actions
    store.close()


def test_replay_of_a_fifo_or_a_folder_is_refused_without_waiting(tmp_path, capsys):
    assert main(["replay", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    fifo = tmp_path / "g.dtr"
    os.mkfifo(fifo)
    assert main(["replay", str(fifo)]) == 2
    assert "is a FIFO, not a regular file" in capsys.readouterr().err
