"""Dice Masters (seed 004): the example of play, the detailed combat example, and each rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.dicemasters.cards import CardDataError, UnknownCardError, load_card
from rules.dicemasters.faces import Face, FaceKind
from rules.dicemasters.game import Game, Step, Zone
from rules.errors import IllegalActionError, InvalidRollError
from rules.games import InvalidActionError, find_game
from rules.records import GameRecord, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
EXAMPLE_OF_PLAY = EXAMPLES / "dice-masters-example-of-play.dtr"
COMBAT = Path(__file__).resolve().parent / "records" / "dice-masters-combat.dtr"
"""A position, not a whole game: the examples in docs/examples/ are each played to a winner."""


def record(path: Path) -> GameRecord:
    return GameRecord.from_text(path.read_text(encoding="utf-8"), str(path))


def replay_until(path: Path, line: str) -> Game:
    """The game after the first action written ``line``."""
    rec = record(path)
    actions = [str(a) for _, a in rec.actions]
    game = replay(rec, upto=actions.index(line) + 1)
    assert isinstance(game, Game)
    return game


def zone_ids(game: Game, owner: int, zone: Zone) -> list[str]:
    return sorted(d.id for d in game.dice_in(owner, zone))


# -- the example of play ------------------------------------------------------------------------

def test_example_of_play_life_goes_from_10_to_7_and_9() -> None:
    game = replay_until(EXAMPLE_OF_PLAY, "draw P1 batman#1 sidekick#4 sidekick#5 sidekick#6")  # turn 4 begins
    patricia, jimmy = game.to_json()["players"]
    assert (patricia["life"], jimmy["life"]) == (7, 9)


def test_example_turn_1_patricia_buys_martian_manhunter_into_her_used_pile() -> None:
    game = replay_until(EXAMPLE_OF_PLAY, "buy P1 martian-manhunter pay sidekick#1 sidekick#2 sidekick#3 sidekick#4")
    assert "martian-manhunter#1" in zone_ids(game, 0, Zone.USED)
    assert zone_ids(game, 0, Zone.OUT) == ["sidekick#1", "sidekick#2", "sidekick#3", "sidekick#4"]
    game.play("end P1")
    assert len(game.dice_in(0, Zone.USED)) == 5  # Out of Play goes to the Used Pile at the end of the turn


def test_example_turn_1_jimmy_fields_a_sidekick_for_free() -> None:
    game = replay_until(EXAMPLE_OF_PLAY, "field P2 sidekick#4")
    assert zone_ids(game, 1, Zone.FIELD) == ["sidekick#4"]
    assert "zatanna#1" in zone_ids(game, 1, Zone.USED)


def test_example_turn_2_villainous_pact_refills_the_bag_and_two_sidekicks_deal_3() -> None:
    game = replay_until(EXAMPLE_OF_PLAY, "move P2 sidekick#1 prep")
    assert zone_ids(game, 1, Zone.PREP) == ["sidekick#1"]
    assert zone_ids(game, 1, Zone.BAG) == ["sidekick#2", "sidekick#3", "zatanna#1"]
    game = replay_until(EXAMPLE_OF_PLAY, "damage")
    assert game.state.players[0].life == 7
    assert zone_ids(game, 1, Zone.OUT) == ["sidekick#5", "sidekick#6", "sidekick#7", "sidekick#8"]
    assert zone_ids(game, 1, Zone.FIELD) == ["sidekick#4"]  # the blocker he kept


def test_example_turn_3_martian_manhunter_level_3_knocks_out_the_blocker() -> None:
    game = replay_until(EXAMPLE_OF_PLAY, "block P2 sidekick#4 martian-manhunter#1")
    game.play("damage")
    assert game.state.players[1].life == 9
    assert zone_ids(game, 1, Zone.PREP) == ["sidekick#1", "sidekick#4"]  # knocked out to the Prep Area
    game.play("end P1")
    assert zone_ids(game, 0, Zone.FIELD) == ["martian-manhunter#1"]  # blocked, not KO'd: stays


def test_example_turn_3_jimmy_rolls_his_prep_area_with_the_drawn_dice() -> None:
    game = replay_until(EXAMPLE_OF_PLAY, "draw P2 sidekick#2 sidekick#3 zatanna#1 sidekick#5")
    with pytest.raises(IllegalActionError, match="sidekick#1, sidekick#2, sidekick#3, sidekick#4, sidekick#5, zatanna#1"):
        game.play("roll P2 zatanna#1 L1:0:1/2 sidekick#2 shield sidekick#3 mask sidekick#5 fist")


def test_record_round_trips_through_its_notation() -> None:
    game = replay(record(EXAMPLE_OF_PLAY))
    again = replay(GameRecord.from_text(GameRecord.of(game).notation()))
    assert again.to_json() == game.to_json()
    combat = replay(record(COMBAT))
    assert replay(GameRecord.from_text(GameRecord.of(combat).notation())).to_json() == combat.to_json()


def test_registered_by_name() -> None:
    assert find_game("dice-masters").name == "dicemasters"


# -- the detailed combat example ------------------------------------------------------------------

def test_combat_example_anger_issues_bonuses() -> None:
    game = replay_until(COMBAT, "global P2 anger-issues pay sidekick#2 target P2 darkseid#1")
    assert game.die(0, "wonder-woman-warrior-princess#1").attack == 5
    assert game.die(0, "batman#1").attack == 7
    assert game.die(1, "darkseid#1").attack == 8
    # Eskil paid on Esme's turn: his energy goes straight to his Used Pile
    assert zone_ids(game, 1, Zone.USED) == ["sidekick#1", "sidekick#2"]
    assert zone_ids(game, 0, Zone.OUT) == ["sidekick#1", "sidekick#2"]


def test_combat_example_knock_outs_and_unblocked_damage() -> None:
    game = replay_until(COMBAT, "damage")
    assert game.state.players[1].life == 20 - 7
    assert zone_ids(game, 0, Zone.PREP) == ["wonder-woman-warrior-princess#1"]
    assert zone_ids(game, 1, Zone.PREP) == ["darkseid#1", "deathstroke#1"]
    assert zone_ids(game, 0, Zone.FIELD) == ["superman#1"]  # 2 damage from Deathstroke, defence 5
    assert zone_ids(game, 0, Zone.OUT) == ["batman#1", "sidekick#1", "sidekick#2"]  # unblocked: Out of Play
    game = replay(record(COMBAT))
    assert zone_ids(game, 1, Zone.FIELD) == ["deathstroke#1"]  # returned by his ability
    assert game.die(0, "superman#1").damage == 0  # Cleanup clears damage
    assert game.die(1, "darkseid#1").attack == 0  # and bonuses


# -- roll and reroll ------------------------------------------------------------------------------

def start() -> Game:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], life=10)
    game.play("draw P1 sidekick#1 sidekick#2 sidekick#3 sidekick#4")
    game.play("roll P1 sidekick#1 fist sidekick#2 mask sidekick#3 L1:0:1/1 sidekick#4 bolt")
    return game


def test_one_group_reroll_and_no_second() -> None:
    game = start()
    game.play("reroll P1 sidekick#3 shield")
    with pytest.raises(IllegalActionError, match="no second reroll"):
        game.play("reroll P1 sidekick#1 mask")


def test_a_main_step_action_ends_the_reroll_chance() -> None:
    game = start()
    game.play("field P1 sidekick#3")
    with pytest.raises(IllegalActionError, match="no second reroll"):
        game.play("reroll P1 sidekick#1 mask")


def test_a_face_the_die_does_not_have_is_refused() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]])
    game.play("draw P1 sidekick#1 sidekick#2 sidekick#3 sidekick#4")
    with pytest.raises(InvalidActionError, match="a Sidekick die has no '2fist' face"):
        game.play("roll P1 sidekick#1 2fist sidekick#2 mask sidekick#3 bolt sidekick#4 bolt")


def test_energy_by_type_and_what_it_buys() -> None:
    game = start()
    assert game.energy(0) == {"mask": 1, "fist": 1, "bolt": 1}
    assert [c.id for c in game.affordable(0)] == ["anger-issues", "villainous-pact"]  # Batman costs 4


# -- buying ----------------------------------------------------------------------------------------

def test_a_card_of_a_type_needs_one_energy_of_that_type() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]])
    game.play("draw P1 sidekick#1 sidekick#2 sidekick#3 sidekick#4")
    game.play("roll P1 sidekick#1 mask sidekick#2 mask sidekick#3 bolt sidekick#4 shield")
    with pytest.raises(IllegalActionError, match="at least one fist energy"):
        game.play("buy P1 batman pay sidekick#1 sidekick#2 sidekick#3 sidekick#4")


def test_only_own_cards_and_basic_actions_are_bought() -> None:
    game = start()
    with pytest.raises(IllegalActionError, match="cannot buy from 'zatanna'"):
        game.play("buy P1 zatanna pay sidekick#1 sidekick#2 sidekick#4")
    game.play("buy P1 villainous-pact pay sidekick#1 sidekick#2")
    assert "villainous-pact#1" in zone_ids(game, 0, Zone.USED)


def test_partial_spending_spins_a_non_generic_die_down() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], start_step="main")
    game.play("place P1 batman#1 reserve 2fist")
    game.play("place P1 sidekick#1 reserve mask")
    game.play("buy P1 villainous-pact pay batman#1=1 sidekick#1")
    assert game.die(0, "batman#1").face == Face.from_notation("fist")
    assert game.die(0, "batman#1").zone is Zone.RESERVE


def test_non_generic_energy_is_not_wasted_and_generic_is_spent_whole() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], start_step="main")
    game.play("place P1 batman#1 reserve 2fist")
    game.play("place P1 anger-issues#1 reserve 2generic")
    game.play("place P1 villainous-pact#1 reserve 2generic")
    with pytest.raises(IllegalActionError, match="spin a die down"):
        game.play("global P1 anger-issues pay batman#1")
    with pytest.raises(IllegalActionError, match="generic energy is spent whole"):
        game.play("buy P1 anger-issues pay anger-issues#1=1 batman#1")
    game.play("buy P1 villainous-pact pay villainous-pact#1")  # 2 generic for a cost of 2: no type shown


def test_two_dice_bought_at_once_spend_a_generic_die_whole() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], start_step="main")
    game.play("place P1 anger-issues#1 reserve 2generic")
    game.play("place P1 sidekick#1 reserve mask")
    game.play("place P1 sidekick#2 reserve bolt")
    game.play("place P1 sidekick#3 reserve shield")
    bought = game.play("buy P1 villainous-pact villainous-pact pay anger-issues#1 sidekick#1 sidekick#2")
    assert bought == ["villainous-pact#1", "villainous-pact#2"]


# -- fielding and attacking -----------------------------------------------------------------------------

def test_fielding_costs_energy_of_any_type() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], start_step="main")
    game.play("place P1 batman#1 reserve L3:3:6/5")
    game.play("place P1 sidekick#1 reserve mask")
    with pytest.raises(IllegalActionError, match="1 energy paid, the cost is 3"):
        game.play("field P1 batman#1 pay sidekick#1")


def test_characters_not_fielded_go_to_the_used_pile_at_the_attack() -> None:
    game = start()
    game.play("end P1")
    assert "sidekick#3" in zone_ids(game, 0, Zone.USED)
    assert zone_ids(game, 0, Zone.RESERVE) == ["sidekick#1", "sidekick#2", "sidekick#4"]  # energy stays


def test_a_blocker_blocks_one_attacker_several_may_block_one() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], start_step="main")
    game.play("place P1 batman#1 field L3:3:6/5")
    game.play("place P2 sidekick#1 field L1:0:1/1")
    game.play("place P2 zatanna#1 field L3:2:3/4")
    game.play("attack P1 batman#1")
    game.play("block P2 sidekick#1 batman#1 zatanna#1 batman#1")
    with pytest.raises(IllegalActionError, match="assign its damage first"):
        game.play("damage")
    with pytest.raises(IllegalActionError, match="assigns all its 6 damage"):
        game.play("assign batman#1 sidekick#1 1 zatanna#1 3")
    game.play("assign batman#1 sidekick#1 2 zatanna#1 4")
    game.play("damage")
    assert zone_ids(game, 1, Zone.PREP) == ["sidekick#1", "zatanna#1"]
    assert game.die(0, "batman#1").damage == 4 and game.die(0, "batman#1").zone is Zone.FIELD  # 4 < 5


def test_defence_bonus_to_zero_knocks_out() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], start_step="main")
    game.play("place P2 sidekick#1 field L1:0:1/1")
    game.play("bonus P2 sidekick#1 -1D")
    assert zone_ids(game, 1, Zone.PREP) == ["sidekick#1"]


def test_life_never_above_the_start() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], life=10, start_step="main")
    game.play("life P1 -2")
    game.play("life P1 +3")
    assert game.state.players[0].life == 10


def test_both_players_at_zero_is_a_tie() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], life=2, start_step="main")
    game.play("place P1 batman#1 field L1:2:3/3")
    game.play("place P2 sidekick#1 reserve mask")
    game.play("life P1 -1")
    game.play("attack P1 batman#1")
    game.play("block P2")
    game.state.players[0].life = 0  # a card's damage to both at once (the table's text effect)
    game.play("damage")
    assert game.to_json()["winner"] == "draw"


def test_unblocked_damage_to_zero_ends_the_game() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], life=6, start_step="main")
    game.play("place P1 batman#1 field L3:3:6/5")
    game.play("attack P1 batman#1")
    game.play("block P2")
    game.play("damage")
    assert game.finished and game.to_json()["winner"] == "Ann"


def test_no_attack_ends_the_turn_and_the_opponent_draws() -> None:
    game = start()
    game.play("end P1")
    assert game.state.active == 1 and game.state.step is Step.CLEAR_AND_DRAW


def test_draw_takes_the_whole_bag_then_refills_from_the_used_pile() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], start_step="main")
    for n in range(1, 7):
        game.play(f"place P1 sidekick#{n} used")
    game.play("end P1")
    game.play("draw P2 sidekick#1 sidekick#2 sidekick#3 sidekick#4")
    game.play("roll P2 sidekick#1 mask sidekick#2 mask sidekick#3 mask sidekick#4 mask")
    game.play("end P2")
    with pytest.raises(IllegalActionError, match="the bag holds 2: draw them all"):
        game.play("draw P1 sidekick#7 sidekick#1 sidekick#2 sidekick#3")
    game.play("draw P1 sidekick#7 sidekick#8 sidekick#1 sidekick#2")
    assert len(game.dice_in(0, Zone.BAG)) == 4


# -- faces and card files --------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["fist", "2mask", "generic*", "bolt**", "L1:0:1/1", "L3:2:7/4*", "action", "action**"])
def test_face_notation_round_trips(text: str) -> None:
    assert Face.from_notation(text).notation() == text


def test_face_kinds() -> None:
    assert Face.from_notation("L2:1:4/3").kind is FaceKind.CHARACTER
    assert Face.from_notation("2generic").generic
    with pytest.raises(InvalidRollError, match="not a Dice Masters face: 'sword'"):
        Face.from_notation("sword")


def card_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "test-card.toml"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = 'name = "Test"\nkind = "character"\ncost = 3\nenergy = "fist"\nfaces = ["fist", "fist", "2fist", "L1:1:1/1", "L2:1:2/2", "L3:2:3/3"]\n'


def test_a_bad_card_file_names_the_file_and_the_key(tmp_path: Path) -> None:
    assert load_card(card_file(tmp_path, GOOD)).cost == 3
    with pytest.raises(CardDataError, match=r"test-card.toml: faces\[3\]: not a Dice Masters face"):
        load_card(card_file(tmp_path, GOOD.replace('"2fist"', '"3swords"')))
    with pytest.raises(CardDataError, match=r"test-card.toml: energy: expected an energy type"):
        load_card(card_file(tmp_path, GOOD.replace('"fist"\nfaces', '"fire"\nfaces')))
    with pytest.raises(CardDataError, match=r"test-card.toml: cost: expected the purchase cost"):
        load_card(card_file(tmp_path, GOOD.replace("cost = 3", 'cost = "three"')))
    with pytest.raises(CardDataError, match=r"test-card.toml: global.text"):
        load_card(card_file(tmp_path, GOOD + "[global]\ncost = 1\n"))
    with pytest.raises(CardDataError, match=r"test-card.toml: faces: expected the six faces"):
        load_card(card_file(tmp_path, GOOD.replace('"fist", "fist", ', "")))


def test_an_unknown_card_lists_the_known_ones() -> None:
    with pytest.raises(UnknownCardError, match="no card 'flash' .*batman"):
        load_card("flash")


def test_the_example_game_plays_on_to_a_winner() -> None:
    game = replay(record(EXAMPLE_OF_PLAY))
    state = game.to_json()
    assert state["winner"] == "Patricia" and [p["life"] for p in state["players"]] == [7, 0]


def test_every_step_of_the_records_has_a_state_and_a_prompt() -> None:
    for path in (EXAMPLE_OF_PLAY, COMBAT):
        rec = record(path)
        for count in range(len(rec.actions) + 1):
            assert replay(rec, upto=count).to_json()["prompt"]


def test_a_burst_matches_only_its_number_of_bursts(tmp_path: Path) -> None:
    card = load_card(card_file(tmp_path, GOOD + '[bursts]\none = "One: +1A."\nboth = "Any: draw."\n'))
    assert card.burst_text(1) == "One: +1A. Any: draw."
    assert card.burst_text(2) == "Any: draw."
    assert card.burst_text(0) == ""
    assert load_card(card_file(tmp_path, GOOD)).burst_text(1) == ""  # no matching burst: nothing happens
    with pytest.raises(CardDataError, match=r"test-card.toml: bursts.three"):
        load_card(card_file(tmp_path, GOOD + '[bursts]\nthree = "x"\n'))


def test_an_action_die_on_a_burst_face_shows_the_burst_text() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], start_step="main")
    game.play("place P1 anger-issues#1 reserve action*")
    text = game.play("action P1 anger-issues#1")
    assert "burst effect" in str(text) and game.die(0, "anger-issues#1").zone is Zone.OUT


def test_global_abilities_wait_until_blockers_are_declared() -> None:
    game = Game.new(["Ann", "Bob"], [["batman"], ["zatanna"]], start_step="main")
    game.play("place P1 batman#1 field L3:3:6/5")
    game.play("place P1 sidekick#1 reserve fist")
    game.play("attack P1 batman#1")
    with pytest.raises(IllegalActionError, match="not now"):
        game.play("global P1 anger-issues pay sidekick#1 target P1 batman#1")
    game.play("block P2")
    game.play("global P1 anger-issues pay sidekick#1 target P1 batman#1")
    assert game.die(0, "batman#1").attack == 7
