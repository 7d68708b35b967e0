"""What can be checked of the Raspberry Pi install here: the unit verifies, the script parses and
dry-runs, the pip constraints resolve for a Pi (aarch64, Python 3.11), the example config loads."""

from __future__ import annotations

import configparser
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from firmware_host.config import Config, load_config

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
UNIT = DEPLOY / "dicetray.service"
SCRIPT = DEPLOY / "install-pi.sh"
CONSTRAINTS = DEPLOY / "constraints-bookworm.txt"


def unit_sections() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text())
    return parser


def test_the_unit_is_a_notify_service_with_a_watchdog() -> None:
    service = unit_sections()["Service"]
    assert service["Type"] == "notify"
    assert int(service["WatchdogSec"]) >= 10
    assert service["StateDirectory"] == "dicetray"
    assert service["ConfigurationDirectory"] == "dicetray"
    assert service["ExecStart"].endswith("dicetray run --config /etc/dicetray/config.toml")
    assert "GPIOZERO_PIN_FACTORY=lgpio" in UNIT.read_text()
    # A config typo exits 2: restarting would only repeat it.
    assert service["RestartPreventExitStatus"] == "2"


def test_the_unit_has_no_inline_comments() -> None:
    # systemd reads "StateDirectory=dicetray  # note" as three directory names.
    for number, line in enumerate(UNIT.read_text().splitlines(), 1):
        if "=" in line:
            assert "#" not in line and ";" not in line.split("=", 1)[1], f"line {number}: {line!r}"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    # verify insists that ExecStart exists: point it at this checkout's own dicetray command.
    dicetray = Path(sys.executable).parent / "dicetray"
    assert dicetray.exists(), dicetray
    text = UNIT.read_text().replace("/opt/dicetray/venv/bin/dicetray", str(dicetray))
    unit = tmp_path / "dicetray.service"
    unit.write_text(text)
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    complaints = [line for line in result.stderr.splitlines() if "dicetray.service" in line]
    assert result.returncode == 0, result.stderr
    assert complaints == []


def test_the_install_script_parses() -> None:
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True, timeout=30)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_shellcheck_finds_nothing_in_our_scripts() -> None:
    scripts = [SCRIPT, REPO / "scripts" / "soak.sh"]
    result = subprocess.run(["shellcheck", *map(str, scripts)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def test_the_install_script_dry_run_shows_every_step() -> None:
    result = subprocess.run(
        ["bash", str(SCRIPT), "--dry-run"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "python3-picamera2" in out
    assert "venv --system-site-packages /opt/dicetray/venv" in out
    assert f"pip install -c {CONSTRAINTS}" in out
    assert "systemd-analyze verify /etc/systemd/system/dicetray.service" in out
    assert "systemctl enable --now dicetray.service" in out
    assert "I2C" in out


def test_the_install_script_refuses_unknown_options() -> None:
    result = subprocess.run(["bash", str(SCRIPT), "--frobnicate"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "'--frobnicate'" in result.stderr


def test_the_example_config_is_what_gets_installed_and_loads() -> None:
    assert load_config(DEPLOY / "config.example.toml") == Config()


def test_constraints_keep_the_system_numpy_and_an_opencv_that_accepts_it() -> None:
    lines = [line.split("#")[0].strip() for line in CONSTRAINTS.read_text().splitlines()]
    pins = {re.split(r"[<>=!~]", line)[0]: line for line in lines if line}
    assert pins["numpy"] == "numpy==1.24.2"
    assert "<4.12" in pins["opencv-python-headless"]


def _project_requirements() -> list[str]:
    return list(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"])


_OFFLINE = ("NewConnectionError", "Temporary failure in name resolution", "Network is unreachable", "ProxyError")


def test_constraints_resolve_for_a_pi(tmp_path: Path) -> None:
    """pip's own resolver, asked for Linux aarch64 wheels for CPython 3.11, as on the Pi."""
    report = tmp_path / "report.json"
    command = [
        sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
        "--report", str(report), "--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp",
        "--platform", "manylinux_2_36_aarch64", "--platform", "manylinux_2_28_aarch64",
        "--platform", "manylinux_2_27_aarch64", "--platform", "manylinux_2_17_aarch64",
        "--platform", "manylinux2014_aarch64", "--platform", "linux_aarch64",
        "--target", str(tmp_path / "target"), "-c", str(CONSTRAINTS), *_project_requirements(),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0 and any(word in result.stderr for word in _OFFLINE):
        pytest.skip("the package index cannot be reached")
    assert result.returncode == 0, result.stderr[-3000:]
    versions = {item["metadata"]["name"].lower(): item["metadata"]["version"] for item in json.loads(report.read_text())["install"]}
    assert versions["numpy"] == "1.24.2"
    major, minor = (int(part) for part in versions["opencv-python-headless"].split(".")[:2])
    assert (major, minor) < (4, 12)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_unit_is_hardened_to_an_exposure_of_2_5_or_less() -> None:
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--no-pager", str(UNIT)], capture_output=True, text=True, timeout=60
    )
    found = re.search(r"Overall exposure level for dicetray\.service: ([0-9.]+)", result.stdout + result.stderr)
    assert found, result.stdout + result.stderr
    assert float(found.group(1)) <= 2.5, result.stdout


def test_the_hardened_unit_still_reaches_the_camera_i2c_and_gpio() -> None:
    text = UNIT.read_text()
    groups = re.search(r"^SupplementaryGroups=(.*)$", text, re.M)
    assert groups and {"video", "gpio", "i2c"} <= set(groups.group(1).split())
    allowed = re.findall(r"^DeviceAllow=(\S+) rw$", text, re.M)
    assert {"char-video4linux", "char-media", "char-dma_heap", "char-i2c", "char-gpiochip"} <= set(allowed)
    assert "PrivateDevices=true" not in text  # it would hide /dev/video0, /dev/i2c-1 and /dev/gpiochip0
    assert re.search(r"^RestrictAddressFamilies=.*AF_INET.*AF_INET6", text, re.M)  # the page and MQTT
