"""`dicetray train`: rebuild the learned reader's models from rendered trays and real photos;
`dicetray train-embedding`: rebuild the face embedding calibrated profiles are matched with.

Both need the ``train`` extra (PyTorch). The rendered training set is drawn by the simulated tray
(:mod:`hardware.sim.training`, :mod:`hardware.sim.identity`) into the work folder first; then
:func:`vision.training.train.train` (or :func:`vision.training.embedding.train_embedding`) trains
and writes the ONNX files and their records into ``--out``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from firmware_host.errors import UsageError


def _real_source(text: str) -> tuple[str, str, float]:
    folder, _, rest = text.partition(":")
    boxes, _, weight_text = rest.partition(":")
    boxes = boxes or "die"
    if boxes not in ("die", "face"):
        raise argparse.ArgumentTypeError(f"{text!r}: the box kind after ':' must be 'die' or 'face'")
    try:
        weight = float(weight_text) if weight_text else 1.0
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: the weight after the box kind must be a number") from None
    if not 0.0 < weight <= 100.0:
        raise argparse.ArgumentTypeError(f"{text!r}: the weight must be above 0 and at most 100")
    return folder, boxes, weight


def register(subparsers: "argparse._SubParsersAction[Any]") -> None:
    """Adds ``train`` to the `dicetray` parser."""
    train = subparsers.add_parser(
        "train",
        help="rebuild the learned reader's models (needs the train extra)",
        description=(
            "Render a training set on the simulated tray, train the dice detector and the face network on it and "
            "on the train split of real labelled folders, and write the ONNX models and model.json."
        ),
    )
    train.add_argument(
        "--real",
        metavar="DIR[:die|face[:WEIGHT]]",
        action="append",
        type=_real_source,
        default=[],
        help=(
            "a labelled folder of real photos (repeatable); ':face' when its boxes bound the top face, not the whole "
            "die; WEIGHT its share of the face network's real samples against the other folders (default 1)"
        ),
    )
    train.add_argument("--out", type=Path, required=True, help="folder for the models (vision/models to replace the shipped ones)")
    train.add_argument("--work", type=Path, help="folder for the rendered set and checkpoints (default: OUT/work)")
    train.add_argument("--rendered", type=int, default=6000, metavar="N", help="rendered training frames (default 6000)")
    train.add_argument("--real-weight", type=float, default=0.5, help="share of the detector's samples from real photos, 0-1 (default 0.5)")
    train.add_argument(
        "--face-real-weight", type=float, default=0.65, help="share of the face network's samples from real photos, 0-1 (default 0.65)"
    )
    train.add_argument("--detector-steps", type=int, default=3000)
    train.add_argument("--face-steps", type=int, default=6000)
    train.add_argument("--detector-batch", type=int, default=24)
    train.add_argument("--face-batch", type=int, default=192)
    train.add_argument("--face-width", type=int, default=48, help="channels of the face network's first stage (default 48)")
    train.add_argument(
        "--face-separable",
        action="store_true",
        help="the face network's middle convolutions depthwise then pointwise: about twice as fast on CPUs without dot-product instructions",
    )
    train.add_argument("--crop-size", type=int, default=40, help="side in pixels of the crop the face network reads (default 40)")
    train.add_argument("--float", action="store_true", help="ship the face network in floats, not 8-bit integers")
    train.add_argument(
        "--one-face-network", action="store_true", help="train no second face network (the one consulted on unsure dice)"
    )
    train.add_argument(
        "--second-crop-size", type=int, help="side in pixels of the second face network's crop (default: the first's)"
    )
    train.add_argument(
        "--second-crop-context",
        type=float,
        default=1.0,
        help="how much of a die's size the second face network's crop shows, 0.8-2 (default 1.0: the die alone; the first's is 1.4)",
    )
    train.add_argument(
        "--second-hard-share",
        type=float,
        default=0.0,
        help=(
            "share of the second face network's samples drawn from the training dice the first reads unsure or wrong, "
            "0-0.9 (default 0: drawn as the first's)"
        ),
    )
    train.add_argument(
        "--second-camera-share",
        type=float,
        default=0.0,
        help=(
            "share of the second face network's samples also shifted as another camera would give them "
            "(white balance, exposure, JPEG), 0-1 (default 0)"
        ),
    )
    train.add_argument(
        "--bold-marble",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of the rendered marbled dice given bold, sharp veins of the ink's colour or white, 0-1 "
        "(default 0; the same scenes are rendered either way)",
    )
    train.add_argument(
        "--glare-streaks",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of the rendered frames whose glossy dice show a long light's reflection, thin bright bands across "
        "their top faces and pips, 0-1 (default 0; the same scenes are rendered either way)",
    )
    train.add_argument(
        "--first-look",
        action="store_true",
        help="with --add-second-faces: the network trained reads the first network's crop and is read with it on every die, "
        "their scores averaged (model.json's first_look), instead of only on the dice the first is unsure of",
    )
    train.add_argument(
        "--second-standardised",
        action="store_true",
        help="the second face network scales each crop's colour channels to one contrast before it reads it",
    )
    train.add_argument(
        "--add-second-faces",
        action="store_true",
        help=(
            "keep the networks already in OUT and train only one more face network for the second look beside them "
            "(dice-faces-2.onnx, then -3 ...; its seed is --seed + 1)"
        ),
    )
    train.add_argument(
        "--detector-only",
        action="store_true",
        help="keep the face networks already in OUT and train only a new detector (recorded as 'detector' in model.json)",
    )
    train.add_argument(
        "--first-faces-only",
        action="store_true",
        help="keep the detector and the other face networks already in OUT and train only a new first face network "
        "(dice-faces.onnx, its temperature and the confidence a pip count needs fitted again)",
    )
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--threads", type=int, default=2, help="CPU threads for training (default 2)")
    train.set_defaults(handler=run_train)

    embedding = subparsers.add_parser(
        "train-embedding",
        help="rebuild the face embedding calibrated profiles are matched with (needs the train extra)",
        description=(
            "Render the faces of many made-up die sets on the simulated tray, train the face embedding on them, "
            "and write face-embedding.onnx and face-embedding.json (its figures and the opinion it gives profiles)."
        ),
    )
    embedding.add_argument("--out", type=Path, required=True, help="folder for the embedding (vision/models to replace the shipped one)")
    embedding.add_argument("--work", type=Path, help="folder for the rendered faces and checkpoints (default: OUT/work)")
    embedding.add_argument("--sets", type=int, default=6000, help="made-up die sets to train on (default 6000)")
    embedding.add_argument("--val-sets", type=int, default=300, help="other die sets to measure and choose the opinion on (default 300)")
    embedding.add_argument("--views", type=int, default=5, help="trays each set's six faces are rendered on (default 5)")
    embedding.add_argument("--steps", type=int, default=7000)
    embedding.add_argument("--seed", type=int, default=7, help="seed of the training's draws (default 7, as shipped)")
    embedding.add_argument(
        "--faces-seed", type=int, default=404, help="seed of the training sets (default 404, as shipped); the val sets use it + 101"
    )
    embedding.add_argument("--threads", type=int, default=2, help="CPU threads for training (default 2)")
    embedding.set_defaults(handler=run_train_embedding)


def _need_torch(command: str) -> None:
    try:
        import torch  # noqa: F401  (only to say clearly what is missing)
    except ImportError:
        raise UsageError(f"dicetray {command} needs PyTorch: pip install -e '.[train]'") from None


#: Of the faces rendered for the embedding, the share also cut badly on purpose (no face).
MISCUT_SHARE = 0.25


def run_train_embedding(args: argparse.Namespace) -> int:
    _need_torch("train-embedding")
    from hardware.sim.identity import identity_crops
    from vision.training.embedding import EmbedConfig, train_embedding

    for name in ("sets", "val_sets", "views", "steps", "threads"):
        if getattr(args, name) < (2 if name in ("sets", "val_sets", "views") else 1):
            raise UsageError(f"--{name.replace('_', '-')} {getattr(args, name)!r}: too small")
    work = args.work or args.out / "work"
    files = {}
    data = {}
    for split, count, seed in (("train", args.sets, args.faces_seed), ("val", args.val_sets, args.faces_seed + 101)):
        files[split] = work / f"faces-{split}-{seed}-{count}x{args.views}.npz"
        data[split] = {"sets": count, "views": args.views, "seed": seed, "miscut": MISCUT_SHARE}
        if not files[split].is_file():
            begun = time.monotonic()
            print(f"rendering the faces of {count} die sets into {files[split]} ...", file=sys.stderr, flush=True)
            identity_crops(count, args.views, seed=seed, miscut=MISCUT_SHARE).save(files[split])
            print(f"rendered in {time.monotonic() - begun:.0f} s", file=sys.stderr, flush=True)
    config = EmbedConfig(steps=args.steps, seed=args.seed, threads=args.threads)
    train_embedding(
        files["train"], files["val"], args.out, config, log=lambda line: print(line, file=sys.stderr, flush=True), checkpoint_dir=work, data=data
    )
    print(f"face embedding written to {args.out}")
    return 0


def run_train(args: argparse.Namespace) -> int:
    _need_torch("train")
    from hardware.sim.training import TRAINING_FILE, write_training_set
    from vision.training.train import RealSource, TrainConfig, train

    for name in ("real_weight", "face_real_weight"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            raise UsageError(f"--{name.replace('_', '-')} {getattr(args, name)!r}: must be between 0 and 1")
    for name in ("crop_size", "second_crop_size"):
        if getattr(args, name) is not None and not 16 <= getattr(args, name) <= 128:
            raise UsageError(f"--{name.replace('_', '-')} {getattr(args, name)!r}: must be from 16 to 128 pixels")
    if not 0.0 <= args.second_hard_share <= 0.9:
        raise UsageError(f"--second-hard-share {args.second_hard_share!r}: must be from 0 to 0.9")
    if not 0.0 <= args.second_camera_share <= 1.0:
        raise UsageError(f"--second-camera-share {args.second_camera_share!r}: must be from 0 to 1")
    for name in ("bold_marble", "glare_streaks"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            raise UsageError(f"--{name.replace('_', '-')} {getattr(args, name)!r}: must be from 0 to 1")
    if not 0.8 <= args.second_crop_context <= 2.0:
        raise UsageError(f"--second-crop-context {args.second_crop_context!r}: must be from 0.8 to 2")
    for name in ("rendered", "detector_steps", "face_steps", "detector_batch", "face_batch", "face_width", "threads"):
        if getattr(args, name) < (0 if name == "rendered" else 1):
            raise UsageError(f"--{name.replace('_', '-')} {getattr(args, name)!r}: too small")
    for folder, _, _ in args.real:
        if not (Path(folder) / "labels.json").is_file():
            raise UsageError(f"--real {folder!r}: not a labelled folder (no labels.json)")
    if not args.real and not args.rendered:
        raise UsageError("nothing to train on: give --real folders or --rendered frames")
    alone = [f"--{name.replace('_', '-')}" for name in ("add_second_faces", "detector_only", "first_faces_only") if getattr(args, name)]
    if len(alone) > 1:
        raise UsageError(f"{' and '.join(alone)}: train one more face network, a new detector or a new first face network, not two at once")
    if args.first_look and not args.add_second_faces:
        raise UsageError("--first-look trains a network beside a kept model: give --add-second-faces too")
    if alone:
        from vision.learned import LearnedModel

        LearnedModel(args.out)  # a model to add to, before anything is rendered
    work = args.work or args.out / "work"
    bold = f"-bold{args.bold_marble:g}" if args.bold_marble else ""
    streaks = f"-streaks{args.glare_streaks:g}" if args.glare_streaks else ""
    rendered = work / f"rendered-{args.seed}-{args.rendered}{bold}{streaks}"
    if args.rendered and not (rendered / TRAINING_FILE).is_file():
        begun = time.monotonic()
        print(f"rendering {args.rendered} training frames into {rendered} ...", file=sys.stderr, flush=True)
        write_training_set(rendered, args.rendered, seed=args.seed + 1, bold_marble=args.bold_marble, glare_streaks=args.glare_streaks)
        print(f"rendered in {time.monotonic() - begun:.0f} s", file=sys.stderr, flush=True)
    cfg = TrainConfig(
        out=str(args.out),
        rendered=(str(rendered),) if args.rendered else (),
        real=tuple(RealSource(folder, boxes, weight) for folder, boxes, weight in args.real),
        seed=args.seed,
        real_weight=args.real_weight if args.real else 0.0,
        face_real_weight=args.face_real_weight if args.real else 0.0,
        detector_steps=args.detector_steps,
        face_steps=args.face_steps,
        detector_batch=args.detector_batch,
        face_batch=args.face_batch,
        face_width=args.face_width,
        face_separable=args.face_separable,
        crop_size=args.crop_size,
        int8=not args.float,
        second_faces=not args.one_face_network,
        second_crop_size=args.second_crop_size,
        second_crop_context=args.second_crop_context,
        second_hard_share=args.second_hard_share,
        second_camera_share=args.second_camera_share,
        second_standardised=args.second_standardised,
        rendered_bold_marble=args.bold_marble if args.rendered else 0.0,
        rendered_glare_streaks=args.glare_streaks if args.rendered else 0.0,
        add_second_faces=args.add_second_faces,
        first_look=args.first_look,
        detector_only=args.detector_only,
        first_faces_only=args.first_faces_only,
        threads=args.threads,
        checkpoint_dir=str(work),
    )
    train(cfg, log=lambda line: print(line, file=sys.stderr, flush=True))
    print(f"models written to {args.out}")
    return 0
