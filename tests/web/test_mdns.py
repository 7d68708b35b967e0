"""The table app announces itself over mDNS when served on the network, and not on loopback."""

from __future__ import annotations

import pytest

from firmware_host.web import TrayWeb
from firmware_host.web.server import _interface_addresses


def test_served_on_the_network_the_page_is_found_over_mdns() -> None:
    from zeroconf import Zeroconf

    if not _interface_addresses():
        pytest.skip("this machine has no network address besides loopback to announce on")
    web = TrayWeb("0.0.0.0", 0)
    web.start()
    browser = Zeroconf()
    try:
        assert web.announcement is not None
        info = browser.get_service_info("_http._tcp.local.", web.announcement.name, timeout=5000)
        assert info is not None and info.port == web.port
        assert info.properties[b"api"] == b"/api/v1"
    finally:
        browser.close()
        web.close()


def test_on_loopback_nothing_is_announced() -> None:
    web = TrayWeb("127.0.0.1", 0)
    web.start()
    try:
        assert web.announcement is None
    finally:
        web.close()
