"""``dicetray demo --game battle-dice|dice-masters``: a whole game on the simulated tray."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.seed_demo import run_seed_demo
from rules.records import GameRecord, replay


@pytest.mark.parametrize("game", ["battle-dice", "dice-masters"])
def test_the_demo_plays_a_game_to_a_winner_and_leaves_a_record_that_replays(game: str, tmp_path: Path) -> None:
    result = run_seed_demo(game, tmp_path, seed=0)
    assert result.finished and result.rolls > 0
    assert result.frames_shown == len(list(tmp_path.glob("frame_*.png")))
    record = GameRecord.from_text((tmp_path / "game.dtr").read_text(encoding="utf-8"))
    assert replay(record).to_json()["winner"] == result.winner
    assert not any(line.strip().startswith("refused") for line in result.transcript)


def test_battle_dice_are_read_by_the_reader(tmp_path: Path) -> None:
    result = run_seed_demo("battle-dice", tmp_path, seed=2)
    assert result.read_by_reader > 0 and result.from_truth == 0
    # Whose die is whose comes from the colour the reader measured, and the game still plays.
    assert result.colours_by_reader == result.read_by_reader and result.finished


def test_the_same_seed_plays_the_same_game(tmp_path: Path) -> None:
    first = run_seed_demo("dice-masters", tmp_path / "a", seed=5)
    second = run_seed_demo("dice-masters", tmp_path / "b", seed=5)
    assert first.transcript == second.transcript


def test_the_demo_command_takes_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware_host.cli import main

    assert main(["demo", "--game", "battle-dice", "--out", str(tmp_path)]) == 0
    assert "winner" in (tmp_path / "transcript.txt").read_text() or "game over" in capsys.readouterr().out
    assert main(["demo", "--game", "chess", "--out", str(tmp_path)]) == 2
    assert "--game takes dice-throne, battle-dice, dice-masters" in capsys.readouterr().err


def test_a_bad_figure_in_a_record_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware_host.cli import main

    (tmp_path / "hulk.toml").write_text('name = "Hulk"\nvalue = 10\n[stats]\nstrength = 6\n')
    record = tmp_path / "game.dtr"
    record.write_text(
        f'[Game "battledice"]\n[Figures "{tmp_path}"]\n[Value "20"]\n[P1 "A"]\n[P1Team "hulk wolverine"]\n'
        '[P1Dice "red blue"]\n[P2 "B"]\n[P2Team "ultron magneto"]\n[P2Dice "red blue"]\n'
    )
    assert main(["replay", str(record)]) == 2
    err = capsys.readouterr().err
    assert "hulk.toml: stats.intelligence: expected a whole number" in err and "Traceback" not in err
