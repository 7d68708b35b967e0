"""calibration.profiles reads no tray profile behind the caller's back, so it does not import
calibration.tray (which builds on it): no import cycle."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_profiles_does_not_import_tray():
    assert "calibration.tray" not in imported_modules(ROOT / "calibration" / "profiles.py")
    assert "calibration.profiles" in imported_modules(ROOT / "calibration" / "tray.py")


def test_requirements_and_effects_do_not_import_each_other():
    requirements = imported_modules(ROOT / "rules" / "dicethrone" / "requirements.py")
    effects = imported_modules(ROOT / "rules" / "dicethrone" / "effects.py")
    assert "rules.dicethrone.effects" not in requirements and "rules.dicethrone.scoring" not in requirements
    assert "rules.dicethrone.scoring" not in effects
