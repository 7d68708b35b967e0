"""The Battle Dice table flow: the worked example played from tray readings and the menus."""

from __future__ import annotations

from pathlib import Path

from firmware_host.battledice_flow import BattleDiceFlow
from firmware_host.choice_flow import TrayDie
from firmware_host.transcript import FlowEventKind, Transcript
from hardware.buttons import ButtonEvent
from hardware.screens import render_screen
from rules.battledice.game import Game, Phase
from rules.records import GameRecord

WORKED = Path(__file__).resolve().parents[2] / "docs" / "examples" / "battle-dice-strike-totals.dtr"


def new_flow() -> tuple[BattleDiceFlow, Transcript]:
    record = GameRecord.from_text(WORKED.read_text(encoding="utf-8"))
    game = Game.from_tags(dict(record.tags))
    transcript = Transcript()
    return BattleDiceFlow(game, on_event=transcript), transcript


def left(colour: str, face: str, x: float = 0.2) -> TrayDie:
    return TrayDie(face=face, colour=colour, x=x)


def right(colour: str, face: str, x: float = 0.8) -> TrayDie:
    return TrayDie(face=face, colour=colour, x=x)


def test_the_worked_example_from_the_tray_and_the_buttons() -> None:
    flow, transcript = new_flow()
    assert flow.choose("reload P1") and flow.choose("reload P2")
    assert flow.wants_dice()
    # Both players roll at once; whose die is whose by the side of the tray
    assert flow.on_dice([left("red", "3", 0.1), left("blue", "4", 0.2), left("green", "6", 0.3),
                         right("red", "2", 0.6), right("blue", "4", 0.7), right("green", "6", 0.9)])
    assert flow.game.state.chooser == 1
    assert "match P1 red P2 green" in [c.action for c in flow.choices()]
    assert flow.choose("match P1 red P2 green")
    assert flow.game.state.battle is not None and flow.game.state.battle.stat_choosers == [0]
    assert flow.choose("stat speed")
    assert flow.choose("open P1 red spider-man") and flow.choose("open P2 green ultron")
    assert flow.choose("pass P2")
    assert [c.action for c in flow.choices()] == ["power P1 Ranged Weapon", "pass P1"]
    assert flow.choose("power P1 Ranged Weapon") and flow.choose("pass P1") and flow.choose("pass P2")
    assert flow.game.state.seats[0].holding == [(1, "ultron")]
    assert flow.choose("match P1 green P2 red") and flow.choose("stat intelligence")
    assert flow.choose("open P1 green wolverine") and flow.choose("open P2 red doc-ock")
    assert flow.choose("pass P2") and flow.choose("pass P1")
    # Strike Totals tie: each rolls an empty die
    assert flow.game.state.phase is Phase.TIEBREAK and flow.wants_dice()
    assert flow.on_dice([left("yellow", "2"), right("yellow", "4")])
    assert flow.game.state.chooser == 0
    assert flow.choose("match P1 blue P2 blue")
    # the battle dice tie: each player chooses in turn
    assert flow.choose("choose-stat P1 fighting-skills")
    assert flow.game.state.phase is Phase.BATTLE_STAT
    assert flow.choose("choose-stat P2 intelligence")
    assert flow.game.state.battle is not None
    assert flow.game.state.battle.stats == {0: "fighting-skills", 1: "intelligence"}
    kinds = {event.kind for event in transcript}
    assert FlowEventKind.ROLL in kinds and FlowEventKind.PHASE in kinds


def test_a_refused_reading_says_the_rule_and_changes_nothing() -> None:
    flow, transcript = new_flow()
    flow.choose("reload P1")
    flow.choose("reload P2")
    assert not flow.on_dice([left("red", "3"), left("blue", "4"), right("red", "2"), right("blue", "4"), right("green", "6")])
    assert "rolls 3 loaded dice" in flow.message
    assert flow.game.state.rolled == set()  # the first player's roll was taken back too
    assert transcript.events[-1].kind is FlowEventKind.REROLL


def test_buttons_mean_what_they_mean_in_dice_throne() -> None:
    """SELECT moves down the menu and NEXT takes the line, as in every game on the tray."""
    flow, _ = new_flow()
    flow.press(ButtonEvent.SELECT)
    assert flow.game.actions == [] and flow.selected == 1
    flow.press(ButtonEvent.NEXT_HELD)  # a long press counts as a short one: the second line, reload P2
    assert flow.game.actions == ["reload P2"]
    flow.press(ButtonEvent.BACK)
    assert flow.game.actions[-1] == "undo" and flow.game.state.seats[1].ready_loaded() == []


def test_every_step_has_a_screen() -> None:
    flow, _ = new_flow()
    screen = flow.screen()
    assert screen.title == "Round 1: reload" and screen.selected is not None
    assert screen.lines[-2:] == ("You: reload", "Opponent: reload")
    render_screen(screen)  # draws on the OLED's canvas
    flow.choose("reload P1")
    flow.choose("reload P2")
    assert flow.screen().prompt == "roll the dice"


def test_the_presenters_show_a_menu_game_on_the_oled_and_the_led() -> None:
    from firmware_host.presenters import Presenters
    from hardware.lights import TrayStatus

    shown: list[object] = []
    statuses: list[TrayStatus] = []

    class Screen:
        def show(self, image: object) -> None:
            shown.append(image)

    class Light:
        def show(self, status: TrayStatus) -> None:
            statuses.append(status)

    flow, _ = new_flow()
    presenters = Presenters(flow, display=Screen(), light=Light())
    flow.on_event = presenters
    flow.choose("reload P1")
    flow.choose("reload P2")
    assert presenters.shown_screen is not None and presenters.shown_screen.prompt == "roll the dice"
    assert statuses[-1] is TrayStatus.ROLLING and shown
    flow.on_dice([left("red", "3")])
    assert statuses[-1] is TrayStatus.ERROR  # the rules refused it: the LED says so


def test_back_after_both_rolls_offers_every_die_to_correct_then_plays_both_again() -> None:
    """One reading played as two players' rolls: BACK takes both back; a die changed, both are
    played again, and the Strike Totals follow the die as the table set it."""
    flow, transcript = new_flow()
    assert flow.choose("reload P1") and flow.choose("reload P2")
    dice = [left("red", "3", 0.1), left("blue", "4", 0.2), left("green", "6", 0.3),
            right("red", "2", 0.6), right("blue", "4", 0.7), right("green", "6", 0.9)]
    assert flow.on_dice(dice)
    assert flow.game.actions[-2:] == ["roll P1 red 3 blue 4 green 6", "roll P2 red 2 blue 4 green 6"]
    flow.on_button(ButtonEvent.BACK)
    assert flow.correcting and flow.wants_dice() and not flow.game.state.rolled
    assert [c.label for c in flow.menu()][-2:] == ["play these dice", "roll them again"]
    assert len(flow.menu()) == 6 + 2
    flow.on_button(ButtonEvent.NEXT)  # the first die: Ann's red 3
    assert flow.setting_die == dice[0] and flow.menu()[0].label.endswith(": 3")
    flow.on_button(ButtonEvent.SELECT)  # to 1
    flow.on_button(ButtonEvent.NEXT)
    assert flow.correcting and flow.menu()[0].label.endswith(": 1")
    while flow.menu()[flow.selected].label != "play these dice":
        flow.on_button(ButtonEvent.SELECT)
    flow.on_button(ButtonEvent.NEXT)
    assert not flow.correcting
    assert flow.game.actions[-2:] == ["roll P1 red 1 blue 4 green 6", "roll P2 red 2 blue 4 green 6"]
    assert "the left centre die is set to 1" in transcript.text()
