"""The presenters: the OLED screen and the status LED come from the flow's view, and a subscriber
to the flow's event stream shows what changed (a real capture display and gpiozero mock pins)."""

from __future__ import annotations

from pathlib import Path

from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_host.game_flow import GameFlow, Step
from firmware_host.presenters import Presenters, led_status, oled_screen, symbol_codes
from hardware.display import CaptureDisplay
from hardware.lights import StatusLight, TrayStatus
from rules.dicethrone.game import Game
from rules.dicethrone.heroes import load_hero

from tests.game.test_game_flow import reading, to_offense


def test_the_screen_is_a_function_of_the_view() -> None:
    flow = GameFlow(Game.new(["barbarian", "moon-elf"], names=["Ana", "Bo"]))
    view = flow.view()
    screen = oled_screen(view)
    assert screen == flow.screen()
    assert screen.title == "Main 1 Ana" and [p.name for p in screen.players] == ["Ana", "Bo"]
    assert led_status(view) is TrayStatus.WAITING_FOR_INPUT


def test_symbol_codes_tell_the_symbols_apart() -> None:
    assert symbol_codes(load_hero("barbarian")) == {"heart": "H", "strength": "ST", "sword": "SW"}


def test_the_presenters_follow_the_event_stream(tmp_path: Path) -> None:
    display = CaptureDisplay(tmp_path)
    light = StatusLight(pin_factory=MockFactory(pin_class=MockPWMPin))
    presenters = Presenters(display=display, light=light)
    flow = GameFlow(Game.new(["barbarian", "moon-elf"]), on_event=presenters)
    presenters.flow = flow
    presenters.refresh()
    first = display.frames_written
    to_offense(flow)
    assert display.frames_written > first
    flow.on_reading(reading(1, 2, 3, 4, 1))
    assert flow.step is Step.CHOOSE and presenters.shown_status is TrayStatus.ABILITY_READY
    assert presenters.shown_screen == flow.screen()
    light.close()
    display.close()


def test_the_damage_window_says_the_damage_first_and_never_cuts_a_number(tmp_path: Path) -> None:
    import re

    from firmware_host.demo import DemoTable
    from hardware.font import load_font

    table = DemoTable(tmp_path / "frames", seed=0)
    shown: list[str] = []

    def damage_lines(event: object) -> None:
        if table.flow.step is Step.DAMAGE:
            shown.append(table.flow.screen().lines[0])

    table.service.events.subscribe(damage_lines)
    table.play()
    assert shown
    small = load_font("fixed4x6")
    for line in shown:
        assert re.match(r"\d+ dmg to ", line), line
        drawn = small.fit(line, 128)
        # Whatever the cut leaves, each number in it is whole.
        assert all(number in re.findall(r"\d+", line) for number in re.findall(r"\d+", drawn.rstrip("\u2026")))


def test_an_unsure_sword_shows_its_symbol_on_the_dice_line() -> None:
    from tests.game.test_game_flow import hero_reading, unsure

    flow = GameFlow(Game.new(["barbarian", "moon-elf"]))
    to_offense(flow)
    flow.on_reading(hero_reading(unsure(1, 2), 3, 4, 5, 6))
    cells = oled_screen(flow.view()).dice
    assert cells[0].label == "?" + symbol_codes(load_hero("barbarian"))["sword"] and cells[0].unreadable
