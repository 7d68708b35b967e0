"""Measures how calibrated profiles read small Dice Masters dice (the figures in docs/dice-masters.md).

For each card of the demo's setup, a profile is built from 5 tray photos per face of its die (the
demo's simulated dice: 40 px across on the demo's light wooden tray, or ``--tray felt`` on a dark
green cloth; a glyph per face with its number in a corner, the setup's colour), then 15 fresh
frames of 1-4 of its dice are read with it. A die counts as right when it is read as a face of
the right notation (two faces of one notation play the same), also where it is unsure between
faces of that one notation (the game reads it so); misread when it is read as a face of another
notation.

Run: ``nice .venv/bin/python scripts/measure_dice_masters.py [--tray wood|felt] [--no-embedding]``
(a minute or two; prints one line per card and the total).
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from calibration.build import build_from_folder
from firmware_host.seed_demo import _design
from hardware.sim import Background, DieDesign, DieStyle, random_scene, render_tray
from rules.dicemasters.cards import load_card
from vision.profile_reader import TrayHint
from vision.types import DieStatus

TRAYS = {"wood": Background("wood", (170, 205, 222), 3), "felt": Background("plain", (50, 80, 40), 3)}
DIE_PX = 40.0
#: The demo setup's cards and their dice's colours.
CARDS = {
    "sidekick": "white", "martian-manhunter": "green", "batman": "black", "wonder-woman-champion-of-themyscira": "blue",
    "zatanna": "purple", "anger-issues": "red", "villainous-pact": "grey",
}  # fmt: skip


def calibration_folder(folder: Path, design: DieDesign, style: DieStyle, rng: np.random.Generator, tray: Background = TRAYS["wood"]) -> Path:
    """Five tray photos per face, in folders ``f1``..``f6`` (notations are not folder names), and a
    faces.toml giving each its number and its notation as the symbol."""
    counts: Counter[int] = Counter()
    while min(counts[v] for v in range(1, 7)) < 5:
        rendered = render_tray(random_scene(rng, 1, designs=[design], styles=[style], tilt_deg=0, background=tray, die_px=DIE_PX), rng)
        truth = rendered.truth[0]
        x, y, w, h = truth.box
        if truth.status is not DieStatus.OK or counts[truth.value] >= 5 or min(x, y) < 30 or x + w > 600 or y + h > 440:
            continue
        (folder / f"f{truth.value}").mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / f"f{truth.value}" / f"{counts[truth.value]}.png"), rendered.frame)
        counts[truth.value] += 1
    (folder / "faces.toml").write_text("\n".join(f'[faces.f{f.value}]\nvalue = {f.value}\nsymbol = "{f.symbol}"\n' for f in design.faces))
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-embedding", action="store_true", help="read with the exemplars alone")
    parser.add_argument("--tray", choices=sorted(TRAYS), default="wood", help="the tray calibrated and read on (default wood)")
    args = parser.parse_args(argv)
    tray = TRAYS[args.tray]
    if args.no_embedding:
        import calibration.profiles

        calibration.profiles.shared_embedding = lambda: None
    total: Counter[str] = Counter()
    for n, (card, colour) in enumerate(CARDS.items()):
        design = _design(load_card(card))
        style = DieStyle.parse(f"{colour}/{'black' if colour == 'white' else 'white'}")
        rng = np.random.default_rng(7000 + n)
        with tempfile.TemporaryDirectory() as tmp:
            profile = build_from_folder(card, calibration_folder(Path(tmp), design, style, rng, tray))
        reader = profile.reader(TrayHint())
        notation = {f"f{f.value}": f.symbol for f in design.faces}
        outcome: Counter[str] = Counter()
        for _ in range(15):
            scene = random_scene(rng, int(rng.integers(1, 5)), designs=[design], styles=[style], tilt_deg=0, background=tray, die_px=DIE_PX)
            rendered = render_tray(scene, rng)
            for truth, die in rendered.found_in(reader.read(rendered.frame).dice):
                true = notation[f"f{truth.value}"]
                if die is None:
                    outcome["missed"] += 1
                elif die.ok:
                    outcome["right" if notation.get(str(die.face)) == true else "misread"] += 1
                elif die.candidates and len({notation.get(c) for c in die.candidates}) == 1:
                    # unsure only between faces of one notation: the game reads it as that face
                    outcome["right" if notation.get(die.candidates[0]) == true else "misread"] += 1
                else:
                    outcome["unreadable"] += 1
        print(card, dict(outcome), flush=True)
        total += outcome
    print("total", dict(total))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
