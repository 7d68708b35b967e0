"""The table app announced over mDNS (python-zeroconf), so phones and Home Assistant find the tray
as ``_http._tcp`` "Dice tray on NAME" without typing an address."""

from __future__ import annotations

import logging
import socket

log = logging.getLogger("dicetray.web")

SERVICE_TYPE = "_http._tcp.local."


class Announcement:
    """Registers the service at :meth:`start` and withdraws it at :meth:`close`."""

    def __init__(self, port: int, addresses: list[str], machine: str | None = None) -> None:
        from zeroconf import ServiceInfo

        machine = machine or socket.gethostname()
        self.name = f"Dice tray on {machine}.{SERVICE_TYPE}"
        self.info = ServiceInfo(
            SERVICE_TYPE,
            self.name,
            port=port,
            addresses=[socket.inet_aton(address) for address in addresses],
            properties={"path": "/", "api": "/api/v1", "openapi": "/api/v1/openapi.json"},
            server=f"{machine}.local.",
        )
        self._zeroconf: object | None = None

    def start(self) -> None:
        from zeroconf import Zeroconf

        try:
            zeroconf = Zeroconf()
            zeroconf.register_service(self.info, allow_name_change=True)
        except OSError as error:  # no multicast on this network: the page still works by address
            log.warning("cannot announce the table app over mDNS: %s", error)
            return
        self._zeroconf = zeroconf
        log.info("announced over mDNS as %r", self.info.name)

    def close(self) -> None:
        zeroconf = self._zeroconf
        if zeroconf is None:
            return
        self._zeroconf = None
        zeroconf.unregister_service(self.info)  # type: ignore[attr-defined]
        zeroconf.close()  # type: ignore[attr-defined]
