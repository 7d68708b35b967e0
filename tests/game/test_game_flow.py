"""The table game flow driven the way the tray drives it: settled readings and button presses."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_host.game_flow import GameFlow, OptionKind, Step, ordered_dice
from firmware_host.transcript import FlowEvent, FlowEventKind, Transcript
from hardware.buttons import ButtonEvent
from hardware.lights import TrayStatus
from hardware.screens import ScreenState, render_screen
from rules.dicethrone.game import Game, GameMode, Phase
from rules.records import GameRecord, replay
from vision.types import DieReading, DieStatus, FrameReading

NEXT, SELECT, BACK = ButtonEvent.NEXT, ButtonEvent.SELECT, ButtonEvent.BACK


def reading(*values: int | None | DieStatus, shuffle: bool = False) -> FrameReading:
    """Dice left to right as the reader gives them; None or a DieStatus is a die it could not read."""
    dice = []
    for i, value in enumerate(values):
        box = (40 + 60 * i, 100 + (17 * i) % 40, 36, 36)
        if value is None or isinstance(value, DieStatus):
            status = value if isinstance(value, DieStatus) else DieStatus.COCKED
            dice.append(DieReading(None, 0.2, box, status))
        else:
            dice.append(DieReading(value, 0.99, box, DieStatus.OK, face=str(value)))
    if shuffle:
        dice.reverse()
    return FrameReading(tuple(dice), ms=5.0)


def press(flow: GameFlow, *buttons: ButtonEvent) -> list[FlowEvent]:
    events: list[FlowEvent] = []
    for button in buttons:
        events += flow.on_button(button)
    return events


def select(flow: GameFlow, kind: OptionKind, name: str | None = None, index: int | None = None) -> None:
    """Presses SELECT until the wanted choice is highlighted (as a player would)."""
    for _ in range(len(flow.options) + 1):
        option = flow.selected
        assert option is not None
        if option.kind is kind and (name is None or option.name == name) and (index is None or option.index == index):
            return
        flow.on_button(SELECT)
    raise AssertionError(f"no {kind} {name or ''} {index or ''} in {flow.options}")


def new_flow(heroes: list[str], names: list[str] | None = None, **kwargs: object) -> tuple[GameFlow, Transcript]:
    transcript = Transcript()
    flow = GameFlow(Game.new(heroes, names=names), on_event=transcript, **kwargs)  # type: ignore[arg-type]
    return flow, transcript


def to_offense(flow: GameFlow) -> None:
    while flow.game.phase is not Phase.OFFENSIVE_ROLL:
        select(flow, OptionKind.CONTINUE)
        flow.on_button(NEXT)
    assert flow.step is Step.ROLL


def test_a_whole_1v1_turn_from_main_phase_to_the_next_players_income() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"], ["Ana", "Bo"])
    game = flow.game
    # The start player skips the first Income Phase: the flow opens on Main Phase (1).
    assert game.phase is Phase.MAIN_1 and flow.step is Step.PROMPT
    assert flow.status() is TrayStatus.WAITING_FOR_INPUT

    flow.on_button(NEXT)
    assert game.phase is Phase.OFFENSIVE_ROLL and flow.expected_dice == 5
    assert flow.screen().attempt == (1, 3)

    flow.on_reading(reading(1, 2, 4, 5, 6))  # sword sword heart heart strength: nothing yet
    assert game.offensive_attempts == 1 and flow.step is Step.CHOOSE
    assert flow.status() is TrayStatus.NO_ABILITY
    aims = [o for o in flow.options if o.kind is OptionKind.AIM]
    assert aims and all(0 < (o.probability or 0) <= 1 for o in aims)
    assert flow.suggested_keep  # the odds advise which dice to keep

    flow.on_reading(reading(1, 1, 2, 5, 6))  # three swords: Smack
    assert game.offensive_attempts == 2 and flow.status() is TrayStatus.ABILITY_READY
    flow.on_reading(reading(1, 1, 1, 1, 4))  # four swords: Smack II
    assert game.offensive_attempts == 3
    assert flow.screen().attempt == (3, 3)
    assert [e.kind for e in flow.on_reading(reading(1, 1, 1, 1, 1))] == [FlowEventKind.PROMPT]  # no fourth attempt
    assert game.offensive_roll is not None and game.offensive_roll.notation() == "1 1 1 1 4"

    assert flow.selected is not None and flow.selected.kind is OptionKind.ACTIVATE
    assert flow.selected.name == "Smack"
    flow.on_button(NEXT)
    # 1v1: no Targeting Roll Phase; Smack is defendable, so Moon Elf rolls her 5 defensive dice.
    assert game.phase is Phase.DEFENSIVE_ROLL and flow.expected_dice == 5
    assert flow.screen().title == "Defense Bo"

    flow.on_reading(reading(4, 4, 1, 2, 3))  # two feet: Elusive Step prevents half of 6
    # The damage window: nothing is applied yet; the screen shows what it would be now.
    assert flow.step is Step.DAMAGE and game.health(1) == 50
    assert "3 dmg to Bo: Smack" in flow.screen().lines

    flow.on_button(NEXT)  # apply the damage
    assert game.health(1) == 47 and game.health(0) == 50
    assert game.phase is Phase.MAIN_2
    press(flow, NEXT, NEXT)  # Main Phase (2), Discard Phase
    assert game.active_player.name == "Bo" and game.phase is Phase.INCOME
    assert game.active_player.cp == 3 and game.active_player.hand == 5

    kinds = [e.kind for e in transcript.events]
    assert FlowEventKind.DEFENSE in kinds and FlowEventKind.DAMAGE in kinds
    phases = {e.data.get("phase") for e in transcript.events if e.kind is FlowEventKind.PHASE}
    assert "targeting roll" not in phases
    text = transcript.text()
    assert "Roll 3/3: 1 1 1 1 4 (sword sword sword sword heart)" in text
    assert "Ana activates Smack II" in text
    assert "Smack: Bo takes 3 dmg. Ana 50 HP, Bo 47 HP" in text
    assert "Turn 2: Bo (Moon Elf)" in text
    assert "Income Phase: Bo gains 1 CP (3 CP) and draws 1 card" in text


def test_dice_are_read_left_to_right_whatever_order_the_reader_lists_them() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 2, 3, 4, 6, shuffle=True))
    assert flow.game.offensive_roll is not None
    assert flow.game.offensive_roll.notation() == "1 2 3 4 6"
    assert [d.value for d in ordered_dice(reading(3, 1, shuffle=True))] == [3, 1]


def test_an_unreadable_die_asks_for_a_reroll_and_the_reroll_costs_no_attempt() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, None, 5, 6))
    assert flow.step is Step.REROLL and flow.status() is TrayStatus.REROLL_DIE
    assert flow.game.offensive_attempts == 0
    screen = flow.screen()
    assert [d.unreadable for d in screen.dice] == [False, False, True, False, False]
    assert "Cannot read die 3 cocked" in transcript.text()

    flow.on_reading(reading(1, 1, 3, 5, 6))  # the cocked die rerolled
    assert flow.step is Step.CHOOSE and flow.game.offensive_attempts == 1
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "1 1 3 5 6"


def test_an_unreadable_die_can_be_set_from_the_buttons() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, None, 1, DieStatus.OCCLUDED, 6))
    flow.on_button(NEXT)  # set die 2
    assert flow.step is Step.CORRECT and flow.fixing == (1, 1)
    assert flow.screen().die_cursor == 1
    press(flow, SELECT, NEXT)  # die 2 is a 2
    assert flow.fixing == (3, 1)  # straight on to the other unread die
    press(flow, SELECT, SELECT, SELECT, NEXT)  # die 4 is a 4
    assert flow.step is Step.CHOOSE
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "1 2 1 4 6"
    corrections = [e for e in transcript.events if e.kind is FlowEventKind.CORRECTION]
    assert [(e.data["die"], e.data["now"], e.data["status"]) for e in corrections] == [
        (2, 2, "cocked"),
        (4, 4, "occluded"),
    ]


def test_a_misread_die_is_corrected_in_place_without_costing_an_attempt() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 4, 5, 6))
    flow.on_reading(reading(1, 1, 4, 4, 6))  # attempt 2; the third die really shows a 1
    assert flow.game.offensive_attempts == 2
    select(flow, OptionKind.FIX, index=2)
    flow.on_button(NEXT)
    assert flow.fixing == (2, 4) and flow.status() is TrayStatus.REROLL_DIE
    press(flow, SELECT, SELECT, SELECT, NEXT)  # 4 -> 5 -> 6 -> 1
    assert flow.game.offensive_attempts == 2
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "1 1 1 4 6"
    assert flow.selected is not None and flow.selected.name == "Smack"
    event = [e for e in transcript.events if e.kind is FlowEventKind.CORRECTION][-1]
    assert event.data["was"] == 4 and event.data["now"] == 1
    assert "Die 3 set to 1 sword (read 4)" in transcript.text()
    # BACK after a correction takes the roll back: attempt 1 stands.
    flow.on_button(BACK)
    assert flow.game.offensive_attempts == 1
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "1 1 4 5 6"


def test_a_misread_defensive_die_is_corrected_and_the_damage_recomputed() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)  # Smack II, 6 dmg
    flow.on_reading(reading(4, 1, 1, 2, 3))  # one foot: no prevention
    assert "6 dmg to Player 2: Smack" in flow.screen().lines
    select(flow, OptionKind.FIX, index=1)
    press(flow, NEXT, SELECT, SELECT, SELECT, NEXT)  # 1 -> 4: two feet
    assert flow.step is Step.DAMAGE
    flow.on_button(NEXT)
    assert flow.game.health(1) == 47


def test_back_undoes_the_last_step_and_nothing_more() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    game = flow.game
    assert flow.on_button(BACK)[0].text == "BACK: nothing to undo"
    flow.on_button(NEXT)
    assert game.phase is Phase.OFFENSIVE_ROLL
    flow.on_reading(reading(1, 1, 1, 5, 6))
    flow.on_reading(reading(1, 1, 1, 1, 6))
    flow.on_button(BACK)  # takes back attempt 2
    assert game.offensive_attempts == 1 and game.offensive_roll is not None
    assert game.offensive_roll.notation() == "1 1 1 5 6"
    assert flow.step is Step.CHOOSE
    flow.on_button(NEXT)  # activate Smack
    assert game.phase is Phase.DEFENSIVE_ROLL
    flow.on_button(BACK)  # take the activation back
    assert game.phase is Phase.OFFENSIVE_ROLL and game.selected is None and flow.step is Step.CHOOSE
    flow.on_button(BACK)
    flow.on_button(BACK)  # and the roll, then the phase change
    assert game.phase is Phase.MAIN_1 and game.offensive_attempts == 0
    assert sum(e.kind is FlowEventKind.UNDO for e in transcript.events) == 5  # with the first, empty one


def test_select_does_not_count_as_a_step_to_undo() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 5, 6))
    press(flow, SELECT, SELECT)
    flow.on_button(BACK)
    assert flow.game.offensive_attempts == 0 and flow.step is Step.ROLL


def test_a_wrong_number_of_dice_asks_to_roll_again_or_key_them_in() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 2, 3))
    assert flow.step is Step.REROLL and flow.status() is TrayStatus.REROLL_DIE
    assert flow.game.offensive_attempts == 0
    assert "Saw 3 dice, need 5" in transcript.text()
    flow.on_button(NEXT)  # key them in: 2 2 2 2 2
    for _ in range(5):
        press(flow, SELECT, NEXT)
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "2 2 2 2 2"


def test_with_no_reading_at_all_next_keys_the_roll_in() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_button(NEXT)
    assert flow.step is Step.CORRECT and flow.fixing == (0, 1)
    for value in (3, 4, 5, 6, 2):
        press(flow, *[SELECT] * (value - 1), NEXT)
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "3 4 5 6 2"
    assert any(o.name == "Mighty Blow" for o in flow.options if o.kind is OptionKind.ACTIVATE)


def test_an_ability_with_a_bonus_roll_waits_for_those_dice() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 6, 6))  # three swords, two strength: Overpower
    select(flow, OptionKind.ACTIVATE, "Overpower")
    flow.on_button(NEXT)
    assert flow.step is Step.ROLL and flow.expected_dice == 3
    flow.on_reading(reading(2, 3, 4))
    assert flow.game.bonus_roll is not None and flow.game.phase is Phase.DEFENSIVE_ROLL
    assert "Bonus roll 2 3 4" in transcript.text()


def test_no_ability_skips_the_defense_and_deals_nothing() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(4, 4, 5, 2, 6))
    select(flow, OptionKind.PASS)
    flow.on_button(NEXT)
    assert flow.game.phase is Phase.MAIN_2
    assert flow.game.health(0) == flow.game.health(1) == 50


def test_an_undefendable_attack_goes_straight_to_damage() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(6, 6, 6, 6, 1))  # four strength: Crit Bash, undefendable
    select(flow, OptionKind.ACTIVATE, "Crit Bash")
    flow.on_button(NEXT)
    assert flow.step is Step.DAMAGE and flow.game.health(1) == 50  # no defense, but a window
    flow.on_button(NEXT)
    assert flow.game.phase is Phase.MAIN_2
    assert flow.game.health(1) == 45
    assert "Crit Bash: Player 2 takes 5 dmg" in transcript.text()
    assert "Crit Bash" in "\n".join(flow.screen().lines)


def test_discard_down_to_six_sells_cards_and_refuses_to_end_the_turn_early() -> None:
    game = Game.new(["barbarian", "moon-elf"])
    game.active_player.hand = 8  # cards the table drew from card effects
    flow = GameFlow(game)
    while game.phase is not Phase.DISCARD:
        if flow.step is Step.ROLL:
            flow.on_reading(reading(4, 4, 5, 2, 6))
            select(flow, OptionKind.PASS)
        else:
            select(flow, OptionKind.CONTINUE)
        flow.on_button(NEXT)
    assert "Discard down to 6: sell 2" in flow.screen().lines
    assert flow.selected is not None and flow.selected.kind is OptionKind.SELL
    select(flow, OptionKind.CONTINUE)
    refused = flow.on_button(NEXT)
    assert "sell down to 6" in refused[0].text and game.phase is Phase.DISCARD
    assert "sell down to 6" in flow.message
    press(flow, SELECT, NEXT, NEXT)  # sell two cards (the sell choice stays highlighted)
    assert game.active_player.hand == 6 and game.active_player.cp == 4
    select(flow, OptionKind.CONTINUE)
    flow.on_button(NEXT)
    assert game.turn == 2


def test_king_of_the_hill_chooses_a_target_and_attacking_the_leader_draws_a_card() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf", "monk"], ["Ana", "Bo", "Cy"])
    game = flow.game
    assert game.mode is GameMode.KING_OF_THE_HILL and game.health(0) == 35
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    hand = game.active_player.hand
    flow.on_button(NEXT)
    assert game.phase is Phase.TARGETING_ROLL and flow.step is Step.TARGET
    assert [o.index for o in flow.options] == [1, 2]
    assert flow.selected is not None and "(leader)" in flow.selected.label
    press(flow, SELECT, NEXT)  # Cy
    assert game.target == 2 and game.phase is Phase.DEFENSIVE_ROLL
    assert game.active_player.hand == hand + 1
    assert "Target: Cy (Monk)" in transcript.text()


def test_two_vs_two_rolls_one_die_for_the_target() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf", "monk", "paladin"])
    game = flow.game
    assert game.mode is GameMode.TWO_VS_TWO
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)
    assert game.phase is Phase.TARGETING_ROLL and flow.step is Step.ROLL and flow.expected_dice == 1
    flow.on_reading(reading(3))  # 3-4: the opponent on the right
    assert game.target == 3 and game.phase is Phase.DEFENSIVE_ROLL
    assert "Targeting die 3: right opponent" in transcript.text()


def test_two_vs_two_targeting_die_of_six_lets_the_attacker_choose() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf", "monk", "paladin"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)
    flow.on_reading(reading(6))
    assert flow.step is Step.TARGET
    flow.on_button(NEXT)
    assert flow.game.target == 1


def test_the_game_ends_when_a_hero_is_defeated() -> None:
    game = Game.new(["barbarian", "moon-elf"], names=["Ana", "Bo"])
    game.set_health(1, 5)
    flow = GameFlow(game)
    to_offense(flow)
    flow.on_reading(reading(6, 6, 6, 6, 6))  # Rage!: ultimate, no defense
    select(flow, OptionKind.ACTIVATE, "Rage!")
    flow.on_button(NEXT)
    assert flow.step is Step.DAMAGE
    events = flow.on_button(NEXT)
    assert flow.is_over and flow.status() is TrayStatus.WAITING_FOR_INPUT
    assert flow.outcome == "Ana (Barbarian) wins"
    assert events[-1].kind is FlowEventKind.GAME_OVER
    assert flow.screen().title == "Game over" and flow.screen().prompt == "NEXT: new game"
    assert flow.on_reading(reading(1, 2, 3, 4, 5)) == []
    flow.on_button(BACK)  # even the last blow can be taken back
    assert not flow.is_over and flow.game.health(1) == 5 and flow.step is Step.DAMAGE
    flow.on_button(NEXT)  # Rage! again
    assert flow.is_over


def test_after_the_end_next_starts_a_new_game_with_the_next_seat_first() -> None:
    game = Game.new(["barbarian", "moon-elf"], names=["Ana", "Bo"])
    game.set_health(1, 5)
    flow = GameFlow(game)
    to_offense(flow)
    flow.on_reading(reading(6, 6, 6, 6, 6))
    select(flow, OptionKind.ACTIVATE, "Rage!")
    press(flow, NEXT, NEXT)
    events = flow.on_button(NEXT)
    assert events[0].kind is FlowEventKind.NEW_GAME
    assert flow.game is not game and not flow.is_over
    assert flow.game.active_player.name == "Bo" and flow.game.health(0) == flow.game.health(1) == 50
    assert flow.game.phase is Phase.MAIN_1  # Bo starts, so Bo skips the first income
    assert flow.on_button(BACK)[0].text == "BACK: nothing to undo"
    assert flow.game.phase is Phase.MAIN_1


def test_a_defense_with_two_roll_attempts_takes_a_second_roll_until_accepted() -> None:
    flow, transcript = new_flow(["barbarian", "ninja"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)  # Smack II against Ninja's Blink: 3 dice, 2 attempts, reroll at most 1 die
    assert flow.expected_dice == 3
    flow.on_reading(reading(1, 4, 6))
    assert flow.step is Step.CHOOSE and flow.game.exchange is None
    assert flow.expected_dice == 3 and flow.status() is TrayStatus.WAITING_FOR_INPUT
    refused = flow.on_reading(reading(2, 5, 6))  # two dice changed: not allowed
    assert "rerolls at most 1 die" in refused[-1].text and flow.game.defense_attempts_left == 1
    flow.on_reading(reading(1, 4, 4))
    assert flow.step is Step.DAMAGE and flow.game.exchange is None
    flow.on_button(NEXT)
    assert flow.game.exchange is not None
    assert flow.game.defense_roll is not None and flow.game.defense_roll.notation() == "1 4 4"


def test_accepting_the_first_defensive_roll_resolves_it() -> None:
    flow, _ = new_flow(["barbarian", "ninja"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)
    flow.on_reading(reading(1, 4, 6))
    assert flow.selected is not None and flow.selected.kind is OptionKind.ACCEPT
    flow.on_button(NEXT)
    assert flow.step is Step.DAMAGE
    flow.on_button(NEXT)
    assert flow.game.health(1) == 44


def test_a_turn_limit_ends_the_game_with_the_leader_named() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"], ["Ana", "Bo"], turn_limit=1)
    to_offense(flow)
    flow.on_reading(reading(6, 6, 6, 6, 1))
    select(flow, OptionKind.ACTIVATE, "Crit Bash")
    press(flow, NEXT, NEXT, NEXT, NEXT)  # activate, apply the damage, Main Phase (2), Discard
    assert flow.is_over
    assert flow.outcome == "Turn limit: Ana (Barbarian) leads with 50 HP"
    assert transcript.lines[-1].startswith("Game over after 1 turns")


def test_every_screen_of_a_game_renders_and_events_are_json() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf", "monk"])
    screens: list[ScreenState] = []
    script = [reading(1, 2, None, 4, 5), reading(1, 2, 3, 4, 5), reading(1, 1, 2, 3, 4, 5)]
    for _ in range(60):
        if flow.is_over:
            break
        screens.append(flow.screen())
        if flow.step is Step.ROLL:
            values = script.pop(0) if script else reading(*([2] * flow.expected_dice))
            flow.on_reading(values)
        else:
            flow.on_button(NEXT)
    for state in screens:
        image = render_screen(state)
        assert image.size == (128, 64) and image.mode == "1"
    for event in transcript.events:
        assert json.loads(event.json_line())["kind"] == event.kind.value
        assert eval(repr(event), {"FlowEvent": FlowEvent, "FlowEventKind": FlowEventKind}) == event


def test_rolling_shows_on_the_led_until_the_reading_arrives() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    flow.on_rolling()  # nothing awaited yet: ignored
    assert flow.status() is TrayStatus.WAITING_FOR_INPUT
    to_offense(flow)
    flow.on_rolling()
    assert flow.status() is TrayStatus.ROLLING
    flow.on_reading(reading(1, 1, 1, 5, 6))
    assert flow.status() is TrayStatus.ABILITY_READY


def test_a_bad_turn_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="turn_limit"):
        GameFlow(Game.new(["barbarian", "moon-elf"]), turn_limit=0)


def test_the_screens_of_an_offensive_roll_read_as_expected() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"], ["Ana", "Bo"])
    to_offense(flow)
    flow.on_reading(reading(1, 2, 4, 5, 6))
    assert flow.screen().text() == "\n".join([
        "[Offense Ana] 1/3",
        "*Ana HP50 CP2  Bo HP50 CP2",
        "dice: 1SW_ 2SW_ 4H 5H 6ST",  # underlined: the dice the odds advise keeping
        "Best: none yet",
        "> Smack  98%",
        "Fortitude  91%",
        "> Roll again or NEXT",
    ])
    flow.on_reading(reading(1, 1, None, 5, 6))
    assert flow.screen().text() == "\n".join([
        "[Offense Ana] 1/3",
        "*Ana HP50 CP2  Bo HP50 CP2",
        "dice: 1SW 1SW (?) 5H 6ST",
        "Reroll die 3 or set it",
        "> Set die 3 (cocked)",
        "> Reroll or NEXT: set",
    ])
    press(flow, NEXT, SELECT)
    assert flow.screen().text() == "\n".join([
        "[Offense Ana] 1/3",
        "*Ana HP50 CP2  Bo HP50 CP2",
        "dice: 1SW 1SW >2SW 5H 6ST",
        "Die 3: 2 sword",
        "> SEL value  NEXT ok",
    ])


def test_playing_a_card_in_a_main_phase_pays_its_cost() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"], ["Ana", "Bo"])
    player = flow.game.active_player
    select(flow, OptionKind.PLAY)
    flow.on_button(NEXT)
    assert flow.step is Step.COST and flow.screen().lines[0] == "Card cost: 0 CP"
    press(flow, SELECT, SELECT, SELECT)  # 1, 2, then back round to 0 with 2 CP to spend
    assert flow.screen().lines[0] == "Card cost: 0 CP"
    press(flow, SELECT, SELECT, NEXT)
    assert player.cp == 0 and player.hand == 3 and flow.step is Step.PROMPT
    assert "Ana plays a card for 2 CP: 0 CP, 3 cards" in transcript.text()
    flow.on_button(BACK)
    player = flow.game.active_player  # undo restores the game's own copies of the players
    assert player.cp == 2 and player.hand == 4 and flow.step is Step.COST
    flow.on_button(BACK)  # and out of paying altogether
    assert flow.step is Step.PROMPT and flow.game.phase is Phase.MAIN_1


def test_rolling_in_the_main_phase_starts_the_offensive_roll() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    flow.on_reading(reading(1, 1, 1, 5, 6))
    assert flow.game.phase is Phase.OFFENSIVE_ROLL and flow.game.offensive_attempts == 1
    assert flow.step is Step.CHOOSE
    flow.on_button(BACK)  # one step: the roll and the phase change with it
    assert flow.game.phase is Phase.MAIN_1 and flow.step is Step.PROMPT


def test_a_fourth_roll_is_not_counted_and_says_so() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    for _ in range(3):
        flow.on_reading(reading(1, 2, 3, 5, 5))
    events = flow.on_reading(reading(1, 1, 1, 1, 1))
    assert events[0].text == "A roll with no roll attempts left is not counted"
    assert flow.message == "No rolls left: choose" and flow.game.offensive_attempts == 3
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "1 2 3 5 5"


def test_the_module_examples_run() -> None:
    import doctest

    import firmware_host.game_flow
    import firmware_host.transcript

    for module in (firmware_host.game_flow, firmware_host.transcript):
        failures, tried = doctest.testmod(module)
        assert failures == 0
    assert doctest.testmod(firmware_host.transcript).attempted >= 3


def test_a_reroll_while_setting_an_unread_die_replaces_the_roll() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, None, 5, 6))
    press(flow, NEXT, SELECT)  # started setting die 3...
    assert flow.step is Step.CORRECT
    flow.on_reading(reading(1, 1, 2, 5, 6))  # ...then rerolled it after all
    assert flow.step is Step.CHOOSE and flow.game.offensive_attempts == 1
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "1 1 2 5 6"


def test_a_defender_with_two_defenses_chooses_one_before_rolling_its_dice() -> None:
    flow, transcript = new_flow(["barbarian", "shadow-thief"], ["Ana", "Cat"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)
    assert flow.game.phase is Phase.DEFENSIVE_ROLL and flow.step is Step.DEFENSE
    assert [o.name for o in flow.options] == ["Shadow Defense", "Fearless Riposte"]
    assert flow.status() is TrayStatus.WAITING_FOR_INPUT
    press(flow, SELECT, NEXT)
    assert flow.game.defense == "Fearless Riposte" and flow.expected_dice == 5
    assert "Cat defends with Fearless Riposte" in transcript.text()
    flow.on_button(BACK)  # the choice can be taken back before the dice are rolled
    assert flow.step is Step.DEFENSE and flow.game.defense is None
    assert flow.selected is not None and flow.selected.name == "Fearless Riposte"  # as it was
    press(flow, SELECT, NEXT)
    assert flow.game.defense == "Shadow Defense" and flow.expected_dice == 4


_ACTIONS = st.one_of(
    st.sampled_from([NEXT, SELECT, BACK, NEXT, SELECT]),
    st.lists(st.one_of(st.integers(1, 6), st.none()), min_size=1, max_size=6).map(lambda v: reading(*v)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ACTIONS, max_size=40), st.sampled_from([2, 3, 4]))
def test_any_presses_and_readings_keep_the_flow_consistent_and_back_unwinds_to_the_start(
    actions: list[ButtonEvent | FrameReading], players: int
) -> None:
    heroes = ["barbarian", "moon-elf", "ninja", "paladin"][:players]
    flow = GameFlow(Game.new(heroes))
    start = (flow.game.phase, flow.game.turn, [flow.game.health(p) for p in flow.game.players])
    for action in actions:
        if isinstance(action, ButtonEvent):
            flow.on_button(action)
        else:
            flow.on_reading(action)
        render_screen(flow.screen())  # every state can be drawn
        assert isinstance(flow.status(), TrayStatus)
        if flow.step is Step.ROLL:
            assert flow.expected_dice in (1, 2, 3, 4, 5)
    if any(e.kind is FlowEventKind.NEW_GAME for e in flow.events):
        return  # a new game starts a fresh history: nothing before it to unwind to
    for _ in range(len(actions) + 1):
        if flow.on_button(BACK)[0].text == "BACK: nothing to undo":
            break
    game = flow.game
    assert (game.phase, game.turn, [game.health(p) for p in game.players]) == start
    assert game.offensive_attempts == 0 and all(p.cp == 2 for p in game.players)


def test_a_health_dial_can_be_set_by_hand_in_a_main_phase() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"], ["Ana", "Bo"])
    select(flow, OptionKind.ADJUST, index=1)
    assert flow.selected is not None and flow.selected.label == "Set health: Bo\t50"
    flow.on_button(NEXT)
    assert flow.step is Step.HEALTH and flow.screen().lines == ("Bo: 50 HP", "Change -1: 49 HP")
    press(flow, SELECT, NEXT)  # -2: Bo's poison, say
    assert flow.game.health(1) == 48 and flow.step is Step.PROMPT
    assert "Bo's health set by hand: 50 -> 48 HP" in transcript.text()
    flow.on_button(BACK)
    assert flow.game.health(1) == 50 and flow.step is Step.HEALTH
    press(flow, *[SELECT] * 10, NEXT)  # from -2 round to +10: 60, the most a dial goes
    assert flow.game.health(1) == 60
    select(flow, OptionKind.ADJUST, index=1)
    press(flow, NEXT, *[SELECT] * 6, NEXT)  # +1 more is refused, and nothing changes
    assert flow.game.health(1) == 60 and "outside 0-60" in flow.message


def test_setting_a_health_dial_to_zero_ends_the_game() -> None:
    game = Game.new(["barbarian", "moon-elf"], names=["Ana", "Bo"])
    game.set_health(0, 3)
    flow = GameFlow(game)
    select(flow, OptionKind.ADJUST, index=0)
    press(flow, NEXT, SELECT, SELECT, NEXT)  # -3
    assert flow.is_over and flow.outcome == "Bo (Moon Elf) wins"


def test_a_defended_attack_that_defeats_the_defender_ends_the_game() -> None:
    game = Game.new(["barbarian", "moon-elf"], names=["Ana", "Bo"])
    game.set_health(1, 3)
    flow = GameFlow(game)
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)  # Smack II, 6 dmg, defendable
    flow.on_reading(reading(1, 1, 2, 3, 6))  # no feet: nothing prevented
    events = flow.on_button(NEXT)
    assert flow.is_over and flow.outcome == "Ana (Barbarian) wins"
    assert [e.kind for e in events][-2:] == [FlowEventKind.DAMAGE, FlowEventKind.GAME_OVER]
    assert flow.game.health(1) == 0


@pytest.mark.parametrize("heroes", [
    ["barbarian", "moon-elf"],
    ["shadow-thief", "ninja", "pyromancer"],
    ["monk", "spider-man", "paladin", "treant"],
])
@pytest.mark.parametrize("seed", range(4))
def test_random_tables_always_play_to_the_end(heroes: list[str], seed: int) -> None:
    """Players who roll at random and mostly press NEXT (sometimes BACK) always finish a short
    game: no step of any phase leaves the flow stuck, and every screen can be drawn."""
    rng = random.Random(seed)
    game = Game.new(heroes)
    for player in game.players:
        game.set_health(player, 12)
    flow = GameFlow(game)
    for _ in range(1500):
        if flow.is_over:
            break
        if flow.expected_dice and rng.random() < 0.6:
            flow.on_reading(reading(*[rng.randint(1, 6) for _ in range(flow.expected_dice)]))
        else:
            flow.on_button(rng.choice([NEXT, NEXT, NEXT, NEXT, SELECT, SELECT, BACK]))
        render_screen(flow.screen())
    assert flow.is_over, flow.transcript[-5:]
    # Random presses break rules now and then (ending a turn holding 7 cards); each refusal names
    # the rule, and the game goes on.
    refusals = [e.text for e in flow.events if e.text.startswith("Not allowed")]
    assert all(text.endswith(")") for text in refusals), refusals


def unsure(*values: int, symbol: str = "sword") -> tuple[str, tuple[int, ...]]:
    """Marks a die read as ``symbol`` whose number may be any of ``values`` (a calibrated hero die)."""
    return (symbol, values)


def hero_reading(*faces: object) -> FrameReading:
    """Dice as a calibrated hero die set reads them: a number, or ``unsure(1, 3)``."""
    dice = []
    for i, face in enumerate(faces):
        box = (40 + 60 * i, 100, 36, 36)
        if isinstance(face, tuple):
            symbol, numbers = face
            dice.append(DieReading(None, 0.4, box, DieStatus.UNREADABLE, symbol=symbol,
                                   reason=f"{symbol} {' or '.join(map(str, numbers))}",
                                   candidates=tuple(f"{symbol}-{n}" for n in numbers), candidate_values=numbers))
        else:
            dice.append(DieReading(int(face), 0.99, box, DieStatus.OK, face=str(face)))  # type: ignore[call-overload]
    return FrameReading(tuple(dice), ms=5.0)


def test_a_sword_whose_number_does_not_matter_is_recorded_as_a_sword() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(hero_reading(unsure(1, 3), 1, 1, 4, 6))
    # Three swords whichever it is: nothing asked, the roll is recorded with the symbol.
    assert flow.step is Step.CHOOSE and flow.game.offensive_attempts == 1
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "sword 1 1 4 6"
    assert "Read [sword 1 or 3] 1 1 4 6" in transcript.text()
    assert "the odds need every die's number" in transcript.text()


def test_a_sword_whose_number_makes_a_straight_is_asked_for() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(hero_reading(unsure(1, 2), 3, 4, 5, 6))
    assert flow.step is Step.REROLL and flow.game.offensive_attempts == 0
    assert "Cannot read die 1 sword 1 or 2" in transcript.text()
    flow.on_button(NEXT)  # set die 1: starts at the likeliest candidate
    assert flow.step is Step.CORRECT and flow.fixing == (0, 1)
    press(flow, SELECT, NEXT)  # it is a 2
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "2 3 4 5 6"


def test_only_the_sword_that_matters_is_asked_for() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(hero_reading(unsure(1, 2), 3, 4, 5, unsure(4, 5, symbol="heart")))
    # Die 5 (heart 4 or 5) changes nothing; die 1 (sword 1 or 2: a large straight or not) is asked for.
    assert [o.index for o in flow.options if o.kind is OptionKind.FIX] == [0]
    flow.on_button(NEXT)
    press(flow, SELECT, NEXT)  # die 1 is a 2: a small straight and a heart
    assert flow.step is Step.CHOOSE
    assert flow.game.offensive_roll is not None and flow.game.offensive_roll.notation() == "2 3 4 5 heart"


def assert_recorded_and_replayed(flow: GameFlow, line: str) -> None:
    """The game's record holds ``line`` and replays to the same game."""
    record = GameRecord.of(flow.game).notation()
    assert line in record.splitlines()
    assert replay(GameRecord.from_text(record)).to_json() == flow.game.to_json()


def plain_unsure(*values: int) -> DieReading:
    """A plain pip die the reader could not tell between ``values`` (the learned reader's ``unsure: 4 or 5``)."""
    return DieReading(None, 0.6, (0, 0, 36, 36), DieStatus.UNREADABLE, reason=f"unsure: {' or '.join(map(str, values))}",
                      candidates=tuple(map(str, values)), candidate_values=values)


def plain_reading(*faces: int | DieReading) -> FrameReading:
    """Plain pip dice left to right: a number, or a :func:`plain_unsure` die."""
    dice = [
        replace(face, box=(40 + 60 * i, 100, 36, 36)) if isinstance(face, DieReading)
        else DieReading(face, 0.99, (40 + 60 * i, 100, 36, 36), DieStatus.OK, face=str(face))
        for i, face in enumerate(faces)
    ]
    return FrameReading(tuple(dice), ms=5.0)


def to_defense(flow: GameFlow) -> None:
    """Barbarian's Smack II (four swords), then on to the defender's roll."""
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)
    if flow.step is Step.DEFENSE:
        press(flow, NEXT)
    assert flow.game.phase is Phase.DEFENSIVE_ROLL and flow.step is Step.ROLL


def test_a_plain_die_unsure_between_two_hearts_is_kept_as_a_heart_in_a_defense() -> None:
    flow, transcript = new_flow(["barbarian", "barbarian"], ["Ana", "Bo"])
    to_defense(flow)
    assert flow.game.defense == "Thick Skin" and flow.expected_dice == 3
    flow.on_reading(plain_reading(4, plain_unsure(4, 5), 1))
    # Thick Skin heals 2 per heart: a four or a five is a heart, so nothing is asked
    assert flow.game.defense_roll is not None and flow.game.defense_roll.notation() == "4 heart 1"
    assert "Bo defends (Thick Skin): 4 heart 1 (heart heart sword) -> heal 4" in transcript.text()
    assert not any(e.kind is FlowEventKind.REROLL for e in flow.events)
    # the game's record keeps the heart, and replays to the same game
    assert_recorded_and_replayed(flow, "defend 4 heart 1")


def test_a_plain_die_unsure_between_a_sword_and_a_heart_is_asked_for_in_a_defense() -> None:
    flow, transcript = new_flow(["barbarian", "barbarian"], ["Ana", "Bo"])
    to_defense(flow)
    flow.on_reading(plain_reading(4, plain_unsure(3, 4), 1))
    assert flow.step is Step.REROLL and flow.game.defense_roll is None
    assert "Cannot read die 2 unsure: 3 or 4" in transcript.text()
    flow.on_button(NEXT)  # set die 2: starts at the likeliest count
    assert flow.step is Step.CORRECT and flow.fixing == (1, 3)
    flow.on_button(NEXT)
    assert flow.game.defense_roll is not None and flow.game.defense_roll.notation() == "4 3 1"


def test_a_defense_rolled_again_asks_for_an_unsure_die_whose_number_it_counts_changes_by() -> None:
    flow, _ = new_flow(["barbarian", "ninja"], ["Ana", "Kai"])
    to_defense(flow)
    assert flow.game.defense == "Blink"
    # Blink compares the second attempt's dice with the first's, die for die: numbers are kept
    flow.on_reading(plain_reading(1, plain_unsure(1, 2), 6))
    assert flow.step is Step.REROLL and flow.game.defense_roll is None


def test_a_bonus_roll_keeps_an_unsure_die_as_its_symbol_where_each_number_does_the_same() -> None:
    flow, transcript = new_flow(["moon-elf", "barbarian"], ["Eli", "Bo"])
    to_offense(flow)
    flow.on_reading(reading(1, 6, 6, 6, 4))  # a bow and three moons: Exploding Arrow
    select(flow, OptionKind.ACTIVATE, "Exploding Arrow")
    flow.on_button(NEXT)
    assert flow.step is Step.ROLL and flow.expected_dice == 5
    # 2 dmg per bow: a one or a two is a bow either way
    flow.on_reading(plain_reading(plain_unsure(1, 2), 4, 5, 6, 3))
    assert flow.game.bonus_roll is not None and flow.game.bonus_roll.notation() == "bow 4 5 6 3"
    assert "Bonus roll bow 4 5 6 3" in transcript.text()


def test_a_bonus_roll_that_adds_the_dice_asks_for_an_unsure_die() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 6, 6))  # Overpower: damage is the dice total
    select(flow, OptionKind.ACTIVATE, "Overpower")
    flow.on_button(NEXT)
    flow.on_reading(plain_reading(plain_unsure(4, 5), 3, 4))
    assert flow.step is Step.REROLL and flow.game.bonus_roll is None


def test_a_die_unsure_between_one_count_and_no_pip_face_is_never_taken_for_that_count() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf"])
    to_offense(flow)
    # one number it may be is no choice between numbers, even where a reading carries it
    one_or_other = DieReading(None, 0.6, (0, 0, 36, 36), DieStatus.UNREADABLE, reason="unsure: 1 or other",
                              candidates=("1",), candidate_values=(1,))
    flow.on_reading(plain_reading(one_or_other, 1, 1, 4, 6))
    assert flow.step is Step.REROLL and flow.game.offensive_attempts == 0


def to_blinded_roll(flow: GameFlow) -> None:
    """Barbarian, Blinded, activates Smack II (four swords): one die for Blinded comes next."""
    to_offense(flow)
    flow.game.gain_status(0, "Blinded")  # as the table's status action records it
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)
    assert flow.game.status_roll_needed == "Blinded" and flow.step is Step.ROLL and flow.expected_dice == 1


def test_a_blinded_die_read_as_numbers_that_all_stand_is_not_asked_for() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"], ["Ana", "Bo"])
    to_blinded_roll(flow)
    flow.on_reading(plain_reading(plain_unsure(4, 5)))  # Blinded fails on 1-2: a 4 or a 5 stands
    assert flow.game.status_rolled and "Blinded" not in flow.game.players[0].statuses
    assert "Ana rolls 4 or 5 for Blinded: the ability stands" in transcript.text()
    rolled = [e for e in flow.events if e.kind is FlowEventKind.ROLL and e.data.get("status") == "Blinded"]
    assert rolled[-1].data["die"] is None and rolled[-1].data["read_as"] == [4, 5]
    assert not any(e.kind is FlowEventKind.REROLL for e in flow.events)
    assert_recorded_and_replayed(flow, "status-roll 4|5")


def test_a_blinded_die_read_as_a_number_that_fails_or_one_that_stands_is_asked_for() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"], ["Ana", "Bo"])
    to_blinded_roll(flow)
    flow.on_reading(plain_reading(plain_unsure(2, 3)))
    assert flow.step is Step.REROLL and not flow.game.status_rolled
    assert "Cannot read die 1 unsure: 2 or 3" in transcript.text()
    flow.on_button(NEXT)  # set die 1: starts at the likeliest count
    assert flow.step is Step.CORRECT and flow.fixing == (0, 2)
    flow.on_button(NEXT)
    assert flow.game.status_rolled and "Ana rolls 2 for Blinded: the ability has no effect" in transcript.text()


@pytest.mark.parametrize(("values", "target"), [((3, 4), 3), ((2, 1), 1)])
def test_a_targeting_die_read_as_two_numbers_of_one_opponent_is_not_asked_for(values: tuple[int, int], target: int) -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf", "monk", "paladin"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)
    flow.on_reading(plain_reading(plain_unsure(*values)))
    assert flow.game.target == target and flow.game.phase is Phase.DEFENSIVE_ROLL
    side = "right" if target == 3 else "left"
    assert f"Targeting die {values[0]} or {values[1]}: {side} opponent" in transcript.text()
    assert f"target-roll {values[0]}|{values[1]}" in GameRecord.of(flow.game).notation().splitlines()


def test_a_targeting_die_read_as_numbers_of_two_rules_is_asked_for() -> None:
    flow, _ = new_flow(["barbarian", "moon-elf", "monk", "paladin"])
    to_offense(flow)
    flow.on_reading(reading(1, 1, 1, 1, 4))
    flow.on_button(NEXT)
    flow.on_reading(plain_reading(plain_unsure(4, 5)))  # the right opponent, or the opponents choose
    assert flow.step is Step.REROLL and flow.game.targeting_die is None


def test_a_lone_die_is_read_beside_the_dice_of_the_roll_before() -> None:
    """The offensive roll's dice still lie in the tray as the Blinded die and then the 2v2
    targeting die are rolled beside them: each is the one new die."""
    flow, transcript = new_flow(["barbarian", "moon-elf", "monk", "paladin"], ["Ana", "Bo", "Cy", "Di"])
    to_offense(flow)
    flow.game.gain_status(0, "Blinded")
    offense = reading(1, 1, 1, 1, 4)
    flow.on_reading(offense)
    flow.on_button(NEXT)
    assert flow.game.status_roll_needed == "Blinded"
    blinded = DieReading(5, 0.99, (500, 400, 36, 36), DieStatus.OK, face="5")
    flow.on_reading(FrameReading(offense.dice + (blinded,), ms=5.0))
    assert "Ana rolls 5 for Blinded: the ability stands" in transcript.text()
    assert flow.game.phase is Phase.TARGETING_ROLL and flow.expected_dice == 1
    target = DieReading(3, 0.99, (420, 400, 36, 36), DieStatus.OK, face="3")
    flow.on_reading(FrameReading(offense.dice + (blinded, target), ms=5.0))
    assert "Targeting die 3: right opponent" in transcript.text()
    assert "target-roll 3" in flow.game.actions and flow.game.target == 3


def test_two_new_dice_for_a_lone_roll_are_rolled_again() -> None:
    flow, transcript = new_flow(["barbarian", "moon-elf"], ["Ana", "Bo"])
    to_blinded_roll(flow)  # Smack II from reading(1, 1, 1, 1, 4), whose dice still lie there
    two = tuple(DieReading(v, 0.99, (400 + 60 * i, 400, 36, 36), DieStatus.OK, face=str(v)) for i, v in enumerate((5, 6)))
    flow.on_reading(FrameReading(reading(1, 1, 1, 1, 4).dice + two, ms=5.0))
    assert flow.step is Step.REROLL and not flow.game.status_rolled
    assert "Saw 2 new dice, need 1: roll them again" in transcript.text()
    assert flow.screen().lines[0] == "Saw 2 new dice, need 1"
    # both picked up, one rolled again beside the dice still lying there
    again = replace(two[0], box=(300, 380, 36, 36))
    flow.on_reading(FrameReading(reading(1, 1, 1, 1, 4).dice + (again,), ms=5.0))
    assert flow.game.status_rolled and "Ana rolls 5 for Blinded: the ability stands" in transcript.text()
