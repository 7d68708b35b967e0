"""Things in the frame that are not dice: a cable, a coin, a paper label with a barcode, a keyboard
key with a letter on it. Real photos of a table have them, and a reader must not count them.

They lie flat on the tray and are drawn before the dice (a die may roll against them, never under).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.errors import HardwareError

DISTRACTOR_KINDS = ("cable", "coin", "label", "key")


class InvalidDistractor(HardwareError, ValueError):
    """A distractor of an unknown kind or a bad size."""


@dataclass(frozen=True)
class Distractor:
    """One non-die object: ``kind`` (see :data:`DISTRACTOR_KINDS`), its centre as fractions of the
    frame (``u``, ``v``), its ``size`` in die edges, its turn ``angle_deg``, its ``colour`` (BGR) and a
    ``seed`` for its details (the cable's path, the label's bars, the key's letter)."""

    kind: str
    u: float
    v: float
    size: float = 1.0
    angle_deg: float = 0.0
    colour: tuple[int, int, int] = (40, 40, 40)
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in DISTRACTOR_KINDS:
            raise InvalidDistractor(f"distractor kind must be one of {', '.join(DISTRACTOR_KINDS)}, got {self.kind!r}")
        if not 0.1 <= self.size <= 20:
            raise InvalidDistractor(f"distractor size must be 0.1-20 die edges, got {self.size!r}")


def random_distractor(rng: np.random.Generator, kind: str | None = None) -> Distractor:
    kind = kind or str(rng.choice(DISTRACTOR_KINDS))
    colour = {
        "cable": (30, 30, 30),
        "coin": ((60, 150, 190) if rng.random() < 0.5 else (170, 170, 170)),
        "label": (235, 238, 240),
        "key": (45, 45, 50),
    }[kind]
    size = {"cable": 6.0, "coin": 0.9, "label": 2.5, "key": 1.1}[kind] * float(rng.uniform(0.8, 1.2))
    return Distractor(kind, float(rng.uniform(0.05, 0.95)), float(rng.uniform(0.05, 0.95)), size, float(rng.uniform(0, 360)), colour, int(rng.integers(1 << 30)))


def outline(d: Distractor, die_px: float, width: int, height: int) -> np.ndarray:
    """A convex outline of the object in pixels (for keeping dice clear of it), float32 (K, 2)."""
    cx, cy = d.u * width, d.v * height
    if d.kind == "cable":
        pts = _cable_points(d, die_px, width, height)
        return np.asarray(cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2))
    half = d.size * die_px / 2
    aspect = 0.45 if d.kind == "label" else 1.0
    a = math.radians(d.angle_deg)
    corners = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        x, y = sx * half, sy * half * aspect
        corners.append((cx + x * math.cos(a) - y * math.sin(a), cy + x * math.sin(a) + y * math.cos(a)))
    return np.array(corners, np.float32)


def _cable_points(d: Distractor, die_px: float, width: int, height: int) -> np.ndarray:
    rng = np.random.default_rng(d.seed)
    length = d.size * die_px
    a = math.radians(d.angle_deg)
    bend = float(rng.uniform(-0.6, 0.6))
    pts = []
    for i in range(24):
        t = i / 23 - 0.5
        ang = a + bend * t * 2
        pts.append((d.u * width + math.cos(ang) * t * length, d.v * height + math.sin(ang) * t * length + bend * length * 0.15 * (1 - 4 * t * t)))
    return np.array(pts, np.float64)


def draw_distractor(
    canvas: np.ndarray, d: Distractor, die_px: float, gain: np.ndarray, white_balance: np.ndarray | None = None
) -> None:
    """Draw ``d`` into ``canvas`` (float32 BGR) in place, lit by the light ``gain`` map and seen
    through the camera's ``white_balance`` (B, G, R gains)."""
    h, w = canvas.shape[:2]
    poly = outline(d, die_px, w, h)
    pad = int(die_px * 0.6) + 2
    x0 = max(int(poly[:, 0].min()) - pad, 0)
    y0 = max(int(poly[:, 1].min()) - pad, 0)
    x1 = min(int(poly[:, 0].max()) + pad, w)
    y1 = min(int(poly[:, 1].max()) + pad, h)
    if x1 <= x0 or y1 <= y0:
        return
    patch = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    off = np.array([x0, y0])
    colour = tuple(int(c) for c in d.colour)
    rng = np.random.default_rng(d.seed)

    def ipts(p: np.ndarray) -> np.ndarray:
        return np.round((p - off) * 16).astype(np.int32)

    if d.kind == "cable":
        pts = _cable_points(d, die_px, w, h)
        thick = max(2, int(die_px * 0.3))
        cv2.polylines(mask, [ipts(pts)], False, 255, thick, cv2.LINE_AA, 4)
        cv2.polylines(patch, [ipts(pts)], False, colour, thick, cv2.LINE_AA, 4)
        shine = tuple(min(255, c + 60) for c in colour)
        cv2.polylines(patch, [ipts(pts - [0, thick * 0.2])], False, shine, max(1, thick // 4), cv2.LINE_AA, 4)
    elif d.kind == "coin":
        c = ipts(np.array([d.u * w, d.v * h]))
        r = int(d.size * die_px / 2 * 16)
        cv2.circle(mask, (int(c[0]), int(c[1])), r, 255, -1, cv2.LINE_AA, 4)
        cv2.circle(patch, (int(c[0]), int(c[1])), r, colour, -1, cv2.LINE_AA, 4)
        rim = tuple(int(v * 0.7) for v in colour)
        cv2.circle(patch, (int(c[0]), int(c[1])), int(r * 0.82), rim, max(1, int(die_px * 0.03)), cv2.LINE_AA, 4)
    else:
        quad = ipts(poly.astype(np.float64))
        cv2.fillConvexPoly(mask, quad, 255, cv2.LINE_AA, 4)
        cv2.fillConvexPoly(patch, quad, colour, cv2.LINE_AA, 4)
        centre = poly.mean(axis=0)
        a = math.radians(d.angle_deg)
        ux, uy = math.cos(a), math.sin(a)
        if d.kind == "label":
            # A barcode: bars of random widths across the middle of the label.
            length = d.size * die_px * 0.8
            t = -0.5
            ink = (25, 25, 25)
            while t < 0.5:
                bw = float(rng.choice([0.008, 0.015, 0.025]))
                if rng.random() < 0.55:
                    p = centre + np.array([ux, uy]) * t * length
                    q = np.array([-uy, ux]) * d.size * die_px * 0.13
                    cv2.line(patch, tuple(int(v) for v in ipts(p - q)), tuple(int(v) for v in ipts(p + q)), ink, max(1, int(bw * length)), cv2.LINE_AA, 4)
                t += bw * 1.6
        else:
            # A keyboard key: a light letter on a dark cap with a lighter rim.
            letter = chr(ord("A") + int(rng.integers(26)))
            scale = d.size * die_px / 45.0
            (tw, th), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(scale * 2)))
            org = (int(centre[0] - x0 - tw / 2), int(centre[1] - y0 + th / 2))
            cv2.putText(patch, letter, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (215, 215, 215), max(1, int(scale * 2)), cv2.LINE_AA)
            rim = tuple(min(255, c + 35) for c in colour)
            cv2.polylines(patch, [quad], True, rim, max(1, int(die_px * 0.06)), cv2.LINE_AA, 4)
    a_f = mask.astype(np.float32)[:, :, None] * (1.0 / 255.0)
    lit = patch.astype(np.float32) * gain[y0:y1, x0:x1, None]
    if white_balance is not None:
        lit *= white_balance
    roi = canvas[y0:y1, x0:x1]
    roi += a_f * (lit - roi)
