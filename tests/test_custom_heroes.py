"""A custom hero in the state directory's heroes/ folder is found everywhere score and odds find it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware_host.cli import main
from rules.heroes import HEROES_DIRECTORY

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def gunslinger() -> Path:
    """Barbarian's dice and abilities under another id and name, as a custom hero file."""
    folder = Path(os.environ["DICETRAY_STATE_DIR"]) / "heroes"
    folder.mkdir(parents=True)
    text = (HEROES_DIRECTORY / "barbarian.toml").read_text(encoding="utf-8")
    text = text.replace('id = "barbarian"', 'id = "gunslinger"', 1).replace('name = "Barbarian"', 'name = "Gunslinger"', 1)
    path = folder / "gunslinger.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_score_and_odds_find_it(gunslinger: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--hero", "gunslinger", "1", "1", "1", "2", "3"]) == 0
    assert main(["odds", "--hero", "Gunslinger", "--rolls-left", "1"]) == 0
    assert "Gunslinger" in capsys.readouterr().out


def test_read_with_hero_finds_it(gunslinger: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "tray.png"
    cv2.imwrite(str(image), np.full((120, 160, 3), 90, dtype=np.uint8))
    assert main(["read", "--hero", "gunslinger", str(image)]) == 0, capsys.readouterr().err
    assert "tray.png" in capsys.readouterr().out


def test_run_plays_it(gunslinger: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'camera = "sim:2"\ngpio = "mock"\ndisplay = "none"\nroll_log = "rolls.sqlite3"\n'
        '[game]\nplayers = ["Ana", "Ben"]\nheroes = ["gunslinger", "moon-elf"]\n'
    )
    result = subprocess.run(
        [sys.executable, "-m", "firmware_host", "run", "--config", str(config), "--max-frames", "5"],
        capture_output=True, text=True, cwd=REPO, timeout=120, env=os.environ.copy(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Gunslinger" in result.stdout


def test_the_demo_plays_it(gunslinger: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["demo", "--heroes", "gunslinger", "moon-elf", "--turns", "1", "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert status == 0
    assert "Gunslinger" in out and "Moon Elf" in out
    assert "Gunslinger" in (tmp_path / "out" / "transcript.txt").read_text(encoding="utf-8")


def test_an_unknown_demo_hero_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--heroes", "nobody", "moon-elf", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'nobody'" in err


def test_a_record_of_a_game_it_played_replays(gunslinger: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.dtr"
    record.write_text('[Game "dicethrone"]\n[P1 "gunslinger Ana"]\n[P2 "moon-elf Ben"]\nadvance\n', encoding="utf-8")
    assert main(["replay", str(record), "--json"]) == 0, capsys.readouterr().err
    assert '"hero": "gunslinger"' in capsys.readouterr().out
