"""Reading the games' data files (figures, cards): TOML text, within the limits every input file has,
with errors that name the file."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The same reader and limits as every other file the tray is handed (configs, profiles, labels,
# records): vision.datafile is standard library only, so rules/ stays free of numpy and OpenCV.
from vision import datafile

MAX_DATA_FILE_BYTES = 256 * 1024
"""The largest bundled figure or card file is under 1 KB; the hero files' limit."""


def read_text(path: Path, error: type[Exception]) -> str:
    """The file's text, or ``error`` naming the file: it must be a regular file (a FIFO or a device
    is refused before it is opened) of at most :data:`MAX_DATA_FILE_BYTES`, in UTF-8."""
    return datafile.read_text_file(path, error, "data file", MAX_DATA_FILE_BYTES)


def parse_toml(path: Path, text: str, error: type[Exception]) -> dict[str, Any]:
    """``text`` (read from ``path``) as TOML, or ``error`` naming the file and the problem: nesting,
    whole numbers (at most 2**53), NaN and Infinity are refused as in every other data file."""
    return datafile.parse_toml(text, str(path), error)


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


MAX_PIECE_NUMBER = 99
"""The most any cost, stat, Value, attack, defence or die count on one figure or card may be: printed
pieces have one or two digits, and a die count is dice made (a bag of 2**53 dice would never fill)."""


def bounded_whole_number(value: object, low: int, high: int = MAX_PIECE_NUMBER) -> int | None:
    """``value`` if it is a whole number (not a bool) from ``low`` to ``high``, else None."""
    if type(value) is int and low <= value <= high:
        return value
    return None
