import tomllib
from pathlib import Path

import pytest

from rules.dicethrone.abilities import AbilityKind
from rules.dicethrone.damage import DamageType
from rules.errors import HeroDataError, UnknownAbilityError, UnknownHeroError
from rules.dicethrone.heroes import HEROES_DIRECTORY, all_heroes, hero_from_dict, load_hero
from rules.dicethrone.scoring import activations

FULL = ["barbarian", "moon-elf", "monk", "pyromancer", "paladin", "shadow-thief", "ninja", "black-widow", "spider-man"]


def test_the_full_heroes_ship_and_partial_ones_are_marked():
    heroes = {hero.id: hero for hero in all_heroes()}
    assert set(FULL) <= set(heroes)
    assert all(not heroes[h].partial for h in FULL)
    assert {h for h, hero in heroes.items() if hero.partial} == {"loki", "scarlet-witch", "doctor-strange", "black-panther", "treant"}


@pytest.mark.parametrize("name", ["moon-elf", "Moon Elf", "MOON ELF", "moon elf"])
def test_hero_by_id_or_display_name_in_any_case(name):
    assert load_hero(name).id == "moon-elf"


def test_hero_aliases():
    assert load_hero("Miles Morales").id == "spider-man"
    assert load_hero("spider-man (miles morales)").id == "spider-man"


def test_unknown_hero_names_the_input():
    with pytest.raises(UnknownHeroError, match="'gandalf'") as caught:
        load_hero("gandalf")
    assert isinstance(caught.value, LookupError)


def test_ability_by_alias_any_case():
    assert load_hero("barbarian").ability("all-out strike").name == "Sturdy Blow"
    assert load_hero("monk").ability("FIST STRIKE").name == "Fist Technique"
    assert load_hero("barbarian").ability("rage").name == "Rage!"
    with pytest.raises(UnknownAbilityError, match="'Fireball'"):
        load_hero("barbarian").ability("Fireball")


def test_symbol_for_and_faces_for():
    barbarian = load_hero("barbarian")
    assert [barbarian.symbol_for(v) for v in range(1, 7)] == ["sword"] * 3 + ["heart"] * 2 + ["strength"]
    assert barbarian.faces_for("heart") == (4, 5)
    assert barbarian.symbol_for("pow") == "strength"


@pytest.mark.parametrize("path", sorted(HEROES_DIRECTORY.glob("*.toml")), ids=lambda p: p.stem)
def test_every_file_is_named_by_its_id_and_has_one_ultimate(path):
    hero = load_hero(path)
    assert hero.id == path.stem
    ultimates = [a for a in hero.abilities if a.kind is AbilityKind.ULTIMATE]
    assert len(ultimates) == 1
    assert ultimates[0].damage_type is DamageType.ULTIMATE
    assert ultimates[0].requirement.notation() == f"5 {hero.faces[5]}"


def test_conflicts_record_the_choice_and_the_other_value():
    longbow = load_hero("moon-elf").ability("Longbow")
    assert [(c.chosen, c.other) for c in longbow.conflicts] == [("3 (ZH, ReRolled)", "4 (DD)")]
    assert longbow.tiers[0].effect.damage == 3
    # Every CONFLICT in the reference facts is recorded somewhere in the shipped files.
    recorded = sum(len(a.conflicts) for hero in all_heroes() for a in hero.abilities)
    recorded += sum(len(hero.conflicts) for hero in all_heroes())
    assert recorded >= 16


def test_ultimate_comes_first_and_is_unstoppable():
    found = activations(load_hero("barbarian"), load_hero("barbarian").roll("6 6 6 6 6"))
    assert [a.ability for a in found] == ["Rage!", "Crit Bash"]
    assert found[0].unstoppable and not found[1].unstoppable


def test_activations_are_ordered_by_value():
    barbarian = load_hero("barbarian")
    found = activations(barbarian, barbarian.roll("1 2 3 4 5"))
    assert [(a.ability, a.damage) for a in found] == [("Reckless", 15), ("Mighty Blow", 9), ("Smack", 4)]
    assert found[1].dice == (2, 3, 4, 5)


def test_per_symbol_effects_count_on_the_roll():
    thief = load_hero("shadow-thief")
    strike = activations(thief, thief.roll("1 2 1 3 6"))
    assert strike[0].ability == "Dagger Strike" and strike[0].tier == 1


# --- validation: errors name the file and the key --------------------------------------------

def barbarian_data():
    return tomllib.loads((HEROES_DIRECTORY / "barbarian.toml").read_text())


def write(tmp_path, data_text):
    path = tmp_path / "custom.toml"
    path.write_text(data_text)
    return path


def test_typo_in_a_key_names_file_and_key(tmp_path):
    text = (HEROES_DIRECTORY / "barbarian.toml").read_text().replace("damage = 9", "damgae = 9")
    path = write(tmp_path, text)
    with pytest.raises(HeroDataError, match=r"custom\.toml: abilities\[4\] \(Mighty Blow\)\.damgae: unknown key"):
        load_hero(path)


def test_unknown_symbol_in_a_requirement(tmp_path):
    text = (HEROES_DIRECTORY / "barbarian.toml").read_text().replace('"2 sword + 2 strength"', '"2 sword + 2 strenght"')
    with pytest.raises(HeroDataError, match=r"abilities\[1\] \(Sturdy Blow\)\.requirement: no face shows 'strenght'"):
        load_hero(write(tmp_path, text))


def test_bad_toml_names_the_file(tmp_path):
    with pytest.raises(HeroDataError, match="custom.toml: not valid TOML"):
        load_hero(write(tmp_path, "id = \n"))


@pytest.mark.parametrize(
    "change, key",
    [
        (lambda d: d.update(faces=d["faces"][:5]), "faces"),
        (lambda d: d.update(id="Bad Id"), "id"),
        (lambda d: d["abilities"][0].update(kind="offense"), r"abilities\[0\] \(Smack\)\.kind"),
        (lambda d: d["abilities"][4].update(damage_type="fire"), r"abilities\[4\] \(Mighty Blow\)\.damage_type"),
        (lambda d: d["abilities"][4].pop("damage_type"), r"abilities\[4\] \(Mighty Blow\)\.damage_type"),
        (lambda d: d["abilities"][4].update(damage="9"), r"abilities\[4\] \(Mighty Blow\)\.damage"),
        (lambda d: d["abilities"][8].update(dice=7), r"abilities\[8\] \(Thick Skin\)\.dice"),
        (lambda d: d["abilities"][0]["tiers"][1].update(requirement="4 swords"), r"abilities\[0\] \(Smack\)\.tiers\[1\]\.requirement"),
        (lambda d: d["abilities"][1].update(aliases=["Smack"]), r"abilities\[1\] \(Sturdy Blow\)\.name"),
        (lambda d: d.pop("abilities"), "abilities"),
        (lambda d: d["abilities"][0].update(damage=4), r"abilities\[0\] \(Smack\)\.damage: with tiers"),
    ],
)
def test_validation_names_the_key(change, key):
    data = barbarian_data()
    change(data)
    with pytest.raises(HeroDataError, match=rf"^where\.toml: {key}"):
        hero_from_dict(data, "where.toml")


def test_custom_hero_folder_is_searched_first(tmp_path):
    text = (HEROES_DIRECTORY / "barbarian.toml").read_text().replace('name = "Barbarian"', 'name = "Barbarian (house rules)"')
    (tmp_path / "barbarian.toml").write_text(text)
    assert load_hero("barbarian", search=[tmp_path]).name == "Barbarian (house rules)"
    assert load_hero("barbarian").name == "Barbarian"


def test_the_example_in_docs_heroes_md_loads():
    text = (Path(__file__).resolve().parents[2] / "docs" / "heroes.md").read_text()
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    hero = hero_from_dict(tomllib.loads(example), "docs/heroes.md")
    assert hero.id == "barbarian" and hero.ability("slap").tiers[2].effect.damage == 8
    assert hero.symbol_for("pow") == "strength"


def test_a_broken_custom_file_does_not_block_other_heroes(tmp_path):
    (tmp_path / "broken.toml").write_text('id = "broken"\nname = "Broken"\nfaces = ["a"]\nabilities = []\n')
    assert load_hero("Moon Elf", search=[tmp_path]).id == "moon-elf"
    with pytest.raises(UnknownHeroError, match=r"no hero 'nobody'.*not loaded: .*broken\.toml: faces"):
        load_hero("nobody", search=[tmp_path])
