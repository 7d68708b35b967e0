"""Training the learned reader's two networks and exporting them to ONNX (needs the ``train`` extra).

:func:`train` runs the whole recipe: the detector on working-scale patches, then the face network
on crops, each from a weighted mix of sources (rendered training sets and the ``train`` split of
real labelled folders); fits the face network's temperature on the ``val`` split; exports both to
ONNX and writes ``model.json`` (:mod:`vision.learned` reads it). Every random choice comes from
``seed``; a checkpoint is written every ``checkpoint_every`` steps and a run picks up from the last
one. Held-out (``test``) images are never loaded.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as tf

from vision.learned import (
    CLASSES,
    CROP_CONTEXT,
    CROP_SIZE,
    DETECTOR_FILE,
    FACES_FILE,
    METADATA_FILE,
    LearnedModel,
    STRIDE,
    WORK_SIZE,
    crop_at,
    find_dice,
    first_look_file,
    load_face_network,
    softmax,
    second_faces_file,
    second_faces_records,
    signed_twin,
    to_input,
)
from vision.training.data import (
    TrainFrame,
    check_classes,
    detector_sample,
    face_sample,
    label_corrections,
    real_frames,
    rendered_frames,
)
from vision.training.nets import DiceDetector, FaceNet
from vision.training.quantize import MIN_AGREEMENT, quantize_faces

Log = Callable[[str], None]


@dataclass(frozen=True)
class RealSource:
    """A labelled folder of real photos, what its boxes bound (``die`` or ``face``) and its share of
    the face network's real samples relative to the other folders (the detector draws from each
    folder alike)."""

    folder: str
    boxes: str = "die"
    weight: float = 1.0


@dataclass(frozen=True)
class TrainConfig:
    """One training run. ``real_weight`` and ``face_real_weight`` are the shares of the detector's and
    the face network's samples drawn from real photos (0: rendered only)."""

    out: str
    rendered: tuple[str, ...] = ()
    real: tuple[RealSource, ...] = ()
    seed: int = 0
    real_weight: float = 0.5
    face_real_weight: float = 0.65
    detector_steps: int = 3000
    detector_batch: int = 24
    detector_patch: int = 256
    face_steps: int = 6000
    face_batch: int = 192
    face_width: int = 48
    face_separable: bool = False  # the face network's middle convolutions depthwise then pointwise (FaceNet)
    crop_size: int = CROP_SIZE
    crop_context: float = CROP_CONTEXT  # how much of a die's size the face network's crop shows
    # The second face network's crop (size None: the first's); the die alone, with its pips at 1.4
    # times the first crop's pixels, read unsure dice better than the first's crop from another seed
    second_crop_size: int | None = None
    second_crop_context: float | None = 1.0
    int8: bool = True  # the face network shipped in 8-bit integers (see vision.training.quantize)
    int8_agreement: float = MIN_AGREEMENT  # the share of val crops it must class as the float one does
    negative_share: float = 0.25
    lr: float = 2e-3
    threads: int = 2
    checkpoint_every: int = 250
    rendered_limit: int | None = None
    checkpoint_dir: str | None = None  # default: ``out``
    second_look: bool = True  # see look_again()
    second_faces: bool = True  # a second face network from the next seed (vision.learned.SECOND_FACES_FILE)
    add_second_faces: bool = False  # keep the model in ``out``, train only one more face network beside its first
    # With add_second_faces: the network reads the first's crop and is read with it on every die,
    # their scores averaged (model.json's first_look), not only on dice the first is unsure of
    first_look: bool = False
    detector_only: bool = False  # keep the face networks of the model in ``out``, train only a new detector
    # keep the detector and the other face networks of the model in ``out``, train only a new first face network
    first_faces_only: bool = False
    mine_rendered: int = 1500
    # Of the second face network's samples, the share drawn from the training dice the first network
    # is unsure of or wrong about: the only dice the second is ever consulted on (0: none apart)
    second_hard_share: float = 0.0
    # Of the second face network's samples, the share also shifted as another camera would
    # (vision.training.data.camera_shift)
    second_camera_share: float = 0.0
    # The second face network scales each crop's channels to one contrast first (vision.training.nets.CropStandardise)
    second_standardised: bool = False
    # The share of the rendered set's marbled dice veined boldly (hardware.sim.training.random_style):
    # recorded with the networks it trains, as the set was rendered by the caller
    rendered_bold_marble: float = 0.0
    # ... and the share of its frames whose glossy dice show a long light's reflection
    # (hardware.sim.training.with_streaks)
    rendered_glare_streaks: float = 0.0
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def checkpoints(self) -> Path:
        return Path(self.checkpoint_dir or self.out)


#: How the rendered set was drawn beyond the shipped recipe, as the records of the networks
#: trained on it name it (:func:`rendered_record`).
RENDERED_LOOKS = ("rendered_bold_marble", "rendered_glare_streaks")


def rendered_record(cfg: TrainConfig) -> dict[str, float]:
    """The shares of :data:`RENDERED_LOOKS` that ``cfg``'s rendered set was drawn with (none
    for the shipped recipe)."""
    return {key: float(getattr(cfg, key)) for key in RENDERED_LOOKS if getattr(cfg, key) > 0}


def _pick_sources(
    cfg: TrainConfig, rendered: list[TrainFrame], real: list[list[TrainFrame]], *, faces: bool
) -> tuple[list[list[TrainFrame]], list[float]]:
    real_weight = cfg.face_real_weight if faces else cfg.real_weight
    pools: list[list[TrainFrame]] = []
    weights: list[float] = []
    shares = [(r, s.weight if faces else 1.0) for r, s in zip(real, cfg.real) if r]
    total_share = sum(w for _, w in shares) or 1.0
    if rendered:
        pools.append(rendered)
        weights.append(1.0 - real_weight if shares else 1.0)
    for r, share in shares:
        pools.append(r)
        weights.append((real_weight if rendered else 1.0) * share / total_share)
    if not pools:
        raise ValueError("training needs at least one rendered set or real folder with training images")
    total = sum(weights)
    return pools, [w / total for w in weights]


def _draw(pools: list[list[TrainFrame]], weights: list[float], rng: np.random.Generator) -> TrainFrame:
    pool = pools[int(rng.choice(len(pools), p=weights))]
    return pool[int(rng.integers(len(pool)))]


def _focal(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """The centre heat map's penalty-reduced focal loss (peaks count fully, near misses less)."""
    p = torch.sigmoid(pred).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - target) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return (pos_loss.sum() + neg_loss.sum()) / n


def _schedule(step: int, steps: int, lr: float) -> float:
    warm = min(1.0, (step + 1) / 100)
    return lr * warm * 0.5 * (1 + math.cos(math.pi * step / steps))


def _checkpoint(path: Path, net: torch.nn.Module, opt: torch.optim.Optimizer, step: int, recipe: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "step": step, "recipe": json.dumps(recipe, sort_keys=True)}, tmp)
    tmp.replace(path)


def _resume(path: Path, net: torch.nn.Module, opt: torch.optim.Optimizer, recipe: dict[str, Any], log: Log) -> int:
    """The step the checkpoint at ``path`` reached, its network and optimiser loaded; 0 where there
    is none, or where it was written for another ``recipe`` (other options or data under the same
    name in a work folder used again), which is then trained afresh and overwritten."""
    if not path.exists():
        return 0
    state = torch.load(path, weights_only=True)
    # a checkpoint written before recipes were recorded is taken to be this run's
    if "recipe" in state and state["recipe"] != json.dumps(recipe, sort_keys=True):
        theirs = json.loads(state["recipe"])
        differ = sorted(k for k in {*theirs, *recipe} if theirs.get(k) != recipe.get(k))
        log(f"{path}: a checkpoint of another recipe (it differs in {', '.join(differ)}); training afresh")
        return 0
    net.load_state_dict(state["net"])
    opt.load_state_dict(state["opt"])
    return int(state["step"])


def _recipe(cfg: TrainConfig, fields: Sequence[str], **more: Any) -> dict[str, Any]:
    """What decides a network's training: ``fields`` of ``cfg`` (with the data it draws from) and ``more``."""
    chosen = {name: getattr(cfg, name) for name in ("seed", "lr", "rendered_limit", *fields)}
    chosen["rendered"] = list(cfg.rendered)
    chosen["real"] = [[s.folder, s.boxes, s.weight] for s in cfg.real]
    return chosen | more


def _fit(
    name: str,
    net: torch.nn.Module,
    opt: torch.optim.Optimizer,
    steps: int,
    cfg: TrainConfig,
    step_loss: Callable[[int], tuple[torch.Tensor, str]],
    log: Log,
    recipe: dict[str, Any],
) -> None:
    """Runs ``steps`` optimiser steps of ``step_loss(step)`` (the loss and a few words for the log)
    on the warmed-up cosine schedule, from the last checkpoint of ``name`` for the same ``recipe``
    on, checkpointing as it goes."""
    ckpt = cfg.checkpoints / f"{name}.ckpt"
    start = _resume(ckpt, net, opt, recipe, log)
    net.train()
    begun = time.monotonic()
    for step in range(start, steps):
        for group in opt.param_groups:
            group["lr"] = _schedule(step, steps, cfg.lr)
        loss, detail = step_loss(step)
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            log(f"{name} step {step}/{steps} loss {loss.item():.4f} {detail} ({time.monotonic() - begun:.0f} s)")
        if (step + 1) % cfg.checkpoint_every == 0:
            _checkpoint(ckpt, net, opt, step + 1, recipe)
    _checkpoint(ckpt, net, opt, steps, recipe)
    net.eval()


def train_detector(cfg: TrainConfig, pools: list[list[TrainFrame]], weights: list[float], log: Log) -> DiceDetector:
    torch.manual_seed(cfg.seed)
    net = DiceDetector()
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)

    def step_loss(step: int) -> tuple[torch.Tensor, str]:
        rng = np.random.default_rng([cfg.seed, 1, step])
        samples = [detector_sample(_draw(pools, weights, rng), rng, cfg.detector_patch) for _ in range(cfg.detector_batch)]
        x = torch.from_numpy(np.stack([s.image for s in samples]))
        heat = torch.from_numpy(np.stack([s.heat for s in samples]))
        size = torch.from_numpy(np.stack([s.size for s in samples]))
        offset = torch.from_numpy(np.stack([s.offset for s in samples]))
        mask = torch.from_numpy(np.stack([s.mask for s in samples]))
        known = torch.from_numpy(np.stack([s.size_known for s in samples]))
        y = net(x)
        loss_heat = _focal(y[:, 0], heat)
        n_known = known.sum().clamp(min=1)
        loss_size = (tf.smooth_l1_loss(y[:, 1], size, reduction="none", beta=0.1) * known).sum() / n_known
        n_mask = mask.sum().clamp(min=1)
        loss_off = (tf.l1_loss(y[:, 2:4], offset, reduction="none").sum(1) * mask).sum() / n_mask
        loss = loss_heat + loss_size + 0.5 * loss_off
        return loss, f"heat {loss_heat.item():.4f} size {loss_size.item():.4f} offset {loss_off.item():.4f}"

    recipe = _recipe(cfg, ("real_weight", "detector_steps", "detector_batch", "detector_patch"))
    _fit("detector", net, opt, cfg.detector_steps, cfg, step_loss, log, recipe)
    return net


def train_faces(
    cfg: TrainConfig,
    pools: list[list[TrainFrame]],
    weights: list[float],
    log: Log,
    name: str = "faces",
    hard: tuple[list[list[TrainFrame]], list[float]] | None = None,
    hard_share: float = 0.0,
    camera_share: float = 0.0,
    standardised: bool = False,
    hard_from: str | None = None,
) -> FaceNet:
    """The face network of ``cfg`` (its seed decides the start and every sample), checkpointed as
    ``name``; ``hard_share`` of its samples are dice of ``hard`` (pools and their weights, as
    :func:`hard_dice` gives them), and ``camera_share`` of them shifted as another camera would
    (:func:`vision.training.data.camera_shift`); ``standardised``: the network scales each crop's
    channels to one contrast first (:class:`vision.training.nets.CropStandardise`); ``hard_from``
    names the network that chose the hard dice (its file's SHA-256), for the checkpoint's recipe."""
    torch.manual_seed(cfg.seed + 1)
    net = FaceNet(cfg.face_width, cfg.crop_size, cfg.crop_context, standardise=standardised, separable=cfg.face_separable)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=5e-4)

    def step_loss(step: int) -> tuple[torch.Tensor, str]:
        rng = np.random.default_rng([cfg.seed, 2, step])
        crops, labels = [], []
        for _ in range(cfg.face_batch):
            if hard is not None and rng.random() < hard_share:
                crop, label = face_sample(_draw(*hard, rng), rng, negative=False, size=cfg.crop_size, context=cfg.crop_context, camera=camera_share)
            else:
                negative = bool(rng.random() < cfg.negative_share)
                crop, label = face_sample(_draw(pools, weights, rng), rng, negative, size=cfg.crop_size, context=cfg.crop_context, camera=camera_share)
            crops.append(crop)
            labels.append(label)
        target = torch.tensor(labels, dtype=torch.long)
        logits = net(torch.from_numpy(np.stack(crops)))
        loss = tf.cross_entropy(logits, target, label_smoothing=0.03)
        return loss, f"batch accuracy {(logits.argmax(1) == target).float().mean().item():.3f}"

    recipe = _recipe(
        cfg,
        ("face_real_weight", "face_steps", "face_batch", "face_width", "crop_size", "crop_context", "negative_share", "second_look", "mine_rendered"),
        hard_share=hard_share if hard is not None else 0.0, hard_dice=hard_from, camera_share=camera_share, standardised=standardised,
        **({"face_separable": True} if cfg.face_separable else {}),  # so checkpoints of the plain network still resume
    )  # fmt: skip
    _fit(name, net, opt, cfg.face_steps, cfg, step_loss, log, recipe)
    return net


def look_again(detect_raw: Callable[[np.ndarray], np.ndarray], frames: Sequence[TrainFrame], far: float = 0.6) -> list[TrainFrame]:
    """``frames`` as the trained detector sees them (``detect_raw``: a work image to its raw output,
    see :func:`torch_detect_raw`): each labelled die gets the centre and size the detector gives it
    (so the face network learns from crops cut as the reader will cut them), and the places the
    detector finds a die where none is labelled (further than ``far`` of a die's size from every
    labelled centre: the screws of a tray stand, a key, a coin) become negatives."""

    seen: list[TrainFrame] = []
    for frame in frames:
        found = find_dice(frame.image, detect_raw, 0.25)
        dice = []
        for d in frame.dice:
            reach = far * (d.size or frame.typical_size)
            near = [f for f in found if math.hypot(f.cx - d.cx, f.cy - d.cy) < reach]
            if near:
                best = min(near, key=lambda f: math.hypot(f.cx - d.cx, f.cy - d.cy))
                d = replace(d, cx=best.cx, cy=best.cy, size=best.size)
            dice.append(d)
        negatives = tuple(
            (f.cx, f.cy, f.size)
            for f in found
            if all(math.hypot(f.cx - d.cx, f.cy - d.cy) > far * (d.size or frame.typical_size) for d in frame.dice)
        )
        sizes = sorted(d.size for d in dice if d.size)
        typical = sizes[len(sizes) // 2] if sizes else frame.typical_size
        seen.append(replace(frame, dice=tuple(dice), negatives=negatives, typical_size=typical))
    return seen


def hard_dice(
    pools: Sequence[Sequence[TrainFrame]],
    weights: Sequence[float],
    probabilities: Callable[[np.ndarray], np.ndarray],
    crop_size: int,
    crop_context: float,
    min_confidence: float,
) -> tuple[list[list[TrainFrame]], list[float]]:
    """Of each pool's frames, the dice a face network (``probabilities``: its crops, cut as the
    reader cuts them, to class probabilities) reads under ``min_confidence`` or as another class:
    each frame keeping only those dice (frames with none left out), and each pool's weight times
    its share of such dice, so that they are drawn as often from each pool as they come in the
    pools' own draw (a pool with a few hard dice does not have them drawn over and over)."""
    kept: list[list[TrainFrame]] = []
    kept_weights: list[float] = []
    for pool, weight in zip(pools, weights):
        hard: list[TrainFrame] = []
        dice = 0
        for frame in pool:
            if not frame.dice:
                continue
            p = probabilities(np.stack(_die_crops(frame, crop_size, crop_context)))
            dice += len(frame.dice)
            unsure = tuple(d for d, row in zip(frame.dice, p) if row.max() < min_confidence or int(np.argmax(row)) != d.label)
            if unsure:
                hard.append(replace(frame, dice=unsure, negatives=()))
        if hard:
            kept.append(hard)
            kept_weights.append(weight * sum(len(f.dice) for f in hard) / dice)
    total = sum(kept_weights) or 1.0
    return kept, [w / total for w in kept_weights]


def torch_detect_raw(detector: DiceDetector) -> Callable[[np.ndarray], np.ndarray]:
    """The trained ``detector`` as a function of one work image, as the reader runs its ONNX file."""

    def detect_raw(work: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out: np.ndarray = detector(torch.from_numpy(work)[None])[0].numpy()
        return out

    return detect_raw


def fit_temperature(net: FaceNet, frames: Sequence[TrainFrame]) -> float:
    """The temperature that makes the face network's softmax honest on ``frames`` (the val split):
    crops cut where the labels put each die, as the reader would, no augmentation."""
    if not any(f.dice for f in frames):
        return 1.0
    crops, target = _val_crops(frames, net.crop, net.context)
    with torch.no_grad():
        logits = net(crops)
    best, best_nll = 1.0, float("inf")
    for t in np.arange(0.5, 3.01, 0.05):
        nll = tf.cross_entropy(logits / float(t), target).item()
        if nll < best_nll:
            best, best_nll = float(t), nll
    return round(best, 3)


def _val_crops(frames: Sequence[TrainFrame], size: int, context: float) -> tuple[torch.Tensor, torch.Tensor]:
    """The val dice cut where the labels put each die, as the reader would (``size`` px crops
    showing ``context`` times a die's size), and their classes."""
    crops = [crop for f in frames for crop in _die_crops(f, size, context)]
    labels = [d.label for f in frames for d in f.dice]
    return torch.from_numpy(np.stack(crops)), torch.tensor(labels, dtype=torch.long)


def _die_crops(frame: TrainFrame, size: int, context: float) -> list[np.ndarray]:
    """The face network's input for each labelled die of ``frame``, cut where its label puts it."""
    return [to_input(crop_at(frame.image, d.cx, d.cy, d.size or frame.typical_size, size=size, context=context)) for d in frame.dice]


def fit_min_confidence(net: FaceNet, frames: Sequence[TrainFrame], temperature: float, precision: float = 0.998) -> float:
    """The lowest confidence (0.8 to 0.95, in steps of 0.05) at which the face network's pip counts
    on ``frames`` (the val split) are right at ``precision`` or better; 0.95 if none is."""
    if not any(f.dice for f in frames):
        return 0.8
    crops, target = _val_crops(frames, net.crop, net.context)
    with torch.no_grad():
        p = torch.softmax(net(crops) / temperature, dim=1)
    confidence, best = p.max(dim=1)
    pips = (best >= CLASSES.index("1")) & (best <= CLASSES.index("6"))
    for threshold in (0.8, 0.85, 0.9, 0.95):
        read = pips & (confidence >= threshold)
        if int(read.sum()) and float((best[read] == target[read]).float().mean()) >= precision:
            return threshold
    return 0.95


def _calibration_crops(
    real: Sequence[TrainFrame], rendered: Sequence[TrainFrame], size: int, context: float, limit: int = 1024
) -> np.ndarray:
    """Crops of training dice, cut where the detector put them, and of the places it took for dice
    where none is (real and rendered frames in turn, in their order): what the 8-bit face
    network's activation ranges are measured on."""
    crops: list[np.ndarray] = []
    for f in (f for pair in itertools.zip_longest(real, rendered) for f in pair if f is not None):
        places = [(d.cx, d.cy, d.size or f.typical_size) for d in f.dice] + list(f.negatives)
        crops += [to_input(crop_at(f.image, cx, cy, side, size=size, context=context)) for cx, cy, side in places]
        if len(crops) >= limit:
            break
    return np.stack(crops[:limit]) if crops else np.zeros((0, 3, size, size), np.float32)


def _export_faces(
    cfg: TrainConfig,
    net: FaceNet,
    path: Path,
    val_frames: Sequence[TrainFrame],
    calibration_frames: tuple[Sequence[TrainFrame], Sequence[TrainFrame]],
    log: Log,
) -> float | None:
    """Writes face network ``net`` to ``path``, in 8-bit integers where ``cfg.int8`` says and they
    class the val crops as the float network does, its activation ranges measured on crops of
    ``calibration_frames`` (real, rendered); returns that agreement (None: kept in floats)."""
    export_onnx(net, torch.zeros(4, 3, cfg.crop_size, cfg.crop_size), path)
    if not cfg.int8:
        signed_twin(path).unlink(missing_ok=True)  # an 8-bit twin left from before would stand for it
        return None
    calibration = _calibration_crops(*calibration_frames, cfg.crop_size, cfg.crop_context)
    check = _val_crops(val_frames, cfg.crop_size, cfg.crop_context)[0].numpy() if any(f.dice for f in val_frames) else calibration
    return quantize_faces(path, path, calibration, check, log, cfg.int8_agreement)


def _export_detector(detector: DiceDetector, out: Path) -> None:
    """Writes ``detector`` to ``out`` as the reader loads it (any working size: the example's is free)."""
    export_onnx(detector, torch.zeros(1, 3, 256, 320), out / DETECTOR_FILE)


def export_onnx(net: torch.nn.Module, example: torch.Tensor, path: Path) -> None:
    """Exports ``net`` with free batch, height and width (opset 17, constant-folded)."""
    with warnings.catch_warnings():
        # The TorchScript exporter warns that it is deprecated; it needs no onnxscript and writes
        # plain graphs with free input sizes, which is all these networks need.
        warnings.simplefilter("ignore", DeprecationWarning)
        _export(net, example, path)


def _export(net: torch.nn.Module, example: torch.Tensor, path: Path) -> None:
    torch.onnx.export(
        net,
        (example,),
        str(path),
        dynamo=False,
        input_names=["image"],
        output_names=["out"],
        dynamic_axes={"image": {0: "n", 2: "h", 3: "w"}, "out": {0: "n"}},
        opset_version=17,
        do_constant_folding=True,
    )


def train(cfg: TrainConfig, log: Log = print) -> Path:
    """Runs the whole recipe; returns the folder holding the ONNX files and ``model.json``. With
    ``cfg.add_second_faces`` the networks already in ``cfg.out`` are kept (its detector cuts the
    crops) and only one more face network is trained beside them, for the second look; with
    ``cfg.detector_only`` its face networks are kept and only a new detector is trained; with
    ``cfg.first_faces_only`` its detector and other face networks are kept and only a new first
    face network is trained (its temperature and confidence fitted again). With
    ``cfg.first_look`` as well as ``add_second_faces``, the network trained joins the first look
    (read with the first on every die) instead.

    :raises ValueError: more than one of ``add_second_faces``, ``detector_only`` and
        ``first_faces_only``; ``first_look`` without ``add_second_faces``.
    """
    if cfg.add_second_faces + cfg.detector_only + cfg.first_faces_only > 1:
        raise ValueError("train one more face network, a new detector or a new first face network, not two at once")
    if cfg.first_look and not cfg.add_second_faces:
        raise ValueError("a network of the first look is trained beside a kept model (add_second_faces)")
    torch.set_num_threads(cfg.threads)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    cfg.checkpoints.mkdir(parents=True, exist_ok=True)
    begun = time.monotonic()
    kept = LearnedModel(out) if cfg.add_second_faces or cfg.detector_only or cfg.first_faces_only else None
    if kept is not None:
        # the second network reads the crops cut for the first
        cfg = replace(cfg, crop_size=kept.crop_size)
    rendered: list[TrainFrame] = []
    for folder in cfg.rendered:
        rendered += rendered_frames(folder, cfg.rendered_limit)
    real_train = [real_frames(s.folder, "train", s.boxes) for s in cfg.real]
    real_val = [real_frames(s.folder, "val", s.boxes) for s in cfg.real]
    log(f"rendered frames {len(rendered)}, real training frames {[len(r) for r in real_train]}, val {[len(v) for v in real_val]}")
    log(f"rendered dice by class {check_classes(rendered)}")
    if kept is not None and cfg.detector_only:
        return _new_detector(cfg, kept, rendered, real_train, begun, log)
    detector: DiceDetector | None = None
    detect_raw: Callable[[np.ndarray], np.ndarray]
    if kept is not None:
        detect_raw = kept.detect_raw
        kept_parts = "detector, first look and second look" if cfg.first_faces_only else "detector and face network"
        log(f"kept the {kept_parts} of {kept.folder}")
    else:
        pools, weights = _pick_sources(cfg, rendered, real_train, faces=False)
        detector = train_detector(cfg, pools, weights, log)
        detect_raw = torch_detect_raw(detector)
    if cfg.second_look:
        begun_mining = time.monotonic()
        real_train = [look_again(detect_raw, r) for r in real_train]
        real_val = [look_again(detect_raw, r) for r in real_val]
        mined_rendered = [replace(f, negatives=g.negatives) for f, g in zip(rendered, look_again(detect_raw, rendered[: cfg.mine_rendered]))]
        rendered = mined_rendered + rendered[cfg.mine_rendered :]
        found = sum(len(f.negatives) for r in [*real_train, rendered] for f in r)
        log(f"{found} places the detector takes for dice in the training frames ({time.monotonic() - begun_mining:.0f} s)")
    pools, weights = _pick_sources(cfg, rendered, real_train, faces=True)
    val_frames = [f for v in real_val for f in v]
    calibration_frames = ([f for r in real_train for f in r], rendered)
    if kept is not None and cfg.first_faces_only:
        return _new_first_faces(cfg, kept, pools, weights, val_frames, calibration_frames, rendered, real_train, begun, log)
    if kept is not None:
        metadata = dict(kept.metadata)
    else:
        assert detector is not None
        metadata = _first_faces(cfg, detector, pools, weights, val_frames, calibration_frames, rendered, real_train, begun, log)
    # Added beside a kept model, a face network joins those it has; a new model starts with none.
    if kept is not None:
        records = second_faces_records(kept.metadata)
    else:
        records = []
        for stale in out.glob("dice-faces-*.onnx"):
            stale.unlink()
    if cfg.first_look:
        looks = second_faces_records(metadata, "first_look")
        record = _second_faces(cfg, len(looks), pools, weights, val_frames, calibration_frames, log, metadata, first_look=True)
        record["real"] = real_record(cfg, real_train, weights=True)
        metadata["first_look"] = looks + [record]
    elif cfg.second_faces or kept is not None:
        record = _second_faces(cfg, len(records), pools, weights, val_frames, calibration_frames, log, metadata)
        record["real"] = real_record(cfg, real_train, weights=True)
        records.append(record)
    metadata.pop("second_faces", None)
    if records:
        metadata["second_faces"] = records
    (out / METADATA_FILE).write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")
    log(f"wrote the model in {out} in {(time.monotonic() - begun) / 60:.1f} min")
    return out


def _new_detector(
    cfg: TrainConfig, kept: LearnedModel, rendered: list[TrainFrame], real_train: list[list[TrainFrame]], begun: float, log: Log
) -> Path:
    """Trains a detector in place of ``kept``'s (its face networks stay as they are) and records it
    in ``model.json`` as ``detector``: the face networks' own training record stays as it was."""
    out = Path(cfg.out)
    log(f"kept the face networks of {kept.folder}")
    pools, weights = _pick_sources(cfg, rendered, real_train, faces=False)
    detector = train_detector(cfg, pools, weights, log)
    _export_detector(detector, out)
    metadata = dict(kept.metadata)
    metadata["detector"] = {
        "seed": cfg.seed,
        "rendered_frames": len(rendered),
        **rendered_record(cfg),
        "real": real_record(cfg, real_train, weights=False),
        "real_weight": cfg.real_weight if real_train else 0.0,
        "steps": cfg.detector_steps,
        "batch": cfg.detector_batch,
        "patch": cfg.detector_patch,
        "lr": cfg.lr,
        "minutes": round((time.monotonic() - begun) / 60, 1),
    }
    (out / METADATA_FILE).write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")
    log(f"wrote the detector in {out} in {(time.monotonic() - begun) / 60:.1f} min")
    return out


def real_record(cfg: TrainConfig, real_train: Sequence[Sequence[TrainFrame]], *, weights: bool) -> list[dict[str, Any]]:
    """``model.json``'s record of the real folders a network learned from: each folder's name, what
    its boxes bound, its weight (``weights``), its training images and how many of its labels were
    corrected (:func:`~vision.training.data.label_corrections`)."""
    records = []
    for source, frames in zip(cfg.real, real_train):
        name = Path(source.folder).resolve().name
        record: dict[str, Any] = {"folder": name, "boxes": source.boxes}
        if weights:
            record["weight"] = source.weight
        record["train_images"] = len(frames)
        record["label_corrections"] = len(label_corrections(name))
        records.append(record)
    return records


def _new_first_faces(
    cfg: TrainConfig,
    kept: LearnedModel,
    pools: list[list[TrainFrame]],
    weights: list[float],
    val_frames: Sequence[TrainFrame],
    calibration_frames: tuple[Sequence[TrainFrame], Sequence[TrainFrame]],
    rendered: Sequence[TrainFrame],
    real_train: Sequence[Sequence[TrainFrame]],
    begun: float,
    log: Log,
) -> Path:
    """Trains a first face network in place of ``kept``'s (its detector and other face networks
    stay as they are) and records it in ``model.json``'s ``training``, with the temperature and
    the confidence a pip count needs fitted for it; the detector's own record (``detector``) is
    kept, taken from the old ``training`` record where the model has none apart."""
    out = Path(cfg.out)
    fresh = _first_faces(cfg, None, pools, weights, val_frames, calibration_frames, rendered, real_train, begun, log)
    metadata = dict(kept.metadata)
    if "detector" not in metadata:
        old = metadata.get("training", {})
        metadata["detector"] = {
            "seed": old.get("seed"),
            "rendered_frames": old.get("rendered_frames"),
            **{key: old[key] for key in RENDERED_LOOKS if key in old},
            "real": [{k: v for k, v in r.items() if k != "weight"} for r in old.get("real", [])],
            "real_weight": old.get("real_weight"),
            "steps": old.get("detector_steps"),
            "batch": old.get("detector_batch"),
            "patch": old.get("detector_patch"),
            "lr": old.get("lr"),
        }
    for key in ("temperature", "min_confidence"):
        metadata[key] = fresh[key]
    metadata["training"] = {k: v for k, v in fresh["training"].items() if not k.startswith("detector_") and k != "real_weight"}
    (out / METADATA_FILE).write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")
    log(f"wrote the first face network in {out} in {(time.monotonic() - begun) / 60:.1f} min")
    return out


def _first_faces(
    cfg: TrainConfig,
    detector: DiceDetector | None,
    pools: list[list[TrainFrame]],
    weights: list[float],
    val_frames: Sequence[TrainFrame],
    calibration_frames: tuple[Sequence[TrainFrame], Sequence[TrainFrame]],
    rendered: Sequence[TrainFrame],
    real_train: Sequence[Sequence[TrainFrame]],
    begun: float,
    log: Log,
) -> dict[str, Any]:
    """Trains the face network, writes it and the detector (unless kept: None) to ``cfg.out``;
    returns ``model.json``'s contents."""
    out = Path(cfg.out)
    faces = train_faces(cfg, pools, weights, log)
    temperature = fit_temperature(faces, val_frames) if val_frames else 1.0
    log(f"face temperature {temperature} (fitted on {sum(len(f.dice) for f in val_frames)} val dice)")
    min_confidence = fit_min_confidence(faces, val_frames, temperature)
    log(f"min confidence {min_confidence} (the lowest at which the val dice read 99.8 % right)")
    if detector is not None:
        _export_detector(detector, out)
    int8_agreement = _export_faces(cfg, faces, out / FACES_FILE, val_frames, calibration_frames, log)
    return {
        "classes": list(CLASSES),
        "work_size": WORK_SIZE,
        "stride": STRIDE,
        "crop_size": cfg.crop_size,
        "crop_context": cfg.crop_context,
        "temperature": temperature,
        "min_confidence": min_confidence,
        "training": {
            "seed": cfg.seed,
            "rendered_frames": len(rendered),
            **rendered_record(cfg),
            "real": real_record(cfg, real_train, weights=True),
            "real_weight": cfg.real_weight if real_train else 0.0,
            "face_real_weight": cfg.face_real_weight if real_train else 0.0,
            "detector_steps": cfg.detector_steps,
            "detector_batch": cfg.detector_batch,
            "detector_patch": cfg.detector_patch,
            "face_steps": cfg.face_steps,
            "face_batch": cfg.face_batch,
            "face_width": cfg.face_width,
            **({"face_separable": True} if cfg.face_separable else {}),
            "negative_share": cfg.negative_share,
            "lr": cfg.lr,
            "int8": int8_agreement is not None and int8_agreement >= cfg.int8_agreement,
            "int8_agreement": None if int8_agreement is None else round(int8_agreement, 4),
            "minutes": round((time.monotonic() - begun) / 60, 1),
            **cfg.notes,
        },
    }


def _second_faces(
    cfg: TrainConfig,
    index: int,
    pools: list[list[TrainFrame]],
    weights: list[float],
    val_frames: Sequence[TrainFrame],
    calibration_frames: tuple[Sequence[TrainFrame], Sequence[TrainFrame]],
    log: Log,
    first: dict[str, Any],
    *,
    first_look: bool = False,
) -> dict[str, Any]:
    """Trains the ``index``-th face network beside the first (:data:`vision.learned.SECOND_FACES_FILE`
    for the first of them): the same recipe from the next seed (another start and other samples)
    on its own crop, so that where the first network is unsure of a die the other's view of it is
    its own; with ``cfg.second_hard_share``, that share of its samples are the training dice the
    first network reads under its ``min_confidence`` or wrong (:func:`hard_dice`), the only dice
    it is consulted on. Returns its record for ``model.json``'s ``second_faces``. With
    ``first_look``, the ``index``-th network of the first look
    (:data:`vision.learned.FIRST_LOOK_FILE`): on the first's own crop, read with it on every die."""
    begun = time.monotonic()
    second_cfg = replace(
        cfg,
        seed=cfg.seed + 1,
        crop_size=cfg.crop_size if first_look else cfg.second_crop_size or cfg.crop_size,
        crop_context=cfg.crop_context if first_look else cfg.second_crop_context or cfg.crop_context,
    )
    file = first_look_file(index) if first_look else second_faces_file(index)
    hard, hard_from = None, None
    if cfg.second_hard_share > 0:
        hard_from = hashlib.sha256((Path(cfg.out) / FACES_FILE).read_bytes()).hexdigest()
        first_net = load_face_network(Path(cfg.out) / FACES_FILE, cfg.threads)
        first_temperature = float(first.get("temperature", 1.0))

        def first_probabilities(crops: np.ndarray) -> np.ndarray:
            logits = first_net.run(None, {"image": crops})[0].astype(np.float64) / first_temperature
            out: np.ndarray = softmax(logits)
            return out

        hard = hard_dice(
            pools, weights, first_probabilities, int(first.get("crop_size", CROP_SIZE)),
            float(first.get("crop_context", CROP_CONTEXT)), float(first.get("min_confidence", 0.9)),
        )  # fmt: skip
        counts = [sum(len(f.dice) for f in pool) for pool in hard[0]]
        log(f"{file}: {sum(counts)} training dice the first network is unsure of or wrong about ({counts} by source), {cfg.second_hard_share:.0%} of its samples")
    second = train_faces(
        second_cfg, pools, weights, log, name=Path(file).stem.removeprefix("dice-"), hard=hard, hard_share=cfg.second_hard_share,
        camera_share=cfg.second_camera_share, standardised=cfg.second_standardised, hard_from=hard_from,
    )  # fmt: skip
    temperature = fit_temperature(second, val_frames) if val_frames else 1.0
    log(f"{file}: temperature {temperature}")
    agreement = _export_faces(second_cfg, second, Path(cfg.out) / file, val_frames, calibration_frames, log)
    record: dict[str, Any] = {
        "file": file,
        "seed": second_cfg.seed,
        "temperature": temperature,
        "crop_size": second_cfg.crop_size,
        "crop_context": second_cfg.crop_context,
        "face_steps": cfg.face_steps,
    }
    if hard is not None:
        record["hard_share"] = cfg.second_hard_share
    if cfg.second_camera_share > 0:
        record["camera_share"] = cfg.second_camera_share
    if cfg.second_standardised:
        record["input"] = "standardised"
    record.update(rendered_record(cfg))
    if agreement is not None:
        record["int8_agreement"] = round(agreement, 4)
    record["minutes"] = round((time.monotonic() - begun) / 60, 1)
    return record
