import json
import os
import subprocess
import sys

import pytest

from firmware_host.cli import main
from rules.dicethrone.heroes import HEROES_DIRECTORY


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_heroes_list_names_every_hero(capsys):
    status, out, _ = run(capsys, "heroes", "list")
    assert status == 0
    ids = [line.split()[0] for line in out.splitlines()]
    assert {"barbarian", "moon-elf", "shadow-thief", "black-widow", "spider-man"} <= set(ids)
    assert "loki" in ids and "(partial)" in out


def test_heroes_show_accepts_display_name(capsys):
    status, out, _ = run(capsys, "heroes", "show", "SHADOW THIEF")
    assert status == 0
    assert "1=dagger" in out and "Shadow Shank!" in out
    status, out, _ = run(capsys, "heroes", "show", "moon-elf", "--json")
    data = json.loads(out)
    assert data["faces"]["6"] == "moon" and data["abilities"][0]["conflicts"][0]["other"] == "4 (DD)"


def test_score_json_shape(capsys):
    status, out, _ = run(capsys, "score", "--hero", "Barbarian", "1", "2", "3", "4", "5", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["hero"] == "barbarian" and data["roll"] == "1 2 3 4 5"
    first = data["activations"][0]
    assert set(first) == {"ability", "tier", "dice", "effect", "damage", "damage_type"}
    assert (first["ability"], first["tier"], first["dice"], first["damage"], first["damage_type"]) == ("Reckless", 1, [1, 2, 3, 4, 5], 15, "normal")


def test_score_with_symbol_names(capsys):
    status, out, _ = run(capsys, "score", "--hero", "barbarian", "sword", "sword", "sword", "heart", "pow", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["roll"] == "sword sword sword heart strength"
    assert [a["ability"] for a in data["activations"]] == ["Smack"]


def test_score_text_flags_the_ultimate(capsys):
    status, out, _ = run(capsys, "score", "--hero", "ninja", "6", "6", "6", "6", "6")
    assert status == 0 and "Assassinate!" in out and "UNSTOPPABLE" in out


def test_odds_json_shape(capsys):
    status, out, _ = run(capsys, "odds", "--hero", "barbarian", "--json")
    data = json.loads(out)
    assert status == 0
    assert (data["hero"], data["dice"], data["rolls_left"]) == ("barbarian", [], 3)
    mighty = [a for a in data["abilities"] if a["ability"] == "Mighty Blow"][0]
    assert mighty == {"ability": "Mighty Blow", "probability": 0.61544, "keep": []}
    assert "keep" in data["best"]


def test_odds_with_dice_and_target(capsys):
    status, out, _ = run(capsys, "odds", "--hero", "barbarian", "--dice", "6", "6", "6", "1", "4", "--rolls-left", "1", "--for", "rage")
    assert status == 0
    assert "for Rage!: keep 6 6 6 (2.78%)" in out


@pytest.mark.parametrize(
    "argv, quoted",
    [
        (["score", "--hero", "barbarian", "1", "2", "7", "4", "5"], "7"),
        (["score", "--hero", "barbarian", "1", "2", "3", "4", "5", "6"], "'1 2 3 4 5 6'"),
        (["score", "--hero", "barbarian", "1", "2", "3", "4"], "'1 2 3 4'"),
        (["score", "--hero", "gandalf", "1", "2", "3", "4", "5"], "'gandalf'"),
        (["score", "--hero", "barbarian", "1", "2", "moon", "4", "5"], "'moon'"),
        (["odds", "--hero", "barbarian", "--dice", "1", "2"], "'1 2'"),
        (["odds", "--hero", "barbarian", "--for", "fireball"], "'fireball'"),
        (["heroes", "show", "nobody"], "'nobody'"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_it(capsys, argv, quoted):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and quoted in err
    assert err.startswith(f"dicetray {argv[0]}: error: ")


def test_hero_file_with_a_typo_exits_2_naming_file_and_key(tmp_path):
    text = (HEROES_DIRECTORY / "barbarian.toml").read_text().replace("damage_type", "damage_tyep", 1)
    path = tmp_path / "typo.toml"
    path.write_text(text)
    result = subprocess.run(
        [sys.executable, "-m", "firmware_host", "score", "--hero", str(path), "1", "2", "3", "4", "5"],
        capture_output=True, text=True, env={**os.environ},
    )
    assert result.returncode == 2
    assert "typo.toml" in result.stderr and "damage_tyep: unknown key" in result.stderr
    assert "Traceback" not in result.stderr


def test_custom_heroes_in_the_state_directory(capsys):
    folder = __import__("calibration.paths", fromlist=["state_directory"]).state_directory() / "heroes"
    folder.mkdir(parents=True)
    text = (HEROES_DIRECTORY / "barbarian.toml").read_text()
    text = text.replace('id = "barbarian"', 'id = "house-barbarian"').replace('name = "Barbarian"', 'name = "House Barbarian"')
    (folder / "house-barbarian.toml").write_text(text)
    status, out, _ = run(capsys, "score", "--hero", "house barbarian", "6", "6", "6", "6", "1", "--json")
    assert status == 0 and json.loads(out)["hero"] == "house-barbarian"
