"""Work run beside the caller's thread where the process may use a second core.

A frame's learned look (ONNX Runtime) and its rule-based searches (OpenCV, numpy) do not depend on
each other, and both let go of the interpreter for most of their time, so on a Raspberry Pi (four
cores) one runs while the other does. Pinned to one core, as the benchmarks are, the work runs in
the caller's thread, in turn.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

_Result = TypeVar("_Result")


def usable_cores() -> int:
    """The cores this process may run on (fewer than the machine's when pinned, as by ``taskset``)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class ThreadBeside:
    """One worker thread of its own, made when first needed, for work that runs beside the caller.

    ``threads``: the cores one read may use (default: 2 where the process may use more than one);
    with 1 the work runs in the caller's thread when its result is asked for.
    """

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads if threads is not None else min(2, usable_cores())
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ThreadBeside(threads={self.threads!r})"

    def start(self, work: Callable[[], _Result]) -> Callable[[], _Result]:
        """Starts ``work`` beside the caller; the returned call waits for its result (raising
        what ``work`` raised)."""
        if self.threads < 2:
            return work
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="beside")
            pool = self._pool
        return pool.submit(work).result
