"""Every line the demos put on the OLED says its point first and loses no number: it fits its
room, or what a cut leaves off holds no digit (a trailing name or ability, never an amount)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hardware.screens
from hardware.font import load_font
from hardware.screens import WIDTH, ScreenState

BODY, SMALL, TITLE = load_font("fixed5x7"), load_font("fixed4x6"), load_font("tray5x7")


def numbers(text: str) -> list[str]:
    return re.findall(r"\d+", text)


def lost_numbers(font_choices: tuple[object, ...], text: str, width: int) -> list[str]:
    """The numbers of ``text`` that the renderer's cut would leave off (none when it fits)."""
    flat = text.replace("\t", " ")
    for font in font_choices:
        if hardware.screens._fits(font, text, width):  # type: ignore[arg-type]
            return []
    font = font_choices[-1]
    kept = numbers(font.fit(flat, width).rstrip("\u2026"))  # type: ignore[attr-defined]
    return numbers(flat)[len(kept):] if numbers(flat)[: len(kept)] == kept else numbers(flat)


def problems(state: ScreenState) -> list[str]:
    found = []
    for index, line in enumerate(state.lines):
        room = WIDTH - 2 if index == state.selected else WIDTH
        fonts = (SMALL,) if state.dense else (BODY, SMALL)
        if lost_numbers(fonts, line, room):
            found.append(f"line {line!r}")
    if state.prompt and lost_numbers((BODY, SMALL), state.prompt, WIDTH):
        found.append(f"prompt {state.prompt!r}")
    attempt = TITLE.text_width("1/3") + TITLE.advance if state.attempt else 0
    if state.title and TITLE.text_width(state.title) > WIDTH - 2 - attempt:
        found.append(f"title {state.title!r}")
    return found


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[ScreenState]:
    """Every screen drawn, in order (the renderer itself, watched)."""
    screens: list[ScreenState] = []
    render = hardware.screens.render_screen

    def watched(state: ScreenState):  # type: ignore[no-untyped-def]
        screens.append(state)
        return render(state)

    monkeypatch.setattr(hardware.screens, "render_screen", watched)
    return screens


def test_the_dice_throne_demo_shows_no_line_that_loses_a_number(shown: list[ScreenState], tmp_path: Path) -> None:
    from firmware_host.demo import DemoTable

    DemoTable(tmp_path, seed=1).play()
    assert len(shown) > 50
    assert [problem for state in shown for problem in problems(state)] == []


@pytest.mark.parametrize("game", ["battle-dice", "dice-masters"])
def test_the_menu_games_show_no_line_that_loses_a_number(game: str, shown: list[ScreenState], tmp_path: Path) -> None:
    from firmware_host.seed_demo import SeedGameDemo

    SeedGameDemo(game, tmp_path, seed=0).play()
    assert len(shown) > 20
    assert [problem for state in shown for problem in problems(state)] == []


def test_the_check_catches_a_cut_amount() -> None:
    state = ScreenState(lines=("Turn limit: Player 2 (Moon Elf) leads with 39 HP",), dense=True)
    assert problems(state) == ["line 'Turn limit: Player 2 (Moon Elf) leads with 39 HP'"]
