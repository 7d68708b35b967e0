"""Reading the games' data files (figures, cards): TOML text with errors that name the file."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
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


DATA_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
"""A figure's or card's id: lowercase words joined by '-' (its file name)."""


def find_data_file(
    name: str | Path, directories: Sequence[Path], bundled: Path, kind: str, unknown: type[Exception]
) -> Path:
    """The file of the ``kind`` (``"figure"``, ``"card"``) with id ``name``: a path as given, else
    ``<id>.toml`` in ``directories`` first, then in ``bundled``.

    :raises unknown: for a malformed id or one no folder has, listing the ids known.
    """
    if isinstance(name, Path) or str(name).endswith(".toml"):
        return Path(name).resolve()
    if not DATA_ID.match(str(name)):
        raise unknown(f"not a {kind} id: {name!r} (ids are lowercase words joined by '-')")
    for directory in (*directories, bundled):
        path = Path(directory) / f"{name}.toml"
        if path.is_file():
            return path.resolve()
    known = ", ".join(sorted({p.stem for d in (*directories, bundled) for p in Path(d).glob("*.toml")}))
    raise unknown(f"no {kind} {name!r} ({kind}s: {known})")
