"""Battle Dice figure files, Dice Masters card files and their records take input as every other
file the tray is handed does: regular files of bounded size, bounded nesting and numbers, ASCII
digits, and errors that name the file and the key (the command line exits 2 with one line)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from firmware_host.cli import main
from rules.battledice.figures import FIGURES_DIRECTORY, FigureDataError, load_figure
from rules.dicemasters.cards import CARDS_DIRECTORY, CardDataError, load_card
from rules.dicemasters.faces import Face
from rules.errors import InvalidRollError
from rules.records import GameRecord, RecordError, replay

WOLVERINE = (FIGURES_DIRECTORY / "wolverine.toml").read_text(encoding="utf-8")
BATMAN = (CARDS_DIRECTORY / "batman.toml").read_text(encoding="utf-8")
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_figure_file_above_the_size_limit_is_refused(tmp_path):
    path = write(tmp_path, "wolverine.toml", WOLVERINE + "#" * (300 * 1024) + "\n")
    with pytest.raises(FigureDataError, match=r"wolverine\.toml.*above the limit"):
        load_figure(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_like_a_card_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "batman.toml")
    with pytest.raises(CardDataError, match=r"batman\.toml' is a FIFO, not a regular file"):
        load_card(tmp_path / "batman.toml")


def test_nesting_in_a_figure_file_is_bounded(tmp_path):
    path = write(tmp_path, "wolverine.toml", WOLVERINE + "deep = " + "[" * 40 + "]" * 40 + "\n")
    with pytest.raises(FigureDataError, match=r"wolverine\.toml is not valid TOML: nested more than 32 deep"):
        load_figure(path)


@pytest.mark.parametrize(
    "old, new, key",
    [
        ("value = 10", "value = 1000", "value"),
        ("strength = 4", "strength = 1000", "stats.strength"),
        ("strength = 4", "strength = true", "stats.strength"),
    ],
)
def test_figure_numbers_are_bounded(tmp_path, old, new, key):
    path = write(tmp_path, "wolverine.toml", WOLVERINE.replace(old, new))
    with pytest.raises(FigureDataError, match=rf"wolverine\.toml: {key}: expected .*a whole number 0 to 99"):
        load_figure(path)


def test_a_number_beyond_what_a_float_holds_is_refused_in_a_figure_file(tmp_path):
    path = write(tmp_path, "wolverine.toml", WOLVERINE.replace("value = 10", "value = 100000000000000000000"))
    with pytest.raises(FigureDataError, match=r"wolverine\.toml is not valid TOML: a number of about 21 digits"):
        load_figure(path)


@pytest.mark.parametrize(
    "old, new, key",
    [
        ("cost = 4", "cost = 99999999999", "cost"),
        ("cost = 4", "cost = 4\ndice = 1000000", "dice"),  # a bag of a million dice
        ("cost = 4", "cost = 4\n[global]\ncost = 500\ntext = \"x\"", r"global\.cost"),
    ],
)
def test_card_numbers_are_bounded(tmp_path, old, new, key):
    text = BATMAN.replace(old, new)
    if "[global]" in new:  # the table must come after the card's own keys
        text = BATMAN.replace(old, "cost = 4") + "\n[global]\ncost = 500\ntext = \"x\"\n"
    path = write(tmp_path, "batman.toml", text)
    with pytest.raises(CardDataError, match=rf"batman\.toml: {key}: expected"):
        load_card(path)


@pytest.mark.parametrize("face", ["L1:\u0661:1/1", "L1:2:" + "9" * 5000 + "/1", "L1:\u00b2:1/1"])
def test_face_numbers_are_ascii_digits(face):
    with pytest.raises(InvalidRollError, match="not a Dice Masters face"):
        Face.from_notation(face)


_BATTLE = (EXAMPLES / "battle-dice-strike-totals.dtr").read_text(encoding="utf-8")
_MASTERS = (EXAMPLES / "dice-masters-example-of-play.dtr").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "text, message",
    [
        # '²' passes str.isdigit and int() refuses it; Arabic-Indic digits pass both.
        (_BATTLE.replace('[Value "30"]', '[Value "\u00b2"]'), r"\[Value '\u00b2'\]"),
        (_MASTERS.replace('[Life "10"]', '[Life "\u0661\u0660"]'), r"\[Life '\u0661\u0660'\]"),
        (_BATTLE.replace("reload P2\n", "reload P\u00b2\n", 1), r"not a seat: 'P\u00b2'"),
        (_BATTLE.replace("reload P2\n", "reload P" + "9" * 5000 + "\n", 1), r"not a seat: 'P9{19}'\.\.\. \(5001 characters\)"),
    ],
)
def test_numbers_in_seed_game_records_are_ascii_digits(text, message):
    with pytest.raises(RecordError, match=message):
        replay(GameRecord.from_text(text, "r.dtr"))


def test_whole_numbers_in_actions_are_ascii_digits():
    from rules.table import whole_number
    from rules.games import InvalidActionError

    assert whole_number("-2", "adjust") == -2 and whole_number("+3", "adjust") == 3
    for text in ("\u0661", "1_000", " 1", "9" * 31):
        with pytest.raises(InvalidActionError, match="adjust: expected a whole number"):
            whole_number(text, "adjust")


def test_replay_of_a_record_whose_figure_file_is_bad_exits_2_naming_file_and_key(tmp_path, capsys):
    write(tmp_path, "wolverine.toml", WOLVERINE.replace("value = 10", "value = 10000000000"))
    record = write(tmp_path, "game.dtr", _BATTLE.replace('[Value "30"]', f'[Value "30"]\n[Figures "{tmp_path}"]'))
    status = main(["replay", str(record)])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "wolverine.toml: value:" in err


@pytest.mark.parametrize("name", ["battle-dice-strike-totals.dtr", "dice-masters-example-of-play.dtr"])
def test_replay_of_each_example_record_finishes(name, capsys):
    assert main(["replay", str(EXAMPLES / name)]) == 0
    assert "winner:" in capsys.readouterr().out


def test_demo_refuses_dice_throne_heroes_for_another_game(tmp_path, capsys):
    status = main(["demo", "--game", "battle-dice", "--heroes", "barbarian", "monk", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2 and "--heroes picks Dice Throne heroes" in err and "Traceback" not in err


def test_the_games_load_without_numpy_or_opencv():
    import subprocess
    import sys

    code = (
        "import sys, rules.battledice.game, rules.dicemasters.game, rules.records; "
        "print(sorted(m for m in ('numpy', 'cv2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
