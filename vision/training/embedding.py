"""Training the face embedding (needs the ``train`` extra).

:func:`train_embedding` learns :class:`~vision.training.nets.FaceEmbedder` from face crops that
know which face they show: an ``.npz`` with ``crops`` (N x H x W grey uint8), ``identity`` and
``design`` (what :func:`hardware.sim.identity.identity_crops` writes). Each step takes every face of
a few die sets, a few shots of each, changed as cameras change them (turned, moved, lit, blurred,
noisy), and pulls the shots of one face together and every other face apart (a supervised
contrastive loss): within a step the faces of one set stand side by side, so faces that share a
symbol and differ only in a corner number are always among the faces told apart.

:func:`few_shot` measures what a calibrated profile needs: with ``k`` shots of each face of a set,
how often another shot is nearest a shot of its own face. Every random choice comes from ``seed``
and the step: a run stopped and started again from its checkpoint draws the same batches.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import torch

from vision.errors import DatasetError
from vision.face_embedding import EMBEDDING_FILE, RECORD_FILE, embedding_input, turned_embeddings
from vision.profile_reader import DESCRIPTOR_SIZE, face_square
from vision.training.nets import FaceEmbedder
from vision.training.train import export_onnx

F32 = npt.NDArray[np.float32]
I32 = npt.NDArray[np.int32]

CHECKPOINT = "embedding.ckpt"


@dataclass(frozen=True)
class EmbedConfig:
    """How :func:`train_embedding` trains."""

    steps: int = 4000
    sets_per_step: int = 12
    shots: int = 3
    miscuts: int = 4
    lr: float = 2e-3
    weight_decay: float = 1e-4
    temperature: float = 0.1
    width: int = 32
    dim: int = 64
    seed: int = 0
    #: Each checkpoint also measures the val sets: a few seconds a time.
    checkpoint_every: int = 1000
    threads: int = 2


@dataclass(frozen=True)
class FaceShots:
    """Face squares (N x S x S float32, as :func:`vision.profile_reader.face_square` makes them),
    for each the index of its identity and of its die set."""

    squares: F32
    identity: I32
    design: I32

    @classmethod
    def load(cls, path: str | Path) -> FaceShots:
        """Read an ``.npz`` of crops (see the module docstring).

        :raises DatasetError: the file is missing, unreadable or lacks a key.
        """
        try:
            with np.load(path) as data:
                missing = [key for key in ("crops", "identity", "design") if key not in data.files]
                if missing:
                    raise DatasetError(f"face crops {str(path)!r} have no {missing[0]!r} array")
                crops, identity, design = data["crops"], data["identity"], data["design"]
        except (OSError, ValueError) as error:
            raise DatasetError(f"cannot read face crops {str(path)!r}: {error}") from None
        if crops.dtype != np.uint8 or crops.ndim != 3 or not len(crops) == len(identity) == len(design):
            raise DatasetError(f"face crops {str(path)!r}: crops must be N x H x W uint8 with an identity and a design each")
        squares = np.stack([face_square(c) for c in crops]) if len(crops) else np.zeros((0, DESCRIPTOR_SIZE, DESCRIPTOR_SIZE), np.float32)
        return cls(squares, identity.astype(np.int32), design.astype(np.int32))

    def groups(self) -> dict[int, dict[int, npt.NDArray[np.intp]]]:
        """For each die set, for each of its faces' identities, the indices of its shots; badly cut
        crops (a negative identity) under identity -1."""
        out: dict[int, dict[int, npt.NDArray[np.intp]]] = {}
        order = np.lexsort((np.maximum(self.identity, -1), self.design))
        keys = np.stack([self.design[order], np.maximum(self.identity[order], -1)], axis=1)
        starts = np.flatnonzero(np.r_[True, np.any(keys[1:] != keys[:-1], axis=1)])
        for start, end in zip(starts, np.r_[starts[1:], len(order)]):
            design, identity = int(keys[start, 0]), int(keys[start, 1])
            out.setdefault(design, {})[identity] = order[start:end]
        return out


def augment(square: F32, rng: np.random.Generator) -> F32:
    """One square as another camera and outline would show it: a quarter turn, a few degrees
    more, moved and scaled a little, another contrast and gamma, sometimes soft, always noisy."""
    size = square.shape[0]
    turned = np.ascontiguousarray(np.rot90(square, int(rng.integers(4))))
    centre = ((size - 1) / 2 + float(rng.normal(0, 1.0)), (size - 1) / 2 + float(rng.normal(0, 1.0)))
    matrix = np.asarray(cv2.getRotationMatrix2D(centre, float(rng.uniform(-12, 12)), float(rng.uniform(0.9, 1.1))))
    matrix[:, 2] = matrix[:, 2] + rng.normal(0, 1.0, 2)
    moved = np.asarray(cv2.warpAffine(turned, matrix, (size, size), borderMode=cv2.BORDER_REPLICATE), np.float32)
    lit = 255.0 * (np.clip(moved, 0, 255) / 255.0) ** float(rng.uniform(0.7, 1.4))
    lit = lit * float(rng.uniform(0.6, 1.3)) + float(rng.uniform(-30, 30))
    if rng.random() < 0.35:
        lit = np.asarray(cv2.GaussianBlur(lit, (0, 0), float(rng.uniform(0.5, 1.4))))
    noisy = lit + rng.normal(0, float(rng.uniform(0, 6)), lit.shape)
    return np.asarray(noisy, np.float32)


def supervised_contrastive(embeddings: torch.Tensor, labels: torch.Tensor, temperature: float) -> torch.Tensor:
    """Mean over anchors of -log (how much of its similarity mass falls on shots of its own face)."""
    similarity = embeddings @ embeddings.T / temperature
    n = len(labels)
    self_mask = torch.eye(n, dtype=torch.bool)
    similarity = similarity.masked_fill(self_mask, -1e9)
    positives = (labels[:, None] == labels[None, :]) & ~self_mask
    log_p = similarity - torch.logsumexp(similarity, dim=1, keepdim=True)
    counts = positives.sum(dim=1).clamp(min=1)
    loss = -(log_p * positives).sum(dim=1) / counts
    return loss[positives.any(dim=1)].mean()


def _batch(shots: FaceShots, groups: dict[int, dict[int, npt.NDArray[np.intp]]], config: EmbedConfig, rng: np.random.Generator) -> tuple[F32, I32]:
    designs = list(groups)
    chosen = rng.choice(len(designs), min(config.sets_per_step, len(designs)), replace=False)
    squares: list[F32] = []
    labels: list[int] = []
    for d in chosen:
        for identity, members in groups[designs[int(d)]].items():
            if identity < 0:
                # Badly cut crops: each a label of its own, so only ever pushed away from faces.
                for i in rng.choice(members, min(config.miscuts, len(members)), replace=False):
                    squares.append(augment(shots.squares[int(i)], rng))
                    labels.append(-1 - len(labels))
                continue
            if len(members) < 2:
                continue
            picks = rng.choice(members, min(config.shots, len(members)), replace=False)
            for i in picks:
                squares.append(augment(shots.squares[int(i)], rng))
                labels.append(identity)
    return np.stack(squares), np.array(labels, np.int32)


def _rate(step: int, config: EmbedConfig) -> float:
    warm = 200
    if step < warm:
        return config.lr * (step + 1) / warm
    return config.lr * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, config.steps - warm)))


def embed_with(net: torch.nn.Module) -> Callable[[F32], F32]:
    """A function from squares (N x S x S) to unit vectors through ``net`` in eval mode."""

    def embed(squares: F32) -> F32:
        net.eval()
        with torch.no_grad():
            parts = [net(torch.from_numpy(embedding_input(squares[i : i + 512]))).numpy() for i in range(0, len(squares), 512)]
        return np.concatenate(parts).astype(np.float32) if parts else np.zeros((0, 0), np.float32)

    return embed


@dataclass(frozen=True)
class FewShotReads:
    """Every held-out read of :func:`few_shot_reads`: for each shot of a face, its similarity to
    its own face (``own``) and to the closest other face of its set (``rival``); for each badly cut
    crop, its similarity to the closest face of its set and that face's lead over the next."""

    own: npt.NDArray[np.float64]
    rival: npt.NDArray[np.float64]
    miscut_best: npt.NDArray[np.float64]
    miscut_lead: npt.NDArray[np.float64]


def few_shot_reads(embed: Callable[[F32], F32], shots: FaceShots, k: int, *, turned: F32 | None = None) -> FewShotReads:
    """The first ``k`` shots of each face of each die set as exemplars (in four turns), every
    other shot and badly cut crop of the set read against them. ``turned``: the shots'
    :func:`~vision.face_embedding.turned_embeddings` already made (one embedding serves every ``k``)."""
    if turned is None:
        turned = turned_embeddings(embed, shots.squares)
    vectors = turned[:, 0]  # turn 0 is each shot as it lies
    own: list[float] = []
    rival: list[float] = []
    miscut_best: list[float] = []
    miscut_lead: list[float] = []
    for faces in shots.groups().values():
        identities = [i for i, members in faces.items() if i >= 0 and len(members) > k]
        if len(identities) < 2:
            continue
        banks = [turned[faces[i][:k]].reshape(-1, turned.shape[2]) for i in identities]
        for query in faces.get(-1, ()):
            ranked = sorted((float((bank @ vectors[query]).max()) for bank in banks), reverse=True)
            miscut_best.append(ranked[0])
            miscut_lead.append(ranked[0] - ranked[1])
        for n, identity in enumerate(identities):
            for query in faces[identity][k:]:
                best = [float((bank @ vectors[query]).max()) for bank in banks]
                own.append(best.pop(n))
                rival.append(max(best))
    return FewShotReads(*(np.asarray(v, np.float64) for v in (own, rival, miscut_best, miscut_lead)))


def few_shot(embed: Callable[[F32], F32], shots: FaceShots, k: int) -> dict[str, float]:
    """What :func:`few_shot_reads` found: how often a shot is nearest its own face (``right``),
    the median lead of its own face over the closest other, the 1st percentile of a shot's
    similarity to its own face (``own_p01``) and the 99th of a badly cut crop's to the closest
    face of its set (``miscut_p99``)."""
    return _summary(few_shot_reads(embed, shots, k))


def _summary(reads: FewShotReads) -> dict[str, float]:
    def quantile(values: npt.NDArray[np.float64], q: float) -> float:
        return float(np.quantile(values, q)) if len(values) else 0.0

    return {
        "right": float(np.mean(reads.own > reads.rival)) if len(reads.own) else 0.0,
        "shots": float(len(reads.own)),
        "median_margin": quantile(reads.own - reads.rival, 0.5),
        "own_p01": quantile(reads.own, 0.01),
        "miscut_p99": quantile(reads.miscut_best, 0.99),
    }


#: How often the embedding's preferred face must be right at a lead for that lead to veto an
#: exemplar read of another face: at 0.99 (0.22 for the shipped embedding) rendered hero dice
#: read at tables unlike the calibration's were still read as the other number of their symbol
#: 1 in 50 to 1 in 100 times, most of them where the embedding preferred the right face by
#: 0.13-0.21 (docs/calibration.md).
VETO_PRECISION = 0.98


#: The similarity under which a crop is like no face of a profile (``EmbeddingOpinion.stranger``).
#: Chosen on rendered hero dice calibrated and read on a wooden tray and on felt (seeds 7300 and
#: 7400, never those the figures are measured at): the faces read right were 0.8 or more alike to
#: their face, another set's faces the exemplars took for one 0.58 or less.
STRANGER = 0.7


def choose_opinion(reads: FewShotReads, precision: float = 0.995, miscut_share: float = 0.002) -> dict[str, float]:
    """The :class:`~vision.face_embedding.EmbeddingOpinion` these held-out reads support:
    ``rescue`` the smallest lead at which the preferred face is right at least ``precision`` of the
    time, ``veto`` the lead at which it is right 98 % of the time (a veto only makes a read
    unreadable, so it need not be as sure as a rescue: an exemplar read of another face that the
    embedding disputes by that lead is wrong about 49 times in 50), ``floor`` the similarity at
    most ``miscut_share`` of badly cut crops reach with that lead, ``rescue_confidence`` the
    fraction right of reads meeting both, and ``stranger`` :data:`STRANGER`."""
    leads = np.concatenate([reads.own - reads.rival, reads.rival - reads.own])
    right = np.concatenate([np.ones(len(reads.own), bool), np.zeros(len(reads.own), bool)])
    best = np.concatenate([np.maximum(reads.own, reads.rival)] * 2)
    keep = leads > 0  # each read once, at the lead of the face it prefers
    leads, right, best = leads[keep], right[keep], best[keep]

    def lead_for(target: float) -> float:
        for lead in np.arange(0.02, 0.6, 0.01):
            chosen = leads >= lead
            if chosen.sum() >= 20 and right[chosen].mean() >= target:
                return round(float(lead), 2)
        return 0.6

    rescue, veto = lead_for(precision), lead_for(VETO_PRECISION)
    sure_miscuts = reads.miscut_best[reads.miscut_lead >= rescue]
    floor = float(np.quantile(sure_miscuts, 1.0 - miscut_share * len(reads.miscut_best) / max(1, len(sure_miscuts)))) if len(sure_miscuts) else 0.5
    floor = round(min(max(floor + 0.01, 0.5), 0.99), 2)
    chosen = (leads >= rescue) & (best >= floor)
    confidence = float((right[chosen].sum() + 0.5) / (chosen.sum() + 1.0))
    return {"veto": veto, "rescue": rescue, "rescue_confidence": round(min(confidence, 0.99), 3), "floor": floor, "stranger": STRANGER}


def train_embedding(
    train_file: str | Path,
    val_file: str | Path,
    out: str | Path,
    config: EmbedConfig = EmbedConfig(),
    log: Callable[[str], None] = print,
    checkpoint_dir: str | Path | None = None,
    data: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Train, checkpointing into ``checkpoint_dir`` (default ``out``), then export
    ``face-embedding.onnx`` and write a record of the run (with ``data``, what the crop files were
    rendered from), its ``val`` figures and the opinion they support (``face-embedding.json``).
    Returns the record."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    train, val = FaceShots.load(train_file), FaceShots.load(val_file)
    groups = train.groups()
    log(f"embedding: {len(train.squares)} train shots of {len(groups)} die sets, {len(val.squares)} val shots")
    net = FaceEmbedder(config.width, config.dim)
    optimiser = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    step = 0
    checkpoint = Path(checkpoint_dir or out) / CHECKPOINT
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    if checkpoint.is_file():
        state = torch.load(checkpoint, weights_only=True)
        net.load_state_dict(state["net"])
        optimiser.load_state_dict(state["optimiser"])
        step = int(state["step"])
        log(f"embedding: resumed at step {step}")
    started, losses = time.perf_counter(), []
    while step < config.steps:
        net.train()
        rng = np.random.default_rng([config.seed, step])
        squares, labels = _batch(train, groups, config, rng)
        for group in optimiser.param_groups:
            group["lr"] = _rate(step, config)
        loss = supervised_contrastive(net(torch.from_numpy(embedding_input(squares))), torch.from_numpy(labels).long(), config.temperature)
        optimiser.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimiser.step()
        losses.append(float(loss.detach()))
        step += 1
        if step % config.checkpoint_every == 0 or step == config.steps:
            torch.save({"net": net.state_dict(), "optimiser": optimiser.state_dict(), "step": step}, checkpoint)
            figures = few_shot(embed_with(net), val, 2)
            log(
                f"embedding step {step}: loss {np.mean(losses):.3f}, val 2-shot right {figures['right']:.4f} "
                f"(margin {figures['median_margin']:.3f}, own p01 {figures['own_p01']:.3f}, miscut p99 {figures['miscut_p99']:.3f}), "
                f"{(time.perf_counter() - started) / len(losses):.2f} s/step"
            )
            losses, started = [], time.perf_counter()
    net.eval()
    export_onnx(net, torch.zeros(1, 1, DESCRIPTOR_SIZE, DESCRIPTOR_SIZE), out / EMBEDDING_FILE)
    embed = embed_with(net)
    turned = turned_embeddings(embed, val.squares)
    reads = {k: few_shot_reads(embed, val, k, turned=turned) for k in (1, 2, 4)}
    record: dict[str, Any] = {
        "config": asdict(config),
        "data": data or {"train": str(train_file), "val": str(val_file)},
        "train_shots": len(train.squares),
        "val": {f"{k}_shots": _summary(r) for k, r in reads.items()},
        # Chosen on two shots a face: fewer than a profile is built from, so the numbers hold there.
        "opinion": choose_opinion(reads[2]),
    }
    (out / RECORD_FILE).write_text(json.dumps(record, indent=1), encoding="utf-8")
    log(f"embedding: {json.dumps(record['val'])}")
    return record


__all__ = ["EmbedConfig", "FaceShots", "FewShotReads", "augment", "choose_opinion", "few_shot", "few_shot_reads", "supervised_contrastive", "train_embedding"]
