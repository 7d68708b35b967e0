"""Code written against the one-game layout (``rules.game``, ``rules.heroes``...) still imports the
same objects from their Dice Throne modules."""

import importlib

import pytest


@pytest.mark.parametrize(
    "old, new, name",
    [
        ("rules.game", "rules.dicethrone.game", "Game"),
        ("rules.heroes", "rules.dicethrone.heroes", "load_hero"),
        ("rules.requirements", "rules.dicethrone.scoring", "activations"),
        ("rules.requirements", "rules.dicethrone.requirements", "Requirement"),
        ("rules.effects", "rules.dicethrone.effects", "resolve_offense"),
        ("rules.damage", "rules.dicethrone.damage", "Portion"),
        ("rules.odds", "rules.dicethrone.odds", "odds"),
        ("rules.abilities", "rules.dicethrone.abilities", "AbilityKind"),
    ],
)
def test_the_old_path_gives_the_same_object(old, new, name):
    assert getattr(importlib.import_module(old), name) is getattr(importlib.import_module(new), name)
