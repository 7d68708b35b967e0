import subprocess
import sys

import pytest

from firmware_host.cli import main


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "dicetray" in capsys.readouterr().out


def test_unknown_command_is_a_usage_error():
    result = subprocess.run(
        [sys.executable, "-m", "firmware_host", "frobnicate"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "frobnicate" in result.stderr
    assert "Traceback" not in result.stderr


def test_version_names_the_package_version(capsys):
    import tomllib
    from pathlib import Path

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    assert capsys.readouterr().out.strip() == f"dicetray {project['version']}"
