"""Reading the games' data files (figures, cards): TOML text with errors that name the file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_text(path: Path, error: type[Exception]) -> str:
    """The file's text, or ``error`` naming the file."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as problem:
        raise error(f"{path}: cannot read: {problem.strerror or problem}") from None
    except UnicodeDecodeError as problem:
        raise error(f"{path}: not UTF-8 text: {problem}") from None


def parse_toml(path: Path, text: str, error: type[Exception]) -> dict[str, Any]:
    """``text`` (read from ``path``) as TOML, or ``error`` naming the file and the problem."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        raise error(f"{path}: not valid TOML: {problem}") from None


def read_toml(path: Path, error: type[Exception]) -> dict[str, Any]:
    return parse_toml(path, read_text(path, error), error)
