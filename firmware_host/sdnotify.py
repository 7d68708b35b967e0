"""systemd's readiness and watchdog protocol (``sd_notify``), in a few lines and no dependency.

Under a ``Type=notify`` unit systemd sets ``$NOTIFY_SOCKET``; elsewhere every call is a no-op, so the
service runs the same on a laptop. The watchdog period arrives as ``$WATCHDOG_USEC``; the service pings
at half of it, from its main loop after a processed frame, so a hung camera trips the watchdog.
"""

from __future__ import annotations

import logging
import os
import socket

__all__ = ["Notifier", "watchdog_interval"]

log = logging.getLogger(__name__)


def watchdog_interval(environ: dict[str, str] | None = None) -> float | None:
    """Seconds between watchdog pings (half of ``$WATCHDOG_USEC``), or None when there is no watchdog
    for this process (``$WATCHDOG_PID`` names another)."""
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not (usec.isascii() and usec.isdigit()) or int(usec) == 0:
        return None
    if (pid.isascii() and pid.isdigit()) and int(pid) != os.getpid():
        return None
    return int(usec) / 2_000_000


class Notifier:
    """Sends ``READY=1``, ``WATCHDOG=1``, ``STATUS=...``, ``STOPPING=1`` to systemd.

    :param address: the notify socket; default ``$NOTIFY_SOCKET`` (``@name`` is an abstract socket).
    """

    def __init__(self, address: str | None = None) -> None:
        self.address = address if address is not None else os.environ.get("NOTIFY_SOCKET") or None
        self._socket: socket.socket | None = None
        self._warned = False

    def __repr__(self) -> str:
        return f"Notifier({self.address!r})"

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, *states: str) -> bool:
        """Sends the states as one datagram; True if sent. A failure is logged once, never raised:
        the tray keeps running even if systemd went away."""
        if self.address is None:
            return False
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self._socket.sendto("\n".join(states).encode(), target)
        except OSError as error:
            if not self._warned:
                log.warning("cannot notify systemd at %r: %s", self.address, error)
                self._warned = True
            return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *((f"STATUS={status}",) if status else ()))

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
