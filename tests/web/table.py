"""A tray for the browser tests: the real service (DiceReader, settle detector, GameFlow, roll log)
on a thread, with the table app, watching a camera that shows real rendered tray frames; a test
"throws" by giving the camera a new scene (a few moving frames, then the scene, still)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from firmware_host.commands.vision_cmd import make_reader
from firmware_host.game_flow import GameFlow
from firmware_host.rolllog import RollLog
from firmware_host.service import TrayService
from firmware_host.web import Pairing, TrayWeb
from hardware.display import DummyDisplay
from vision.reader import DiceReader
from vision.settle import SettleDetector

MOVING_FRAMES = 8


class TableCamera:
    """Frames as a camera over the tray gives them: the scene, still, until :meth:`throw`."""

    def __init__(self, frame: np.ndarray) -> None:
        self._lock = threading.Lock()
        self._frame = frame
        self._moving = 0
        self._rng = np.random.default_rng(0)

    def throw(self, frame: np.ndarray) -> None:
        with self._lock:
            self._frame = frame
            self._moving = MOVING_FRAMES

    def show(self, frame: np.ndarray) -> None:
        """The camera sees ``frame`` from the next read on, still (a die put down by hand)."""
        with self._lock:
            self._frame = frame
            self._moving = 0

    def read(self) -> np.ndarray:
        with self._lock:
            if self._moving:
                self._moving -= 1
                shift = int(self._rng.integers(20, 60))
                return np.roll(self._frame, shift, axis=1)  # the dice tumble
            return self._frame.copy()

    def close(self) -> None:
        pass


class Table:
    """The service and its table app, running until :meth:`close`."""

    def __init__(self, flow: GameFlow, frame: np.ndarray, tmp_path: Path, pin: str = "314159") -> None:
        self.flow = flow
        self.camera = TableCamera(frame)
        self.web = TrayWeb("127.0.0.1", 0, pairing=Pairing(pin=pin))
        self.web.games_path = tmp_path / "rolls.sqlite3"  # as build_service wires it
        self.web.start()
        self.service = TrayService(
            open_source=lambda: self.camera,
            reader=DiceReader(),
            flow=flow,
            display=DummyDisplay(),
            roll_log=RollLog(tmp_path / "rolls.sqlite3"),
            detector=SettleDetector(stillness_s=0.3),
            fps=15,
            live=self.web,
            reader_for=lambda _flow: make_reader(None),  # as `dicetray run` makes it: a tray profile saved on the page counts at once
        )
        self._stop = threading.Event()
        self._started = threading.Event()
        self._error: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, name="table", daemon=True)
        self._thread.start()
        self._started.wait(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web.port}/"

    def oled_banner(self) -> str | None:
        """The banner the tray's display shows now (the PIN while a phone pairs)."""
        screen = self.service.shown_screen
        return screen.banner if screen is not None else None

    def _run(self) -> None:
        try:
            # Started on the thread that steps it, as `dicetray run` does: the roll log's
            # connection belongs to the thread that opened it.
            self.service.start()
            self._started.set()
            while not self._stop.is_set():
                self.service.step()
        except BaseException as error:  # reported by close()
            self._error.append(error)
            self._started.set()
        finally:
            self.service.close()  # on the thread that used the roll log

    def close(self) -> Any:
        self._stop.set()
        self._thread.join(10)
        if self._error:
            raise self._error[0]
