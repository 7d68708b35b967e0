"""The simulated tray as a live camera: tumbling, settling, scripted rolls, hand, nudge, cocked die, unplug."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera import FrameSource, ScriptedRoll, SimPhase, SimulatedTraySource, open_camera
from hardware.errors import CameraUnavailable
from hardware.sim import InvalidScene
from vision.types import DieStatus

SMALL = {"width": 320, "height": 240}


def _run_until(src: SimulatedTraySource, phase: SimPhase, limit: int = 200) -> list[SimPhase]:
    seen = []
    for _ in range(limit):
        src.read()
        seen.append(src.phase)
        if src.phase is phase:
            return seen
    raise AssertionError(f"no {phase} within {limit} frames: {[p.value for p in seen]}")


def _run_until_settled_roll(src: SimulatedTraySource, rolls: int, limit: int = 300) -> list[SimPhase]:
    seen = []
    for _ in range(limit):
        src.read()
        seen.append(src.phase)
        if src.rolls_settled >= rolls and src.phase is SimPhase.SETTLED:
            return seen
    raise AssertionError(f"roll {rolls} did not settle within {limit} frames")


def _collapse(phases: list[SimPhase]) -> list[str]:
    out: list[str] = []
    for p in phases:
        if not out or out[-1] != p.value:
            out.append(p.value)
    return out


def test_is_a_frame_source_and_a_context_manager() -> None:
    with SimulatedTraySource(1, **SMALL) as src:
        assert isinstance(src, FrameSource)
        frame = src.read()
        assert frame.shape == (240, 320, 3) and frame.dtype == np.uint8
    with pytest.raises(CameraUnavailable, match="closed"):
        src.read()


def test_empty_then_rolling_then_settled_with_scripted_values() -> None:
    src = SimulatedTraySource(2, script=[[1, 2, 3, 4, 5]], auto_roll=False, hold_s=0.5, **SMALL)
    phases = _run_until_settled_roll(src, 1)
    assert _collapse(phases) == ["empty", "rolling", "settled"]
    truth = src.settled_truth
    assert truth is not None
    assert sorted(t.value for t in truth) == [1, 2, 3, 4, 5]
    assert all(t.status is DieStatus.OK for t in truth)
    assert sorted(src.settled_values or ()) == [1, 2, 3, 4, 5]
    # Nothing more happens without a script or auto_roll: the dice stay settled.
    for _ in range(40):
        src.read()
    assert src.phase is SimPhase.SETTLED and src.rolls_settled == 1


def test_rolling_frames_change_and_settled_frames_only_carry_noise() -> None:
    src = SimulatedTraySource(3, script=[[6, 6, 6, 6, 6]], auto_roll=False, **SMALL)
    _run_until(src, SimPhase.ROLLING)
    for _ in range(5):
        src.read()
    a = src.read().astype(np.int16)
    b = src.read().astype(np.int16)
    assert src.phase is SimPhase.ROLLING
    moving_diff = np.abs(a - b).max(axis=2)
    assert (moving_diff > 40).sum() > 100  # dice moved between frames
    _run_until_settled_roll(src, 1)
    c = src.read().astype(np.int16)
    d = src.read().astype(np.int16)
    still_diff = np.abs(c - d).max(axis=2)
    assert (still_diff > 40).sum() == 0
    assert 0 < still_diff.mean() < 10  # fresh sensor noise in every frame


def test_dice_in_motion_are_blurred() -> None:
    src = SimulatedTraySource(4, script=[[5] * 5], auto_roll=False, **SMALL)
    _run_until(src, SimPhase.ROLLING)
    for _ in range(4):
        src.read()
    assert src.last is not None
    truth = src.last.truth
    assert any(t.status is DieStatus.UNREADABLE for t in truth)
    assert src.settled_truth is None and src.settled_values is None
    moving = [p for p in src.last.scene.dice if p.moving]
    assert moving and any(np.hypot(*p.motion_px) > 2 for p in moving)


def test_same_seed_same_frames() -> None:
    a = SimulatedTraySource(5, **SMALL)
    b = SimulatedTraySource(5, **SMALL)
    for _ in range(30):
        assert np.array_equal(a.read(), b.read())


def test_keep_rerolls_only_the_other_dice() -> None:
    src = SimulatedTraySource(6, script=[[1, 1, 2, 3, 4]], auto_roll=False, hold_s=0.3, **SMALL)
    _run_until_settled_roll(src, 1)
    before = src.layout
    src.roll([6, 6], keep=[0, 1, 2])
    phases = _run_until_settled_roll(src, 2)
    assert "hand" in _collapse(phases)  # the thrown dice are picked up first
    after = src.layout
    assert after[:3] == before[:3]  # kept dice have not moved
    assert sorted(p.value for p in after) == sorted([p.value for p in before[:3]] + [6, 6])
    assert src.settled_truth is not None
    assert sorted(t.value for t in src.settled_truth) == sorted(p.value for p in after)


def test_random_rolls_continue_with_auto_roll_and_timestamps_are_virtual() -> None:
    src = SimulatedTraySource(7, hold_s=0.2, roll_s=(0.3, 0.4), n_dice=3, **SMALL)
    _run_until_settled_roll(src, 2)
    assert src.rolls_settled == 2
    assert src.timestamp == pytest.approx((src.frame_index - 1) / 30.0)


def test_injected_clock_drives_time() -> None:
    now = [100.0]
    src = SimulatedTraySource(8, clock=lambda: now[0], start_s=0.2, script=[[3, 3]], auto_roll=False, **SMALL)
    src.read()
    assert src.phase is SimPhase.EMPTY and src.timestamp == 0.0
    now[0] += 0.1
    src.read()
    assert src.phase is SimPhase.EMPTY
    now[0] += 0.2
    src.read()
    assert src.phase is SimPhase.ROLLING
    now[0] += 5.0
    src.read()
    assert src.phase is SimPhase.SETTLED and sorted(src.settled_values or ()) == [3, 3]
    assert src.timestamp == pytest.approx(5.3)


def test_hand_in_the_tray_hides_the_settled_state() -> None:
    src = SimulatedTraySource(9, script=[[2, 2, 2, 2, 2]], auto_roll=False, **SMALL)
    _run_until_settled_roll(src, 1)
    truth = src.settled_truth
    src.show_hand(0.5)
    phases = _run_until(src, SimPhase.SETTLED, limit=60)
    assert SimPhase.HAND in phases
    assert src.settled_truth is not None
    assert [t.value for t in src.settled_truth] == [t.value for t in truth or ()]
    assert src.rolls_settled == 1  # a hand is not a roll


def test_hand_frames_show_the_hand() -> None:
    src = SimulatedTraySource(10, script=[[4, 4]], auto_roll=False, background="plain", **SMALL)
    _run_until_settled_roll(src, 1)
    settled = src.read().astype(np.int16)
    src.show_hand(1.0)
    for _ in range(12):
        frame = src.read()
    assert src.phase is SimPhase.HAND and src.settled_truth is None
    diff = np.abs(frame.astype(np.int16) - settled).max(axis=2)
    assert (diff > 40).mean() > 0.05


def test_nudge_moves_a_die_and_it_settles_again_with_its_value() -> None:
    src = SimulatedTraySource(11, script=[[1, 2, 3]], auto_roll=False, **SMALL)
    _run_until_settled_roll(src, 1)
    before = src.layout
    src.nudge(1)
    phases = []
    for _ in range(60):
        src.read()
        phases.append(src.phase)
        assert src.last is not None
        # Pushed, not flipped: the die shows the same face all the way.
        assert [p.value for p in src.last.scene.dice] == [p.value for p in before]
        assert all(not p.cocked for p in src.last.scene.dice)
        if src.rolls_settled == 2 and src.phase is SimPhase.SETTLED:
            break
    assert SimPhase.ROLLING in phases and src.rolls_settled == 2
    after = src.layout
    assert [p.value for p in after] == [p.value for p in before]
    assert (after[1].x_mm, after[1].y_mm) != (before[1].x_mm, before[1].y_mm)
    assert after[0] == before[0] and after[2] == before[2]
    with pytest.raises(InvalidScene, match="7"):
        src.nudge(7)


def test_scripted_cocked_die() -> None:
    src = SimulatedTraySource(12, script=[ScriptedRoll((1, 2, 3, 4, 5), cocked=(4,))], auto_roll=False, **SMALL)
    _run_until_settled_roll(src, 1)
    truth = src.settled_truth
    assert truth is not None
    assert [t.status for t in truth].count(DieStatus.COCKED) == 1
    assert len(src.settled_values or ()) == 4


def test_unplug_for_some_frames_then_resume() -> None:
    src = SimulatedTraySource(13, script=[[5, 5, 5]], auto_roll=False, **SMALL)
    _run_until_settled_roll(src, 1)
    index = src.frame_index
    src.fail(3)
    for _ in range(3):
        with pytest.raises(CameraUnavailable, match="unplugged"):
            src.read()
    frame = src.read()
    assert frame.shape == (240, 320, 3)
    assert src.frame_index == index + 4  # time went on while it was unplugged
    assert sorted(src.settled_values or ()) == [5, 5, 5]


def test_bad_requests_are_refused() -> None:
    with pytest.raises(InvalidScene, match="0"):
        SimulatedTraySource(n_dice=0)
    src = SimulatedTraySource(14, script=[[1, 2]], auto_roll=False, **SMALL)
    src.roll([3], keep=[5])
    with pytest.raises(InvalidScene, match=r"\[5\]"):
        for _ in range(60):
            src.read()


def test_open_camera_sim_spec() -> None:
    with open_camera("sim:21", width=320, height=240) as src:
        assert isinstance(src, SimulatedTraySource)
        assert src.read().shape == (240, 320, 3)
    a = open_camera("sim")
    assert isinstance(a, SimulatedTraySource)
    a.close()


def test_sim_frames_look_like_dice_to_a_blob_detector() -> None:
    # A plain sanity check that the settled frame holds the pips it claims: dark blobs inside each
    # top-face box of white dice with black pips, seen straight down.
    from hardware.sim import DieStyle

    src = SimulatedTraySource(
        15, script=[[1, 2, 3, 4, 5]], auto_roll=False, style=DieStyle.parse("white/black"), background="plain", **SMALL
    )
    _run_until_settled_roll(src, 1)
    frame = src.read()
    truth = src.settled_truth
    assert truth is not None
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    for t in truth:
        quad = np.array(t.quad)
        centre = quad.mean(axis=0)
        # Shrink the face to its inner 80% so the dark edges do not count.
        inner = (centre + (quad - centre) * 0.8).astype(np.int32)
        mask = np.zeros_like(grey)
        cv2.fillConvexPoly(mask, inner, 255)
        face = np.where(mask > 0, grey, 255)
        dark = ((face < 110) & (mask > 0)).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
        pips = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] >= 3]
        assert len(pips) == t.value


def test_paced_frames_come_at_the_frame_rate_of_the_clock() -> None:
    now = [50.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    src = SimulatedTraySource(16, fps=10, clock=lambda: now[0], pace=True, sleep=sleep, **SMALL)
    stamps = []
    for _ in range(5):
        src.read()
        stamps.append(src.timestamp)
        now[0] += 0.02  # the caller's own work between frames
    assert stamps == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    assert sum(slept) == pytest.approx(0.4 - 4 * 0.02)


def test_live_hero_dice_carry_their_symbols() -> None:
    from hardware.sim import DieDesign, DieStyle

    src = SimulatedTraySource(
        17, script=[[1, 4, 6]], auto_roll=False, design=DieDesign.barbarian(), style=DieStyle.parse("red/white"), **SMALL
    )
    _run_until_settled_roll(src, 1)
    truth = src.settled_truth
    assert truth is not None
    assert sorted((t.value, t.face, t.symbol) for t in truth) == [
        (1, "sword-1", "sword"),
        (4, "heart-4", "heart"),
        (6, "strength-6", "strength"),
    ]
    assert sorted(src.settled_values or ()) == [1, 4, 6]  # the truth, whatever reads it
    # A pip reader cannot read hero faces; a calibrated one reads them all.
    assert src.last is not None
    assert src.last.reading().values == ()
    assert sorted(src.last.reading(calibrated=True).values) == [1, 4, 6]
