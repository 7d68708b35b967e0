"""Camera frames of one hero die with each face up, thrown and settled on the simulated tray, for
the calibration wizard's tests (as a player shoots each face)."""

from __future__ import annotations

import numpy as np

from hardware.sim import Background, DieDesign, DieStyle
from hardware.sim.live import SimPhase, SimulatedTraySource

#: Green felt: the artwork dice stand out from it.
FELT = Background("plain", (50, 80, 40), 5)


def settled_face_frames(design: DieDesign, shots: int, seed: int = 4) -> dict[str, list[np.ndarray]]:
    """``shots`` frames per face label of ``design``: the die thrown to land with that face up,
    the frame taken once it lies still and whole in view."""
    tray = SimulatedTraySource(
        seed, n_dice=1, design=design, style=DieStyle(), background=FELT, die_px=60,
        auto_roll=False, pickup=False, hold_s=0.3, fps=10,
    )  # fmt: skip
    frames: dict[str, list[np.ndarray]] = {}
    try:
        for face in design.faces:
            taken: list[np.ndarray] = []
            while len(taken) < shots:
                tray.roll([face.value])
                frame = tray.read()
                for _ in range(200):
                    if tray.phase is SimPhase.SETTLED:
                        break
                    frame = tray.read()
                truth = tray.settled_truth
                if truth and truth[0].face == face.label and truth[0].status.value == "ok":
                    taken.append(frame)
            frames[face.label] = taken
    finally:
        tray.close()
    return frames
