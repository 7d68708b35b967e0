"""A simulated dice tray: rendered frames of dice with ground truth, for tests and the demo.

Accuracy is claimed only on real photos; this serves unit tests, calibration tests and the demo.

Rendering one frame::

    import numpy as np
    from hardware.sim import random_scene, render_tray

    rng = np.random.default_rng(7)
    scene = random_scene(rng, 5, tilt_deg=30, cocked=1, touching=1)
    tray = render_tray(scene, rng)      # RenderedTray
    tray.frame                          # (480, 640, 3) uint8 BGR, like a camera frame
    tray.truth                          # tuple[DieTruth, ...]: value, face, kind, symbol, box, status
    tray.truth[0].reading()             # the vision.types.DieReading a perfect reader would give

Same scene and same seed give the same pixels.

The pieces:

- :class:`TrayScene` = :class:`Camera` (frame size up to 12 MP, ``tilt_deg`` 0-60 from straight
  down, ``die_px``; mild perspective) + :class:`Background` (``plain``, ``wood``, ``pattern``;
  ``walls`` for the tray's rim) + :class:`DiePose` per die (value, position in mm, yaw,
  ``lean_deg`` for a cocked die, ``rotation``/``lift_mm``/``motion_px`` for a tumbling one, a
  :class:`DieDesign` and a :class:`DieStyle`) + an optional :class:`Hand` + :class:`Lighting`
  (direction, gradient, vignette, ``glare``, ``diffuse``) + :class:`Optics` (noise, blur, JPEG
  quality, white balance) + :class:`Distractor` objects.
- :func:`random_scene` ``(rng, n_dice, *, width, height, tilt_deg, die_px, background, designs,
  styles, values, touching, cocked, out_of_frame, hand, lighting, optics, distractors)`` places
  0-30 dice without overlap; ``touching`` pairs sit side by side, ``cocked`` dice lean on a
  neighbour, ``out_of_frame`` dice are cut by the frame edge, ``hand`` reaches in,
  ``distractors`` adds things that are not dice (:class:`Distractor`: a cable, a coin, a barcode
  label, a keyboard key; not in the truth).
- :class:`DieTruth` ``status``: ``ok``, ``cocked``, ``occluded`` (cut by the frame or under the
  hand), ``unreadable`` (moving). :meth:`RenderedTray.reading` / :meth:`DieTruth.reading`: what a
  perfect reader reports; it turns a symbol or numeral face into
  ``unreadable`` unless ``calibrated=True``. :meth:`RenderedTray.label_entry` gives a ``labels.json`` entry.
- :class:`DieStyle` ``(body, ink, finish)`` in BGR or by name: ``DieStyle.parse("blue/white/marbled")``;
  :data:`STYLE_PRESETS`; finishes ``solid``, ``translucent``, ``marbled``.
- :class:`DieDesign`: what each face 1-6 shows (:class:`FaceArt`: pips, a numeral, or a glyph with an
  optional small number in a corner). ``DieDesign.pips()``, ``.numerals()``,
  ``.pips_with_emblem(6, "star")``, ``.hero(name, {1: "sword", ...})``,
  ``.from_symbols(hero.id, hero.faces)`` (any ``rules`` hero; face labels ``SYMBOL-N``),
  ``.barbarian()`` (``sword-1`` .. ``sword-3``, ``heart-4``, ``heart-5``, ``strength-6`` drawn as
  a pow burst), ``.moon_elf()``, ``.shadow_thief()``. Glyphs: :data:`GLYPH_NAMES`, and
  ``doodle-N`` for made-up artwork drawn from seed N.
- :func:`render_face` ``(design, style, value, size)``: a square crop of one die, face up, for
  calibration tests.
- :func:`write_labelled_folder` ``(dir, n_images, seed, ...)``: JPEGs plus ``labels.json`` in the
  DESIGN.md format (``face`` is ``pips``/``numeral``, or the face label for a symbol face, which
  also gets a ``symbol`` key). :func:`write_face_folders` ``(dir, design, style, per_face, seed)``:
  one folder of crops per face label.
- Training data for the learned models: :mod:`hardware.sim.training` (trays of any dice, for the
  reader) and :mod:`hardware.sim.identity` (the faces of made-up die sets, each crop knowing which
  face it shows, for the face embedding).
- :class:`SimulatedTraySource` ``(seed, *, n_dice, script, auto_roll, width, height, fps, hold_s,
  roll_s, tilt_deg, design, style, background, clock, pace, sleep)``: the tray as a live camera (also in
  :mod:`hardware.camera`). Dice are picked up by a hand, thrown in over the near edge, tumble with
  motion blur and settle. ``script`` is a list of value lists or :class:`ScriptedRoll` (``values``,
  ``keep``, ``cocked``, ``pickup``); ``roll(values, keep=..., cocked=...)``, ``show_hand(s)``,
  ``nudge(i)``, ``fail(n)`` (the next n reads raise ``CameraUnavailable``). Truth: ``phase``
  (:class:`SimPhase` EMPTY/HAND/ROLLING/SETTLED), ``settled_truth``, ``settled_values``,
  ``rolls_settled``, ``layout``, ``timestamp``, ``frame_index``, ``last``. Time is virtual
  (frame k at k/fps, no sleeping) unless a ``clock`` is injected.
"""

from hardware.sim.distractors import DISTRACTOR_KINDS, Distractor, InvalidDistractor
from hardware.sim.dataset import DatasetWriteError, write_face_folders, write_labelled_folder
from hardware.sim.faces import (
    NAMED_COLOURS,
    STYLE_PRESETS,
    DieDesign,
    DieStyle,
    FaceArt,
    FaceKind,
    Finish,
    InvalidDieDesign,
)
from hardware.sim.glyphs import GLYPH_NAMES, UnknownGlyph
from hardware.sim.live import ScriptedRoll, SimPhase, SimulatedTraySource
from hardware.sim.render import DieTruth, RenderedTray, render_face, render_tray
from hardware.sim.scene import (
    Background,
    Camera,
    DiePose,
    Hand,
    InvalidScene,
    Lighting,
    Optics,
    TrayScene,
    random_scene,
)

__all__ = [
    "DISTRACTOR_KINDS",
    "Distractor",
    "InvalidDistractor",
    "GLYPH_NAMES",
    "NAMED_COLOURS",
    "STYLE_PRESETS",
    "Background",
    "Camera",
    "DatasetWriteError",
    "DieDesign",
    "DiePose",
    "DieStyle",
    "DieTruth",
    "FaceArt",
    "FaceKind",
    "Finish",
    "Hand",
    "InvalidDieDesign",
    "InvalidScene",
    "Lighting",
    "Optics",
    "RenderedTray",
    "ScriptedRoll",
    "SimPhase",
    "SimulatedTraySource",
    "TrayScene",
    "UnknownGlyph",
    "random_scene",
    "render_face",
    "render_tray",
    "write_face_folders",
    "write_labelled_folder",
]
