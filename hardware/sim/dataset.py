"""Writing rendered trays to disk: labelled folders in the DESIGN.md ``labels.json`` format (for
``dicetray eval`` and calibration tests) and per-face folders of single-die shots (for
``dicetray calibrate die NAME --from DIR``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.errors import HardwareError
from hardware.sim.faces import DieDesign, DieStyle
from hardware.sim.render import RenderedTray, render_face, render_tray
from hardware.sim.scene import TrayScene, random_scene


class DatasetWriteError(HardwareError, OSError):
    """A rendered image or label file could not be written; the message names the path."""


def _write_image(path: Path, frame: np.ndarray, jpeg_quality: int = 92) -> None:
    params = [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality] if path.suffix.lower() in (".jpg", ".jpeg") else []
    ok, buf = cv2.imencode(path.suffix, frame, params)
    if not ok:
        raise DatasetWriteError(f"could not encode image {str(path)!r}")
    try:
        path.write_bytes(buf.tobytes())
    except OSError as exc:
        raise DatasetWriteError(f"could not write {str(path)!r}: {exc.strerror or exc}") from exc


def write_labelled_folder(
    directory: str | Path,
    n_images: int,
    seed: int = 0,
    *,
    n_dice: int | tuple[int, int] = (1, 6),
    make_scene: Callable[[np.random.Generator, int], TrayScene] | None = None,
    only_ok: bool = True,
    prefix: str = "sim",
    **scene_options: Any,
) -> list[RenderedTray]:
    """Render ``n_images`` random trays into ``directory`` as ``{prefix}_NNNN.jpg`` plus ``labels.json``.

    ``n_dice`` is a count or an inclusive range drawn per image; ``scene_options`` go to
    :func:`~hardware.sim.scene.random_scene` (``designs``, ``styles``, ``tilt_deg``, ``cocked`` ...),
    or ``make_scene(rng, n_dice)`` builds each scene. ``only_ok`` labels only dice a reader should
    read (see :meth:`RenderedTray.label_entry`). Returns the rendered trays, in file order.
    """
    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetWriteError(f"could not create folder {str(out)!r}: {exc.strerror or exc}") from exc
    rng = np.random.default_rng(seed)
    labels: list[dict[str, Any]] = []
    rendered: list[RenderedTray] = []
    for i in range(n_images):
        count = n_dice if isinstance(n_dice, int) else int(rng.integers(n_dice[0], n_dice[1] + 1))
        scene = make_scene(rng, count) if make_scene else random_scene(rng, count, **scene_options)
        tray = render_tray(scene, rng)
        name = f"{prefix}_{i:04d}.jpg"
        _write_image(out / name, tray.frame)
        labels.append(tray.label_entry(name, only_ok=only_ok))
        rendered.append(tray)
    try:
        (out / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    except OSError as exc:
        raise DatasetWriteError(f"could not write {str(out / 'labels.json')!r}: {exc.strerror or exc}") from exc
    return rendered


def write_face_folders(
    directory: str | Path,
    design: DieDesign,
    style: DieStyle,
    per_face: int = 5,
    seed: int = 0,
    *,
    size: int = 96,
    faces: Sequence[int] = (1, 2, 3, 4, 5, 6),
    tilt_deg: float = 0.0,
) -> dict[str, list[Path]]:
    """Write ``per_face`` single-die crops of each face into ``directory/<face label>/NN.png``.

    Returns the files written per face label. Each crop is the die seen from above (or tilted by
    ``tilt_deg``), turned at random, under slightly different light.
    """
    out = Path(directory)
    rng = np.random.default_rng(seed)
    written: dict[str, list[Path]] = {}
    for value in faces:
        label = design.face(value).label
        folder = out / label
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatasetWriteError(f"could not create folder {str(folder)!r}: {exc.strerror or exc}") from exc
        paths = []
        for k in range(per_face):
            crop = render_face(design, style, value, size, rng=rng, tilt_deg=tilt_deg)
            path = folder / f"{k:02d}.png"
            _write_image(path, crop)
            paths.append(path)
        written[label] = paths
    return written
