"""Game records: the text round-trips, every action is recorded, and records replay to the same end."""

from pathlib import Path

import pytest

from rules.dicethrone.game import CardKind, Game, Phase
from rules.games import Action, UnknownGameError, find_game
from rules.records import GameRecord, RecordError, replay

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"

KOTH_END = {
    "game": "dicethrone",
    "mode": "king-of-the-hill",
    "players": [
        {"name": "Ada", "hero": "paladin", "health": 0, "cp": 4, "cards": 4, "statuses": {}},
        {"name": "Ben", "hero": "monk", "health": 0, "cp": 2, "cards": 6, "statuses": {"Chi": 2}},
        {"name": "Cy", "hero": "barbarian", "health": 1, "cp": 2, "cards": 6, "statuses": {}},
    ],
    "turn": 17,
    "active": "Cy",
    "phase": "defensive roll",
    "winner": "Cy",
}


def load(name):
    path = EXAMPLES / name
    return GameRecord.from_text(path.read_text(encoding="utf-8"), str(path))


def test_the_king_of_the_hill_example_replays_to_its_end():
    record = load("king-of-the-hill.dtr")
    verbs = [action.verb for _, action in record.actions]
    # The whole game: statuses spent, cards, an "Or" choice, an upgrade, targets.
    assert {"spend", "card", "choose", "upgrade", "target"} <= set(verbs)
    game = replay(record)
    assert game.to_json() == KOTH_END
    assert any("attacks a leader and draws 1 card" in line for line in game.log)
    assert any("Evasive" in line and "spent" in line for line in game.log)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.dtr")), ids=lambda p: p.name)
def test_every_example_replays_to_a_winner_and_round_trips(path):
    record = GameRecord.from_text(path.read_text(encoding="utf-8"), str(path))
    game = replay(record)
    assert game.finished and game.to_json()["winner"] is not None
    again = GameRecord.of(game)
    assert [str(a) for _, a in again.actions] == [str(a) for _, a in record.actions]
    assert dict(again.tags) == dict(record.tags)
    assert replay(GameRecord.from_text(again.notation())).to_json() == game.to_json()


def test_every_action_a_game_takes_is_in_its_record():
    game = Game.new(["barbarian", "paladin"], names=["Ann", "Bob"])
    game.seed = 5
    while game.phase is not Phase.OFFENSIVE_ROLL:
        game.advance()
    game.record_offensive_roll("1 2 3 4 1")
    game.select_ability("Mighty Blow")
    game.play_card(1, player=1, kind=CardKind.INSTANT, effect="prevent 2")
    game.modify_damage(+1)
    game.undo()  # a correction
    game.gain_status(1, "Protect")
    game.advance()
    game.record_defensive_roll("1 1 1")
    game.spend_status(1, "Protect")
    game.advance()
    record = GameRecord.of(game)
    text = record.notation()
    assert '[P1 "barbarian Ann"]' in text and '[Seed "5"]' in text
    assert [str(a) for _, a in record.actions][-10:] == [
        "roll 1 2 3 4 1",
        "select Mighty Blow",
        "card P2 instant 1 prevent 2",
        "damage +1",
        "undo",
        "status P2 +1 Protect",
        "advance",
        "defend 1 1 1",
        "spend P2 Protect",
        "advance",
    ]
    assert replay(GameRecord.from_text(text)).to_json() == game.to_json()


def test_an_illegal_action_names_the_line_and_the_rule():
    text = '[Game "dicethrone"]\n[P1 "barbarian A"]\n[P2 "moon-elf B"]\n\nadvance\nadvance\nroll 6 6 6 6 6\nselect Rage!\ndamage -2\n'
    with pytest.raises(RecordError, match=r"game\.dtr:9: 'damage -2': .*ultimate damage cannot be reduced"):
        replay(GameRecord.from_text(text, "game.dtr"))


@pytest.mark.parametrize(
    "text, message",
    [
        ('[P1 "barbarian A"]\nadvance\n', r'no \[Game "\.\.\."\] tag'),
        ('[Game "dicethrone"\n', r"r\.dtr:1: not a tag"),
        ('[Game "chess"]\n[P1 "barbarian A"]\n', r"no game 'chess'"),
        ('[Game "dicethrone"]\n[P1 "barbarian A"]\n[P2 "nobody B"]\n', r"cannot set the game up: no hero 'nobody'"),
        ('[Game "dicethrone"]\n[P1 "barbarian A"]\n[P2 "monk B"]\nfly away\n', r"r\.dtr:4: 'fly away': unknown action 'fly'"),
        ('[Game "dicethrone"]\n[P1 "barbarian A"]\n[P2 "monk B"]\nadvance\n[Mode "1v1"]\n', r"r\.dtr:5: tags come before"),
    ],
)
def test_bad_records_say_where(text, message):
    with pytest.raises(RecordError, match=message):
        replay(GameRecord.from_text(text, "r.dtr"))


def test_comments_and_escapes():
    text = '[Game "dicethrone"] \n[P1 "barbarian A \\"Axe\\" B"]\n[P2 "monk C"]\n# a note\nadvance ; skips income\n'
    record = GameRecord.from_text(text)
    assert record.tag("P1") == 'barbarian A "Axe" B'
    assert [str(a) for _, a in record.actions] == ["advance"]
    again = GameRecord.from_text(record.notation())
    assert again.tags == record.tags and [a for _, a in again.actions] == [a for _, a in record.actions]
    assert replay(record).to_json()["players"][0]["name"] == 'A "Axe" B'


def test_the_registry_finds_games_by_name():
    assert find_game("Dice Throne").name == "dicethrone"
    with pytest.raises(UnknownGameError, match="games: battledice, dicemasters, dicethrone"):
        find_game("yahtzee")


_HEAD = '[Game "dicethrone"]\n[P1 "barbarian A"]\n[P2 "monk B"]\n'


@pytest.mark.parametrize(
    "text, message",
    [
        # Digits that str.isdigit takes and int() refuses, and a number int() will not convert.
        ('[Game "dicethrone"]\n[Seed "\u00b2"]\n[P1 "barbarian A"]\n[P2 "monk B"]\n', r"\[Seed '\u00b2'\]: expected a whole number"),
        ('[Game "dicethrone"]\n[Start "P\u00b9"]\n[P1 "barbarian A"]\n[P2 "monk B"]\n', r"\[Start 'P\u00b9'\]: expected a seat"),
        (_HEAD + "health P\u2460 10\n", r"r\.dtr:4: .*expected a seat such as P1"),
        (_HEAD + "health P" + "9" * 5000 + " 10\n", r"r\.dtr:4: .*expected a seat such as P1"),
        (_HEAD + "damage +\u00b2\n", r"r\.dtr:4: .*expected a whole number for the damage"),
    ],
)
def test_numbers_in_records_are_ascii_digits(text, message):
    with pytest.raises(RecordError, match=message):
        replay(GameRecord.from_text(text, "r.dtr"))
