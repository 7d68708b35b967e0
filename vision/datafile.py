"""Reading the files a user hands the tray (images, labels, profiles, configs) within limits.

Every file is refused unless it is a regular file of bounded size, checked before it is opened so that
a FIFO nobody writes to, ``/dev/zero`` or a folder named like a file never blocks or floods memory.
JSON and TOML are parsed with bounded nesting and bounded numbers; NaN and Infinity are refused. Each
function raises the caller's error class (a ``ValueError`` of its package) with a message naming the
file, so the command line exits 2 with one line.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tomllib
from collections.abc import Callable
from typing import Any, NoReturn

MAX_DEPTH = 32
"""Nesting of lists and tables in a data file; the deepest the tray writes is 4."""

MAX_NUMBER = 2**53
"""Whole numbers in data files stay within what a float holds exactly."""

MAX_DATA_BYTES = 16 * 1024 * 1024
"""A labels file for thousands of photos is a few MB."""

ErrorClass = Callable[[str], Exception]


class _Refused(ValueError):
    """Raised from inside a parser's hooks; turned into the caller's error with the file named."""


def read_regular_file(path: str | os.PathLike[str], max_bytes: int, error: ErrorClass, what: str = "file") -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes``.

    The file kind is checked with ``stat`` before opening, and the file is opened non-blocking, so a
    FIFO or a device is refused without waiting on it.

    :raises error: naming the file: missing, not a regular file, too large or unreadable.
    """
    shown = repr(os.fspath(path))
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise error(f"{what} {shown} does not exist") from None
    except OSError as failure:
        raise error(f"cannot read {what} {shown}: {failure.strerror or failure}") from None
    _check_kind(info, shown, error, what)
    if info.st_size > max_bytes:
        raise error(f"{what} {shown} is {info.st_size} bytes, above the limit of {max_bytes}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as failure:
        raise error(f"cannot read {what} {shown}: {failure.strerror or failure}") from None
    try:
        # The path may have been swapped between stat and open: check what was opened.
        _check_kind(os.fstat(fd), shown, error, what)
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(max_bytes + 1)
    except OSError as failure:
        raise error(f"cannot read {what} {shown}: {failure.strerror or failure}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise error(f"{what} {shown} is larger than the limit of {max_bytes} bytes")
    return data


def _check_kind(info: os.stat_result, shown: str, error: ErrorClass, what: str) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise error(f"{what} {shown} is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device or socket"
        raise error(f"{what} {shown} is {kind}, not a regular file")


def read_text_file(path: str | os.PathLike[str], error: ErrorClass, what: str = "file", max_bytes: int = MAX_DATA_BYTES) -> str:
    """:func:`read_regular_file` decoded as UTF-8."""
    data = read_regular_file(path, max_bytes, error, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as failure:
        raise error(f"{what} {os.fspath(path)!r} is not UTF-8 text ({failure.reason})") from None


def parse_json(text: str, where: str, error: ErrorClass) -> Any:
    """``json.loads`` refusing NaN, Infinity, numbers beyond :data:`MAX_NUMBER` and nesting beyond
    :data:`MAX_DEPTH`.

    :raises error: ``"<where> is not valid JSON: ..."``.
    """
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_int=_json_int, parse_float=_finite_float)
    except json.JSONDecodeError as failure:
        raise error(f"{where} is not valid JSON: {failure.msg} at line {failure.lineno}") from None
    except RecursionError:
        raise error(f"{where} is not valid JSON: nested more than {MAX_DEPTH} deep") from None
    except _Refused as failure:
        raise error(f"{where} is not valid JSON: {failure}") from None
    _check_values(data, where, "JSON", error)
    return data


def parse_toml(text: str, where: str, error: ErrorClass) -> dict[str, Any]:
    """``tomllib.loads`` with the limits of :func:`parse_json`.

    :raises error: ``"<where> is not valid TOML: ..."``.
    """
    try:
        data = tomllib.loads(text, parse_float=_finite_float)
    except tomllib.TOMLDecodeError as failure:
        raise error(f"{where} is not valid TOML: {failure}") from None
    except RecursionError:
        raise error(f"{where} is not valid TOML: nested more than {MAX_DEPTH} deep") from None
    except ValueError as failure:  # _Refused, and int()'s "Exceeds the limit (4300 digits)"
        raise error(f"{where} is not valid TOML: {failure}") from None
    _check_values(data, where, "TOML", error)
    return data


def _no_constant(name: str) -> NoReturn:
    raise _Refused(f"{name} is not a number")


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > 16:
        raise _Refused(f"the number {_short(text)} is too large")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"{_short(text)} is not a finite number")
    return value


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text)} characters)"


def _check_values(data: Any, where: str, kind: str, error: ErrorClass) -> None:
    """Depth and number limits, walked without recursion."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise error(f"{where} is not valid {kind}: nested more than {MAX_DEPTH} deep")
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_NUMBER:
            # No str() of it: a hex or binary literal may have more digits than int() converts.
            digits = int(abs(value).bit_length() * math.log10(2)) + 1
            raise error(f"{where} is not valid {kind}: a number of about {digits} digits is too large")


def fsync_path(path: str | os.PathLike[str]) -> None:
    """Flushes a file, or a folder's entries (after a rename into it), to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load_json_file(path: str | os.PathLike[str], error: ErrorClass, what: str = "file") -> Any:
    """A JSON file read with :func:`read_text_file` and parsed with :func:`parse_json`."""
    return parse_json(read_text_file(path, error, what), repr(os.fspath(path)), error)


def load_toml_file(path: str | os.PathLike[str], error: ErrorClass, what: str = "file") -> dict[str, Any]:
    """A TOML file read with :func:`read_text_file` and parsed with :func:`parse_toml`."""
    return parse_toml(read_text_file(path, error, what), repr(os.fspath(path)), error)


__all__ = [
    "MAX_DATA_BYTES",
    "MAX_DEPTH",
    "MAX_NUMBER",
    "fsync_path",
    "load_json_file",
    "load_toml_file",
    "parse_json",
    "parse_toml",
    "read_regular_file",
    "read_text_file",
]
