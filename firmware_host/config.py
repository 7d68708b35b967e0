"""The service's config: a strict TOML file read into frozen dataclasses.

Every setting has a default, so an empty file (or no file) is a working config for the reference
hardware of ``DESIGN.md``. Unknown keys, wrong types and out-of-range values are errors naming the
file and the key (``ConfigError``, exit status 2), so a typo never silently falls back to a default.

Lookup (:func:`find_config`): ``--config FILE``, else ``/etc/dicetray/config.toml`` when present, else
the built-in defaults. Relative paths inside a file (``replay:DIR``, ``capture:DIR``, ``roll_log``) are
relative to the file's own folder.

A complete file with every default spelled out is ``deploy/config.example.toml``::

    camera = "sim"            # sim | sim:SEED | picamera | usb:N | replay:DIR
    gpio = "mock"             # pi | mock
    display = "capture:out"   # ssd1306 | sh1106 | dummy | capture:DIR | none

    [game]
    players = ["Ana", "Ben"]
    heroes = ["barbarian", "moon-elf"]
"""

from __future__ import annotations

import dataclasses
import difflib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration.paths import state_directory
from firmware_host.errors import ConfigError

__all__ = [
    "CameraSpec",
    "Config",
    "ConfigError",
    "DisplaySpec",
    "FramesConfig",
    "GameConfig",
    "I2CConfig",
    "LightsConfig",
    "LiveViewConfig",
    "MqttConfig",
    "PinsConfig",
    "SettleConfig",
    "SYSTEM_CONFIG",
    "find_config",
    "load_config",
    "parse_config",
]

SYSTEM_CONFIG = Path("/etc/dicetray/config.toml")

CAMERA_KINDS = ("sim", "picamera", "usb", "replay")
DISPLAY_KINDS = ("ssd1306", "sh1106", "dummy", "capture", "none")
GPIO_KINDS = ("pi", "mock")
LOG_LEVELS = ("debug", "info", "warning", "error")


@dataclass(frozen=True)
class CameraSpec:
    """Which frame source to open: ``sim`` (optionally ``sim:SEED``), ``picamera``, ``usb:N`` (a V4L2
    device index) or ``replay:DIR`` (saved frames or a video file)."""

    kind: str
    argument: str | None = None

    @classmethod
    def parse(cls, text: str, base: Path | None = None) -> CameraSpec:
        kind, _, argument = text.partition(":")
        kind = kind.strip().lower()
        if kind not in CAMERA_KINDS:
            raise ValueError(f"camera {text!r} is not one of sim, sim:SEED, picamera, usb:N, replay:DIR")
        if kind == "picamera" and argument:
            raise ValueError(f"camera {text!r}: picamera takes no argument")
        if kind == "usb" and not (argument.isascii() and argument.isdigit()):
            raise ValueError(f"camera {text!r}: usb needs a device number, as in 'usb:0'")
        if kind == "sim" and argument and not (argument.isascii() and argument.isdigit()):
            raise ValueError(f"camera {text!r}: sim takes a seed number, as in 'sim:7'")
        if kind == "replay":
            if not argument:
                raise ValueError(f"camera {text!r}: replay needs a folder or video file, as in 'replay:frames/'")
            argument = str(_resolve(argument, base))
        return cls(kind, argument or None)

    def __str__(self) -> str:
        return self.kind if self.argument is None else f"{self.kind}:{self.argument}"


@dataclass(frozen=True)
class DisplaySpec:
    """Which display to drive: an ``ssd1306`` or ``sh1106`` OLED on I2C, ``dummy`` (in memory),
    ``capture:DIR`` (a PNG per frame) or ``none``."""

    kind: str
    argument: str | None = None

    @classmethod
    def parse(cls, text: str, base: Path | None = None) -> DisplaySpec:
        kind, _, argument = text.partition(":")
        kind = kind.strip().lower()
        if kind not in DISPLAY_KINDS:
            raise ValueError(f"display {text!r} is not one of ssd1306, sh1106, dummy, capture:DIR, none")
        if kind == "capture":
            if not argument:
                raise ValueError(f"display {text!r}: capture needs a folder, as in 'capture:frames/'")
            return cls(kind, str(_resolve(argument, base)))
        if argument:
            raise ValueError(f"display {text!r}: {kind} takes no argument")
        return cls(kind)

    def __str__(self) -> str:
        return self.kind if self.argument is None else f"{self.kind}:{self.argument}"


@dataclass(frozen=True)
class FramesConfig:
    """The frame size and rate asked of the camera."""

    width: int = 640
    height: int = 480
    fps: float = 30.0

    def check(self) -> None:
        _in_range("frames.width", self.width, 64, 4096)
        _in_range("frames.height", self.height, 48, 4096)
        _in_range("frames.fps", self.fps, 1, 120)


@dataclass(frozen=True)
class I2CConfig:
    """Where the OLED sits: bus 1, address 0x3C on the reference hardware."""

    bus: int = 1
    display_address: int = 0x3C

    def check(self) -> None:
        _in_range("i2c.bus", self.bus, 0, 31)
        _in_range("i2c.display_address", self.display_address, 0x03, 0x77)


@dataclass(frozen=True)
class PinsConfig:
    """GPIO pins, BCM numbering (DESIGN.md's reference wiring)."""

    next: int = 5
    select: int = 6
    back: int = 13
    led_red: int = 17
    led_green: int = 27
    led_blue: int = 22
    tray_light: int = 18

    def check(self) -> None:
        seen: dict[int, str] = {}
        for name, pin in dataclasses.asdict(self).items():
            _in_range(f"pins.{name}", pin, 0, 27)
            if pin in seen:
                raise ValueError(f"pins.{seen[pin]} and pins.{name} are both GPIO{pin}; give each its own pin")
            seen[pin] = name


@dataclass(frozen=True)
class LightsConfig:
    """Brightness of the tray light strip, 0..1 (the camera's exposure is calibrated under it)."""

    tray_brightness: float = 0.8

    def check(self) -> None:
        _in_range("lights.tray_brightness", self.tray_brightness, 0.0, 1.0)


@dataclass(frozen=True)
class SettleConfig:
    """The stillness window that decides "settled" (see :mod:`vision.settle`)."""

    stillness_ms: int = 300
    min_still_frames: int = 3

    def check(self) -> None:
        _in_range("settle.stillness_ms", self.stillness_ms, 50, 5000)
        _in_range("settle.min_still_frames", self.min_still_frames, 1, 100)


@dataclass(frozen=True)
class LiveViewConfig:
    """The table app (the phone page, its API and the camera stream; docs/table-app.md); off unless
    enabled. ``host = "0.0.0.0"`` lets phones on the table's network in."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 8080
    max_fps: float = 10.0
    names: tuple[str, ...] = ()
    """Host names the page is reached by (``dicetray.example.net``), besides IP addresses, localhost
    and this machine's name: any other ``Host`` is refused (DNS rebinding)."""
    max_connections: int = 100
    stream_clients: int = 8
    read_needs_pairing: bool = False  # True: watching needs the PIN too, not only changing

    def check(self) -> None:
        if not self.host.strip():
            raise ValueError("liveview.host is empty; use '127.0.0.1' or '0.0.0.0'")
        _in_range("liveview.port", self.port, 1, 65535)
        _in_range("liveview.max_fps", self.max_fps, 0.5, 60)
        _in_range("liveview.max_connections", self.max_connections, 4, 10000)
        _in_range("liveview.stream_clients", self.stream_clients, 1, 100)


@dataclass(frozen=True)
class MqttConfig:
    """MQTT for Home Assistant (docs/live-view.md); off unless enabled."""

    enabled: bool = False
    host: str = "localhost"
    port: int = 1883
    topic: str = "dicetray"
    username: str = ""
    password: str = ""
    discovery_prefix: str = "homeassistant"
    node_id: str = ""  # Home Assistant's id for this tray (default: dicetray_HOSTNAME)

    def check(self) -> None:
        if not self.host.strip():
            raise ValueError("mqtt.host is empty; name the broker, e.g. 'localhost'")
        _in_range("mqtt.port", self.port, 1, 65535)
        if not self.topic.strip("/ ") or any(c in self.topic for c in "#+"):
            raise ValueError(f"mqtt.topic must be a plain topic without # or +, not {self.topic!r}")


@dataclass(frozen=True)
class GameConfig:
    """Which game the tray plays and who plays it; 2 to 4 players.

    ``name``: ``dicethrone`` (the default), ``battledice`` or ``dicemasters`` (any of their names:
    ``battle-dice``, ``Dice Masters``...). Dice Throne seats ``heroes``, one per player; the other
    games are set up from ``setup``, the game record's tags without the players' names (docs/battle-dice.md,
    docs/dice-masters.md): a Battle Dice team and its dice colours, Dice Masters cards and the body
    colour of each card's dice. ``resume``: after any restart the tray goes on with the last
    unfinished game set up the same way, from its record (False: a new game at every start).
    """

    players: tuple[str, ...] = ("Player 1", "Player 2")
    heroes: tuple[str, ...] = ("barbarian", "moon-elf")
    resume: bool = True
    name: str = "dicethrone"
    setup: tuple[tuple[str, str], ...] = ()

    def check(self) -> None:
        if not 2 <= len(self.players) <= 4:
            raise ValueError(f"game.players has {len(self.players)} names; a game needs 2 to 4")
        for name in self.players:
            if not name.strip():
                raise ValueError(f"game.players has an empty name {name!r}")
        from firmware_host.table_flows import check_setup
        from rules.errors import RulesError

        try:
            check_setup(self)
        except RulesError as error:  # unknown game or hero, a setup the game refuses
            raise ValueError(f"game: {error}") from None

    @property
    def tags(self) -> dict[str, str]:
        """The game record's tags this config sets a game up with: ``P1``... the players' names,
        then ``setup``."""
        return {**{f"P{n}": name.strip() for n, name in enumerate(self.players, start=1)}, **dict(self.setup)}


@dataclass(frozen=True)
class Config:
    """Everything ``dicetray run`` needs. ``Config()`` is the reference hardware with defaults."""

    camera: CameraSpec = CameraSpec("picamera")
    gpio: str = "pi"
    display: DisplaySpec = DisplaySpec("ssd1306")
    profile: str | None = None
    roll_log: Path | None = None
    log_level: str = "info"
    frames: FramesConfig = field(default_factory=FramesConfig)
    i2c: I2CConfig = field(default_factory=I2CConfig)
    pins: PinsConfig = field(default_factory=PinsConfig)
    lights: LightsConfig = field(default_factory=LightsConfig)
    settle: SettleConfig = field(default_factory=SettleConfig)
    game: GameConfig = field(default_factory=GameConfig)
    liveview: LiveViewConfig = field(default_factory=LiveViewConfig)
    mqtt: MqttConfig = field(default_factory=MqttConfig)
    source: Path | None = field(default=None, compare=False)
    """The file this config was read from, or None for the built-in defaults."""

    @property
    def roll_log_path(self) -> Path:
        """The roll log file: ``roll_log`` when set, else ``rolls.sqlite3`` in the state directory."""
        return self.roll_log if self.roll_log is not None else state_directory() / "rolls.sqlite3"


# -- reading ---------------------------------------------------------------------------------------

_SECTIONS: dict[str, type[Any]] = {
    "frames": FramesConfig,
    "i2c": I2CConfig,
    "pins": PinsConfig,
    "lights": LightsConfig,
    "settle": SettleConfig,
    "game": GameConfig,
    "liveview": LiveViewConfig,
    "mqtt": MqttConfig,
}
_SCALARS = ("camera", "gpio", "display", "profile", "roll_log", "log_level")


def find_config(explicit: str | Path | None = None) -> Path | None:
    """The config file to read: ``explicit`` if given, else :data:`SYSTEM_CONFIG` when it exists, else
    None (the built-in defaults)."""
    if explicit is not None:
        return Path(explicit)
    return SYSTEM_CONFIG if SYSTEM_CONFIG.is_file() else None


def load_config(path: str | Path | None = None) -> Config:
    """Reads and checks a config file (looked up with :func:`find_config`).

    :raises ConfigError: the file is missing, unreadable, not TOML, or has an unknown key, a wrong
        type or an out-of-range value; the message names the file and the key.
    """
    found = find_config(path)
    if found is None:
        return Config()
    from vision.datafile import read_text_file

    return parse_config(read_text_file(found, ConfigError, "config file"), source=found)


def parse_config(text: str, source: Path | None = None) -> Config:
    """Checks TOML text into a :class:`Config`; ``source`` names the file in errors and anchors
    relative paths."""
    where = repr(str(source)) if source is not None else "config"
    from vision.datafile import parse_toml

    data = parse_toml(text, where, ConfigError)
    base = source.resolve().parent if source is not None else None
    allowed = (*_SCALARS, *_SECTIONS)
    for key in data:
        if key not in allowed:
            raise ConfigError(f"{where}: unknown key {key!r}{_did_you_mean(key, allowed)}")

    values: dict[str, Any] = {"source": source}
    try:
        for name, section_type in _SECTIONS.items():
            if name in data:
                values[name] = _section(name, data[name], section_type, where)
        for name in _SCALARS:
            if name not in data:
                continue
            raw = data[name]
            if not isinstance(raw, str):
                raise ConfigError(f"{where}: {name} must be a string, not {_toml_type(raw)} {raw!r}")
            values[name] = _scalar(name, raw, base)
        config = Config(**values)
        for name in _SECTIONS:
            getattr(config, name).check()
    except ValueError as error:
        if isinstance(error, ConfigError):
            raise
        raise ConfigError(f"{where}: {error}") from None
    return config


def _scalar(name: str, raw: str, base: Path | None) -> Any:
    if name == "camera":
        return CameraSpec.parse(raw, base)
    if name == "display":
        return DisplaySpec.parse(raw, base)
    if name == "gpio":
        if raw not in GPIO_KINDS:
            raise ValueError(f"gpio {raw!r} is not one of {', '.join(GPIO_KINDS)}")
        return raw
    if name == "log_level":
        if raw.lower() not in LOG_LEVELS:
            raise ValueError(f"log_level {raw!r} is not one of {', '.join(LOG_LEVELS)}")
        return raw.lower()
    if name == "roll_log":
        return _resolve(raw, base) if raw else None
    return raw or None  # profile: empty means the built-in pip reader


def _section(name: str, table: Any, section_type: type[Any], where: str) -> Any:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [{name}] must be a table, not {_toml_type(table)} {table!r}")
    hints = typing.get_type_hints(section_type)
    fields = [f.name for f in dataclasses.fields(section_type)]
    values: dict[str, Any] = {}
    for key, raw in table.items():
        if key not in fields:
            raise ConfigError(f"{where}: unknown key {name}.{key}{_did_you_mean(key, fields)}")
        values[key] = _typed(f"{name}.{key}", raw, hints[key], where)
    return section_type(**values)


def _typed(key: str, raw: Any, hint: Any, where: str) -> Any:
    if hint is bool:
        if not isinstance(raw, bool):
            raise ConfigError(f"{where}: {key} must be true or false, not {_toml_type(raw)} {raw!r}")
        return raw
    if hint is str:
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: {key} must be a string, not {_toml_type(raw)} {raw!r}")
        return raw
    if hint is int:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise ConfigError(f"{where}: {key} must be an integer, not {_toml_type(raw)} {raw!r}")
        return raw
    if hint is float:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise ConfigError(f"{where}: {key} must be a number, not {_toml_type(raw)} {raw!r}")
        return float(raw)
    if hint == tuple[tuple[str, str], ...]:
        if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
            raise ConfigError(f"{where}: {key} must be a table of strings, not {_toml_type(raw)} {raw!r}")
        return tuple((str(k), v) for k, v in raw.items())
    if typing.get_origin(hint) is tuple:
        if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
            raise ConfigError(f"{where}: {key} must be a list of strings, not {_toml_type(raw)} {raw!r}")
        return tuple(raw)
    raise TypeError(f"no TOML reading for {hint!r}")  # a new field type nobody taught the reader


def _toml_type(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list", dict: "a table"}
    return names.get(type(value), f"a {type(value).__name__}")


def _in_range(key: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise ValueError(f"{key} = {value!r} is out of range {low!r}..{high!r}")


def _resolve(text: str, base: Path | None) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() or base is None else base / path


def _did_you_mean(key: str, allowed: typing.Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(allowed), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""

