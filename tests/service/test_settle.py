"""Settle detection on synthetic frames: a textured tray, dice drawn as pip faces, a skin-coloured hand,
sensor noise. Real OpenCV throughout."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from vision.errors import InvalidFrameError
from vision.settle import SettleDetector, SettleState, SettleUpdate

FPS = 30.0
H, W = 480, 640


def tray(seed: int = 1) -> np.ndarray:
    """A felt-green tray with a fixed texture and a darker rim (a fresh copy each call)."""
    return _tray(seed).copy()


@functools.lru_cache(maxsize=4)
def _tray(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    frame = np.empty((H, W, 3), np.uint8)
    frame[:] = (60, 110, 40)
    texture = rng.integers(-12, 13, size=(H, W, 1), dtype=np.int16)
    frame = np.clip(frame.astype(np.int16) + texture, 0, 255).astype(np.uint8)
    cv2.rectangle(frame, (0, 0), (W - 1, H - 1), (30, 50, 70), 24)
    return frame


def draw_die(frame: np.ndarray, x: int, y: int, value: int, size: int = 44, angle: float = 0.0) -> None:
    centre = (x + size / 2, y + size / 2)
    box = cv2.boxPoints((centre, (size, size), angle)).astype(np.int32)
    cv2.fillConvexPoly(frame, box, (235, 235, 235))
    offsets = {
        1: [(0, 0)],
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    }[value]
    for dx, dy in offsets:
        cv2.circle(frame, (int(centre[0] + dx * size / 4), int(centre[1] + dy * size / 4)), 4, (20, 20, 20), -1)


def scene(dice: list[tuple[int, int, int]], seed: int = 1, hand_at: int | None = None) -> np.ndarray:
    frame = tray(seed)
    for x, y, value in dice:
        draw_die(frame, x, y, value)
    if hand_at is not None:
        # An arm reaching in from the right edge, ending in a hand at x = hand_at.
        cv2.rectangle(frame, (hand_at, 180), (W, 300), (120, 150, 215), -1)
        cv2.ellipse(frame, (hand_at, 240), (60, 70), 0, 0, 360, (120, 150, 215), -1)
    return frame


def noisy(frame: np.ndarray, rng: np.random.Generator, sigma: float = 3.0) -> np.ndarray:
    noise = rng.normal(0, sigma, frame.shape).astype(np.float32)
    return np.clip(frame.astype(np.float32) + noise, 0, 255).astype(np.uint8)


class Clock:
    def __init__(self) -> None:
        self.frame = 0

    def tick(self) -> float:
        now = self.frame / FPS
        self.frame += 1
        return now


def feed(detector: SettleDetector, frames: list[np.ndarray], clock: Clock) -> list[SettleUpdate]:
    return [detector.update(frame, clock.tick()) for frame in frames]


def rolling_frames(final: list[tuple[int, int, int]], count: int = 20) -> list[np.ndarray]:
    """Dice tumbling towards their final spots, a new face each frame."""
    frames = []
    for step in range(count):
        left = count - step
        frames.append(scene([(x + 9 * left, y - 4 * left, 1 + (v + step) % 6) for x, y, v in final]))
    return frames


def still(frame: np.ndarray, count: int) -> list[np.ndarray]:
    return [frame] * count


FINAL = [(200, 200, 3), (300, 240, 5), (420, 180, 6)]


def test_one_settle_per_roll_and_never_while_moving() -> None:
    detector = SettleDetector(stillness_s=0.3)
    clock = Clock()
    moving = feed(detector, rolling_frames(FINAL), clock)
    assert all(u.state is SettleState.ROLLING and not u.settled for u in moving)
    after = feed(detector, still(scene(FINAL), 30), clock)
    fired = [i for i, u in enumerate(after) if u.settled]
    # The last moving frame is the start of the stillness window; 0.3 s at 30 fps is 9 frames later.
    assert fired == [9]
    assert after[9].still_for == pytest.approx(0.3)
    assert after[-1].state is SettleState.SETTLED


def test_sensor_noise_does_not_keep_the_tray_rolling() -> None:
    rng = np.random.default_rng(7)
    detector = SettleDetector()
    clock = Clock()
    feed(detector, rolling_frames(FINAL), clock)
    final = scene(FINAL)
    after = feed(detector, [noisy(final, rng) for _ in range(30)], clock)
    assert [u.settled for u in after].count(True) == 1


def test_a_nudged_die_is_read_again() -> None:
    detector = SettleDetector()
    clock = Clock()
    feed(detector, rolling_frames(FINAL) + still(scene(FINAL), 15), clock)
    nudged = [(206, 203, 3)] + FINAL[1:]  # pushed about 7 px
    updates = feed(detector, still(scene(nudged), 15), clock)
    assert updates[0].state is SettleState.ROLLING
    assert [u.settled for u in updates].count(True) == 1


def test_a_hand_passing_over_unchanged_dice_reads_nothing() -> None:
    detector = SettleDetector()
    clock = Clock()
    feed(detector, rolling_frames(FINAL) + still(scene(FINAL), 15), clock)
    reach = [scene(FINAL, hand_at=x) for x in range(600, 380, -40)] + [scene(FINAL, hand_at=x) for x in range(380, 640, 40)]
    updates = feed(detector, reach + still(scene(FINAL), 20), clock)
    assert not any(u.settled for u in updates)
    assert updates[-1].state is SettleState.SETTLED


def test_a_hand_held_still_in_the_tray_is_never_read() -> None:
    detector = SettleDetector(empty_reference=tray())
    clock = Clock()
    feed(detector, rolling_frames(FINAL) + still(scene(FINAL), 15), clock)
    holding = scene([(200, 200, 3), (300, 240, 5)], hand_at=420)  # the hand took the third die
    updates = feed(detector, still(holding, 40), clock)
    assert not any(u.settled for u in updates)
    assert all(u.state is SettleState.ROLLING for u in updates)
    assert updates[-1].hand
    # The hand leaves with the die: two dice remain, a new scene, read once.
    updates = feed(detector, still(scene([(200, 200, 3), (300, 240, 5)]), 20), clock)
    assert [u.settled for u in updates].count(True) == 1


def test_a_slowly_creeping_die_does_not_settle() -> None:
    detector = SettleDetector()
    clock = Clock()
    creeping = [scene([(200 + i, 200, 3)]) for i in range(0, 40)]  # 1 px a frame
    updates = feed(detector, creeping, clock)
    assert not any(u.settled for u in updates)


def test_the_empty_tray_reads_nothing() -> None:
    detector = SettleDetector(empty_reference=tray())
    clock = Clock()
    updates = feed(detector, still(tray(), 20), clock)
    assert not any(u.settled for u in updates)
    assert updates[-1].state is SettleState.EMPTY
    updates = feed(detector, rolling_frames(FINAL) + still(scene(FINAL), 15), clock)
    assert [u.settled for u in updates].count(True) == 1


def test_mark_empty_learns_the_empty_tray() -> None:
    detector = SettleDetector()
    clock = Clock()
    updates = feed(detector, still(tray(), 15), clock)
    assert [u.settled for u in updates].count(True) == 1  # nothing known yet: read once, find no dice
    detector.mark_empty()
    assert detector.state is SettleState.EMPTY
    feed(detector, rolling_frames(FINAL) + still(scene(FINAL), 15), clock)
    # The dice are picked up: the tray is empty again, and nothing is read.
    updates = feed(detector, [scene(FINAL, hand_at=300)] * 3 + still(tray(), 20), clock)
    assert not any(u.settled for u in updates)
    assert updates[-1].state is SettleState.EMPTY


def test_low_frame_rate_needs_several_still_frames() -> None:
    detector = SettleDetector(stillness_s=0.3, min_still_frames=3)
    final = scene(FINAL)
    assert not detector.update(rolling_frames(FINAL)[-1], 0.0).settled
    assert not detector.update(final, 0.5).settled  # moved since the last frame
    assert not detector.update(final, 1.0).settled
    assert not detector.update(final, 1.5).settled
    assert detector.update(final, 2.0).settled


def test_request_read_reads_the_same_scene_again() -> None:
    detector = SettleDetector()
    clock = Clock()
    feed(detector, rolling_frames(FINAL) + still(scene(FINAL), 15), clock)
    detector.request_read()
    assert [u.settled for u in feed(detector, still(scene(FINAL), 3), clock)] == [True, False, False]


@pytest.mark.parametrize(
    "frame",
    [
        np.zeros((480, 640), np.uint8),
        np.zeros((480, 640, 3), np.float32),
        np.zeros((8, 8, 3), np.uint8),
        np.zeros((480, 640, 4), np.uint8),
    ],
    ids=["grey", "float", "tiny", "bgra"],
)
def test_a_corrupt_frame_is_refused_and_changes_nothing(frame: np.ndarray) -> None:
    detector = SettleDetector()
    clock = Clock()
    feed(detector, rolling_frames(FINAL) + still(scene(FINAL), 5), clock)
    with pytest.raises(InvalidFrameError, match=r"shape \("):
        detector.update(frame, clock.tick())
    updates = feed(detector, still(scene(FINAL), 10), clock)
    assert [u.settled for u in updates].count(True) == 1


def test_a_new_frame_size_starts_over() -> None:
    detector = SettleDetector()
    clock = Clock()
    feed(detector, rolling_frames(FINAL) + still(scene(FINAL), 15), clock)
    small = cv2.resize(scene(FINAL), (320, 240))
    assert [u.settled for u in feed(detector, still(small, 15), clock)].count(True) == 1


@pytest.mark.parametrize(
    "kwargs", [{"stillness_s": 0}, {"min_still_frames": 0}, {"threshold": 0}, {"min_changed": 1.5}]
)
def test_bad_settings_are_refused_naming_the_value(kwargs: dict[str, float]) -> None:
    (name, value), = kwargs.items()
    with pytest.raises(ValueError, match=f"{name} .*{value!r}"):
        SettleDetector(**kwargs)  # type: ignore[arg-type]


def test_a_hand_that_never_moves_is_taken_for_the_tray_after_the_timeout() -> None:
    # Real hands tremble; a "hand" perfectly still for 3 s is a skin-coloured thing lying there.
    detector = SettleDetector(empty_reference=tray(), hand_timeout_s=1.0)
    clock = Clock()
    feed(detector, rolling_frames(FINAL) + still(scene(FINAL), 15), clock)
    updates = feed(detector, still(scene(FINAL, hand_at=420), 60), clock)
    fired = [i for i, u in enumerate(updates) if u.settled]
    # 1 s of "hand" (30 frames), then the 0.3 s stillness window.
    assert len(fired) == 1 and 38 <= fired[0] <= 41


def test_new_light_on_a_skin_coloured_tray_is_not_a_hand() -> None:
    wood = np.full((H, W, 3), (120, 160, 210), np.uint8)  # a light wood, in the skin-colour box
    brighter = cv2.convertScaleAbs(wood, alpha=1.2)
    detector = SettleDetector(empty_reference=wood)
    clock = Clock()
    feed(detector, still(wood, 15), clock)
    updates = feed(detector, still(brighter, 15), clock)
    assert not any(u.hand for u in updates[1:])
    assert [u.settled for u in updates].count(True) == 1
