"""The examples in the rules docstrings run."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["rules.dice", "rules.games", "rules.dicethrone.heroes", "rules.dicethrone.damage", "rules.dicethrone.odds", "rules.dicethrone.game", "rules.dicethrone.scoring", "rules.unsure"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
