"""The page's table actions, carried out press by press against a real GameFlow."""

from __future__ import annotations

import pytest

from firmware_host.game_flow import OptionKind
from firmware_host.web import Pairing, TrayWeb
from firmware_host.web.actions import ActionRefused, TableAction
from tests.game.test_game_flow import new_flow, reading, to_offense


def apply(web: TrayWeb, flow) -> int:
    """What the service does each step: takes the page's presses one at a time."""
    count = 0
    for event in web.drain(flow):
        flow.on_button(event)
        count += 1
    return count


def test_set_die_corrects_a_misread_die_in_place() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 4, 5, 6))
    web = TrayWeb("127.0.0.1", 0)
    web.act(TableAction.from_json({"action": "set-die", "die": 2, "value": 1}))
    assert apply(web, flow) > 2
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "1 1 1 5 6"
    assert "Die 3 set to 1" in transcript.text()


def test_choose_takes_the_option_the_page_showed_and_a_stale_one_is_refused() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    web = TrayWeb("127.0.0.1", 0)
    labels = [option.label for option in flow.options]
    target = next(i for i, option in enumerate(flow.options) if option.kind is OptionKind.CONTINUE)
    phase = flow.game.phase
    web.act(TableAction.from_json({"action": "choose", "option": target, "label": "Something else"}))
    assert apply(web, flow) == 0  # refused: the label does not match
    assert flow.game.phase is phase
    web.act(TableAction.from_json({"action": "choose", "option": target, "label": labels[target]}))
    apply(web, flow)
    assert flow.game.phase is not phase


def test_undo_is_back_and_a_press_is_its_button() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 4, 5, 6))
    web = TrayWeb("127.0.0.1", 0)
    web.act(TableAction.from_json({"action": "undo"}))
    apply(web, flow)
    assert flow.game.offensive_attempts == 0


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"action": "fly"}, "action must be one of"),
        ({"action": "set-die", "die": 0, "value": 7}, "value: 1 to 6"),
        ({"action": "set-die", "die": -1, "value": 3}, "die: the die's index"),
        ({"action": "choose"}, "option: the index"),
        ({"action": "press", "button": "jump"}, "press takes a button"),
    ],
)
def test_bad_actions_are_refused_naming_the_key(body, named) -> None:
    with pytest.raises(ActionRefused, match=named):
        TableAction.from_json(body)


def test_actions_over_http_need_a_token_and_bad_ones_are_400(client, token, web) -> None:
    assert client.post("/api/v1/actions", json={"action": "undo"}).status_code == 401
    headers = {"Authorization": f"Bearer {token}"}
    assert client.post("/api/v1/actions", json={"action": "set-die", "die": 0, "value": 9}, headers=headers).status_code == 400
    assert client.post("/api/v1/actions", json={"action": "undo"}, headers=headers).status_code == 202
    flow, _ = new_flow(["barbarian", "moon-elf"])
    assert [event.value for event in web.drain(flow)] == ["back"]


def test_the_pair_button_puts_the_pin_on_the_display_for_a_while(client, web) -> None:
    assert web.pin_shown() is None
    assert client.post("/api/v1/pair/show").status_code == 202
    assert web.pin_shown() == "424242"
    web.show_pin(seconds=-1)
    assert web.pin_shown() is None
    _ = Pairing  # the conftest's server pairs with 424242


def test_start_game_puts_a_new_game_on_the_table_and_bad_heroes_are_named() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    web = TrayWeb("127.0.0.1", 0)
    web.act(TableAction.from_json({"action": "start-game", "heroes": ["monk", "barbarian", "moon-elf"], "names": ["Cy", "Di", "Ed"]}))
    for item in web.drain(flow):
        item.apply(flow)
    assert [p.name for p in flow.game.players] == ["Cy", "Di", "Ed"]
    assert flow.game.mode.value == "king-of-the-hill"
    assert "New game" in transcript.text()
    with pytest.raises(ActionRefused, match="start-game: .*wizard"):
        TableAction.from_json({"action": "start-game", "heroes": ["wizard", "monk"]})
    with pytest.raises(ActionRefused, match="one name per hero"):
        TableAction.from_json({"action": "start-game", "heroes": ["monk", "barbarian"], "names": ["Cy"]})


def battle_flow_after_a_roll():
    """Battle Dice with both players' rolls played from one reading of the tray."""
    from firmware_host.battledice_flow import BattleDiceFlow
    from firmware_host.choice_flow import TrayDie
    from firmware_host.seed_demo import BATTLE_DICE
    from rules.battledice.game import Game

    game = Game.from_tags(BATTLE_DICE)
    flow = BattleDiceFlow(game)
    assert flow.choose("reload P1") and flow.choose("reload P2")
    dice = [TrayDie("3", "red", 0.1), TrayDie("4", "blue", 0.2), TrayDie("6", "green", 0.3),
            TrayDie("2", "yellow", 0.6), TrayDie("4", "purple", 0.7), TrayDie("6", "orange", 0.9)]
    assert flow.on_dice(dice)
    return flow


def test_set_die_in_a_menu_game_changes_a_die_of_a_roll_taken_back(caplog: pytest.LogCaptureFixture) -> None:
    flow = battle_flow_after_a_roll()
    web = TrayWeb("127.0.0.1", 0)
    web.act(TableAction.from_json({"action": "set-die", "die": 1, "value": 5}))
    assert apply(web, flow) == 0  # the roll stands: nothing offers that die
    assert "only a die the tray could not read, or one of a roll taken back with Undo" in caplog.text
    web.act(TableAction.from_json({"action": "undo"}))
    apply(web, flow)
    assert flow.correcting
    web.act(TableAction.from_json({"action": "set-die", "die": 1, "value": 5}))  # Ann's blue 4 shows a 5
    assert apply(web, flow) >= 2
    assert flow.correcting and [c.label for c in flow.menu()][1] == "left centre die: 5"
    assert flow.choose(flow.menu()[-2].action)  # play these dice
    assert flow.game.actions[-2:] == ["roll P1 red 3 blue 5 green 6", "roll P2 yellow 2 purple 4 orange 6"]
