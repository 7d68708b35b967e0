"""Who may reach the table app and who may change the game.

* **Host names.** Every request's ``Host`` must be an IP address, ``localhost``, this machine's name
  (also with ``.local``) or one of the configured names; anything else is refused (421), which stops
  DNS rebinding (a page elsewhere making a browser on the table's network talk to the tray).
* **Origin.** A write whose ``Origin`` header names another site is refused (403): a page elsewhere
  cannot post to the tray from a player's browser even when that browser holds a token.
* **Pairing.** Every write needs a token. A token is had for the PIN the tray shows on its OLED
  (:meth:`Pairing.pair`); five wrong PINs in a row draw a new PIN, so guessing one takes a look at
  the tray. Tokens live as long as the service (a restart pairs again).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
import threading
from collections.abc import Iterable
from urllib.parse import urlsplit

PIN_DIGITS = 6
WRONG_PINS_BEFORE_NEW_PIN = 5


def host_name(header: str) -> str:
    """The name part of a ``Host`` header (or of an origin's netloc), lower case, without the port
    or a trailing dot: ``"[::1]:8080"`` -> ``"::1"``, ``"Tray.local.:80"`` -> ``"tray.local"``."""
    name = header.strip().lower()
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else ""
    elif name.count(":") == 1:
        name = name.partition(":")[0]
    return name.rstrip(".")


def is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostCheck:
    """Which names the tray answers to: IP addresses, ``localhost``, the machine's name, ``names``."""

    def __init__(self, names: Iterable[str] = (), machine: str | None = None) -> None:
        machine = (machine if machine is not None else socket.gethostname()).lower()
        self.names = frozenset(
            n.lower().rstrip(".") for n in ("localhost", machine, f"{machine}.local", *names) if n
        )

    def allows_host(self, header: str | None) -> bool:
        """Whether a request's ``Host`` names this tray. A request without one (HTTP/1.0, no
        browser sends that) is allowed."""
        if header is None:
            return True
        name = host_name(header)
        return is_ip_address(name) or name in self.names

    def allows_origin(self, origin: str | None, host: str | None) -> bool:
        """Whether a write's ``Origin`` is the tray's own page: absent (not a browser, or a
        same-origin GET-like request), or the same host and port the request was sent to."""
        if origin is None:
            return True
        if origin == "null" or host is None:
            return False
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https"):
            return False
        return parts.netloc.lower() == host.strip().lower()


class Pairing:
    """The PIN on the OLED and the tokens given for it. Safe to use from any thread."""

    def __init__(self, pin: str | None = None) -> None:
        self._lock = threading.Lock()
        self._pin = pin if pin is not None else _new_pin()
        self._tokens: set[str] = set()
        self._wrong = 0
        self.pins_drawn = 1

    @property
    def pin(self) -> str:
        """The PIN to show on the tray's display."""
        with self._lock:
            return self._pin

    def pair(self, pin: str) -> str | None:
        """A new token for the right PIN, else None; after :data:`WRONG_PINS_BEFORE_NEW_PIN` wrong
        ones in a row the PIN changes (the display shows the new one)."""
        with self._lock:
            if hmac.compare_digest(pin.strip().encode(), self._pin.encode()):
                self._wrong = 0
                token = secrets.token_urlsafe(24)
                self._tokens.add(token)
                return token
            self._wrong += 1
            if self._wrong >= WRONG_PINS_BEFORE_NEW_PIN:
                self._pin = _new_pin()
                self._wrong = 0
                self.pins_drawn += 1
            return None

    def knows(self, token: str | None) -> bool:
        if not token:
            return False
        with self._lock:
            return any(hmac.compare_digest(token.encode(), known.encode()) for known in self._tokens)

    def forget(self, token: str) -> None:
        with self._lock:
            self._tokens.discard(token)

    @property
    def paired(self) -> int:
        with self._lock:
            return len(self._tokens)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, else None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def _new_pin() -> str:
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
