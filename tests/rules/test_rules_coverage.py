"""docs/rules-coverage.md names a test for each rule: every test it names exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_test_the_coverage_table_names_exists():
    text = (ROOT / "docs" / "rules-coverage.md").read_text(encoding="utf-8")
    cited = re.findall(r"([a-z_/]+\.py)::(test_[a-z0-9_]+)", text)
    assert len(cited) > 80
    missing = []
    for path, name in cited:
        source = (ROOT / "tests" / path).read_text(encoding="utf-8")
        if f"def {name}(" not in source:
            missing.append(f"{path}::{name}")
    assert missing == []


def test_every_row_has_a_status_from_the_legend():
    text = (ROOT / "docs" / "rules-coverage.md").read_text(encoding="utf-8")
    rows = [line.split("|") for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    assert {row[4].strip() for row in rows} <= {"right", "fixed", "new", "partial", "unknown", "missing", "n/a"}
