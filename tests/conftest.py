"""Shared fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
REAL_D6 = SHARED / "data" / "real-d6"


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own empty state directory, so profiles and roll logs never leak."""
    monkeypatch.setenv("DICETRAY_STATE_DIR", str(tmp_path_factory.mktemp("state")))
