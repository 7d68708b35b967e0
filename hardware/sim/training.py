"""The simulated tray as a source of training data for the learned dice reader.

:func:`training_scene` draws a tray from a far wider world than the tests' :func:`random_scene`:
dice of any colour (low-contrast inks included: red on dark red, black on dark blue), pips, numerals,
emblems and hero artwork, opaque, marbled and translucent bodies, dice from tiny to frame-filling,
top-down to steep views, trays of felt, wood, paper or a white table with walls, one lamp or soft
light, colour casts and glare, hands, coins, cables and labels, touching, cocked and cut dice.
:func:`finish_frame` then adds what a real camera does on top (lens distortion, camera shake, a
colour cast, noise, JPEG).

:func:`write_training_set` renders ``n`` such frames into a folder: JPEGs and ``training.json``,
which extends the ``labels.json`` entry of each die with what training needs (``centre`` of the top
face, ``size`` of the whole die, ``status`` and ``kind``). Same seed, same files.
"""

from __future__ import annotations

import colorsys
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.sim.dataset import DatasetWriteError, _write_image
from hardware.sim.faces import DieDesign, DieStyle, Finish
from hardware.sim.glyphs import GLYPH_NAMES
from hardware.sim.render import DieTruth, render_tray
from hardware.sim.scene import (
    Background,
    Hand,
    InvalidScene,
    Lighting,
    Optics,
    TrayScene,
    random_background,
    random_scene,
)

TRAINING_FILE = "training.json"

#: Frame sizes drawn for training frames (the reader scales every frame to one working size first).
_FRAME_SIZES = ((640, 480), (640, 640), (480, 640), (800, 600), (512, 384))


def _bgr(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(max(s, 0.0), 1.0), min(max(v, 0.0), 1.0))
    return (int(b * 255), int(g * 255), int(r * 255))


def random_style(rng: np.random.Generator, bold_marble: float = 0.0) -> DieStyle:
    """A die body and ink of any colour; one in five is low contrast (same hue, close value).

    ``bold_marble``: the share of marbled dice given bold, sharp veins (:attr:`DieStyle.veins`),
    often of the ink's colour or white. Drawn from the style's own seed, not from ``rng``: a
    scene is the same with any share, but for how its marbled dice look."""
    h = float(rng.random())
    kind = rng.random()
    if kind < 0.25:  # white, ivory, grey or black bodies
        v = float(rng.choice([0.95, 0.85, 0.6, 0.15, 0.08]))
        body = _bgr(h, float(rng.uniform(0, 0.15)), v)
    else:
        body = _bgr(h, float(rng.uniform(0.35, 1.0)), float(rng.uniform(0.25, 1.0)))
    body_v = max(body) / 255.0
    low_contrast = rng.random() < 0.2
    if low_contrast:  # red on dark red, black on dark blue, gold on yellow
        shift = float(rng.uniform(0.18, 0.35)) * (1 if body_v < 0.5 else -1)
        ink = _bgr(h + float(rng.uniform(-0.05, 0.05)), float(rng.uniform(0.3, 1.0)), body_v + shift)
    elif body_v > 0.55:
        ink = _bgr(float(rng.random()), float(rng.uniform(0, 1.0)), float(rng.uniform(0.0, 0.35)))
    else:
        ink = _bgr(float(rng.random()), float(rng.uniform(0, 0.8)), float(rng.uniform(0.75, 1.0)))
    finish = Finish(str(rng.choice([f.value for f in Finish], p=[0.55, 0.2, 0.25])))
    marble = _bgr(h + float(rng.uniform(-0.3, 0.3)), float(rng.uniform(0, 1)), float(rng.uniform(0.3, 1.0)))
    seed = int(rng.integers(1 << 30))
    veins = 0.0
    if finish is Finish.MARBLED and bold_marble > 0:
        own = np.random.default_rng([seed, 1])
        if own.random() < bold_marble:
            veins = float(own.uniform(0.55, 0.95))
            vein_colour = own.random()
            if vein_colour < 0.35:
                marble = ink  # a pip on a vein of its own colour all but vanishes
            elif vein_colour < 0.7:
                marble = _bgr(0.0, 0.0, float(own.uniform(0.8, 1.0)))
    return DieStyle(body, ink, finish, marble, seed, veins)


def random_design(rng: np.random.Generator) -> DieDesign:
    """Mostly pip dice; some with an emblem for a pip, numerals, or hero artwork with corner numbers."""
    r = rng.random()
    if r < 0.62:
        return DieDesign.pips()
    if r < 0.74:
        return DieDesign.pips_with_emblem(int(rng.choice([1, 6])), str(rng.choice(GLYPH_NAMES)))
    if r < 0.82:
        return DieDesign.numerals()
    glyphs = [str(g) for g in rng.choice(GLYPH_NAMES, 3, replace=len(GLYPH_NAMES) < 3)]
    faces = [glyphs[0]] * 3 + [glyphs[1]] * 2 + [glyphs[2]]
    order = rng.permutation(6)
    return DieDesign.from_symbols(f"art{int(rng.integers(1000))}", [faces[int(i)] for i in order])


def random_tray(rng: np.random.Generator, width: int, height: int) -> Background:
    """Felt, wood, paper, a patterned cloth or a white table, with tray walls two times in five."""
    walls = float(rng.uniform(0.03, 0.12)) if rng.random() < 0.4 else 0.0
    if rng.random() < 0.3:  # any colour of felt or neoprene, or a white table
        colour = _bgr(float(rng.random()), float(rng.uniform(0, 0.9)), float(rng.uniform(0.1, 0.97)))
        if rng.random() < 0.3:
            colour = _bgr(0, 0, float(rng.uniform(0.8, 0.98)))
        return Background("plain", colour, int(rng.integers(1 << 30)), walls)
    return random_background(rng, walls=walls)


def random_lighting(rng: np.random.Generator) -> Lighting:
    """One hard lamp to overcast daylight, uneven light, under- and over-exposure, some glare."""
    return Lighting(
        azimuth_deg=float(rng.uniform(0, 360)),
        elevation_deg=float(rng.uniform(30, 88)),
        gradient=float(rng.uniform(0.0, 0.45)),
        gradient_dir_deg=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(0.0, 0.4)),
        exposure=float(rng.uniform(0.6, 1.25)),
        glare=float(rng.uniform(0.1, 0.7)) if rng.random() < 0.35 else 0.0,
        diffuse=float(rng.uniform(0.0, 1.0)),
    )


def random_optics(rng: np.random.Generator) -> Optics:
    warm = float(rng.uniform(-1, 1))
    return Optics(
        noise=float(rng.uniform(0.5, 9.0)),
        blur=float(rng.uniform(0.2, 1.6)),
        jpeg_quality=int(rng.integers(45, 96)),
        white_balance=(1.0 + 0.15 * warm, 1.0 + float(rng.uniform(-0.05, 0.05)), 1.0 - 0.15 * warm),
    )


def training_scene(rng: np.random.Generator, width: int = 640, height: int = 480, *, bold_marble: float = 0.0) -> TrayScene:
    """One tray from the wide training world (see the module docstring); ``bold_marble`` as
    :func:`random_style` takes it.

    :raises InvalidScene: only if the frame size itself is invalid (crowded draws are retried).
    """
    for _ in range(20):
        n = int(rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 10, 14, 18, 24], p=[0.03, 0.1, 0.1, 0.1, 0.1, 0.12, 0.1, 0.08, 0.07, 0.06, 0.08, 0.06]))
        # Die edge at the frame's scale: 14-140 px on a 640-wide frame, fewer big dice when crowded.
        crowd = math.sqrt(width * height * 0.2 / max(n, 1)) / 1.5
        die_px = float(min(math.exp(rng.uniform(math.log(14), math.log(140))) * width / 640, crowd))
        die_px = max(die_px, 10.0)
        styles = [random_style(rng, bold_marble) for _ in range(int(rng.integers(1, 5)))]
        designs = [random_design(rng) for _ in range(int(rng.integers(1, 3)))]
        cocked = int(rng.random() < 0.3 and n >= 2)
        cut = int(rng.integers(0, 3)) if rng.random() < 0.35 else 0
        touching = int(rng.integers(0, 3)) if n >= 4 else 0
        hand: bool | Hand = bool(rng.random() < 0.08)
        try:
            return random_scene(
                rng,
                n,
                width=width,
                height=height,
                tilt_deg=float(rng.choice([0.0, rng.uniform(0, 25), rng.uniform(20, 45)])),
                die_px=die_px,
                background=random_tray(rng, width, height),
                designs=designs,
                styles=styles,
                touching=min(touching, max(0, (n - cocked - cut) // 2)),
                cocked=cocked,
                out_of_frame=min(cut, max(0, n - cocked)),
                hand=hand,
                lighting=random_lighting(rng),
                optics=random_optics(rng),
                distractors=int(rng.choice([0, 0, 1, 2, 3])),
            )
        except InvalidScene:
            continue
    return random_scene(rng, 1, width=width, height=height)


def _gains(rng: np.random.Generator) -> tuple[float, float, float]:
    b, g, r = (float(v) for v in rng.uniform(0.75, 1.25, 3))
    return (b, g, r)


@dataclass(frozen=True)
class FrameFinish:
    """What the camera adds after the scene: barrel (k > 0) or pincushion distortion, a shake blur
    (length in px, angle), per-channel gains (a colour cast) and a gamma."""

    distortion: float = 0.0
    shake_px: float = 0.0
    shake_deg: float = 0.0
    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gamma: float = 1.0

    @classmethod
    def random(cls, rng: np.random.Generator) -> FrameFinish:
        return cls(
            distortion=float(rng.uniform(-0.12, 0.2)) if rng.random() < 0.4 else 0.0,
            shake_px=float(rng.uniform(1, 4)) if rng.random() < 0.12 else 0.0,
            shake_deg=float(rng.uniform(0, 180)),
            gains=_gains(rng) if rng.random() < 0.5 else (1.0, 1.0, 1.0),
            gamma=float(rng.uniform(0.7, 1.4)),
        )

    def point(self, x: float, y: float, width: int, height: int) -> tuple[float, float]:
        """Where a scene point lands in the finished frame."""
        if not self.distortion:
            return x, y
        cx, cy, r0 = width / 2, height / 2, math.hypot(width, height) / 2
        u, v = (x - cx) / r0, (y - cy) / r0
        scale = 1.0 / (1.0 + self.distortion * (u * u + v * v))
        return cx + u * scale * r0, cy + v * scale * r0

    def apply(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        out = frame
        if self.distortion:
            cx, cy, r0 = w / 2, h / 2, math.hypot(w, h) / 2
            ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
            u, v = (xs - cx) / r0, (ys - cy) / r0
            # Inverse of point(): a finished pixel at radius r came from radius r * (1 + k r0^2),
            # solved by two fixed-point steps (exact enough for |k| <= 0.2).
            src_u, src_v = u.copy(), v.copy()
            for _ in range(3):
                s = 1.0 + self.distortion * (src_u * src_u + src_v * src_v)
                src_u, src_v = u * s, v * s
            out = cv2.remap(out, src_u * r0 + cx, src_v * r0 + cy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        if self.shake_px >= 1:
            n = int(round(self.shake_px)) * 2 + 1
            kernel = np.zeros((n, n), np.float32)
            a = math.radians(self.shake_deg)
            c = n // 2
            cv2.line(kernel, (int(c - c * math.cos(a)), int(c - c * math.sin(a))), (int(c + c * math.cos(a)), int(c + c * math.sin(a))), 1.0, 1)
            out = cv2.filter2D(out, -1, kernel / kernel.sum())
        if self.gains != (1.0, 1.0, 1.0) or self.gamma != 1.0:
            lut = np.stack(
                [np.clip(255.0 * (np.arange(256) / 255.0) ** self.gamma * g, 0, 255) for g in self.gains], axis=1
            ).astype(np.uint8)
            out = np.dstack([cv2.LUT(out[:, :, i], lut[:, i]) for i in range(3)])
        return np.ascontiguousarray(out)


def _die_entry(truth: DieTruth, finish: FrameFinish, width: int, height: int) -> dict[str, Any]:
    quad = [finish.point(x, y, width, height) for x, y in truth.quad]
    cx = sum(p[0] for p in quad) / len(quad)
    cy = sum(p[1] for p in quad) / len(quad)
    x, y, w, h = truth.die_box
    corners = [finish.point(px, py, width, height) for px, py in ((x, y), (x + w, y + h))]
    size = max(corners[1][0] - corners[0][0], corners[1][1] - corners[0][1])
    entry = truth.label()
    entry.update(
        {
            "centre": [round(cx, 2), round(cy, 2)],
            "size": round(float(size), 2),
            "status": truth.status.value,
            "kind": truth.kind.value,
        }
    )
    return entry


def with_streaks(scene: TrayScene, share: float) -> TrayScene:
    """``scene``, or, for ``share`` of scenes, the same scene lit by a long light whose reflection
    crosses its glossy top faces in thin bright bands (:attr:`Lighting.streaks`). Drawn from the
    scene's own seed, not from the caller's generator: a scene is the same with any share, but for
    those bands."""
    if share <= 0:
        return scene
    own = np.random.default_rng([scene.background.seed, 2])
    if own.random() >= share:
        return scene
    streaks = replace(
        scene.lighting,
        streaks=float(own.uniform(0.35, 1.0)),
        streak_angle_deg=float(own.uniform(0, 180)),
        streak_width=float(own.uniform(0.03, 0.14)),
        streak_count=int(own.choice([1, 1, 1, 2, 3])),
    )
    return replace(scene, lighting=streaks)


def training_frame(
    rng: np.random.Generator, *, bold_marble: float = 0.0, glare_streaks: float = 0.0
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """One finished training frame and its dice (see :data:`TRAINING_FILE` for the entry keys);
    ``bold_marble`` as :func:`random_style` takes it, ``glare_streaks`` as :func:`with_streaks`."""
    width, height = _FRAME_SIZES[int(rng.integers(len(_FRAME_SIZES)))]
    scene = with_streaks(training_scene(rng, width, height, bold_marble=bold_marble), glare_streaks)
    tray = render_tray(scene, rng)
    finish = FrameFinish.random(rng)
    frame = finish.apply(tray.frame)
    dice = [_die_entry(t, finish, width, height) for t in tray.truth]
    return frame, dice


def write_training_set(
    directory: str | Path, n_frames: int, seed: int = 0, *, start: int = 0, bold_marble: float = 0.0, glare_streaks: float = 0.0
) -> Path:
    """Render ``n_frames`` training frames into ``directory`` (``train_NNNNNN.jpg`` + ``training.json``).

    Frame ``i`` is drawn from its own seed (``seed``, ``i``), so a set can be extended with ``start``
    and any frame rebuilt alone. ``bold_marble``: as :func:`random_style` takes it (the same
    scenes, their marbled dice veined boldly at that share); ``glare_streaks``: the share of frames
    whose glossy dice show a long light's reflection (:func:`with_streaks`; the same scenes else).

    :raises DatasetWriteError: the folder or a file cannot be written.
    """
    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetWriteError(f"could not create folder {str(out)!r}: {exc.strerror or exc}") from exc
    entries: list[dict[str, Any]] = []
    for i in range(start, start + n_frames):
        rng = np.random.default_rng([seed, i])
        frame, dice = training_frame(rng, bold_marble=bold_marble, glare_streaks=glare_streaks)
        name = f"train_{i:06d}.jpg"
        _write_image(out / name, frame, jpeg_quality=95)
        entries.append({"image": name, "width": frame.shape[1], "height": frame.shape[0], "dice": dice})
    target = out / TRAINING_FILE
    try:
        target.write_text(json.dumps(entries), encoding="utf-8")
    except OSError as exc:
        raise DatasetWriteError(f"could not write {str(target)!r}: {exc.strerror or exc}") from exc
    return target


__all__ = [
    "TRAINING_FILE",
    "FrameFinish",
    "random_design",
    "random_style",
    "training_frame",
    "training_scene",
    "with_streaks",
    "write_training_set",
]
