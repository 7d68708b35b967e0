"""Where state (profiles, the roll log) lives on disk."""

from __future__ import annotations

import os
from pathlib import Path


def state_directory() -> Path:
    """The state directory: ``$DICETRAY_STATE_DIR``, else systemd's ``$STATE_DIRECTORY``, else
    ``$XDG_STATE_HOME/dicetray``, else ``~/.local/state/dicetray``. Not created here."""
    explicit = os.environ.get("DICETRAY_STATE_DIR")
    if explicit:
        return Path(explicit)
    systemd = os.environ.get("STATE_DIRECTORY")
    if systemd:
        # systemd may pass several colon-separated directories; the first is ours.
        return Path(systemd.split(":")[0])
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg:
        return Path(xdg) / "dicetray"
    return Path.home() / ".local" / "state" / "dicetray"


def profiles_directory() -> Path:
    return state_directory() / "profiles"
