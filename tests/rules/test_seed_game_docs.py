"""The rules-coverage tables of docs/battle-dice.md and docs/dice-masters.md cite tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("page", ["battle-dice.md", "dice-masters.md"])
def test_every_cited_test_exists(page: str) -> None:
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    cited = re.findall(r"([a-z_/]+\.py)::(test_[a-z0-9_]+)", text)
    assert len(cited) >= 20
    missing = [f"{path}::{name}" for path, name in cited
               if f"def {name}(" not in (ROOT / "tests" / path).read_text(encoding="utf-8")]
    assert missing == []
