"""The table app: a phone page that plays along, served by Starlette on uvicorn.

:class:`~firmware_host.web.server.TrayWeb` is the server the service publishes to;
:mod:`~firmware_host.web.app` has the routes; :mod:`~firmware_host.web.access` the Host, Origin and
pairing checks; :mod:`~firmware_host.web.actions` the page's table actions;
:func:`~firmware_host.web.state.table_state` the game as the page (and MQTT) sees it;
:class:`~firmware_host.web.frames.FrameHub` the newest camera frame as JPEG.

The server's modules load on first use, so the service (which needs only ``table_state``) does not
import uvicorn unless the table app is enabled.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BadWebAddress", "FrameHub", "HostCheck", "Pairing", "PortInUse", "TrayWeb", "table_state", "tray_urls"]

_WHERE = {
    "BadWebAddress": "firmware_host.web.server",
    "FrameHub": "firmware_host.web.frames",
    "PortInUse": "firmware_host.web.server",
    "HostCheck": "firmware_host.web.access",
    "Pairing": "firmware_host.web.access",
    "TrayWeb": "firmware_host.web.server",
    "tray_urls": "firmware_host.web.server",
    "table_state": "firmware_host.web.state",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'firmware_host.web' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_WHERE[name]), name)
