"""sd_notify against a real datagram socket, and the stdout log format."""

from __future__ import annotations

import io
import logging
import os
import socket
import uuid
from pathlib import Path

import pytest

from firmware_host.logging_setup import configure_logging
from firmware_host.sdnotify import Notifier, watchdog_interval


@pytest.fixture
def notify_socket(tmp_path: Path):
    path = tmp_path / "notify"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(path))
    server.settimeout(1)
    yield str(path), server
    server.close()


def test_states_arrive_at_the_notify_socket(notify_socket) -> None:
    address, server = notify_socket
    notifier = Notifier(address)
    assert notifier.ready("reading dice")
    assert server.recv(1024) == b"READY=1\nSTATUS=reading dice"
    assert notifier.watchdog()
    assert server.recv(1024) == b"WATCHDOG=1"
    assert notifier.stopping()
    assert server.recv(1024) == b"STOPPING=1"
    notifier.close()


def test_abstract_socket_addresses() -> None:
    name = f"dicetray-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind("\0" + name)
        server.settimeout(1)
        notifier = Notifier("@" + name)
        assert notifier.status("camera lost")
        assert server.recv(1024) == b"STATUS=camera lost"
        notifier.close()


def test_outside_systemd_nothing_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    notifier = Notifier()
    assert not notifier.enabled
    assert not notifier.ready()


def test_a_vanished_socket_is_logged_once_never_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    notifier = Notifier(str(tmp_path / "gone"))
    with caplog.at_level(logging.WARNING):
        assert not notifier.watchdog()
        assert not notifier.watchdog()
    assert len([r for r in caplog.records if "cannot notify systemd" in r.message]) == 1
    notifier.close()


def test_watchdog_interval_is_half_the_period() -> None:
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}) == 15.0
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_interval({}) is None


def test_log_lines_have_no_timestamp_and_a_journal_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    for journal, expected in (("", "WARNING dicetray.x: camera lost\n"), ("8:1234", "<4>WARNING dicetray.x: camera lost\n")):
        if journal:
            monkeypatch.setenv("JOURNAL_STREAM", journal)
        else:
            monkeypatch.delenv("JOURNAL_STREAM", raising=False)
        stream = io.StringIO()
        handler = configure_logging("info", stream)
        try:
            logging.getLogger("dicetray.x").warning("camera lost")
        finally:
            logging.getLogger().removeHandler(handler)
        assert stream.getvalue() == expected
