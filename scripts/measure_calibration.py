"""Measures custom-die calibration as a player would use it (the figures in docs/calibration.md).

1. Simulated hero dice (``DieDesign.barbarian()``: sword 1-3 differing only in a corner number,
   heart 4-5, a burst on 6), at 48, 60 and 80 px: a profile from 5 tray photos per face, then fresh
   frames of 1-5 dice (seeds never used elsewhere) read with it; and frames of a foreign set
   (moon elf) read with the same profile. Then the same profile at a table unlike the one it was
   calibrated at: other trays, lamps, exposure, noise and blur, views up to 20 degrees off. Then,
   from the same seeds, a profile calibrated on a light wooden tray and read on it
   (``own_table_wood``): white dice on a tray about as light, grain and soft shadows.
2. Real pip dice: a profile from 5 crops per face (the die plus a fifth of its size round it) of
   ``real-d6`` and of ``byler-d6-train``, then the other photos of that folder read with it,
   scored against the labels as given and, the same readings, against the labels corrected where
   they were checked by eye (``vision/training/label_corrections.json``: train and val photos only).
3. Reading time: the profile's reader against the plain reader on the same frames.

Run: ``nice .venv/bin/python scripts/measure_calibration.py [--frames N] [--photos N] [--seed S]
[--no-embedding] [--shots N]`` (a few minutes; prints one JSON object). ``--no-embedding`` reads
with the exemplars alone, without the face embedding's opinion; ``--shots`` builds each profile
from N photos (or crops) per face instead of 5.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.build import build_from_folder
from calibration.profiles import DieProfile
from hardware.sim import Background, DieDesign, DieStyle, random_scene, render_tray
from hardware.sim.training import random_lighting, random_optics, random_tray
from vision.dataset import Dataset, load_dataset
from vision.evaluate import EvalReport, evaluate, score_image
from vision.learned import LearnedReader
from vision.profile_reader import TrayHint
from vision.reader import DiceReader
from vision.training.data import corrected, label_corrections
from vision.types import DieStatus, FrameReading

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FELT = Background("plain", (50, 80, 40), 5)
#: A light wooden tray with grain, about as light as white dice: the tray a player's own table
#: often is. Hero dice are calibrated on it and read on it too (``own_table_wood``).
WOOD = Background("wood", (170, 205, 222), 5)
HERO = DieDesign.barbarian()
FOREIGN = DieDesign.moon_elf()
SHOTS = 5


def faces_toml(design: DieDesign) -> str:
    return "\n".join(f'[faces.{f.label}]\nvalue = {f.value}\nsymbol = "{f.symbol}"\n' for f in design.faces)


def hero_profile(folder: Path, die_px: float, seed: int, shots: int = SHOTS, tray: Background = FELT) -> DieProfile:
    """A profile from ``shots`` photos per face of one die lying well inside the frame on ``tray``."""
    rng = np.random.default_rng(seed)
    counts: Counter[str] = Counter()
    while min(counts[f.label] for f in HERO.faces) < shots:
        scene = random_scene(rng, 1, designs=[HERO], styles=[DieStyle()], tilt_deg=0, background=tray, die_px=die_px)
        rendered = render_tray(scene, rng)
        truth = rendered.truth[0]
        x, y, w, h = truth.box
        if truth.status is not DieStatus.OK or counts[truth.face] >= shots or min(x, y) < 30 or x + w > 600 or y + h > 440:
            continue
        (folder / truth.face).mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / truth.face / f"{counts[truth.face]}.png"), rendered.frame)
        counts[truth.face] += 1
    (folder / "faces.toml").write_text(faces_toml(HERO))
    return build_from_folder("hero", folder)


def hero_reads(
    profile: DieProfile, design: DieDesign, die_px: float, seed: int, frames: int, varied: bool = False, tray: Background = FELT
) -> tuple[Counter[str], list[float]]:
    """How every whole die of ``frames`` fresh frames on ``tray`` read, and the ms of each frame;
    ``varied``: on random trays, in random light and optics, up to 20 degrees off vertical."""
    reader = profile.reader(TrayHint())
    symbols = {f.label: f.symbol for f in HERO.faces}
    rng = np.random.default_rng(seed)
    outcome: Counter[str] = Counter()
    times = []
    for _ in range(frames):
        dice = int(rng.integers(1, 6))
        if varied:
            scene = random_scene(
                rng, dice, designs=[design], styles=[DieStyle()], tilt_deg=float(rng.uniform(0, 20)), die_px=die_px,
                background=random_tray(rng, 640, 480), lighting=random_lighting(rng), optics=random_optics(rng),
            )  # fmt: skip
        else:
            scene = random_scene(rng, dice, designs=[design], styles=[DieStyle()], tilt_deg=0, background=tray, die_px=die_px)
        rendered = render_tray(scene, rng)
        start = time.perf_counter()
        dice = reader.read(rendered.frame).dice
        times.append((time.perf_counter() - start) * 1000.0)
        for truth, die in rendered.found_in(dice):
            if die is None:
                outcome["missed"] += 1
                continue
            if design is not HERO:
                outcome["read" if die.ok else "unreadable"] += 1
                continue
            truth_symbol = symbols[truth.face]
            if die.ok:
                if die.symbol != truth_symbol:
                    outcome["wrong symbol"] += 1
                else:
                    outcome["right" if die.face == truth.face else "wrong number"] += 1
            elif die.candidates:
                if die.symbol is not None and die.symbol != truth_symbol:
                    outcome["wrong symbol"] += 1
                else:
                    outcome["unsure, truth among candidates" if truth.face in die.candidates else "unsure, truth not a candidate"] += 1
            else:
                outcome[f"not read ({die.status.value})"] += 1
    return outcome, times


def real_profile_and_rest(folder: Path, work: Path, shots: int = SHOTS) -> tuple[DieProfile, Dataset]:
    """A profile from ``shots`` crops per face of ``folder`` (the die and a fifth of its size round it)
    and the photos none of them came from. real-d6's boxes are of the pips (a one's is the pip): the
    die the detector finds at the box is cut instead."""
    dataset = load_dataset(folder)
    detector = LearnedReader()
    counts: Counter[int] = Counter()
    used = set()
    for item in sorted(dataset.images, key=lambda i: i.name):
        if min(counts[v] for v in range(1, 7)) >= shots:
            break
        frame = item.load()
        found = detector.find(frame) if folder.name == "real-d6" else []
        for die in item.dice:
            if counts[die.value] >= shots:
                continue
            x, y, w, h = die.box
            cx, cy, side = x + w / 2, y + h / 2, float(max(w, h))
            if folder.name == "real-d6":
                near = [f for f in found if abs(f.cx - cx) < side and abs(f.cy - cy) < side]
                if not near:
                    continue
                best = min(near, key=lambda f: (f.cx - cx) ** 2 + (f.cy - cy) ** 2)
                cx, cy, side = best.cx, best.cy, best.size
            half = side * 0.7
            x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
            crop = frame[y0 : int(cy + half), x0 : int(cx + half)]
            (work / str(die.value)).mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(work / str(die.value) / f"{item.name}-{counts[die.value]}.png"), crop)
            counts[die.value] += 1
            used.add(item.name)
    profile = build_from_folder(folder.name, work)
    rest = tuple(i for i in dataset.images if i.name not in used)
    return profile, Dataset(dataset.folder, rest)


def against_corrected_labels(dataset: Dataset, report: EvalReport) -> EvalReport:
    """``report``'s readings of ``dataset`` scored again against the folder's label corrections
    (those of the photos it holds), nothing read again."""
    fixes = label_corrections(dataset.folder.resolve().name)
    return EvalReport(
        tuple(
            score_image(item.name, corrected(item.name, item.dice, fixes), FrameReading(result.read, result.ms))
            for item, result in zip(dataset.images, report.results)
        )
    )


def timed(read: Any, frames: list[Any]) -> float:
    """Mean ms per frame (after one warm-up read)."""
    read(frames[0])
    start = time.perf_counter()
    for frame in frames:
        read(frame)
    return (time.perf_counter() - start) * 1000.0 / len(frames)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=40, help="fresh frames per die size (default 40)")
    parser.add_argument("--photos", type=int, default=0, help="read at most this many other photos per real folder (0: all)")
    parser.add_argument("--seed", type=int, default=9100, help="first seed (default 9100, never used by the tests)")
    parser.add_argument("--no-embedding", action="store_true", help="read with the exemplars alone")
    parser.add_argument("--shots", type=int, default=SHOTS, help=f"photos or crops per face a profile is built from (default {SHOTS})")
    args = parser.parse_args(argv)
    if args.no_embedding:
        import calibration.profiles

        calibration.profiles.shared_embedding = lambda: None
    out: dict[str, Any] = {"hero": {}, "real": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for n, die_px in enumerate((48.0, 60.0, 80.0)):
            seed = args.seed + 10 * n
            profile = hero_profile(Path(tmp) / f"hero-{int(die_px)}", die_px, seed, args.shots)
            own, times = hero_reads(profile, HERO, die_px, seed + 1, args.frames)
            foreign, _ = hero_reads(profile, FOREIGN, die_px, seed + 2, args.frames // 2)
            elsewhere, _ = hero_reads(profile, HERO, die_px, seed + 3, args.frames, varied=True)
            foreign_elsewhere, _ = hero_reads(profile, FOREIGN, die_px, seed + 4, args.frames // 2, varied=True)
            seen = sum(own.values())
            told = own["right"] + own["wrong number"] + own["wrong symbol"]
            foreign_seen = foreign["read"] + foreign["unreadable"]
            out["hero"][f"{int(die_px)}px"] = {
                "dice": seen,
                "outcome": dict(own),
                "right_of_dice_read_ok": round(own["right"] / max(1, told), 4),
                "right_of_all_dice": round(own["right"] / max(1, seen), 4),
                "wrong_symbol": own["wrong symbol"],
                "unsure_pairs_reported": profile.fit.get("unsure", []),
                "foreign_dice": foreign_seen,
                "foreign_unreadable": round(foreign["unreadable"] / max(1, foreign_seen), 4),
                "foreign_missed": foreign["missed"],
                "ms_per_frame": round(float(np.mean(times)), 1),
                "other_table": {
                    "outcome": dict(elsewhere),
                    "right_of_all_dice": round(elsewhere["right"] / max(1, sum(elsewhere.values())), 4),
                    "foreign_unreadable": round(foreign_elsewhere["unreadable"] / max(1, foreign_elsewhere["read"] + foreign_elsewhere["unreadable"]), 4),
                },
            }
            # The same seeds, calibrated and read on a light wooden tray (the player's own table).
            on_wood = hero_profile(Path(tmp) / f"hero-wood-{int(die_px)}", die_px, seed, args.shots, tray=WOOD)
            own_wood, _ = hero_reads(on_wood, HERO, die_px, seed + 1, args.frames, tray=WOOD)
            foreign_wood, _ = hero_reads(on_wood, FOREIGN, die_px, seed + 2, args.frames // 2, tray=WOOD)
            told_wood = own_wood["right"] + own_wood["wrong number"] + own_wood["wrong symbol"]
            out["hero"][f"{int(die_px)}px"]["own_table_wood"] = {
                "outcome": dict(own_wood),
                "right_of_dice_read_ok": round(own_wood["right"] / max(1, told_wood), 4),
                "right_of_all_dice": round(own_wood["right"] / max(1, sum(own_wood.values())), 4),
                "wrong_symbol": own_wood["wrong symbol"],
                "foreign_unreadable": round(foreign_wood["unreadable"] / max(1, foreign_wood["read"] + foreign_wood["unreadable"]), 4),
                "left_out_photos": len(on_wood.fit.get("left_out", [])),
            }
            print(json.dumps({f"hero {int(die_px)}px": out["hero"][f"{int(die_px)}px"]}), file=sys.stderr, flush=True)
        for name in ("real-d6", "byler-d6-train"):
            folder = DATA / name
            if not folder.is_dir():
                continue
            profile, rest = real_profile_and_rest(folder, Path(tmp) / name, args.shots)
            if args.photos:
                rest = Dataset(rest.folder, rest.images[:: max(1, len(rest.images) // args.photos)][: args.photos])
            report = evaluate(rest, profile.reader().read, progress=None)
            checked = against_corrected_labels(rest, report)
            frames = [item.load() for item in rest.images[:12]]
            plain = DiceReader()
            out["real"][name] = {
                "photos": len(rest.images),
                "finder": profile.finder,
                "precision": round(report.precision, 4),
                "recall": round(report.recall, 4),
                "labels_corrected_where_checked": {"precision": round(checked.precision, 4), "recall": round(checked.recall, 4)},
                "ms_per_frame_profile": round(timed(profile.reader().read, frames), 1),
                "ms_per_frame_plain": round(timed(plain.read, frames), 1),
                "unsure_pairs_reported": profile.fit.get("unsure", []),
            }
            print(json.dumps({name: out["real"][name]}), file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
