"""Marvel Heroes Battle Dice (seed 003): the worked example, teams, powers, zones, options, records."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.battledice.figures import (
    FigureDataError,
    TeamProblem,
    UnknownFigureError,
    check_team,
    load_figure,
)
from rules.battledice.game import Game, Phase, Zone
from rules.errors import IllegalActionError
from rules.games import find_game
from rules.records import GameRecord, RecordError, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
WORKED = EXAMPLES / "battle-dice-strike-totals.dtr"

HEROES = "captain-america spider-man wolverine"
VILLAINS = "ultron doc-ock magneto"


def worked_record() -> GameRecord:
    return GameRecord.from_text(WORKED.read_text(encoding="utf-8"), str(WORKED))


def replay_upto(verb_count: int) -> Game:
    game = replay(worked_record(), upto=verb_count)
    assert isinstance(game, Game)
    return game


def index_after(text: str) -> int:
    """How many actions of the worked record come up to and including the first line ``text``."""
    actions = [str(a) for _, a in worked_record().actions]
    return actions.index(text) + 1


def two_player(*lines: str, options: str = "", mode: str = "standard") -> Game:
    tags = {
        "Mode": mode,
        "P1": "Ann", "P1Team": HEROES, "P1Dice": "red blue green",
        "P2": "Bob", "P2Team": VILLAINS, "P2Dice": "red blue green",
    }
    if options:
        tags["Options"] = options
    game = Game.from_tags(tags)
    for line in lines:
        game.play(line)
    return game


ROUND_START = ("reload P1", "reload P2")


# -- the seed's worked example ---------------------------------------------------------------

def test_worked_example_first_stage_opponent_chooses_match_up_you_choose_stat() -> None:
    game = replay_upto(index_after("roll P2 red 2 blue 4 green 6"))
    assert game.strike_totals() == {0: 13, 1: 12}
    assert game.state.phase is Phase.MATCH_UP and game.state.chooser == 1
    game = replay_upto(index_after("match P2 green P1 red"))
    assert game.state.battle is not None and game.state.battle.stat_choosers == [0]


def test_worked_example_second_stage_new_strike_totals_and_the_lowest_die_chooses() -> None:
    game = replay_upto(index_after("pass P2") + 3)  # after the first battle is decided
    assert game.strike_totals() == {0: 10, 1: 6}
    assert game.state.chooser == 1
    game = replay_upto(index_after("match P2 red P1 green"))
    assert game.state.battle is not None and game.state.battle.stat_choosers == [1]


def test_worked_example_third_stage_tie_broken_by_an_empty_die_and_each_chooses_a_stat() -> None:
    before_tiebreak = index_after("tiebreak P1 2 P2 4") - 1
    game = replay_upto(before_tiebreak)
    assert game.strike_totals() == {0: 4, 1: 4}
    assert game.state.phase is Phase.TIEBREAK and game.state.tied == [0, 1]
    game = replay_upto(before_tiebreak + 2)
    assert game.state.chooser == 0  # you roll 2, the opponent 4: you choose the match-up
    assert game.state.battle is not None and game.state.battle.stat_choosers == [0, 1]
    game = replay_upto(before_tiebreak + 3)
    assert game.state.battle is not None
    assert game.state.battle.stats == {0: "fighting-skills", 1: "intelligence"}
    game = replay_upto(before_tiebreak + 5)  # both dice open
    assert game.state.battle is not None and game.state.battle.actor == 0  # the tie-break winner's powers first


def test_worked_example_record_plays_to_a_winner_with_captures_and_zones() -> None:
    game = replay(worked_record())
    state = game.to_json()
    assert state["winner"] == "You" and state["phase"] == "over"
    you, opponent = state["players"]
    assert you["holding"] == ["P2 doc-ock", "P2 magneto", "P2 ultron"]
    assert opponent["holding"] == ["P1 wolverine"]
    assert opponent["dice_zone"] == ["blue", "green", "red"]  # each lost battle puts its die there


def test_record_round_trips_through_its_notation() -> None:
    game = replay(worked_record())
    again = replay(GameRecord.from_text(GameRecord.of(game).notation()))
    assert again.to_json() == game.to_json()


def test_registered_by_name_and_alias() -> None:
    assert find_game("battle-dice").name == "battledice"
    assert find_game("Marvel Heroes Battle Dice").name == "battledice"


# -- battles ---------------------------------------------------------------------------------

def test_winner_figure_and_die_go_to_staging_loser_die_to_the_dice_zone() -> None:
    game = two_player(
        *ROUND_START, "roll P1 red 3 blue 4 green 6", "roll P2 red 2 blue 4 green 6",
        "match P2 green P1 red", "stat fighting-skills", "open P1 red wolverine", "open P2 green ultron",
        "pass P2", "pass P1",
    )
    ann, bob = game.state.seats
    assert ann.dice["red"].zone is Zone.STAGING and "wolverine" in ann.staging
    assert bob.dice["green"].zone is Zone.DICE and not bob.dice["green"].loaded
    assert ann.holding == [(1, "ultron")]


def test_only_the_stat_chooser_names_the_stat_and_only_in_the_match_up() -> None:
    game = two_player(*ROUND_START, "roll P1 red 3 blue 4 green 6", "roll P2 red 2 blue 4 green 6")
    with pytest.raises(IllegalActionError, match="one die from each"):
        game.play("match P2 green P2 red")
    game.play("match P2 green P1 red")
    with pytest.raises(IllegalActionError, match="Ann chooses the battle stat"):
        game.play("stat P2 speed")


def test_opening_a_figure_that_is_not_loaded_is_refused() -> None:
    game = two_player(
        *ROUND_START, "roll P1 red 3 blue 4 green 6", "roll P2 red 2 blue 4 green 6",
        "match P2 green P1 red", "stat speed",
    )
    with pytest.raises(IllegalActionError, match="no 'ultron' in a loaded die"):
        game.play("open P1 red ultron")


def test_a_die_in_the_battle_zone_is_not_rolled_again() -> None:
    game = two_player(*ROUND_START, "roll P1 red 3 blue 4 green 6")
    with pytest.raises(IllegalActionError, match="not re-rolled"):
        game.play("roll P1 red 1 blue 1 green 1")


def test_standard_game_rolls_three_dice() -> None:
    game = two_player(*ROUND_START)
    with pytest.raises(IllegalActionError, match="rolls 3 loaded dice"):
        game.play("roll P1 red 3 blue 4")


# -- powers ------------------------------------------------------------------------------------

def powers_step() -> Game:
    return two_player(
        *ROUND_START, "roll P1 red 3 blue 4 green 6", "roll P2 red 2 blue 4 green 6",
        "match P2 green P1 red", "stat speed", "open P1 red spider-man", "open P2 green ultron", "pass P2",
    )


def test_ranged_weapon_adds_two_to_the_battle_total() -> None:
    game = powers_step()
    assert game.battle_totals() == {1: 9, 0: 9}
    game.play("power P1 Ranged Weapon")
    assert game.battle_totals()[0] == 11


def test_each_power_affects_a_figure_once() -> None:
    game = powers_step()
    game.play("power P1 Ranged Weapon")
    with pytest.raises(IllegalActionError, match="each power affects a figure or player once"):
        game.play("power P1 Ranged Weapon")
    assert game.battle_totals()[0] == 11


def test_a_power_needs_an_icon_of_the_battle_stats_colour() -> None:
    game = two_player(
        *ROUND_START, "roll P1 red 3 blue 4 green 6", "roll P2 red 2 blue 4 green 6",
        "match P2 green P1 red", "stat strength", "open P1 red spider-man", "open P2 green ultron", "pass P2",
    )
    with pytest.raises(IllegalActionError, match="not activated by strength"):
        game.play("power P1 Ranged Weapon")


def test_powers_go_in_turn_from_the_match_up_chooser() -> None:
    game = powers_step()
    with pytest.raises(IllegalActionError, match="Ann announces powers"):
        game.play("power P2 Ranged Weapon")


def test_telepathy_takes_two_from_the_strike_total_once_per_player() -> None:
    game = two_player(
        *ROUND_START, "roll P1 red 3 blue 4 green 6", "roll P2 red 2 blue 4 green 6",
        "match P2 green P1 red", "stat intelligence", "open P1 red spider-man", "open P2 green doc-ock",
    )
    game.play("power P2 Telepathy")
    assert game.strike_totals()[1] == 12 - 2
    game.play("pass P2")
    game.play("pass P1")  # Doc Ock 6 + 6 beats Spider-Man 3 + 4
    assert game.strike_totals() == {0: 10, 1: 6 - 2}  # it lasts the round


def test_a_text_power_is_shown_and_the_table_adjusts_the_total() -> None:
    game = two_player(
        *ROUND_START, "roll P1 red 3 blue 4 green 6", "roll P2 red 2 blue 4 green 6",
        "match P2 green P1 red", "stat durability", "open P1 red wolverine", "open P2 green ultron", "pass P2",
    )
    game.play("power P1 Regeneration")
    assert "Regeneration - apply at the table" in game.log[-1]
    game.play("adjust P1 +1")
    assert game.battle_totals()[0] == 3 + 6 + 1


# -- zones and reloading -----------------------------------------------------------------------

def test_rolling_before_reloading_is_refused() -> None:
    game = two_player()
    with pytest.raises(IllegalActionError, match="reload"):
        game.play("roll P1 red 3 blue 4 green 6")


def test_reload_takes_dice_from_the_dice_zone_while_figures_wait_in_staging() -> None:
    record = worked_record()
    actions = [str(a) for _, a in record.actions]
    round_two = actions.index("reload P2", 2) + 1  # Doc Ock alone is in his Staging Zone
    game = replay(record, upto=round_two - 1)
    assert isinstance(game, Game)
    bob = game.state.seats[1]
    assert bob.staging == ["doc-ock"] and [d.colour for d in bob.in_zone(Zone.STAGING)] == ["red"]
    with pytest.raises(IllegalActionError, match="load 1 dice"):
        game.play("reload P2 red blue")
    game.play("reload P2 blue")  # a die from the Dice Zone may be taken instead of the staged one
    assert [d.colour for d in game.state.seats[1].ready_loaded()] == ["blue"]


def test_undo_takes_back_the_last_action() -> None:
    game = powers_step()
    game.play("power P1 Ranged Weapon")
    game.undo()
    assert game.battle_totals()[0] == 9
    assert game.actions[-1] == "undo"


# -- options and modes ---------------------------------------------------------------------------

def test_a_popped_die_is_rolled_again_unless_the_option_makes_it_a_one() -> None:
    game = two_player(*ROUND_START)
    with pytest.raises(IllegalActionError, match="Popped Rolls"):
        game.play("roll P1 red popped blue 4 green 6")
    game = two_player(*ROUND_START, options="popped-rolls")
    game.play("roll P1 red popped blue 4 green 6")
    assert game.state.seats[0].dice["red"].roll == 1


def test_two_minute_warning_rolls_the_stats_in_turn() -> None:
    game = two_player(*ROUND_START, options="two-minute-warning")
    game.play("two-minute-warning")
    game.play("roll P1 red 3 blue 4 green 6")
    game.play("roll P2 red 2 blue 4 green 6")
    game.play("match P2 green P1 red")
    assert game.state.phase is Phase.OPEN
    assert game.state.battle is not None and set(game.state.battle.stats.values()) == {"intelligence"}


def test_two_minute_warning_needs_the_option() -> None:
    with pytest.raises(IllegalActionError, match="option agreed before the game"):
        two_player("two-minute-warning")


def test_basic_game_rolls_one_die_each_and_rerolls_a_tie() -> None:
    game = two_player("reload P1", "reload P2", "roll P1 red 4", "roll P2 blue 4", mode="basic")
    assert game.state.phase is Phase.REROLL  # the one-die match-up is set; tied dice roll again
    game.play("reroll P1 red 5 P2 blue 2")
    assert game.state.battle is not None and game.state.battle.stat_choosers == [1]
    game.play("stat strength")
    game.play("open P1 red wolverine")
    game.play("open P2 blue doc-ock")
    assert game.state.battle is not None and game.state.battle.actor == 1  # the stat chooser's powers first


# -- multiplayer -------------------------------------------------------------------------------

def three_player(options: str = "") -> Game:
    tags = {
        "Value": "20",
        "P1": "Ann", "P1Team": "captain-america spider-man", "P1Dice": "red blue green",
        "P2": "Bob", "P2Team": "ultron doc-ock", "P2Dice": "red blue green",
        "P3": "Cy", "P3Team": "wolverine magneto", "P3Dice": "red blue green",
    }
    if options:
        tags["Options"] = options
    game = Game.from_tags(tags)
    for seat in ("P1", "P2", "P3"):
        game.play(f"reload {seat}")
    game.play("roll P1 red 1 blue 2")
    game.play("roll P2 red 3 blue 3")
    game.play("roll P3 red 5 blue 6")
    return game


def test_multiplayer_match_up_takes_one_die_from_each_player() -> None:
    game = three_player()
    assert game.state.chooser == 0
    with pytest.raises(IllegalActionError, match="one die from each of P1, P2, P3"):
        game.play("match P1 red P2 red")
    game.play("match P1 red P2 red P3 red")
    assert game.state.battle is not None and game.state.battle.stat_choosers == [0]


def test_multiplayer_winner_captures_one_losing_figure_the_other_keeps_theirs() -> None:
    game = three_player()
    for line in (
        "match P1 red P2 red P3 red", "stat fighting-skills",
        "open P1 red captain-america", "open P2 red ultron", "open P3 red magneto",
        "pass P1", "pass P2", "pass P3",
    ):
        game.play(line)
    # Captain America 1 + 6 = 7; Ultron 3 + 2 = 5; Magneto 5 + 2 = 7: a draw for the highest
    assert game.state.phase is Phase.CAPTURE
    with pytest.raises(IllegalActionError, match="Ann captures now"):
        game.play("capture P3 P2")  # the winners take figures in turn from the match-up's chooser
    with pytest.raises(IllegalActionError, match="lost nothing"):
        game.play("capture P1 P3")
    game.play("capture P1 P2")
    ann, bob, cy = game.state.seats
    assert ann.holding == [(1, "ultron")] and cy.holding == []  # one loser: only the first winner takes
    assert "magneto" in cy.staging and "captain-america" in ann.staging
    assert bob.dice["red"].zone is Zone.DICE
    assert game.state.phase is Phase.MATCH_UP


def test_mayhem_battles_are_one_on_one() -> None:
    game = three_player(options="multiplayer-mayhem")
    with pytest.raises(IllegalActionError, match="Mayhem"):
        game.play("match P1 red P2 red P3 red")
    game.play("match P1 red P3 blue")
    assert game.state.battle is not None and game.state.battle.stat_choosers == [0]


# -- teams and figure files --------------------------------------------------------------------

def test_teams_are_checked_against_the_agreed_value() -> None:
    figures = [load_figure(f) for f in HEROES.split()]
    assert check_team(figures, 30).ok
    assert [p for p, _ in check_team(figures, 20).problems] == [TeamProblem.OVER_VALUE]
    with pytest.raises(RecordError, match="more than the agreed 20"):
        replay(GameRecord.from_text(
            '[Game "battledice"]\n[Value "20"]\n'
            f'[P1 "A"]\n[P1Team "{HEROES}"]\n[P1Dice "red blue green"]\n'
            f'[P2 "B"]\n[P2Team "{VILLAINS}"]\n[P2Dice "red blue green"]\n'
        ))


def write_figure(directory: Path, name: str, **changes: str) -> Path:
    lines = {
        "name": '"Test"', "value": "10", "unique": "true", "cosmic": "false",
    }
    lines.update(changes)
    text = "\n".join(f"{k} = {v}" for k, v in lines.items())
    text += "\n[stats]\nintelligence = 1\nstrength = 2\nspeed = 3\ndurability = 4\nenergy-projection = 5\nfighting-skills = 6\n"
    path = directory / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_unique_twice_and_cosmic_limits(tmp_path: Path) -> None:
    write_figure(tmp_path, "grunt", unique="false", value="5")
    write_figure(tmp_path, "galactus", cosmic="true", value="10")
    write_figure(tmp_path, "silver-surfer", cosmic="true", value="10")
    grunt = load_figure("grunt", [tmp_path])
    wolverine = load_figure("wolverine")
    assert check_team([grunt, grunt, wolverine, wolverine], 30).problems[0][0] is TeamProblem.UNIQUE_TWICE
    assert check_team([grunt, grunt, wolverine, load_figure("spider-man")], 30).ok
    cosmic = [load_figure("galactus", [tmp_path]), load_figure("silver-surfer", [tmp_path]), wolverine]
    assert [p for p, _ in check_team(cosmic, 30).problems] == [TeamProblem.TOO_MANY_COSMIC]
    assert not [p for p, _ in check_team(cosmic, 60).problems if p is TeamProblem.TOO_MANY_COSMIC]


def test_a_bad_figure_file_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = write_figure(tmp_path, "broken", value='"ten"')
    with pytest.raises(FigureDataError, match=rf"{path}: value: expected the figure's Value"):
        load_figure(path)
    path = write_figure(tmp_path, "no-stat")
    path.write_text(path.read_text().replace("speed = 3\n", ""))
    with pytest.raises(FigureDataError, match=r"no-stat.toml: stats.speed: expected a whole number"):
        load_figure(path)
    path = write_figure(tmp_path, "colour")
    path.write_text(path.read_text() + '[powers]\npurple = ["Magic"]\n')
    with pytest.raises(FigureDataError, match=r"colour.toml: powers.purple: not a battle stat or white"):
        load_figure(path)
    (tmp_path / "bad-toml.toml").write_text("name = ")
    with pytest.raises(FigureDataError, match="bad-toml.toml is not valid TOML"):
        load_figure(tmp_path / "bad-toml.toml")


def test_an_unknown_figure_lists_the_known_ones() -> None:
    with pytest.raises(UnknownFigureError, match="no figure 'hulk' .*wolverine"):
        load_figure("hulk")


def test_every_step_of_the_worked_record_has_a_state_and_a_prompt() -> None:
    record = worked_record()
    for count in range(len(record.actions) + 1):
        state = replay(record, upto=count).to_json()
        assert state["prompt"]


def test_a_power_that_affected_its_figure_is_no_longer_offered() -> None:
    game = powers_step()
    assert game.usable_powers(0) == ["Ranged Weapon"]
    game.play("power P1 Ranged Weapon")
    assert game.usable_powers(0) == []


def test_a_battle_total_tie_sends_every_figure_and_die_to_its_own_staging_zone() -> None:
    game = replay_upto(index_after("match P2 red P1 green") + 5)  # the second battle: 8 and 8
    you, opponent = game.state.seats
    assert "wolverine" in you.staging and "doc-ock" in opponent.staging
    assert you.dice["green"].zone is Zone.STAGING and opponent.dice["red"].zone is Zone.STAGING
    assert (0, "doc-ock") not in you.holding


def test_the_round_ends_when_one_player_has_no_battle_dice_and_the_rest_are_unloaded() -> None:
    game = replay_upto(index_after("unload P1 red spider-man") - 1)
    assert game.state.phase is Phase.UNLOAD and game.state.round == 2
    with pytest.raises(IllegalActionError, match="not now"):
        game.play("roll P1 red 1 green 1")
    game.play("unload P1 red spider-man")
    game.play("unload P1 green captain-america")
    assert game.state.round == 3 and game.state.phase is Phase.RELOAD


def test_a_dice_zone_die_rule_returns_the_die_to_staging() -> None:
    game = replay_upto(index_after("pass P2") + 3)  # the opponent lost the first battle
    assert game.state.seats[1].dice["green"].zone is Zone.DICE
    game.play("dice-rule P2 green")
    assert game.state.seats[1].dice["green"].zone is Zone.STAGING
    with pytest.raises(IllegalActionError, match="not in the Dice Zone"):
        game.play("dice-rule P2 green")
