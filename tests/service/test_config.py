"""The strict TOML config: defaults, lookup, and errors that name the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

import firmware_host.config as config_module
from firmware_host.config import (
    CameraSpec,
    Config,
    DisplaySpec,
    GameConfig,
    PinsConfig,
    load_config,
    parse_config,
)
from firmware_host.errors import ConfigError, exit_status_for

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "deploy" / "config.example.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_the_example_config_loads_and_spells_out_the_defaults() -> None:
    loaded = load_config(EXAMPLE)
    assert loaded == Config()
    assert loaded.source == EXAMPLE


def test_defaults_match_the_reference_hardware() -> None:
    config = Config()
    assert config.camera == CameraSpec("picamera")
    assert config.display == DisplaySpec("ssd1306")
    assert (config.i2c.bus, config.i2c.display_address) == (1, 0x3C)
    assert config.pins == PinsConfig(next=5, select=6, back=13, led_red=17, led_green=27, led_blue=22, tray_light=18)
    assert config.settle.stillness_ms == 300


def test_roll_log_defaults_to_the_state_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DICETRAY_STATE_DIR", str(tmp_path / "state"))
    assert Config().roll_log_path == tmp_path / "state" / "rolls.sqlite3"


def test_a_simulated_setup_with_relative_paths(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'camera = "sim:7"\ngpio = "mock"\ndisplay = "capture:frames"\nroll_log = "log/rolls.db"\n'
        '[game]\nplayers = ["Ana", "Ben", "Cy"]\nheroes = ["barbarian", "moon-elf", "barbarian"]\n',
    )
    config = load_config(path)
    assert config.camera == CameraSpec("sim", "7")
    assert config.gpio == "mock"
    assert config.display == DisplaySpec("capture", str(tmp_path.resolve() / "frames"))
    assert config.roll_log_path == tmp_path.resolve() / "log" / "rolls.db"
    assert config.game == GameConfig(players=("Ana", "Ben", "Cy"), heroes=("barbarian", "moon-elf", "barbarian"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('camra = "sim"\n', "unknown key 'camra' (did you mean 'camera'?)"),
        ("[pins]\nnxt = 5\n", "unknown key pins.nxt (did you mean 'next'?)"),
        ("[pins]\nnext = \"5\"\n", "pins.next must be an integer, not a string '5'"),
        ("[pins]\nnext = true\n", "pins.next must be an integer, not a boolean True"),
        ("[pins]\nnext = 17\n", "pins.next and pins.led_red are both GPIO17"),
        ("[pins]\nback = 40\n", "pins.back = 40 is out of range 0..27"),
        ("[lights]\ntray_brightness = 1.5\n", "lights.tray_brightness = 1.5 is out of range"),
        ("[settle]\nstillness_ms = 0.3\n", "settle.stillness_ms must be an integer, not a number 0.3"),
        ("[game]\nplayers = [\"Ana\"]\nheroes = [\"barbarian\"]\n", "game.players has 1 names"),
        ("[game]\nheroes = [\"barbarian\"]\n", "game.heroes has 1 heroes for 2 players"),
        ("[game]\nplayers = \"Ana\"\n", "game.players must be a list of strings"),
        ("[game]\nheroes = [\"barbarian\", \"barbrian\"]\n", "game.heroes: no hero 'barbrian'"),
        ("frames = 3\n", "[frames] must be a table"),
        ('camera = "webcam"\n', "camera 'webcam' is not one of"),
        ("[liveview]\nenabled = 1\n", "liveview.enabled must be true or false, not an integer 1"),
        ("[liveview]\nhost = 8080\n", "liveview.host must be a string, not an integer 8080"),
        ("[liveview]\nport = 70000\n", "liveview.port = 70000 is out of range"),
        ('camera = "usb:front"\n', "usb needs a device number"),
        ('camera = "replay"\n', "replay needs a folder"),
        ('display = "capture"\n', "capture needs a folder"),
        ('display = "oled"\n', "display 'oled' is not one of"),
        ('gpio = "rpi"\n', "gpio 'rpi' is not one of pi, mock"),
        ("gpio = 1\n", "gpio must be a string, not an integer 1"),
        ('log_level = "loud"\n', "log_level 'loud' is not one of"),
        ("camera = sim\n", "is not valid TOML"),
    ],
)
def test_bad_config_names_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{str(path)!r}")
    assert message in str(caught.value)
    assert exit_status_for(caught.value) == 2


def test_a_missing_or_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file '.*nope.toml' does not exist"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="is not UTF-8"):
        load_config(binary)


def test_lookup_uses_the_system_file_only_when_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system = tmp_path / "etc" / "config.toml"
    monkeypatch.setattr(config_module, "SYSTEM_CONFIG", system)
    assert load_config() == Config()
    system.parent.mkdir()
    system.write_text('gpio = "mock"\n')
    assert load_config().gpio == "mock"
    explicit = write(tmp_path, 'display = "none"\n')
    assert load_config(explicit).gpio == "pi"


def test_specs_round_trip_as_text() -> None:
    for text in ("sim", "sim:3", "picamera", "usb:1", "replay:/data/frames"):
        assert str(CameraSpec.parse(text)) == text
    for text in ("ssd1306", "sh1106", "dummy", "none", "capture:/tmp/out"):
        assert str(DisplaySpec.parse(text)) == text


def test_parse_config_without_a_file() -> None:
    assert parse_config("") == Config()
    with pytest.raises(ConfigError, match="^config: unknown key 'x'"):
        parse_config("x = 1")
