"""The examples in the rules docstrings run."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["rules.dice", "rules.heroes", "rules.damage", "rules.odds", "rules.game"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
