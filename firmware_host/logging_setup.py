"""Logging for the service: one line per record on stdout, no timestamp (journald adds its own).

Under systemd each line starts with its syslog priority (``<3>`` error, ``<4>`` warning, ``<6>`` info,
``<7>`` debug), which journald strips and stores, so ``journalctl -u dicetray -p warning`` works.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

__all__ = ["configure_logging"]

_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}


class _Formatter(logging.Formatter):
    def __init__(self, syslog_prefix: bool) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s")
        self.syslog_prefix = syslog_prefix

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        if not self.syslog_prefix:
            return text
        priority = _PRIORITY.get(record.levelno, 6)
        # journald reads the prefix per line: give continuation lines (tracebacks) the same one.
        return "\n".join(f"<{priority}>{line}" for line in text.splitlines())


def configure_logging(level: str = "info", stream: TextIO | None = None) -> logging.Handler:
    """Sends the project's log records to ``stream`` (stdout). Returns the handler (to remove it)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stdout)
    # $JOURNAL_STREAM is set by systemd when stdout goes to the journal.
    handler.setFormatter(_Formatter(syslog_prefix=bool(os.environ.get("JOURNAL_STREAM"))))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
    return handler
