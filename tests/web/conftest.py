"""The table app's server, started for real on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from firmware_host.web import Pairing, TrayWeb


@pytest.fixture
def web() -> Iterator[TrayWeb]:
    server = TrayWeb("127.0.0.1", 0, pairing=Pairing(pin="424242"), keepalive_s=0.5)
    server.start()
    yield server
    server.close()


@pytest.fixture
def client(web: TrayWeb) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"http://127.0.0.1:{web.port}", timeout=10) as http:
        yield http


@pytest.fixture
def token(client: httpx.Client) -> str:
    response = client.post("/api/v1/pair", json={"pin": "424242"})
    assert response.status_code == 201
    return str(response.json()["token"])
