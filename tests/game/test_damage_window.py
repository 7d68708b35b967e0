"""The damage window at the table: statuses spent and cards played from the buttons before the
damage is applied, statuses on the screen, status damage in Upkeep."""

from __future__ import annotations

from dataclasses import replace

from firmware_host.game_flow import GameFlow, OptionKind, Step
from firmware_host.transcript import FlowEventKind
from hardware.buttons import ButtonEvent
from hardware.screens import render_screen
from rules.dicethrone.game import Game, Phase
from rules.records import GameRecord, replay
from vision.types import DieReading, DieStatus, FrameReading

from tests.game.test_game_flow import plain_unsure, press, reading, select, to_offense

NEXT, SELECT, BACK = ButtonEvent.NEXT, ButtonEvent.SELECT, ButtonEvent.BACK


def attacked_flow(defender_statuses: dict[str, int]) -> GameFlow:
    game = Game.new(["barbarian", "monk"], names=["Ana", "Bo"])
    for name, count in defender_statuses.items():
        game.gain_status(1, name, count)
    flow = GameFlow(game)
    to_offense(flow)
    flow.on_reading(reading(1, 2, 3, 4, 1))
    select(flow, OptionKind.ACTIVATE, "Mighty Blow")  # 9 dmg
    flow.on_button(NEXT)
    return flow


def monk_defends(flow: GameFlow) -> None:
    dice = flow.expected_dice
    flow.on_reading(reading(*[1] * dice))  # fists: whatever the Monk's defense does with them


def test_the_defender_spends_evasive_with_its_die_from_the_buttons() -> None:
    flow = attacked_flow({"Evasive": 1})
    monk_defends(flow)
    assert flow.step is Step.DAMAGE
    assert any("Bo Eva1" in line for line in flow.screen().lines)  # statuses drawn
    select(flow, OptionKind.SPEND, name="Evasive", index=1)
    flow.on_button(NEXT)
    assert flow.step is Step.SPEND_DIE and flow.screen().prompt == "SEL die  NEXT spend"
    render_screen(flow.screen())
    press(flow, SELECT, NEXT)  # the die shows 2: a success
    assert flow.step is Step.DAMAGE and "Evasive" not in flow.game.players[1].statuses
    assert any(line.startswith("0 dmg to ") for line in flow.screen().lines)
    events = flow.on_button(NEXT)
    assert flow.game.health(1) == 50 and flow.game.phase is Phase.MAIN_2
    assert FlowEventKind.DAMAGE in [e.kind for e in events]


def beside_the_roll(flow: GameFlow, *new: DieReading) -> FrameReading:
    """The tray as the defender rolls the status's dice: the roll's dice still lying, and ``new``
    thrown beside them."""
    thrown = tuple(replace(die, box=(520 - 60 * i, 400, 36, 36)) for i, die in enumerate(new))
    return FrameReading(tuple(flow.dice) + thrown, ms=5.0)


def one_die(value: int) -> DieReading:
    return DieReading(value, 0.99, (0, 0, 36, 36), DieStatus.OK, face=str(value))


def to_evasive_die(flow: GameFlow) -> None:
    monk_defends(flow)
    select(flow, OptionKind.SPEND, name="Evasive", index=1)
    flow.on_button(NEXT)
    assert flow.step is Step.SPEND_DIE


def test_the_evasive_die_is_read_from_the_tray() -> None:
    flow = attacked_flow({"Evasive": 1})
    to_evasive_die(flow)
    flow.on_rolling()
    assert flow.status().value == "rolling"
    flow.on_reading(beside_the_roll(flow, one_die(2)))  # a 2: a success
    assert flow.step is Step.DAMAGE and "Evasive" not in flow.game.players[1].statuses
    assert flow.game.actions[-1] == "spend P2 Evasive 2"
    assert "Bo spends Evasive (rolled 2)" in [e.text for e in flow.events]


def test_an_evasive_die_read_as_numbers_that_all_fail_is_spent_with_both() -> None:
    flow = attacked_flow({"Evasive": 1})
    to_evasive_die(flow)
    flow.on_reading(beside_the_roll(flow, plain_unsure(4, 5)))  # Evasive works on 1-2: a 4 or a 5 fails
    assert flow.step is Step.DAMAGE and flow.game.actions[-1] == "spend P2 Evasive 4|5"
    spent = [e for e in flow.events if e.kind is FlowEventKind.STATUS][-1]
    assert spent.text == "Bo spends Evasive (rolled 4 or 5: no effect)" and spent.data["read_as"] == [4, 5]
    game = flow.game
    assert replay(GameRecord.from_text(GameRecord.of(game).notation())).to_json() == game.to_json()


def test_an_evasive_die_the_tray_cannot_settle_is_set_by_hand() -> None:
    flow = attacked_flow({"Evasive": 1})
    to_evasive_die(flow)
    flow.on_reading(beside_the_roll(flow, plain_unsure(3, 2)))  # a 2 works, a 3 does not
    assert flow.step is Step.SPEND_DIE and flow.game.players[1].statuses == {"Evasive": 1}
    assert flow.screen().lines[0] == "Read 3 or 2: set it" and "Die shows 3" in flow.screen().lines
    # picked up, and two dice rolled where none lay
    two = tuple(replace(one_die(2), box=(300 + 60 * i, 300, 36, 36)) for i in range(2))
    flow.on_reading(FrameReading(tuple(flow.dice) + two, ms=5.0))
    assert flow.step is Step.SPEND_DIE and flow.screen().lines[0] == "Roll 1 die for Evasive, saw 2 new"
    flow.on_reading(FrameReading(tuple(flow.dice), ms=5.0))  # only the roll's dice: nothing new
    assert flow.step is Step.SPEND_DIE and flow.screen().lines[0] == "Roll 1 die for Evasive, saw 0 new"
    press(flow, SELECT, SELECT, SELECT, SELECT, SELECT, NEXT)  # 3 -> 2 (wrapping past 6)
    assert flow.game.actions[-1] == "spend P2 Evasive 2" and "Evasive" not in flow.game.players[1].statuses


def test_an_evasive_die_rolled_alone_is_read_too() -> None:
    flow = attacked_flow({"Evasive": 1})
    to_evasive_die(flow)
    flow.on_reading(FrameReading((replace(one_die(1), box=(300, 300, 36, 36)),), ms=5.0))  # the roll picked up
    assert flow.game.actions[-1] == "spend P2 Evasive 1"


def test_back_takes_a_spent_status_back() -> None:
    flow = attacked_flow({"Evasive": 1})
    monk_defends(flow)
    select(flow, OptionKind.SPEND, name="Evasive", index=1)
    press(flow, NEXT, NEXT)  # the die shows 1
    assert "Evasive" not in flow.game.players[1].statuses
    flow.on_button(BACK)
    assert flow.game.players[1].statuses == {"Evasive": 1}


def test_a_card_from_the_buttons_changes_the_damage_before_it_lands() -> None:
    flow = attacked_flow({})
    monk_defends(flow)
    before = flow.game.preview().damage.total
    select(flow, OptionKind.CARD_PREVENT, index=1)
    press(flow, NEXT, SELECT, NEXT)  # pay 1 CP
    assert flow.step is Step.AMOUNT
    press(flow, SELECT, SELECT, NEXT)  # prevent 3
    assert flow.step is Step.DAMAGE and flow.game.players[1].cp == 1
    flow.on_button(NEXT)
    assert flow.game.health(1) == 50 - max(0, before - 3)
    assert flow.game.actions[-3:-1] == ["card P2 roll 1 prevent 3", "resolve"]


def test_the_window_is_a_game_record_too() -> None:
    flow = attacked_flow({"Evasive": 1})
    monk_defends(flow)
    select(flow, OptionKind.SPEND, name="Evasive", index=1)
    press(flow, NEXT, SELECT, SELECT, SELECT, NEXT, NEXT)  # a 4: no effect; apply
    game = flow.game
    assert replay(GameRecord.from_text(GameRecord.of(game).notation())).to_json() == game.to_json()


def test_poison_hurts_in_upkeep_at_the_table() -> None:
    game = Game.new(["barbarian", "shadow-thief"], names=["Ana", "Sam"])
    game.players[0].statuses["Poison"] = 2
    flow = GameFlow(game)
    assert game.health(0) == 48  # the start player's first Upkeep Phase
    assert any("Ana Poi2" in line for line in flow.screen().lines)


def test_the_active_player_acts_first_in_the_window() -> None:
    game = Game.new(["monk", "paladin"], names=["Mo", "Pa"])
    game.gain_status(0, "Chi", 1)
    game.gain_status(1, "Protect", 1)
    flow = GameFlow(game)
    to_offense(flow)
    flow.on_reading(reading(1, 2, 3, 4, 1))  # a small straight
    select(flow, OptionKind.ACTIVATE, "Harmony")
    flow.on_button(NEXT)
    if flow.step is not Step.DAMAGE:
        flow.on_reading(reading(*[1] * flow.expected_dice))
    spends = [(o.index, o.name) for o in flow.options if o.kind is OptionKind.SPEND]
    assert spends == [(0, "Chi"), (1, "Protect")]


def test_an_or_is_chosen_from_the_buttons() -> None:
    game = Game.new(["monk", "barbarian"], names=["Mo", "Ba"])
    flow = GameFlow(game)
    to_offense(flow)
    flow.on_reading(reading(4, 4, 5, 1, 1))
    select(flow, OptionKind.ACTIVATE, "Zen Forget")
    flow.on_button(NEXT)
    assert flow.step is Step.OR and [o.name for o in flow.options] == ["gain Evasive", "gain Cleanse"]
    render_screen(flow.screen())
    press(flow, SELECT, NEXT)
    assert game.phase is Phase.MAIN_2 and game.players[0].statuses == {"Chi": 5, "Cleanse": 1}
    assert game.actions[-3:-1] == ["select Zen Forget", "choose gain Cleanse"]
    flow.on_button(BACK)
    assert flow.step is Step.OR and game.choices == {}


def test_an_entangled_player_sees_two_roll_attempts() -> None:
    game = Game.new(["moon-elf", "barbarian"], names=["Mo", "Ba"])
    game.gain_status(0, "Entangle", 1)
    flow = GameFlow(game)
    to_offense(flow)
    assert flow.screen().attempt == (1, 2)
    flow.on_reading(reading(1, 1, 1, 4, 4))
    assert "Roll 1/2:" in flow.events[-1].text
