"""Rendered die faces that know which face they show, for learning to tell faces apart.

A calibrated profile tells a player's faces apart from a few shots of each. What learns to do that
from rendered dice must see faces that differ as real sets' faces do: one symbol on three faces with
only a small corner number between them, artwork it has never seen, any body, ink, light and camera.
:func:`random_artwork_design` draws such die sets (made-up ``doodle-N`` artwork most of the time,
so that nothing is learned about a dozen pictures); :func:`identity_crops` renders each set's six
faces on trays and cuts every top face as a reader cuts it, a little off as outlines are.

A face's *identity* says what it looks like whatever the die: two dice whose face shows the same
sword with the same corner number share it, as two dice showing three pips do. Crops cut badly on
purpose (far off the face, into its artwork, or out over its neighbours: what a reader's outline
gives when it fails) have identity :data:`MISCUT`: they are no face, and what learns from them
learns not to find a face in them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from hardware.sim.dataset import DatasetWriteError
from hardware.sim.faces import DieDesign, FaceArt, FaceKind
from hardware.sim.glyphs import DOODLE, GLYPH_NAMES
from hardware.sim.render import render_tray
from hardware.sim.scene import InvalidScene, random_scene
from hardware.sim.training import random_lighting, random_optics, random_style, random_tray
from vision.detect import CROP_SIZE
from vision.profile_reader import square_crop
from vision.types import DieStatus

#: Side of the grey crops written: the profile reader's face crop.
CROP = CROP_SIZE

#: The identity of a crop cut badly on purpose.
MISCUT = -1


def face_identity(face: FaceArt) -> str:
    """What ``face`` looks like, whatever die it is on: ``pips-3``, ``numeral-6``, ``sword-2``
    (a sword with a corner 2), ``star`` (a star alone)."""
    if face.kind is FaceKind.PIPS:
        return f"pips-{face.value}"
    if face.kind is FaceKind.NUMERAL:
        return f"numeral-{face.value}"
    return f"{face.glyph}-{face.value}" if face.corner_number else str(face.glyph)


def _glyph(rng: np.random.Generator) -> str:
    if rng.random() < 0.2:
        return str(rng.choice(GLYPH_NAMES))
    return f"{DOODLE}{int(rng.integers(1 << 36))}"


def _distinct_glyphs(rng: np.random.Generator, count: int) -> list[str]:
    glyphs: list[str] = []
    while len(glyphs) < count:
        glyph = _glyph(rng)
        if glyph not in glyphs:
            glyphs.append(glyph)
    return glyphs


def random_artwork_design(rng: np.random.Generator) -> DieDesign:
    """A die set as custom dice show their faces: most often three symbols on faces three, two and
    one with corner numbers (the faces of one symbol differ in the number alone), else six symbols
    with or without numbers, or pips with an emblem for one face."""
    kind = rng.random()
    name = f"set{int(rng.integers(1 << 30))}"
    if kind < 0.55:
        symbols = _distinct_glyphs(rng, 3)
        per_face = [symbols[0]] * 3 + [symbols[1]] * 2 + [symbols[2]]
        order = [int(i) for i in rng.permutation(6)]
        return DieDesign(name, tuple(FaceArt.glyph_face(v, per_face[order[v - 1]]) for v in range(1, 7)))
    if kind < 0.9:
        numbers = bool(rng.random() < 0.5)
        glyphs = _distinct_glyphs(rng, 6)
        return DieDesign(name, tuple(FaceArt.glyph_face(v, glyphs[v - 1], number=numbers) for v in range(1, 7)))
    emblem = int(rng.choice([1, 6]))
    faces = [FaceArt.pips(v) for v in range(1, 7)]
    faces[emblem - 1] = FaceArt.glyph_face(emblem, _glyph(rng), number=False)
    return DieDesign(name, tuple(faces))


def _grey_square(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The quadrilateral ``corners`` of ``frame`` as the profile reader cuts a face, in grey."""
    return np.asarray(cv2.cvtColor(square_crop(frame, corners), cv2.COLOR_BGR2GRAY))


def _side(quad: np.ndarray) -> float:
    """The mean side of a quadrilateral."""
    return float(np.mean(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))


def miscut_face(frame: np.ndarray, quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The top face ``quad`` cut as a failed outline cuts it: a third to two thirds of a side off,
    or into the artwork (half to seven tenths of the face), or out over the tray and neighbours
    (1.6 to 2.2 times the face)."""
    quad = np.asarray(quad, np.float64)
    centre = quad.mean(axis=0)
    side = _side(quad)
    kind = rng.random()
    scale = 1.0
    if kind < 0.4:
        angle = float(rng.uniform(0, 2 * math.pi))
        centre = centre + float(rng.uniform(0.33, 0.66)) * side * np.array([math.cos(angle), math.sin(angle)])
    elif kind < 0.7:
        scale = float(rng.uniform(0.5, 0.7))
        centre = centre + rng.normal(0, 0.1 * side, 2)
    else:
        scale = float(rng.uniform(1.6, 2.2))
    corners = centre + (np.roll(quad, int(rng.integers(4)), axis=0) - quad.mean(axis=0)) * scale
    return _grey_square(frame, corners)


def cut_face(frame: np.ndarray, quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The top face ``quad`` (4 x 2, in the die's own order) cut to a grey square as the reader's
    outlines cut it: in any quarter turn, each corner a little off; or, two times in five, the
    upright square round the face a detector gives, a little off in place and size."""
    quad = np.asarray(quad, np.float64)
    side = _side(quad)
    if rng.random() < 0.4:
        centre = quad.mean(axis=0) + rng.normal(0, 0.04 * side, 2)
        # The upright square a tilted face fits in is up to sqrt(2) times its side.
        angle = math.atan2(quad[1, 1] - quad[0, 1], quad[1, 0] - quad[0, 0])
        half = side * (abs(math.cos(angle)) + abs(math.sin(angle))) / 2 * float(rng.uniform(0.88, 1.08))
        corners = centre + half * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    else:
        corners = np.roll(quad, int(rng.integers(4)), axis=0) + rng.normal(0, 0.035 * side, (4, 2))
    return _grey_square(frame, corners)


@dataclass(frozen=True)
class IdentityCrops:
    """Grey face crops (N x :data:`CROP` x :data:`CROP` uint8), for each the index of its identity
    in ``names`` and of the die set it came from."""

    crops: np.ndarray
    identity: np.ndarray
    design: np.ndarray
    names: tuple[str, ...]

    def save(self, path: str | Path) -> Path:
        """Write the crops as one ``.npz`` file.

        :raises DatasetWriteError: the file cannot be written.
        """
        target = Path(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(target, crops=self.crops, identity=self.identity, design=self.design, names=np.array(self.names))
        except OSError as exc:
            raise DatasetWriteError(f"could not write {str(target)!r}: {exc.strerror or exc}") from exc
        return target


def identity_crops(n_designs: int, views: int = 4, seed: int = 0, *, start: int = 0, miscut: float = 0.0) -> IdentityCrops:
    """Every face of ``n_designs`` random die sets, each seen on ``views`` trays (a set's six faces
    up on each, in one random body and ink per tray half the time and per set otherwise), and for
    a fraction ``miscut`` of them a badly cut crop too (identity :data:`MISCUT`). Design ``i`` is
    drawn from its own seed (``seed``, ``i``): same arguments, same crops."""
    crops: list[np.ndarray] = []
    identity: list[int] = []
    design_of: list[int] = []
    names: dict[str, int] = {}
    for i in range(start, start + n_designs):
        rng = np.random.default_rng([seed, i])
        design = random_artwork_design(rng)
        own_style = random_style(rng)
        for _ in range(views):
            for _attempt in range(6):
                width, height = 480, 360
                die_px = float(math.exp(rng.uniform(math.log(34), math.log(84))))
                try:
                    scene = random_scene(
                        rng, 6, width=width, height=height, tilt_deg=float(rng.choice([0.0, rng.uniform(0, 30)])),
                        die_px=die_px, background=random_tray(rng, width, height), designs=[design],
                        styles=[own_style if rng.random() < 0.5 else random_style(rng)],
                        values=[int(v) + 1 for v in rng.permutation(6)], lighting=random_lighting(rng), optics=random_optics(rng),
                    )  # fmt: skip
                except InvalidScene:
                    continue
                tray = render_tray(scene, rng)
                for truth in tray.truth:
                    if truth.status is not DieStatus.OK:
                        continue
                    key = face_identity(design.face(truth.value))
                    crops.append(cut_face(tray.frame, np.array(truth.quad), rng))
                    identity.append(names.setdefault(key, len(names)))
                    design_of.append(i)
                    if rng.random() < miscut:
                        crops.append(miscut_face(tray.frame, np.array(truth.quad), rng))
                        identity.append(MISCUT)
                        design_of.append(i)
                break
    return IdentityCrops(
        np.stack(crops) if crops else np.zeros((0, CROP, CROP), np.uint8),
        np.array(identity, np.int32),
        np.array(design_of, np.int32),
        tuple(names),
    )


__all__ = ["CROP", "MISCUT", "IdentityCrops", "cut_face", "miscut_face", "face_identity", "identity_crops", "random_artwork_design"]
