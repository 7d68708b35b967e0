"""Tray surfaces: plain felt, wood grain and a patterned cloth, generated from a seed and cached by
size, since a live source draws the same tray for every frame."""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from hardware.sim.scene import Background


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Low-frequency noise in about -1..1, (H, W) float32, from a coarse grid upsampled."""
    small = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return np.asarray(cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC))


_CACHE_PIXELS = 2_100_000  # frames up to about 2 MP keep their full-size surface cached


def background_image(background: Background, width: int, height: int) -> np.ndarray:
    """The tray surface as float32 (H, W, 3) BGR in 0..255, before lighting; read-only.

    Cached for frames up to about 2 MP (a live source draws the same tray every frame); a 12 MP
    surface is 144 MB as float32, so those are scaled up from the cached small one each time.
    """
    if width * height <= _CACHE_PIXELS:
        return _cached_background(background, width, height)
    return _scaled_background(background, width, height)


@functools.lru_cache(maxsize=6)
def _cached_background(background: Background, width: int, height: int) -> np.ndarray:
    return _scaled_background(background, width, height)


def _scaled_background(background: Background, width: int, height: int) -> np.ndarray:
    # Drawn at no more than 240 px high and scaled up: the surface has no detail finer than that
    # which the sensor noise added later does not already give.
    work = min(1.0, 240.0 / height)
    if work < 1.0:
        small = _cached_background(background, max(2, round(width * work)), max(2, round(height * work)))
        img = np.asarray(cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR))
        img.setflags(write=False)
        return img
    return _draw_background(background, width, height)


def _draw_background(background: Background, width: int, height: int) -> np.ndarray:
    img = _draw_surface(background, width, height)
    if background.walls > 0:
        img = _add_walls(img, background)
    img.setflags(write=False)
    return img


def _add_walls(floor: np.ndarray, background: Background) -> np.ndarray:
    """The tray's rim around the floor: a darker band, lit along its inner edge, casting a soft
    shadow onto the floor."""
    h, w = floor.shape[:2]
    rim = max(1, int(round(background.wall_px(w, h))))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # Distance from the frame edge: inside the rim it is < rim.
    d = np.minimum(np.minimum(xx, w - 1 - xx), np.minimum(yy, h - 1 - yy))
    wall = np.clip((rim - d) / 1.5, 0, 1)  # 1 on the rim, 0 on the floor, a 1.5 px soft edge
    lip = np.exp(-(((d - rim + 1.5) / max(rim * 0.08, 0.8)) ** 2))  # the lit top edge of the rim
    shadow = np.exp(-np.clip(d - rim, 0, None) / max(rim * 0.35, 1.0)) * (1 - wall)
    rim_colour = np.array(background.colour, np.float32) * 0.55 + 20
    out = floor * (1 - 0.35 * shadow)[:, :, None]
    out = out * (1 - wall)[:, :, None] + rim_colour * (0.8 + 0.2 * d / rim)[:, :, None].clip(0, 1.2) * wall[:, :, None]
    out += (60 * lip * wall)[:, :, None]
    return np.clip(out, 0, 255).astype(np.float32)


def _draw_surface(background: Background, width: int, height: int) -> np.ndarray:
    rng = np.random.default_rng(background.seed)
    base = np.array(background.colour, np.float32)
    h, w = height, width
    if background.kind == "plain":
        mottle = _smooth_noise(rng, (h, w), (8, 6)) * 0.04 + _smooth_noise(rng, (h, w), (40, 30)) * 0.02
        shade = 1.0 + mottle
    elif background.kind == "wood":
        period = float(rng.uniform(0.025, 0.06)) * h
        y = np.arange(h, dtype=np.float32)[:, None]
        warp = _smooth_noise(rng, (h, w), (2, 3)) * period * 2.5 + _smooth_noise(rng, (h, w), (10, 5)) * period * 0.1
        phase = (y + warp) / period * 2 * math.pi
        rings = (0.5 + 0.5 * np.sin(phase)) ** 4
        # Fine streaks run along the grain: noise stretched along x.
        streak_cells = (max(2, w // 160), max(4, h // 3))
        streaks = _smooth_noise(rng, (h, w), streak_cells)
        shade = 1.0 - 0.05 * rings - 0.02 * streaks + _smooth_noise(rng, (h, w), (4, 3)) * 0.03
    else:
        # A woven check cloth: two sets of soft stripes and a faint weave.
        period = float(rng.uniform(0.06, 0.12)) * max(h, w)
        angle = float(rng.uniform(0, math.pi / 2))
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        u = xx * math.cos(angle) + yy * math.sin(angle)
        v = -xx * math.sin(angle) + yy * math.cos(angle)
        su = (np.mod(u, period) < period * 0.35).astype(np.float32)
        sv = (np.mod(v, period) < period * 0.35).astype(np.float32)
        stripes = cv2.GaussianBlur(su + sv, (0, 0), max(0.8, period * 0.02))
        shade = 1.0 - 0.12 * stripes + _smooth_noise(rng, (h, w), (w // 3, h // 3)) * 0.03
        second = np.array(background.colour[::-1], np.float32)
        img = base * shade[:, :, None] * (1 - 0.15 * stripes[:, :, None]) + second * 0.15 * stripes[:, :, None]
        return np.clip(img, 0, 255).astype(np.float32)
    return np.clip(base * shade[:, :, None].astype(np.float32), 0, 255).astype(np.float32)
