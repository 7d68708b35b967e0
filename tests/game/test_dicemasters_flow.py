"""The Dice Masters table flow: the example of play's first turns from tray readings and menus."""

from __future__ import annotations

from firmware_host.choice_flow import TrayDie
from firmware_host.dicemasters_flow import DiceMastersFlow
from firmware_host.transcript import FlowEventKind, Transcript
from hardware.screens import render_screen
from rules.dicemasters.game import Game, Step, Zone

BASIC = {"anger-issues": "red", "villainous-pact": "grey"}
COLOURS = (
    {"sidekick": "white", "martian-manhunter": "green", "batman": "black", **BASIC},
    {"sidekick": "white", "wonder-woman-champion-of-themyscira": "blue", "zatanna": "purple", **BASIC},
)


def new_flow() -> tuple[DiceMastersFlow, Transcript]:
    game = Game.new(
        ["Patricia", "Jimmy"],
        [["martian-manhunter", "batman"], ["wonder-woman-champion-of-themyscira", "zatanna"]],
        life=10,
    )
    transcript = Transcript()
    return DiceMastersFlow(game, COLOURS, on_event=transcript), transcript


def sidekicks(faces: list[str], side: int) -> list[TrayDie]:
    base = 0.05 if side == 0 else 0.55
    return [TrayDie(face=f, colour="white", x=base + 0.1 * i, y=0.5) for i, f in enumerate(faces)]


def test_turn_one_from_the_tray_and_the_menus() -> None:
    flow, transcript = new_flow()
    assert flow.wants_dice()
    assert flow.on_dice(sidekicks(["mask", "bolt", "L1:0:1/1", "shield"], side=0))
    assert flow.game.actions[:2] == [
        "draw P1 sidekick#1 sidekick#2 sidekick#3 sidekick#4",
        "roll P1 sidekick#1 mask sidekick#2 bolt sidekick#3 L1:0:1/1 sidekick#4 shield",
    ]
    # the reroll: the two dice that moved
    again = sidekicks(["mask", "bolt", "L1:0:1/1", "shield"], side=0)
    again[1] = TrayDie(face="fist", colour="white", x=0.2, y=0.8)
    again[2] = TrayDie(face="mask", colour="white", x=0.3, y=0.1)
    assert flow.on_dice(again)
    assert flow.game.actions[-1] == "reroll P1 sidekick#2 fist sidekick#3 mask"
    assert not flow.wants_dice()  # no second reroll
    labels = [c.label for c in flow.choices()]
    assert "buy Martian Manhunter (4)" in labels and "buy Batman (4)" in labels
    buy = next(c.action for c in flow.choices() if c.label == "buy Martian Manhunter (4)")
    assert flow.choose(buy)
    assert "martian-manhunter#1" in [d.id for d in flow.game.dice_in(0, Zone.USED)]
    assert flow.choose("end P1")
    assert flow.game.state.active == 1 and flow.wants_dice()
    assert any(e.kind is FlowEventKind.ROLL for e in transcript)


def test_fielding_and_an_unblocked_attack_from_the_menus() -> None:
    flow, _ = new_flow()
    assert flow.on_dice(sidekicks(["L1:0:1/1", "L1:0:1/1", "fist", "mask"], side=0))
    field = [c.action for c in flow.choices() if c.label.startswith("field")]
    assert field == ["field P1 sidekick#1", "field P1 sidekick#2"]
    assert flow.choose("field P1 sidekick#1") and flow.choose("field P1 sidekick#2")
    assert flow.choose("attack P1 sidekick#1 sidekick#2")
    assert [c.label for c in flow.choices()] == ["done blocking"]
    assert flow.choose("block P2")
    target = "global P1 anger-issues pay sidekick#3 target P1 sidekick#1"
    assert target in [c.action for c in flow.choices()]
    assert flow.choose(target) and flow.choose("damage")
    assert flow.game.state.players[1].life == 10 - 3
    assert flow.game.state.step is Step.DAMAGED


def test_blockers_are_chosen_one_by_one_then_declared() -> None:
    flow, _ = new_flow()
    flow.game.play("draw P1 sidekick#1 sidekick#2 sidekick#3 sidekick#4")
    flow.game.play("roll P1 sidekick#1 L1:0:1/1 sidekick#2 mask sidekick#3 mask sidekick#4 mask")
    flow.game.play("field P1 sidekick#1")
    flow.game.play("end P1")
    assert flow.on_dice(sidekicks(["L1:0:1/1", "fist", "fist", "fist"], side=1))
    flow.choose("field P2 sidekick#1")
    flow.choose("attack P2 sidekick#1")
    assert flow.choose("block-with sidekick#1 sidekick#1")
    assert [c.action for c in flow.choices()] == ["block P1 sidekick#1 sidekick#1"]
    assert flow.choose("block P1 sidekick#1 sidekick#1")
    assert flow.game.state.step is Step.BLOCKED


def test_screens_show_life_energy_and_the_menu() -> None:
    flow, _ = new_flow()
    flow.on_dice(sidekicks(["mask", "bolt", "fist", "shield"], side=0))
    screen = flow.screen()
    assert screen.title == "Patricia: roll"
    assert screen.lines[0] == "Patric 10  Jimmy 10"
    assert screen.lines[1] == "Energy 4: 1M 1F 1B 1S"  # the total first, each type by its initial
    render_screen(screen)


def test_a_long_step_keeps_the_title_whole_by_shortening_the_name() -> None:
    from firmware_host.presenters import TITLE_CHARS

    flow, _ = new_flow()
    state = flow.game.state
    assert len(f"{state.players[0].name}: clear-and-draw") > TITLE_CHARS
    state.step = Step.CLEAR_AND_DRAW  # the longest step name, as at the start of a turn
    title = flow.title()
    assert title.endswith(": clear-and-draw") and len(title) <= TITLE_CHARS


def test_back_after_a_reroll_offers_its_dice_to_correct_and_plays_them_again() -> None:
    """A die the tray misread in the reroll: BACK takes the reroll back (the flow's idea of where
    the dice lay too), the table changes that die's face, and the reroll is played again."""
    from hardware.buttons import ButtonEvent

    flow, transcript = new_flow()
    assert flow.on_dice(sidekicks(["mask", "bolt", "L1:0:1/1", "shield"], side=0))
    again = sidekicks(["mask", "bolt", "L1:0:1/1", "shield"], side=0)
    again[1] = TrayDie(face="fist", colour="white", x=0.2, y=0.8)  # read as fist; it shows a bolt
    assert flow.on_dice(again)
    assert flow.game.actions[-1] == "reroll P1 sidekick#2 fist"
    flow.on_button(ButtonEvent.BACK)
    assert flow.correcting and flow.wants_dice() and flow.game.state.rerolled is False
    assert flow.game.actions[-1] == "undo"  # one action taken back: the reroll
    labels = [c.label for c in flow.menu()]
    assert labels == [f"{place} die: {face}" for place, face in (("left centre", "mask"), ("left bottom", "fist"),
                                                                 ("left centre", "L1:0:1/1"), ("middle centre", "shield"))] + ["play these dice", "roll them again"]
    assert flow.screen().prompt == "change a die or play"
    assert flow.choose(flow.menu()[1].action)  # change the fist
    assert flow.setting_die is not None and flow.menu()[0].label == "left bottom die: fist"
    bolt = next(c.action for c in flow.menu() if c.label.endswith(": bolt"))
    assert flow.choose(bolt) and flow.correcting and flow.menu()[1].label == "left bottom die: bolt"
    assert flow.choose(next(c.action for c in flow.menu() if c.label == "play these dice"))
    assert not flow.correcting and flow.game.actions[-1] == "reroll P1 sidekick#2 bolt"
    assert "BACK: the roll is taken back" in transcript.text()


def test_back_while_correcting_leaves_the_dice_to_be_rolled_again() -> None:
    from hardware.buttons import ButtonEvent

    flow, _ = new_flow()
    assert flow.on_dice(sidekicks(["mask", "bolt", "L1:0:1/1", "shield"], side=0))
    flow.on_button(ButtonEvent.BACK)
    assert flow.correcting and flow.game.state.step is Step.CLEAR_AND_DRAW
    flow.on_button(ButtonEvent.BACK)
    assert not flow.correcting and flow.menu() == flow.choices() and flow.message == "roll the dice again"
    assert flow.game.actions[-2:] == ["undo", "undo"]  # the draw and the roll were taken back
    flow.on_button(ButtonEvent.BACK)  # now BACK takes back the action before, as ever: none here
    assert flow.message == "nothing to undo"
