"""The shipped hero files against the machine-readable reference facts (shared/reference)."""

import json
from pathlib import Path

import pytest

from rules.dicethrone.heroes import load_hero
from rules.dicethrone.requirements import Requirement, RequirementKind

FACTS = Path(__file__).resolve().parents[3] / "shared" / "reference" / "heroes-facts.json"
pytestmark = pytest.mark.skipif(not FACTS.is_file(), reason="reference facts not next to the repository")

ID = {"Spider-Man (Miles Morales)": "spider-man"}
# Partial heroes: the facts name symbols sym_A..sym_D; the files use sym_a..sym_d.
KIND = {"offensive": "offensive", "ultimate": "ultimate", "defensive": "defensive", "passive": "passive"}


def facts():
    return json.loads(FACTS.read_text())["heroes"]


def hero_for(entry):
    return load_hero(ID.get(entry["hero"], entry["hero"]))


def symbol(name):
    return name.split(" ")[0].lower()


@pytest.mark.parametrize("entry", facts() if FACTS.is_file() else [], ids=lambda e: e["hero"])
def test_dice_key_and_requirements_match_the_facts(entry):
    hero = hero_for(entry)
    assert list(hero.faces) == [symbol(entry["dice_key"][str(face)]) for face in range(1, 7)]
    for fact in entry["abilities"]:
        struct = fact["requirement_struct"]
        if fact["kind"] == "defensive" and hero.partial:
            continue
        ability = hero.ability(fact["name"])
        assert ability.kind.value == KIND[fact["kind"]], fact["name"]
        if struct["kind"] == "symbols":
            tiers = struct.get("tiers") or [{"need": struct["need"]}]
            expected = [{symbol(s): n for s, n in t["need"].items()} for t in tiers]
            got = [dict(t.requirement.need) for t in ability.tiers]
            assert got == expected, fact["name"]
        elif struct["kind"] in ("small_straight", "large_straight"):
            assert [t.requirement for t in ability.tiers] == [Requirement(RequirementKind(struct["kind"].replace("_", " ")))]
        elif struct["kind"] == "straight_tiers":
            assert [t.requirement.notation() for t in ability.tiers] == ["small straight", "large straight"]
        elif struct["kind"] == "defense_roll":
            assert ability.defense_dice == struct["dice"], fact["name"]
            assert ability.roll_attempts == struct.get("roll_attempts", 1)


def test_every_fact_ability_is_shipped():
    missing = []
    for entry in facts():
        hero = hero_for(entry)
        for fact in entry["abilities"]:
            try:
                hero.ability(fact["name"])
            except LookupError:
                missing.append((entry["hero"], fact["name"]))
    assert missing == []


def test_every_conflict_in_the_facts_is_recorded_with_both_values():
    unrecorded = []
    for entry in facts():
        hero = hero_for(entry)
        for fact in entry["abilities"]:
            if "conflict" in fact:
                ability = hero.ability(fact["name"])
                if not (ability.conflicts or hero.conflicts):
                    unrecorded.append((entry["hero"], fact["name"]))
    assert unrecorded == []
