"""`dicetray demo` end to end: simulated tray, real settle detection and reader, mock pins, PNG frames."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from firmware_host.cli import main
from firmware_host.demo import run_demo
from firmware_host.transcript import FlowEventKind
from vision.reader import DiceReader
from vision.types import DieStatus, FrameReading


def test_the_demo_plays_a_whole_game_and_writes_every_display_frame(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "frames"
    assert main(["demo", "--out", str(out), "--seed", "1"]) == 0
    printed = capsys.readouterr()
    transcript = printed.out
    assert "Traceback" not in printed.err
    for words in ("Turn 1: Barbarian", "Offensive Roll Phase", "Read ", "Roll 1/3:", "activates",
                  "Defensive Roll Phase", "takes", "HP", "Game over"):
        assert words in transcript, words
    frames = sorted(out.glob("frame_*.png"))
    assert len(frames) >= 30
    assert f"{len(frames)} display frames, the transcript and the game record in" in transcript
    assert (out / "transcript.txt").read_text(encoding="utf-8") in transcript  # the same lines, kept
    for path in (frames[0], frames[len(frames) // 2], frames[-1]):
        with Image.open(path) as image:
            assert image.size == (128, 64) and image.mode == "1"
            assert np.asarray(image).any()  # something is drawn


def test_the_same_seed_plays_the_same_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for n, seed in enumerate(("4", "4", "5")):
        assert main(["demo", "--out", str(tmp_path / f"run{n}"), "--seed", seed, "--turns", "1"]) == 0
        runs.append(capsys.readouterr().out.replace(str(tmp_path / f"run{n}"), "OUT"))
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]
    first = sorted((tmp_path / "run0").glob("*.png"))
    second = sorted((tmp_path / "run1").glob("*.png"))
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


class _FaultyReader:
    """The real reader, with one reading spoilt the way real readers go wrong."""

    def __init__(self, spoil: str) -> None:
        self.inner = DiceReader()
        self.spoil = spoil
        self.spoilt = False

    def read(self, frame: np.ndarray) -> FrameReading:
        reading = self.inner.read(frame)
        if self.spoilt or len(reading.dice) < 3 or not reading.all_ok:
            return reading
        self.spoilt = True
        dice = list(reading.dice)
        die = dice[1]
        assert die.value is not None
        if self.spoil == "misread":
            dice[1] = dataclasses.replace(die, value=die.value % 6 + 1, face=str(die.value % 6 + 1))
        else:
            dice[1] = dataclasses.replace(die, value=None, face=None, status=DieStatus(self.spoil))
        return dataclasses.replace(reading, dice=tuple(dice))


def test_a_misread_die_is_corrected_from_the_buttons(tmp_path: Path) -> None:
    reader = _FaultyReader("misread")
    result = run_demo(tmp_path, seed=2, turn_limit=1, reader=reader)
    assert reader.spoilt and result.finished
    assert result.corrections >= 1
    fixed = [line for line in result.transcript if "Die 2 set to" in line]
    assert fixed and "(read " in fixed[0]


def test_a_cocked_die_is_rerolled_at_the_prompt(tmp_path: Path) -> None:
    reader = _FaultyReader("cocked")
    result = run_demo(tmp_path, seed=2, turn_limit=1, reader=reader)
    assert reader.spoilt and result.finished and result.rerolls >= 1
    text = "\n".join(result.transcript)
    assert "Cannot read die 2 cocked: reroll it" in text
    prompt = next(i for i, line in enumerate(result.transcript) if "Cannot read die 2" in line)
    assert result.transcript[prompt + 1].strip().startswith("Read ")  # the reroll was read


def test_an_unreadable_die_is_set_from_the_buttons(tmp_path: Path) -> None:
    reader = _FaultyReader("unreadable")
    result = run_demo(tmp_path, seed=2, turn_limit=1, reader=reader)
    assert reader.spoilt and result.finished
    assert any("Die 2 set to" in line and "(was unreadable)" in line for line in result.transcript)


def test_a_reader_that_finds_nothing_leaves_the_roll_to_be_keyed_in(tmp_path: Path) -> None:
    class Blind:
        def read(self, frame: np.ndarray) -> FrameReading:
            return FrameReading()

    result = run_demo(tmp_path, seed=3, turn_limit=1, reader=Blind())
    assert result.finished and result.readings == 0
    assert any("(keyed in)" in line for line in result.transcript)
    assert any(line.strip().startswith("Roll 1/3:") for line in result.transcript)


def test_bad_arguments_and_an_unwritable_folder_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--seed", "-3"]) == 2
    assert capsys.readouterr().err == "dicetray demo: error: --seed must be 0 or more, not '-3'\n"
    assert main(["demo", "--turns", "many"]) == 2
    assert "--turns takes a whole number, not 'many'" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["demo", "--out", str(blocker / "frames")]) == 1
    printed = capsys.readouterr()
    assert printed.out == ""  # stopped before the game began
    assert printed.err.startswith("dicetray demo: error: cannot write display frames to")
    assert "Traceback" not in printed.err


def test_the_demo_drives_the_status_led_and_buttons_through_gpiozero_mock_pins(tmp_path: Path) -> None:
    from firmware_host.demo import DemoTable
    from hardware.lights import TrayStatus

    table = DemoTable(tmp_path, seed=2, turn_limit=1)
    shown: list[TrayStatus] = []
    show = table.light.show
    table.light.show = lambda status: (shown.append(status), show(status))[1]  # type: ignore[method-assign]
    result = table.play()
    assert result.finished
    assert {TrayStatus.WAITING_FOR_INPUT, TrayStatus.ROLLING, TrayStatus.ABILITY_READY} <= set(shown) or {
        TrayStatus.WAITING_FOR_INPUT, TrayStatus.ROLLING, TrayStatus.NO_ABILITY} <= set(shown)
    green, blue = table.pins.pin(27), table.pins.pin(22)
    assert len({s.state for s in green.states}) > 1 and len({s.state for s in blue.states}) > 1
    assert (green.state, blue.state, table.pins.pin(17).state) == (0, 0, 0)  # off after the game
    next_button = table.pins.pin(5)
    assert sum(not s.state for s in next_button.states) >= 5  # pressed (pulled low) again and again
    assert next_button.state  # released


def test_the_demo_spends_a_status_plays_a_card_and_leaves_a_record_that_replays(tmp_path: Path) -> None:
    from rules.records import GameRecord, replay

    # (the seeds are games that show these: what the tray reads decides each game's course)
    result = run_demo(tmp_path, seed=13)
    text = "\n".join(result.transcript)
    assert "Moon Elf spends Evasive" in text and "plays a card (+2 dmg)" in text
    assert "gain Evasive" in text and "inflict Blinded" in text
    assert "Barbarian rolls 6 for Blinded: the ability stands" in text
    record = GameRecord.from_text((tmp_path / "game.dtr").read_text(encoding="utf-8"))
    state = replay(record).to_json()
    assert [p["statuses"] for p in state["players"]] == [{"Blinded": 1}, {}]
    # the record replays to the health the game ended with
    ended = result.transcript[-1].rsplit(". ", 1)[-1]
    assert ended == ", ".join(f"{p['name']} {p['health']} HP" for p in state["players"])
    # and a Blinded roll of 1-2 brings an ability to nothing
    other = run_demo(tmp_path / "other", seed=10)
    assert "Barbarian rolls 2 for Blinded: the ability has no effect" in "\n".join(other.transcript)
