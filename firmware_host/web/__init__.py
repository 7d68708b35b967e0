"""The table app: a phone page that plays along, served by Starlette on uvicorn.

:class:`~firmware_host.web.server.TrayWeb` is the server the service publishes to;
:mod:`~firmware_host.web.app` has the routes; :mod:`~firmware_host.web.access` the Host, Origin and
pairing checks; :func:`~firmware_host.web.state.table_state` the game as the page sees it.
"""

from firmware_host.web.access import HostCheck, Pairing
from firmware_host.web.server import TrayWeb, tray_urls
from firmware_host.web.state import table_state

__all__ = ["HostCheck", "Pairing", "TrayWeb", "table_state", "tray_urls"]
