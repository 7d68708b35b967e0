"""`dicetray run` plays Battle Dice and Dice Masters as it plays Dice Throne: the config's `[game]`
names the game and sets it up, the camera's settled frames are the rolls, and the game's record is
written as it goes (and resumed after a restart)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware_host.choice_flow import TrayDie
from firmware_host.config import ConfigError, GameConfig, parse_config
from firmware_host.dicemasters_flow import DiceMastersFlow
from firmware_host.game_store import GameStore
from firmware_host.seed_demo import BATTLE_DICE, DICE_MASTERS, DICE_MASTERS_COLOURS, render_throw
from firmware_host.table_flows import flow_for, new_game
from firmware_host.web.state import table_state
from hardware.buttons import ButtonEvent
from hardware.sim.faces import DieDesign
from tests.service.test_run_command import dicetray
from vision.types import BodyColour, DieReading, DieStatus, FrameReading

BATTLE_SETUP = {k: v for k, v in BATTLE_DICE.items() if k not in ("P1", "P2")}
MASTERS_COLOURS = {
    f"P{n}Colours": " ".join(f"{card}={colour.replace('ivory', 'white')}" for card, colour in colours.items())
    for n, colours in enumerate(DICE_MASTERS_COLOURS, start=1)
}


def toml_table(tags: dict[str, str]) -> str:
    return "{" + ", ".join(f'{key} = "{value}"' for key, value in tags.items()) + "}"


def battle_config(tmp_path: Path, folder: Path) -> Path:
    config = tmp_path / "battle.toml"
    config.write_text(
        f'camera = "replay:{folder}"\ngpio = "mock"\ndisplay = "capture:screens"\nroll_log = "rolls.sqlite3"\n'
        f'[game]\nname = "battle-dice"\nplayers = ["Ann", "Bob"]\nsetup = {toml_table(BATTLE_SETUP)}\n'
    )
    return config


def test_battle_dice_is_played_from_the_camera_and_its_record_resumes(tmp_path: Path) -> None:
    """The players have reloaded (the record the tray wrote before a restart); each throws their three
    dice on their side of the tray. The tray reads faces and body colours from the frames, with the
    product's reader, and records both rolls; the Strike Totals follow."""
    values = {"red": 3, "blue": 4, "green": 6, "yellow": 2, "purple": 4, "orange": 6}  # the seed's example
    specs = [
        (values[colour], colour, DieDesign.pips(), seat, None)
        for seat, colours in enumerate((("red", "blue", "green"), ("yellow", "purple", "orange")))
        for colour in colours
    ]
    tray, _ = render_throw(specs, np.random.default_rng(5))
    folder = tmp_path / "frames"
    folder.mkdir()
    for index in range(12):  # dice at rest for 0.4 s: one settled roll
        cv2.imwrite(str(folder / f"frame_{index:04d}.png"), tray.frame)
    config = battle_config(tmp_path, folder)
    game = new_game(parse_config(config.read_text(), source=config).game)
    game.play("reload P1")
    game.play("reload P2")
    store = GameStore(tmp_path / "rolls.sqlite3")
    store.sync(game)
    store.close()

    result = dicetray("run", "--config", str(config))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "resumed game 1" in result.stdout, result.stdout
    with sqlite3.connect(tmp_path / "rolls.sqlite3") as db:
        actions = [row[0] for row in db.execute("SELECT action FROM game_actions WHERE game = 1 ORDER BY seq")]
    db.close()
    assert actions[:2] == ["reload P1", "reload P2"]
    rolls = sorted(a for a in actions if a.startswith("roll"))
    assert rolls == ["roll P1 red 3 blue 4 green 6", "roll P2 yellow 2 purple 4 orange 6"], actions
    assert "Strike Totals Ann 13, Bob 12: Bob chooses the match-up" in result.stdout  # as the seed's example says
    assert len(list((tmp_path / "screens").glob("frame_*.png"))) >= 2  # the OLED showed the roll and the match-up


def test_a_config_names_the_game_and_a_bad_setup_is_refused_naming_the_tag(tmp_path: Path) -> None:
    good = parse_config(f'[game]\nname = "Battle Dice"\nplayers = ["Ann", "Bob"]\nsetup = {toml_table(BATTLE_SETUP)}\n')
    assert good.game.tags["P1"] == "Ann" and good.game.tags["P2Dice"] == "yellow purple orange"
    bad_colour = {**BATTLE_SETUP, "P2Dice": "yellow navy orange"}
    with pytest.raises(ConfigError, match=r"P2Dice: the tray cannot tell a 'navy' die"):
        parse_config(f'[game]\nname = "battledice"\nsetup = {toml_table(bad_colour)}\n')
    with pytest.raises(ConfigError, match=r"no game 'chess'"):
        parse_config('[game]\nname = "chess"\n')
    with pytest.raises(ConfigError, match=r"game.setup must be a table of strings"):
        parse_config('[game]\nname = "battledice"\nsetup = ["P1Team"]\n')
    no_team = {k: v for k, v in BATTLE_SETUP.items() if k != "P2Team"}
    with pytest.raises(ConfigError, match=r"P2Team"):
        parse_config(f'[game]\nname = "battledice"\nsetup = {toml_table(no_team)}\n')
    masters = {k: v for k, v in DICE_MASTERS.items() if k not in ("P1", "P2")}
    with pytest.raises(ConfigError, match=r"P1Colours: no body colour for Player 1's martian-manhunter, batman, sidekick"):
        parse_config(f'[game]\nname = "dicemasters"\nsetup = {toml_table(masters)}\n')
    twice = {**masters, **MASTERS_COLOURS, "P2Colours": MASTERS_COLOURS["P2Colours"].replace("zatanna=purple", "zatanna=blue")}
    with pytest.raises(ConfigError, match=r"P2Colours: two dice of one player are blue"):
        parse_config(f'[game]\nname = "dicemasters"\nsetup = {toml_table(twice)}\n')


def masters_flow() -> DiceMastersFlow:
    config = GameConfig(
        players=("Patricia", "Jimmy"),
        name="dicemasters",
        setup=tuple({k: v for k, v in DICE_MASTERS.items() if k not in ("P1", "P2")}.items()) + tuple(MASTERS_COLOURS.items()),
    )
    flow = flow_for(config, new_game(config))
    assert isinstance(flow, DiceMastersFlow)
    return flow


def die(face: str, colour: str, x: int, *, ok: bool = True) -> DieReading:
    return DieReading(
        value=1 if ok else None, confidence=0.99 if ok else 0.4, box=(x, 200, 40, 40),
        status=DieStatus.OK if ok else DieStatus.UNREADABLE, face=face if ok else None,
        colour=BodyColour(colour, (0, 0, 0)),
    )  # fmt: skip


def test_a_dice_masters_reading_is_the_roll_and_an_unread_die_of_no_card_is_rolled_again() -> None:
    """Calibrated faces (the face notation as the label) and body colours of a reading are the
    Clear and Draw roll; a reading with a die the reader was unsure of, of a colour none of the
    player's cards has, is refused: nothing played, the die is rolled again."""
    flow = masters_flow()
    unsure = FrameReading((die("1fist", "white", 20), die("", "pink", 120, ok=False)), frame_size=(640, 480))
    events = flow.on_reading(unsure)
    assert flow.game.actions == [] and "roll again: 1 unread (left centre)" in flow.message
    assert [e.kind.value for e in events] == ["reroll"] and flow.setting_die is None
    faces = flow.game.cards["sidekick"].faces
    # A Sidekick's faces 5 and 6 are both L1:0:1/1: a die unsure between them is that face.
    assert faces[4].notation() == faces[5].notation() == "L1:0:1/1"
    alike = DieReading(
        value=None, confidence=0.5, box=(200, 200, 40, 40), status=DieStatus.UNREADABLE,
        symbol="L1:0:1/1", candidates=("face-5", "face-6"), candidate_values=(5, 6),
        colour=BodyColour("white", (0, 0, 0)),
    )  # fmt: skip
    reading = FrameReading(
        tuple(die(faces[i].notation(), "white", 20 + 60 * i) for i in range(3)) + (alike,), frame_size=(640, 480)
    )
    events = flow.on_reading(reading)
    assert flow.game.actions[0].startswith("draw P1") and flow.game.actions[1].startswith("roll P1 sidekick#")
    assert "roll" in [e.kind.value for e in events]  # the draw, then the roll
    state = table_state(flow)
    assert state is not None and state["options"] and state["options"][0]["kind"] == "menu"
    assert [d["face"] for d in state["dice"]] == [faces[i].notation() for i in range(3)] + [None]
    assert flow.game.actions[1].endswith(" L1:0:1/1")  # the unsure die, played as the face both show


def test_an_unread_dice_masters_die_is_set_to_one_of_its_cards_faces_from_the_menu() -> None:
    """A die the reader was unsure of waits: the menu offers its card's faces (those it was
    taken for first) and "roll them again"; once set, the reading is played as the roll."""
    from firmware_host.web.actions import TableAction, presses

    flow = masters_flow()
    faces = [f.notation() for f in flow.game.cards["sidekick"].faces]
    unsure = DieReading(value=None, confidence=0.5, box=(180, 200, 40, 40), status=DieStatus.UNREADABLE,
                        candidates=("L1:0:1/1", "fist"), colour=BodyColour("white", (0, 0, 0)))
    reading = FrameReading(tuple(die(faces[i], "white", 20 + 60 * i) for i in range(3)) + (unsure,), frame_size=(640, 480))
    events = flow.on_reading(reading)
    assert flow.game.actions == [] and [e.kind.value for e in events] == ["reroll"]
    assert flow.message == "1 unread: set or roll again"
    labels = [c.label for c in flow.menu()]
    assert labels == [f"left centre die: {f}" for f in ("L1:0:1/1", "fist", "mask", "bolt", "shield")] + ["roll them again"]
    assert set(faces) == {"mask", "fist", "bolt", "shield", "L1:0:1/1"}
    state = table_state(flow)
    assert state is not None and state["step"] == "choose" and [o["label"] for o in state["options"]] == labels
    assert flow.screen().prompt == "set the die"
    # BACK leaves the die to be rolled again and plays nothing
    flow.on_button(ButtonEvent.BACK)
    assert flow.setting_die is None and flow.game.actions == [] and flow.message == "roll the dice again"
    flow.on_reading(reading)
    # the page's choose presses the buttons: the second line, fist
    for press in presses(TableAction("choose", option=1, label="left centre die: fist"), flow):
        flow.on_button(press)
    assert flow.setting_die is None and flow.message == ""
    assert flow.game.actions[0].startswith("draw P1") and flow.game.actions[1].startswith("roll P1 sidekick#")
    assert flow.game.actions[1].endswith(" fist")  # the die set


def test_an_unread_die_on_the_other_players_side_holds_no_dice_masters_roll_up() -> None:
    """Only the rolling player's side of the tray is their roll: a die the reader could not tell
    on the other side is passed over, not asked for."""
    flow = masters_flow()
    faces = [f.notation() for f in flow.game.cards["sidekick"].faces]
    theirs = die("", "white", 500, ok=False)
    reading = FrameReading(tuple(die(faces[i], "white", 20 + 60 * i) for i in range(4)) + (theirs,), frame_size=(640, 480))
    flow.on_reading(reading)
    assert flow.setting_die is None and flow.message == ""
    assert flow.game.actions[1].startswith("roll P1 sidekick#") and len(flow.game.actions[1].split()) == 2 + 2 * 4


def test_an_unread_battle_die_is_set_from_the_menu_or_rolled_again() -> None:
    """A battle die read as 4 or 5 is offered 4 and 5 first; moving dice drop the faces set."""
    config = GameConfig(players=("Ann", "Bob"), name="battledice", setup=tuple(BATTLE_SETUP.items()))
    flow = flow_for(config, new_game(config))
    while flow.menu() and not flow.wants_dice():
        flow.on_button(ButtonEvent.NEXT)
    assert flow.wants_dice()
    seat_dice = {seat: list(player.dice) for seat, player in enumerate(flow.game.state.seats)}
    wanted = flow.game.state.mode.dice_per_round
    read = [DieReading(3, 0.99, (40 + 40 * i, 200, 30, 30), DieStatus.OK, face="3", colour=BodyColour(c, (0, 0, 0)))
            for i, c in enumerate(seat_dice[0][:wanted])]
    unsure = replace(read[-1], value=None, status=DieStatus.UNREADABLE, face=None, confidence=0.6,
                     candidates=("4", "5"), candidate_values=(4, 5), reason="unsure: 4 or 5")
    reading = FrameReading((*read[:-1], unsure), frame_size=(640, 480))
    flow.on_reading(reading)
    assert [c.label.split(": ")[1] for c in flow.menu()[:3]] == ["4", "5", "1"] and flow.menu()[-1].label == "roll them again" and flow.game.actions[-1].startswith("reload")
    flow.on_rolling()  # the dice moved: what was being set waits for the next reading
    assert flow.setting_die is None and flow.menu() == flow.choices()
    flow.on_reading(reading)
    flow.on_button(ButtonEvent.SELECT)  # to 5
    flow.on_button(ButtonEvent.NEXT)
    assert flow.game.actions[-1] == "roll P1 " + " ".join(f"{c} {v}" for c, v in zip(seat_dice[0][:wanted], [3] * (wanted - 1) + [5]))


def test_the_buttons_and_the_page_choose_a_menu_line_alike() -> None:
    """SELECT moves, NEXT takes, as in Dice Throne; the table app's choose presses the same."""
    from firmware_host.web.actions import TableAction, presses

    config = GameConfig(players=("Ann", "Bob"), name="battledice", setup=tuple(BATTLE_SETUP.items()))
    flow = flow_for(config, new_game(config))
    assert [e.kind.value for e in flow.on_button(ButtonEvent.SELECT)] == [] and flow.selected == 1
    for press in presses(TableAction("choose", option=0, label="Ann: reload"), flow):
        flow.on_button(press)
    assert flow.game.actions == ["reload P1"]
    four = DieReading(4, 0.99, (600, 200, 40, 40), DieStatus.OK, face="4", colour=BodyColour("red", (200, 30, 30)))
    assert TrayDie.of(four, (640, 480)) == TrayDie("4", "red", 620 / 640, 220 / 480)


def test_the_page_cannot_start_a_dice_throne_game_over_a_menu_game() -> None:
    """A menu game is set up in the config; the page's new-game form is refused, naming why."""
    from firmware_host.web.actions import ActionRefused, TableAction, presses

    config = GameConfig(players=("Ann", "Bob"), name="battledice", setup=tuple(BATTLE_SETUP.items()))
    flow = flow_for(config, new_game(config))
    with pytest.raises(ActionRefused, match=r"set up in the tray's config"):
        list(presses(TableAction("start-game", game=object()), flow))


def test_dice_masters_without_profiles_is_told_at_start(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Dice Masters dice show artwork: a tray set up for it with no profiles says so in the journal."""
    import logging

    from firmware_host.service import build_service

    masters = {k: v for k, v in DICE_MASTERS.items() if k not in ("P1", "P2")} | MASTERS_COLOURS
    config = parse_config(
        f'camera = "sim:1"\ngpio = "mock"\ndisplay = "none"\nroll_log = "rolls.sqlite3"\n'
        f'[game]\nname = "dicemasters"\nsetup = {toml_table(masters)}\n',
        source=tmp_path / "masters.toml",
    )
    with caplog.at_level(logging.WARNING, logger="firmware_host.service"):
        service = build_service(config)
        service.close()
    assert "Dice Masters dice show artwork" in caplog.text and "masters.toml" in caplog.text


def test_an_unread_die_on_the_side_of_a_seat_that_has_rolled_holds_no_battle_roll_up() -> None:
    config = GameConfig(players=("Ann", "Bob"), name="battledice", setup=tuple(BATTLE_SETUP.items()))
    flow = flow_for(config, new_game(config))
    while flow.menu() and not flow.wants_dice():
        flow.on_button(ButtonEvent.NEXT)
    seats = flow.game.state.seats
    wanted = flow.game.state.mode.dice_per_round
    flow.game.play("roll P1 " + " ".join(f"{c} 3" for c in list(seats[0].dice)[:wanted]))
    bobs = [DieReading(4, 0.99, (400 + 50 * i, 200, 30, 30), DieStatus.OK, face="4", colour=BodyColour(c, (0, 0, 0)))
            for i, c in enumerate(list(seats[1].dice)[:wanted])]
    anns_unread = DieReading(None, 0.3, (60, 200, 30, 30), DieStatus.UNREADABLE, colour=BodyColour("red", (0, 0, 0)))
    flow.on_reading(FrameReading((anns_unread, *bobs), frame_size=(640, 480)))
    assert flow.setting_die is None
    assert flow.game.actions[-1] == "roll P2 " + " ".join(f"{c} 4" for c in list(seats[1].dice)[:wanted])
