"""The tray service: the loop behind ``dicetray run``.

One frame at a time::

    FrameSource.read() -> SettleDetector.update()            every frame (about 1 ms at 640x480)
                       -> DiceReader.read()                  only on the frame that decides "settled"
                       -> GameFlow.on_reading()              the game moves on
                       -> EventStream                        the game's events and the tray's
    TrayButtons -> GameFlow.on_button()                      between frames

Every output subscribes to :attr:`TrayService.events`: the journal, the roll log, the display and
the LED (:class:`firmware_host.presenters.Presenters`: they redraw when an event comes and only
then), the table app and MQTT. The service adds the tray's own events
(:class:`firmware_host.events.TrayEvent`: dice moving, a press or a reading taken, the camera lost
and back, the roll log down and back, the pairing PIN up and down) to the game's.

Faults never stop the loop: a corrupt frame is skipped with a warning; a camera that stops delivering
frames shows CAMERA LOST (LED and display) and is reopened with a growing backoff, the game waiting
where it was. The camera is read in a capture thread of its own (:class:`hardware.camera.WatchedSource`):
a read that hangs past :data:`READ_LIMIT_S` is a lost camera too, and SIGTERM is never held up by
it. After a reconnect, the same dice in the same places are the roll already taken, not a new one
(:func:`same_dice`), however often the cable flaps; a roll log that cannot be written keeps its rows in memory and retries, says so on the
display, and after :data:`ROLL_LOG_GRACE_S` without a successful write ends the service with status 1
(systemd restarts it; the rows are not silently lost behind a success code). The roll log is backed
up with SQLite's online backup every :data:`BACKUP_EVERY_S`. systemd hears
``READY=1`` once running, ``WATCHDOG=1`` from the loop itself (so a hung camera read trips the
watchdog), ``STATUS=`` on changes and ``STOPPING=1`` at the end. SIGTERM and SIGINT take the one
shutdown path, :meth:`TrayService.close`: LEDs off, display showing OFFLINE, camera released, roll log
flushed.
"""

from __future__ import annotations

import ipaddress
import itertools
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Protocol
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt

from firmware_host.config import Config
from firmware_host.events import EventStream, TrayEvent, TrayEventKind, game_events
from firmware_host.presenters import Presenters
from firmware_host.web.state import table_state
from firmware_host.errors import PROJECT_ERRORS, RollLogError
from firmware_host.rolllog import RollLog, lies_where_it_lay
from firmware_host.sdnotify import Notifier, watchdog_interval
from hardware.camera import ReplayFinished, WatchedSource, open_camera
from hardware.errors import CameraUnavailable, CaptureStopped, HardwareError
from hardware.lights import TrayStatus
from hardware.screens import ScreenState
from vision.errors import VisionError
from vision.settle import SettleDetector, SettleState
from vision.types import FrameReading
from vision.view import View

__all__ = ["ServiceStats", "TrayService", "RECONNECT_DELAYS"]

log = logging.getLogger(__name__)

# Seconds to wait before each attempt to reopen a lost camera; the last repeats.
RECONNECT_DELAYS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0)

# Seconds between retries of a roll log that could not be written, when no new row comes.
FLUSH_RETRY_S = 5.0

# Seconds between calls of the service's housekeeping hook.
HOUSEKEEPING_S = 10.0

# Seconds a camera read may take before the camera counts as lost (a frame comes every 33 ms), and
# seconds its opening may take (picamera2 needs one or two).
READ_LIMIT_S = 3.0
OPEN_LIMIT_S = 10.0

# Seconds a roll log may stay unwritable, its rows kept in memory, before the service gives up with
# status 1: long enough for a full disk to be cleared by hand, short enough that a pulled SD card is
# noticed within the game.
ROLL_LOG_GRACE_S = 120.0

# Seconds between online backups of the roll log while the service runs (and one at start).
BACKUP_EVERY_S = 3600.0

ROLL_LOG_FAILED_SCREEN = ScreenState(banner="LOG FAILED", lines=("Rolls not saved", "Check the SD card"), prompt="Tray stopped")
"""What the display is left showing when the service stopped because the roll log could not be written."""

# Seconds the pairing screen (PIN, address, QR code) stays up when `dicetray run` starts with the
# table app, unless a button press takes it down first.
PAIRING_AT_START_S = 30.0

# Flow events whose outcome is part of the game's record; corrections have their own table.
SCORED_EVENTS = frozenset({"roll", "ability", "target", "defense", "damage", "undo", "game_over"})


class FrameSource(Protocol):
    def read(self) -> npt.NDArray[np.uint8]: ...

    def close(self) -> None: ...


class Reader(Protocol):
    def read(self, frame: npt.NDArray[np.uint8]) -> FrameReading: ...


class Flow(Protocol):
    """What the service needs of a table flow (:class:`firmware_host.game_flow.GameFlow`,
    :class:`firmware_host.choice_flow.ChoiceFlow`)."""

    def on_reading(self, reading: FrameReading) -> Sequence[Any]: ...

    def on_button(self, event: Any) -> Sequence[Any]: ...

    def on_rolling(self) -> None: ...


class Light(Protocol):
    def show(self, status: TrayStatus) -> None: ...

    def close(self) -> None: ...


class Screen(Protocol):
    def show(self, image: Any) -> None: ...

    def close(self, leave: ScreenState = ...) -> None: ...


@dataclass
class ServiceStats:
    """Counters of one run, for logs, tests and benchmarks."""

    frames: int = 0
    settles: int = 0
    readings: int = 0
    empty_readings: int = 0
    corrupt_frames: int = 0
    camera_losses: int = 0
    reconnects: int = 0
    buttons: int = 0
    roll_log_failures: int = 0
    same_after_reconnect: int = 0
    """Settled readings after a camera reconnect that were the roll already taken."""
    processing_s: float = 0.0
    """Total wall time spent processing frames (reading excluded from nothing)."""
    latencies_s: list[float] = field(default_factory=list)
    """Per settle: from the frame that decided it arriving to the display showing the result."""


class TrayService:
    """Runs the tray: see the module docstring.

    :param open_source: opens the frame source; called at start and again after the camera is lost.
    :param reader: reads the dice in a settled frame (:class:`vision.reader.DiceReader`).
    :param flow: the game (:class:`firmware_host.game_flow.GameFlow`).
    :param display: where screens go (:mod:`hardware.display`).
    :param light: the status LED (:class:`hardware.lights.StatusLight`), or None.
    :param buttons: the tray buttons (:class:`hardware.buttons.TrayButtons`): ``drain()`` gives the
        presses waiting.
    :param roll_log: where readings, scores and corrections go.
    :param detector: the settle detector (default: :class:`vision.settle.SettleDetector` with 0.3 s).
    :param notifier: systemd notifications (default: from ``$NOTIFY_SOCKET``; a no-op elsewhere).
    :param clock: seconds, monotonic: for reconnect backoff, pacing and the watchdog, and the time
        of frames from sources that keep no timestamp of their own.
    :param sleep: how the service waits (between reconnect attempts, and when pacing frames); tests
        pass one that advances their ``clock`` instead of sleeping.
    :param fps: when set, the loop paces itself to this frame rate (for sources that do not block,
        such as the simulated tray); None reads as fast as the source delivers.
    :param closers: extra devices to close on shutdown (the tray light, the buttons).
    :param housekeeping: called every :data:`HOUSEKEEPING_S` seconds from the loop (for chores such
        as trimming the history gpiozero's mock pins keep), or None.
    :param live: a started :class:`firmware_host.web.TrayWeb` (the table app: it also subscribes to
        :attr:`events` and its page's presses are drained with the buttons), to publish frames,
        readings and the game state to, or None.
    :param roll_log_grace_s: how long rows may wait in memory for an unwritable roll log before the
        service stops with status 1.
    :param backup_every_s: seconds between online backups of the roll log; None for none.
    :param read_limit_s: the camera is opened and read in a capture thread, and a read taking longer
        than this counts as a lost camera; None reads in the loop's own thread, unwatched.
    :param game_store: where each game's record is written as it is played
        (:class:`firmware_host.game_store.GameStore`), or None.
    :param last_reading: for a game resumed after a restart, the last reading the roll log holds:
        dice still lying in the tray as they were are that roll, not a new one (as after a camera
        reconnect, :func:`same_dice`).
    :param pairing_at_start_s: with the table app, show the pairing screen (PIN, address and its QR
        code) for this many seconds from the start; the first button press takes it down (and
        does nothing else). None: only when a phone asks for it.
    :param reader_for: makes the reader for a flow as the service's start made it; given, a tray
        profile saved while the service runs (:meth:`tray_profile_saved`, the table app's tray
        calibration) is read with from the next frame on.
    """

    def __init__(
        self,
        *,
        open_source: Callable[[], FrameSource],
        reader: Reader,
        flow: Flow,
        display: Screen,
        roll_log: RollLog,
        light: Light | None = None,
        buttons: Any = None,
        detector: SettleDetector | None = None,
        notifier: Notifier | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        fps: float | None = None,
        closers: Iterable[Any] = (),
        live: Any = None,
        housekeeping: Callable[[], None] | None = None,
        roll_log_grace_s: float = ROLL_LOG_GRACE_S,
        backup_every_s: float | None = None,
        read_limit_s: float | None = READ_LIMIT_S,
        game_store: Any = None,
        last_reading: FrameReading | None = None,
        pairing_at_start_s: float | None = None,
        reader_for: Callable[[Any], Reader] | None = None,
    ) -> None:
        self.game_store = game_store
        self.events = EventStream()
        """The game's events as the flow emits them and the tray's own; outputs subscribe."""
        self.events.subscribe(game_events(self._journal))
        self.events.subscribe(game_events(self._log_event))
        self._stop = threading.Event()
        if read_limit_s is not None:
            limit = read_limit_s

            def open_watched() -> FrameSource:
                return WatchedSource(open_source, read_limit_s=limit, open_limit_s=max(limit, OPEN_LIMIT_S), stop=self._stop)

            self._open_source: Callable[[], FrameSource] = open_watched
        else:
            self._open_source = open_source
        self._housekeeping = housekeeping
        self._last_housekeeping = float("-inf")
        self.live = live
        if hasattr(live, "on_event"):
            self.events.subscribe(game_events(live.on_event))  # the table app pushes every game event
        self.reader = reader
        self._reader_for = reader_for
        self._tray_saved = threading.Event()
        if reader_for is not None and hasattr(live, "on_tray_saved"):
            live.on_tray_saved = self.tray_profile_saved
        self.flow = flow
        self.display = display
        self.light = light
        self.buttons = buttons
        self.roll_log = roll_log
        self.detector = detector if detector is not None else SettleDetector()
        self.notifier = notifier if notifier is not None else Notifier()
        self._clock = clock
        self._sleep = sleep
        self._frame_period = 1.0 / fps if fps else None
        self._closers = list(closers)
        self.stats = ServiceStats()
        self.presenters = Presenters(flow, display=display, light=light, page=self._publish_page)  # type: ignore[arg-type]
        """The display and the LED, subscribed last: they show what every other output has seen."""
        self.events.subscribe(self.presenters)

        self._source: FrameSource | None = None
        self._camera_error: str | None = None
        self._reconnect_attempt = 0
        self._next_reconnect_at = 0.0
        self._last_roll: FrameReading | None = None
        """The last reading handed to the game, to know it again after a camera reconnect."""
        self._reconnected = False
        if last_reading is not None:
            self._last_roll, self._reconnected = last_reading, True
        self._view_said: View | None = None
        """The camera's view last said in the log, where the reader tells it from the rolls."""
        self._closed = False
        self._started = False
        self._pin_shown: str | None = None
        self._pairing_at_start_s = pairing_at_start_s
        self._start_pairing_up = False
        """The pairing screen shown at the start is up: a press takes it down."""
        self._last_state = SettleState.ROLLING
        self._last_reading_id: str | None = None
        self._roll_log_down_since: float | None = None
        self._game_store_down = False
        self._roll_log_grace_s = roll_log_grace_s
        self._backup_every_s = backup_every_s
        self._last_backup = float("-inf")
        self._failure: str | None = None
        self._watchdog_every = watchdog_interval()
        self._last_watchdog = float("-inf")
        self._last_flush_try = float("-inf")
        self._next_frame_at: float | None = None
        self._corrupt_warned_at = float("-inf")

    def __repr__(self) -> str:
        return f"<TrayService source={self._source!r} frames={self.stats.frames} closed={self._closed}>"

    # -- running ----------------------------------------------------------------------------------

    @property
    def camera_lost(self) -> bool:
        return self._camera_error is not None

    @property
    def shown_screen(self) -> ScreenState | None:
        """What the display shows now (None before the first screen)."""
        return self.presenters.shown_screen

    def start(self) -> None:
        """Opens the camera (a camera missing at start is handled like one lost later), shows the
        first screen and tells systemd the service is ready."""
        if self._started:
            return
        self._started = True
        for event in getattr(self.flow, "events", ()):  # what the game said before the loop ran
            log.info("%s", getattr(event, "text", event))
        try:
            # Opened now, not at the first roll: its integrity check (and a damaged file moved
            # aside) belongs to the start, where the journal shows it.
            self.roll_log.integrity_check()
        except RollLogError as error:
            self._log_row(lambda roll_log: _raise(error))
        self._sync_game_record()  # the game's first actions (or a resumed game's place) are on disk now
        self._try_open(first=True)
        if self._pairing_at_start_s is not None and hasattr(self.live, "show_pin"):
            self.live.show_pin(self._pairing_at_start_s)
            self._start_pairing_up = True
        self.events.publish(TrayEvent(TrayEventKind.STARTED))
        self._watch_pairing()
        self.notifier.ready("reading the tray" if not self.camera_lost else "waiting for the camera")
        log.info("tray service running")

    def stop(self) -> None:
        """Asks the loop to finish after the current frame (thread- and signal-safe)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    @property
    def failure(self) -> str | None:
        """Why the service failed (rows of the roll log not written), or None."""
        return self._failure

    def run(self, *, max_frames: int | None = None, max_seconds: float | None = None) -> int:
        """Runs until stopped (SIGTERM, SIGINT, :meth:`stop`) or a limit is reached, then closes.

        Returns the exit status: 0, or 1 when rows of the roll log could not be written.
        """
        restore = self._install_signal_handlers()
        started_at = time.monotonic()
        try:
            self.start()
            while not self._stop.is_set():
                if max_frames is not None and self.stats.frames >= max_frames:
                    break
                if max_seconds is not None and time.monotonic() - started_at >= max_seconds:
                    break
                self.step()
        finally:
            try:
                self.close()
            finally:
                restore()
        return 1 if self._failure is not None else 0

    def tray_profile_saved(self) -> None:
        """A new tray profile is saved (from any thread): the loop makes its reader again before
        its next frame, so the profile's view and die size count from the next roll on."""
        self._tray_saved.set()

    def _take_new_tray_profile(self) -> None:
        if self._reader_for is None or not self._tray_saved.is_set():
            return
        self._tray_saved.clear()
        try:
            self.reader = self._reader_for(self.flow)
        except PROJECT_ERRORS as error:
            log.error("the new tray profile could not be taken: %s; reading on as before", error)
            return
        self._view_said = None
        log.info("the new tray profile is read with from the next roll")

    def step(self) -> None:
        """One turn of the loop: buttons, then one frame (or a camera reconnect attempt)."""
        self._take_new_tray_profile()
        self._handle_buttons()
        self._watch_pairing()
        if self._source is None:
            self._reconnect()
            return
        self._pace()
        try:
            frame = self._source.read()
        except ReplayFinished as error:
            log.info("%s: stopping", error)
            self.stop()
            return
        except CaptureStopped:
            return
        except CameraUnavailable as error:
            self._lose_camera(str(error))
            return
        except (HardwareError, VisionError) as error:
            # A frame the source itself could not decode: skip it, the next one may be fine.
            self._corrupt(str(error))
            return
        arrived = time.perf_counter()
        now = self._frame_time()
        try:
            update = self.detector.update(frame, now)
        except VisionError as error:
            self._corrupt(str(error))
            return
        self.stats.frames += 1
        if update.state is SettleState.ROLLING and self._last_state is not SettleState.ROLLING:
            self.flow.on_rolling()
            self.events.publish(TrayEvent(TrayEventKind.DICE_MOVING))
            if self.live is not None:
                self.live.clear_reading()
        self._last_state = update.state
        reading = None
        if update.settled:
            self.stats.settles += 1
            reading = self._read(frame)
        if self.live is not None:
            # After the display: the table's own screen comes first. Cheap: a copy at most max_fps.
            self.live.publish_frame(frame, reading)
        done = time.perf_counter()
        self.stats.processing_s += done - arrived
        if update.settled:
            self.stats.latencies_s.append(done - arrived)
        self._watchdog(now)

    def close(self) -> None:
        """The one shutdown path: STOPPING=1, LEDs off, OFFLINE on the display, camera released,
        roll log flushed and closed. Safe to call twice; each part is closed even if another fails."""
        if self._closed:
            return
        self._closed = True
        self.notifier.stopping()
        log.info(
            "tray service stopping after %d frames, %d readings", self.stats.frames, self.stats.readings
        )
        # The roll log first: whether its rows are on disk decides what the display is left showing.
        try:
            self.roll_log.close()
        except Exception as error:  # noqa: BLE001 - shutdown must reach every part
            log.error("closing the roll log failed: %s", error)
        if self.roll_log.pending and self._failure is None:
            self._fail(f"roll log {str(self.roll_log.path)!r}: {self.roll_log.pending} rows not written")
        parts: list[tuple[str, Callable[[], None]]] = []
        if self.light is not None:
            parts.append(("status LED", self.light.close))
        parts.extend((repr(device), device.close) for device in self._closers)
        if self.buttons is not None and hasattr(self.buttons, "close"):
            parts.append(("buttons", self.buttons.close))
        if self._failure is not None:
            parts.append(("display", self._close_display_failed))
        else:
            parts.append(("display", self.display.close))
        if self.live is not None:
            parts.append(("table app", self.live.close))
        if self._source is not None:
            parts.append(("camera", self._source.close))
        if self.game_store is not None:
            parts.append(("game records", self.game_store.close))
        for name, close in parts:
            try:
                close()
            except Exception as error:  # noqa: BLE001 - shutdown must reach every part
                log.error("closing the %s failed: %s", name, error)
        self._source = None
        self.notifier.close()

    # -- the steps --------------------------------------------------------------------------------

    def _say_view(self) -> None:
        """Says in the log when the reader's :class:`vision.view.ViewWatch` tells the camera's view
        (from above: the pip reader checks a roll in a few) or tells it again (at an angle)."""
        watch = getattr(self.reader, "view_watch", None)
        if watch is None or watch.view is self._view_said or watch.view is View.UNKNOWN:
            return
        self._view_said = watch.view
        if watch.view is View.OVERHEAD:
            log.info(
                "%s, told from the last %d rolls: pip dice are read by the learned reader, checked by the pip reader in one roll of %d and where a die is unsure",
                watch.finding.describe(), watch.rolls, watch.recheck_every,
            )  # fmt: skip
        else:
            log.info("%s: every roll is checked by the pip reader", watch.finding.describe())

    def _read(self, frame: npt.NDArray[np.uint8]) -> FrameReading | None:
        try:
            reading = self.reader.read(frame)
        except VisionError as error:
            self._corrupt(str(error))
            return None
        self._say_view()
        if not reading.dice:
            # Nothing in the tray: remember it as the empty tray, so it is not read again.
            self.stats.empty_readings += 1
            self.detector.mark_empty()
            log.debug("settled: the tray is empty")
            return reading
        if self._reconnected and self._last_roll is not None and same_dice(reading, self._last_roll):
            # The camera came back to the dice it last read: the roll taken already, not a new one.
            self.stats.same_after_reconnect += 1
            log.info("settled: %s, the same dice as before the camera was lost or the restart; not a new roll", _describe(reading))
            return reading
        self._reconnected = False
        self._last_roll = reading
        self.stats.readings += 1
        log.info("settled: read %s in %.1f ms", _describe(reading), reading.ms)

        def reading_and_score(roll_log: RollLog) -> str:
            # One transaction: a kill between the two can leave neither, never one without the other.
            with roll_log.transaction():
                reading_id = roll_log.record_reading(reading, dice_set=self._dice_set())
                self._last_reading_id = reading_id
                self._handle_events(self._to_flow(self.flow.on_reading, reading))
            return reading_id

        self._log_row(reading_and_score)
        self.events.publish(TrayEvent(TrayEventKind.READ))
        return reading

    def _dice_set(self) -> str | None:
        """Whose dice the game waits for (the hero id, for the fairness report), None when the game
        is not waiting for a roll or cannot say."""
        view_of = getattr(self.flow, "view", None)
        if view_of is None:
            return None
        view = view_of()
        hero = getattr(view, "dice_hero", None)
        return str(hero.id) if hero is not None and getattr(view, "wants_dice", False) else None

    def _handle_buttons(self) -> None:
        presses: Iterable[Any] = self.buttons.drain() if self.buttons is not None else ()
        if self._start_pairing_up and self._pin_shown is not None:
            pressed = list(presses)
            if pressed:
                # The first press takes the start's pairing screen down, so nobody presses blind.
                self.stats.buttons += 1
                self.live.show_pin(-1.0)
                self._start_pairing_up = False
                presses = pressed[1:]
        if hasattr(self.live, "drain"):
            # The table app's actions, pressed on a phone: worked out press by press, lazily.
            presses = itertools.chain(presses, self.live.drain(self.flow))
        for event in presses:
            self.stats.buttons += 1
            log.debug("button %s", getattr(event, "name", event))
            apply = getattr(event, "apply", None)  # a table action that is not a press: start a game
            if apply is not None:
                self._handle_events(self._to_flow(apply, self.flow))
            else:
                self._handle_events(self._to_flow(self.flow.on_button, event))
            self.events.publish(TrayEvent(TrayEventKind.PRESSED, {"button": str(getattr(event, "value", event))}))

    def _to_flow(self, handler: Callable[[Any], Sequence[Any]], value: Any) -> Sequence[Any]:
        """Hands a reading or a press to the game; a project error there is logged, not fatal: a
        restart would lose the game, and the next press or roll may well go through."""
        try:
            return handler(value)
        except PROJECT_ERRORS as error:
            log.error("the game could not take %r: %s", value, error)
            return ()

    def _handle_events(self, events: Iterable[Any]) -> None:
        """Publishes the flow's events on :attr:`events` (the journal and the roll log subscribe)."""
        self._sync_game_record()
        for event in events:
            self.events.publish(event)

    def _journal(self, event: Any) -> None:
        log.info("%s", getattr(event, "text", event))

    def _log_event(self, event: Any) -> None:
        """The roll log's subscription: scored steps and corrections become rows."""
        kind = str(getattr(getattr(event, "kind", None), "value", getattr(event, "kind", "")))
        text = str(getattr(event, "text", event))
        data = dict(getattr(event, "data", {}) or {})
        if kind == "correction":
            self._log_row(lambda log_: log_.record_correction(text, data, reading_id=self._last_reading_id))
        elif kind in SCORED_EVENTS:
            self._log_row(lambda log_: log_.record_score(kind, text, data, reading_id=self._last_reading_id))

    def _sync_game_record(self) -> None:
        """Appends the game's new actions to its record (a failure is logged once per outage; the
        actions not written are written with the next sync, and the game goes on)."""
        game = getattr(self.flow, "game", None)
        if self.game_store is None or game is None:
            return
        try:
            self.game_store.sync(game)
        except RollLogError as error:
            if not self._game_store_down:
                log.warning("%s", error)
                self._game_store_down = True
            return
        if self._game_store_down:
            log.info("game records in %s are written again", self.game_store.path)
            self._game_store_down = False

    def _log_row(self, write: Callable[[RollLog], str]) -> str | None:
        try:
            row_id = write(self.roll_log)
        except RollLogError as error:
            self.stats.roll_log_failures += 1
            if self._roll_log_down_since is None:
                # Once per outage: the rows are kept and retried with every later write.
                log.warning("%s", error)
                self._roll_log_down_since = self._clock()
                self.events.publish(TrayEvent(TrayEventKind.ROLL_LOG_DOWN))
            return None
        if self._roll_log_down_since is not None and not self.roll_log.pending:
            log.info("roll log %s is written again", self.roll_log.path)
            self._roll_log_down_since = None
            self.events.publish(TrayEvent(TrayEventKind.ROLL_LOG_BACK))
        return row_id

    def _fail(self, reason: str) -> None:
        """Stops the service with status 1, saying why in the journal, to systemd and on the display."""
        if self._failure is None:
            self._failure = reason
            log.error("%s: stopping with status 1", reason)
            self.notifier.status(f"failed: {reason}")
        self.stop()

    def _close_display_failed(self) -> None:
        self.display.close(leave=ROLL_LOG_FAILED_SCREEN)

    def _watch_pairing(self) -> None:
        """Puts the PIN up (or takes it down) when the table app asks for it: the PIN's time on
        the display is kept by the table app, so the service looks each turn of the loop (a lock
        and a clock read) and turns a change into an event."""
        pin = self.live.pin_shown() if hasattr(self.live, "pin_shown") else None
        if pin != self._pin_shown:
            self._pin_shown = pin
            self._start_pairing_up = self._start_pairing_up and pin is not None
            self.events.publish(TrayEvent(TrayEventKind.PAIRING, {"pin": pin, "url": phone_url(self.live)}))

    def _publish_page(self, screen: ScreenState, status: TrayStatus) -> None:
        """The presenters' page sink: the table app shows the game's screen, not the PIN over it."""
        if self.live is not None:
            self.live.publish_state(
                {"screen": screen, "status": status, "camera_lost": self._camera_error, "table": table_state(self.flow)}
            )

    # -- camera -----------------------------------------------------------------------------------

    def _try_open(self, first: bool = False) -> bool:
        try:
            self._source = self._open_source()
        except CaptureStopped:
            return False
        except CameraUnavailable as error:
            if first:
                self._lose_camera(str(error))
            else:
                self._camera_error = str(error)
            return False
        back = self._camera_error is not None
        if back:
            log.info("camera back after %d attempts; the game goes on", self._reconnect_attempt)
            self.stats.reconnects += 1
            self._reconnected = True
            self.notifier.status("reading the tray")
        self._camera_error = None
        self._reconnect_attempt = 0
        # Frames from before the loss are not comparable with the new ones.
        self.detector.reset()
        self._last_state = SettleState.ROLLING
        if back:
            self.events.publish(TrayEvent(TrayEventKind.CAMERA_BACK))
        return True

    def _lose_camera(self, reason: str) -> None:
        log.warning("camera lost: %s; retrying", reason)
        self.stats.camera_losses += 1
        if self._source is not None:
            try:
                self._source.close()
            except Exception as error:  # noqa: BLE001 - a dead camera may fail to close too
                log.debug("closing the lost camera: %s", error)
        self._source = None
        self._camera_error = reason
        self._reconnect_attempt = 0
        self._next_reconnect_at = self._clock() + RECONNECT_DELAYS[0]
        self.notifier.status(f"camera lost: {reason}")
        self.events.publish(TrayEvent(TrayEventKind.CAMERA_LOST, {"reason": reason}))

    def _reconnect(self) -> None:
        now = self._clock()
        wait = self._next_reconnect_at - now
        if wait > 0:
            # Short naps keep buttons, signals and the watchdog served while the camera is away.
            self._sleep(min(wait, 0.1))
            self._watchdog(self._clock())
            return
        self._reconnect_attempt += 1
        if self._try_open():
            return
        delay = RECONNECT_DELAYS[min(self._reconnect_attempt, len(RECONNECT_DELAYS) - 1)]
        self._next_reconnect_at = self._clock() + delay
        log.debug("camera still missing (%s); next try in %.1f s", self._camera_error, delay)
        self._watchdog(self._clock())

    # -- plumbing ---------------------------------------------------------------------------------

    def _pace(self) -> None:
        if self._frame_period is None:
            return
        now = self._clock()
        if self._next_frame_at is None or now - self._next_frame_at > 1.0:
            self._next_frame_at = now  # first frame, or fell far behind: do not try to catch up
        wait = self._next_frame_at - now
        if wait > 0:
            self._sleep(wait)
        self._next_frame_at += self._frame_period

    def _frame_time(self) -> float:
        """When the frame was taken: the source's own timestamp when it keeps one (the simulated
        tray's virtual time, a replay's frame time), else the clock at arrival."""
        stamp = getattr(self._source, "timestamp", None)
        if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
            return float(stamp)
        return self._clock()

    def _corrupt(self, reason: str) -> None:
        self.stats.corrupt_frames += 1
        now = self._clock()
        if now - self._corrupt_warned_at >= 10.0:
            # At most one warning every 10 s: a broken source must not flood the journal.
            log.warning("skipped a corrupt frame: %s (%d so far)", reason, self.stats.corrupt_frames)
            self._corrupt_warned_at = now

    def _watchdog(self, now: float) -> None:
        """Pings systemd's watchdog, and retries a roll log that could not be written, every few s."""
        if self._watchdog_every is not None and now - self._last_watchdog >= self._watchdog_every:
            self.notifier.watchdog()
            self._last_watchdog = now
        if self.roll_log.pending and now - self._last_flush_try >= FLUSH_RETRY_S:
            self._last_flush_try = now
            self._log_row(_flush)
        clock = self._clock()  # not ``now``: a replay's or the simulated tray's frame times are virtual
        since = self._roll_log_down_since
        waited = clock - since if since is not None else 0.0
        if since is not None and self.roll_log.pending and waited >= self._roll_log_grace_s:
            self._fail(
                f"roll log {str(self.roll_log.path)!r} could not be written for {waited:.0f} s; "
                f"{self.roll_log.pending} rows not saved"
            )
        if self._backup_every_s is not None and clock - self._last_backup >= self._backup_every_s:
            self._last_backup = clock
            self._backup()
        if self._housekeeping is not None and now - self._last_housekeeping >= HOUSEKEEPING_S:
            self._last_housekeeping = now
            self._housekeeping()

    def _install_signal_handlers(self) -> Callable[[], None]:
        if threading.current_thread() is not threading.main_thread():
            return lambda: None

        def handler(signum: int, frame: FrameType | None) -> None:
            log.info("%s: stopping", signal.Signals(signum).name)
            self.stop()

        previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}

        def restore() -> None:
            for sig, old in previous.items():
                signal.signal(sig, old)

        return restore


    def _backup(self) -> None:
        try:
            target = self.roll_log.backup()
        except RollLogError as error:
            log.warning("%s", error)
            return
        log.info("roll log backed up to %s", target)


def same_dice(a: FrameReading, b: FrameReading) -> bool:
    """True when ``a`` and ``b`` show the same dice in the same places: as many dice, each with a die
    of the same face and status in ``b`` within a third of a die's side (a few pixels of camera
    jitter after a reconnect; a real throw never lands every die back where it was)."""
    if not a.dice or len(a.dice) != len(b.dice):
        return False
    left = list(b.dice)
    for die in a.dice:
        for other in left:
            if lies_where_it_lay(die, other):
                left.remove(other)
                break
        else:
            return False
    return True


def phone_url(live: Any) -> str:
    """The table app's address for a phone to open: the first with an IPv4 address that is not
    loopback (a phone may not resolve ``NAME.local``), else the first there is; empty without one."""
    urls = [str(url) for url in getattr(live, "urls", ()) or ()]
    for url in urls:
        try:
            address = ipaddress.ip_address(urlsplit(url).hostname or "")
        except ValueError:
            continue
        if address.version == 4 and not address.is_loopback:
            return url
    return urls[0] if urls else ""


def _raise(error: RollLogError) -> str:
    raise error


def _flush(roll_log: RollLog) -> str:
    roll_log.flush()
    return ""


def _describe(reading: FrameReading) -> str:
    from firmware_host.rolllog import reading_notation

    return repr(reading_notation(reading))


# -- wiring from a config ---------------------------------------------------------------------------


def _say_tray_profile(config: Config) -> bool:
    """Says in the log what the saved tray profile does for this camera: nothing when it was made
    from photos of another size (its background, region and view are of those photos); for plain
    pip dice, how the camera is read (where it looks straight down, the pip reader checks only
    frames with an unsure die: one core, not two), or that the view is told from the rolls as they
    come where no tray profile tells it. Returns whether the tray profile tells this camera's view."""
    from calibration.errors import CalibrationMissing
    from calibration.tray import load_tray_profile

    watched = "told from the rolls as they come (about twenty with pip dice)"
    try:
        tray = load_tray_profile()
    except CalibrationMissing:
        if config.profile is None:
            log.info("no tray profile: which way the camera looks is %s", watched)
        return False
    width, height = tray.frame_size
    if (width, height) != (config.frames.width, config.frames.height):
        log.warning(
            "the tray profile was made from %dx%d photos and the camera gives %dx%d frames: it is not used; calibrate the tray again from photos at %dx%d",
            width, height, config.frames.width, config.frames.height, config.frames.width, config.frames.height,
        )  # fmt: skip
        return False
    if config.profile is not None:
        return tray.view is not View.UNKNOWN
    if tray.view is View.OVERHEAD:
        log.info("the tray's camera looks straight down (its tray profile): %dx%d frames are checked by the pip reader only where a die is unsure", width, height)
    elif tray.view is View.UNKNOWN:
        log.info("the tray profile does not tell which way the camera looks: it is %s; calibrating the tray again with photos of pip dice in it (dicetray calibrate tray --dice ...) tells it at once", watched)
    return tray.view is not View.UNKNOWN


def build_service(
    config: Config,
    *,
    pin_factory: Any = None,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
    notifier: Notifier | None = None,
) -> TrayService:
    """A :class:`TrayService` with the hardware ``config`` names.

    :param pin_factory: a gpiozero pin factory to use instead of the one ``config.gpio`` names.
    :raises PinBusy: a GPIO pin is taken; the message names it (every device opened before is
        closed again).
    :raises PortInUse: the table app's port is taken.
    :raises CameraUnavailable: never: a camera missing at start is retried like one lost later.
    """
    from firmware_host.commands.vision_cmd import make_reader
    from firmware_host.game_store import GameStore, resume_last_game
    from firmware_host.heroes import hero_folders
    from firmware_host.table_flows import flow_for, new_game
    from hardware.buttons import TrayButtons
    from hardware.display import open_display
    from hardware.lights import StatusLight, TrayLight

    housekeeping = None
    if pin_factory is None and config.gpio == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        pin_factory = MockFactory(pin_class=MockPWMPin)
        housekeeping = _forget_pin_history(pin_factory)

    roll_log = RollLog(config.roll_log_path)
    game_store = GameStore(config.roll_log_path)
    opened: list[Any] = []
    try:
        fresh = new_game(config.game)
        game = None
        if config.game.resume:
            try:
                roll_log.integrity_check()  # a damaged log is moved aside before its games are read
            except RollLogError:
                pass  # start() says so, and the game starts fresh below
            game = resume_last_game(game_store, fresh.record_headers(), search=hero_folders())
        else:
            log.info("a new game starts (game.resume is off, or --new-game)")
        flow = flow_for(config.game, game if game is not None else fresh)
        if getattr(flow, "reads_calibrated_faces", False) and config.profile is None:
            log.warning(
                "%s dice show artwork, which the plain reader cannot read: set profile in %s to the "
                "cards' calibrated profiles (\"sidekick, batman, ...\"; docs/dice-masters.md)",
                flow.game_title, config.source or "the config",
            )  # fmt: skip

        def reader_for(flow: Any) -> Any:
            reader = make_reader(config.profile, watch_view=not _say_tray_profile(config))
            if hasattr(reader, "with_colours") and hasattr(flow, "design_colours"):
                # Dice Masters: a card's profile reads only dice of that card's colour.
                reader = reader.with_colours(flow.design_colours())
            return reader

        reader = reader_for(flow)
        last_reading = _last_reading(roll_log) if game is not None else None
        pins = config.pins
        light = StatusLight(pins.led_red, pins.led_green, pins.led_blue, pin_factory=pin_factory)
        opened.append(light)
        tray_light = TrayLight(pins.tray_light, brightness=config.lights.tray_brightness, pin_factory=pin_factory)
        opened.append(tray_light)
        buttons = TrayButtons(pins.next, pins.select, pins.back, pin_factory=pin_factory)
        opened.append(buttons)
        display = open_display(
            config.display.kind,
            port=config.i2c.bus,
            address=config.i2c.display_address,
            directory=config.display.argument,
        )
        opened.append(display)
        live = None
        if config.liveview.enabled:
            from firmware_host.web import TrayWeb

            live = TrayWeb.from_config(config.liveview)
            live.games_path = config.roll_log_path  # the page lists the games and offers their records
            live.start()  # logs the URL(s) to open
            opened.append(live)
            log.info("table app pairing PIN: %s", live.pairing.pin)
        mqtt = None
        if config.mqtt.enabled:
            from firmware_host.mqtt import TrayMqtt

            mqtt = TrayMqtt.from_config(config.mqtt, flow)
            if live is not None:
                # Home Assistant's camera entity: the frame the table app keeps, when a roll settles.
                mqtt.snapshot = lambda: live.hub.snapshot(timeout=0.5)
            mqtt.start()
            opened.append(mqtt)
    except BaseException:
        for device in reversed(opened):
            device.close()
        game_store.close()
        roll_log.close()
        raise

    detector = SettleDetector(
        stillness_s=config.settle.stillness_ms / 1000.0, min_still_frames=config.settle.min_still_frames
    )
    # Live cameras block until the next frame; the simulated tray and replays do not, so the loop
    # paces them to the configured rate.
    paced = config.camera.kind in ("sim", "replay")
    service = TrayService(
        open_source=lambda: open_camera(config),
        reader=reader,
        flow=flow,
        display=display,
        roll_log=roll_log,
        game_store=game_store,
        last_reading=last_reading,
        light=light,
        buttons=buttons,
        detector=detector,
        notifier=notifier,
        clock=clock if clock is not None else time.monotonic,
        sleep=sleep if sleep is not None else time.sleep,
        fps=config.frames.fps if paced else None,
        closers=[tray_light, *([mqtt] if mqtt is not None else [])],
        live=live,
        housekeeping=housekeeping,
        backup_every_s=BACKUP_EVERY_S,
        pairing_at_start_s=PAIRING_AT_START_S if live is not None else None,
        reader_for=reader_for,
    )
    if mqtt is not None:
        service.events.subscribe(mqtt.on_event)  # one more output of the event stream
        mqtt.publish_state()
    return service


def _last_reading(roll_log: RollLog) -> FrameReading | None:
    """The roll log's last reading, to know its dice again in the tray after a restart (None when
    there is none, or the log cannot be read: then every settled reading is a new roll)."""
    try:
        logged = roll_log.readings(limit=1)
    except RollLogError:
        return None
    return FrameReading(logged[-1].dice, logged[-1].ms) if logged else None


def _forget_pin_history(factory: Any) -> Callable[[], None]:
    """gpiozero's mock pins record every state they were ever in (the status LED's breathing adds
    dozens a second), which real pins do not: a long run on mock pins would grow without end."""

    def forget() -> None:
        for pin in list(factory.pins.values()):
            pin.clear_states()

    return forget
