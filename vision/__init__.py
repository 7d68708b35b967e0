"""Frames in, dice readings out: finding dice, reading their top faces, settle detection.

Imports only numpy and OpenCV; never hardware or rules.

API summary
-----------
Reading (:mod:`vision.reader`)
    ``DiceReader(classifier=None, detector=None).read(frame_bgr) -> FrameReading``: every die in a
    BGR ``uint8`` frame (640x480 up to 12 MP), left to right. Each :class:`DieReading` has ``value``
    (1-6 or ``None``), ``face``, ``confidence``, ``box`` (x, y, w, h of the top face) and ``status``
    (``ok``, ``cocked``, ``occluded``, ``unreadable``); only ``ok`` dice carry a value.
Finding faces (:mod:`vision.detect`)
    ``FaceDetector(config=None).find(frame) -> list[FaceCandidate]``: top faces only (side faces of
    an oblique view are dropped). Pips of either polarity (dark on light dice, light on dark) are
    found at a scale set by the pip size measured in the frame, linked across plain face, and
    matched to the point-symmetric d6 layouts (:mod:`vision.layout`); a face with one big symbol
    instead of pips is still a die (``layout`` ``None``, read ``unreadable``). A ``FaceCandidate`` has ``box``, ``quad`` (the face outline),
    ``crop`` (a ``CROP_SIZE`` square BGR image of the face seen square-on), ``pips``, ``layout``
    (the matched :class:`vision.layout.LayoutFit` or ``None``), ``flags`` (:class:`CandidateFlag`:
    ``TOUCHES_FRAME_EDGE``, ``TILTED``, ``NO_LAYOUT``, ``TOP_UNSURE``, ``OVERSIZED``: the last two read
    ``unreadable``) and ``touches_frame_edge``.
Reading faces (:mod:`vision.classify`)
    ``FaceClassifier`` protocol: ``classify(candidate) -> FaceResult(value, face, confidence,
    status, symbol)``. ``PipClassifier`` is the default; a calibrated profile plugs in its own
    (``vision.profile_reader.ProfileClassifier``) through ``DiceReader(classifier=...)``.
Files (:mod:`vision.imageio`, :mod:`vision.dataset`)
    ``load_image(path) -> frame`` raising ``ImageLoadError`` naming the file;
    ``load_dataset(folder) -> Dataset`` of ``LabelledImage(path, dice)`` from ``labels.json``,
    raising ``DatasetError`` naming the folder, file or entry.
Debug image and evaluation (:mod:`vision.annotate`, :mod:`vision.evaluate`)
    ``annotate(frame, reading) -> frame`` draws box, value, confidence and status per die;
    ``evaluate(dataset, reader.read) -> EvalReport`` (images, dice, ``exact_rate``, ``precision``,
    ``recall``, ``abstentions``, ``median_ms``, ``failures``, ``summary()``, ``to_json()``).
Settling (:mod:`vision.settle`)
    ``SettleDetector``: when the dice in the tray have stopped moving.
"""

from vision.types import DieReading, DieStatus, FrameReading

__all__ = ["DieReading", "DieStatus", "FrameReading"]
