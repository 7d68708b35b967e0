"""Speed of the simulated tray (run with ``sh scripts/bench.sh tests/hardware/test_sim_bench.py``).

Target: a 640x480 frame with 5 dice in well under 20 ms on one core, so the live source keeps up
with 30 frames per second alongside the reader. The normal test run executes each once.
"""

from __future__ import annotations

import numpy as np

from hardware.sim import SimulatedTraySource, random_scene, render_tray


def test_bench_full_draw_640x480_five_dice(benchmark) -> None:  # type: ignore[no-untyped-def]
    # Two scenes on the same tray, taken in turn: every frame is drawn in full (dice moved), with
    # the tray surface and face textures cached as in a live source.
    rng = np.random.default_rng(1)
    first = random_scene(rng, 5, background="wood")
    second = first.with_dice(random_scene(np.random.default_rng(2), 5, die_px=first.camera.die_px).dice)
    scenes = [first, second]
    for scene in scenes:
        render_tray(scene, rng)
    turn = [0]

    def one() -> int:
        turn[0] ^= 1
        return len(render_tray(scenes[turn[0]], rng).truth)

    assert benchmark(one) == 5


def test_bench_still_frame_640x480(benchmark) -> None:  # type: ignore[no-untyped-def]
    # Dice at rest: the same scene again, only the sensor noise (and JPEG) is new.
    rng = np.random.default_rng(1)
    scene = random_scene(rng, 5, background="wood")
    first = render_tray(scene, rng)
    tray = benchmark(render_tray, scene, rng)
    assert tray.frame.shape == (480, 640, 3) and tray.truth == first.truth
    assert not np.array_equal(tray.frame, first.frame)  # fresh noise


def test_bench_new_random_scene_each_frame(benchmark) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(2)

    def one() -> int:
        return len(render_tray(random_scene(rng, 5), rng).truth)

    assert benchmark(one) == 5


def test_bench_live_source_frame(benchmark) -> None:  # type: ignore[no-untyped-def]
    src = SimulatedTraySource(3, hold_s=0.5)
    for _ in range(5):
        src.read()
    frame = benchmark(src.read)
    assert frame.shape == (480, 640, 3)
