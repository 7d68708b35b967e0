"""`dicetray` subcommands: read, eval."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from firmware_host.errors import UsageError


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds this module's subcommands to the `dicetray` parser."""
    read = subparsers.add_parser(
        "read",
        help="read the dice in still images",
        description="Find every die in each image and read its top face.",
    )
    read.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG, ...)")
    read.add_argument("--profile", metavar="NAME", help="a calibrated die profile (saved name or path)")
    read.add_argument("--hero", metavar="HERO", help="give each die the symbol it shows for this hero")
    read.add_argument("--model", metavar="DIR", type=Path, help="a learned model folder other than the shipped one")
    read.add_argument("--json", action="store_true", help="one JSON object per image, one per line")
    read.add_argument("--annotate", metavar="DIR", type=Path, help="write a debug image per input into DIR")
    read.set_defaults(handler=run_read)

    evaluate = subparsers.add_parser(
        "eval",
        help="accuracy and speed on a labelled folder",
        description="Read every image of a labelled folder (images plus labels.json) and score the reads.",
    )
    evaluate.add_argument("dataset", metavar="DATASET", type=Path, help="folder with images and labels.json")
    evaluate.add_argument("--profile", metavar="NAME", help="a calibrated die profile (saved name or path)")
    evaluate.add_argument("--json", action="store_true", help="print the report as one JSON object")
    evaluate.add_argument("--model", metavar="DIR", type=Path, help="a learned model folder other than the shipped one")
    evaluate.add_argument(
        "--split",
        choices=("held-out", "val", "train", "all"),
        help="which images to read; a folder the model was trained on defaults to its held-out split, any other to all",
    )
    evaluate.add_argument(
        "--overhead",
        action="store_true",
        help="read as for a tray whose camera looks straight down: the pip reader checks only frames where the learned reader left a die unsure",
    )
    evaluate.add_argument(
        "--shift",
        metavar="NAME",
        help="read each photo as another camera would have taken it (vision.camera_shifts): "
        "12mp, wide (dice smaller), dim, bright, warm, soft, jpeg, noisy, turned",
    )
    evaluate.set_defaults(handler=run_eval)


def make_reader(profile: str | None, model: Path | None = None, *, overhead: bool | None = None, watch_view: bool = False) -> Any:
    """The reader for ``--profile`` (``None``: plain pip dice, with the learned ``model`` folder if
    given); several profiles, comma-separated, read a tray of dice of several designs.

    ``overhead``, for plain pip dice: ``None`` reads frames of the saved tray's camera as seen
    straight down where that camera looks so (:func:`calibration.tray.overhead_frames`: the pip
    check only for a frame with an unsure die), ``True`` every frame so, ``False`` none.
    ``watch_view``: the reader tells the view from the rolls it reads (one camera's, in order:
    :class:`vision.view.ViewWatch`) and reads them so once it is told."""
    from vision.reader import DiceReader
    from vision.view import ViewWatch

    if profile is None:
        from calibration.tray import overhead_frames

        frames: tuple[int, int] | str | None = overhead_frames() if overhead is None else ("any" if overhead else None)
        watch = ViewWatch() if watch_view else None
        if model is None:
            return DiceReader(overhead_frames=frames, view_watch=watch)
        from vision.learned import LearnedModel, LearnedReader

        return DiceReader(learned=LearnedReader(LearnedModel(model)), overhead_frames=frames, view_watch=watch)
    if model is not None:
        raise UsageError("--model and --profile cannot be used together: a profile brings its own reader")
    from calibration.profiles import load_profile
    from calibration.tray import saved_tray_hint

    names = [name.strip() for name in profile.split(",") if name.strip()]
    hint = saved_tray_hint()
    if len(names) == 1:
        return load_profile(names[0]).reader(hint)
    # Dice of several designs in one tray (a Dice Masters roll): every profile reads the frame.
    from vision.profile_set import NamedReader, ProfileSetReader

    twice = [name for index, name in enumerate(names) if name in names[:index]]
    if twice:
        raise UsageError(f"profile {twice[0]!r} is named twice in {profile!r}")
    return ProfileSetReader([NamedReader(name, load_profile(name).reader(hint)) for name in names])


def _with_symbols(reading: Any, hero: Any) -> Any:
    """The reading with each die's hero symbol: the hero file maps numbers to symbols."""
    import dataclasses

    dice = tuple(
        dataclasses.replace(d, symbol=hero.symbol_for(d.value)) if d.ok and d.value is not None else d
        for d in reading.dice
    )
    return dataclasses.replace(reading, dice=dice)


def run_read(args: argparse.Namespace) -> int:
    from vision.annotate import annotate
    from vision.errors import ImageLoadError, InvalidFrameError
    from vision.imageio import load_image

    reader = make_reader(args.profile, args.model)
    hero = None
    if args.hero is not None:
        from firmware_host.heroes import find_hero

        hero = find_hero(args.hero)  # an unknown hero is a usage error before any image is read
    if args.annotate is not None:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(f"--annotate {str(args.annotate)!r}: cannot create folder: {error.strerror}") from None
    unread = 0
    for name in args.images:
        try:
            frame = load_image(name)
            reading = reader.read(frame)
        except (ImageLoadError, InvalidFrameError) as error:
            # One bad image among many is named and skipped; the others are still read.
            print(f"dicetray read: error: {error if name in str(error) else f'{name!r}: {error}'}", file=sys.stderr, flush=True)
            unread += 1
            continue
        if hero is not None:
            reading = _with_symbols(reading, hero)
        if args.json:
            print(json.dumps({"image": name, **reading.to_json()}), flush=True)
        else:
            print(_describe(name, reading), flush=True)
        if args.annotate is not None:
            _write_annotated(args.annotate / (Path(name).stem + ".png"), annotate(frame, reading))
    return 2 if unread else 0


def _describe(name: str, reading: Any) -> str:
    parts = []
    for die in reading.dice:
        parts.append(die.text() if die.ok or die.candidates else die.status.value)
    dice = " ".join(parts) if parts else "no dice"
    return f"{name}: {dice} ({reading.ms:.1f} ms)"


def _write_annotated(path: Path, image: Any) -> None:
    import cv2

    ok, data = cv2.imencode(".png", image)
    try:
        if not ok:
            raise OSError(0, "PNG encoding failed")
        path.write_bytes(data.tobytes())
    except OSError as error:
        raise UsageError(f"--annotate: cannot write {str(path)!r}: {error.strerror}") from None


def run_eval(args: argparse.Namespace) -> int:
    from vision.dataset import load_dataset
    from vision.evaluate import evaluate
    from vision.splits import HELD_OUT, subset

    dataset = load_dataset(args.dataset)
    if args.overhead and args.profile is not None:
        raise UsageError("--overhead is for plain pip dice; a profile brings its own reader")
    # a labelled folder's photos come from cameras of their own, not the saved tray's
    reader = make_reader(args.profile, args.model, overhead=args.overhead)
    trained_on = _trained_on(reader)
    known = dataset.folder.resolve().name in trained_on
    split = args.split or ("held-out" if known else "all")
    if split != "all":
        dataset = subset(dataset, HELD_OUT if split == "held-out" else split)
        if not dataset.images:
            raise UsageError(f"{str(args.dataset)!r}: no images in the {split} split")
    if split == "held-out":
        heading = f"held-out split: {len(dataset.images)} images the model never saw in training or tuning"
    elif split == "all":
        heading = f"all {len(dataset.images)} images" + (" (the model was trained on this folder's train split)" if known else "")
    else:
        heading = f"{split} split: {len(dataset.images)} images" + (" (seen in training)" if split == "train" and known else "")
    shift = None
    if args.shift is not None:
        from vision.camera_shifts import SHIFTS

        if args.shift not in SHIFTS:
            raise UsageError(f"--shift: no shift {args.shift!r}; there are {', '.join(SHIFTS)}")
        shift = SHIFTS[args.shift]
        heading += f", each as shifted by {args.shift!r}: {(shift.__doc__ or '').strip()}"
    if args.overhead:
        heading += ", read as for a tray whose camera looks straight down (the pip check only where a die is unsure)"
    report = evaluate(dataset, reader.read, progress=sys.stderr, shift=shift)
    if args.json:
        print(json.dumps({"dataset": str(args.dataset), "split": split, "shift": args.shift, "overhead": args.overhead, **report.to_json()}))
    else:
        print(heading)
        print(report.summary())
    return 0


def _trained_on(reader: Any) -> frozenset[str]:
    """The real photo folders the reader's learned model was trained on (none for a profile's reader)."""
    learned = getattr(reader, "learned", None)
    return learned.model.trained_on if learned is not None else frozenset()
