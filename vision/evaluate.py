"""Accuracy and speed of a reader on a labelled folder (what ``dicetray eval`` prints).

A read die matches a labelled die when their boxes are close (centres within three quarters of the
larger box size): labels box the pip pattern, the reader the whole top face, so tight overlap
would be unfair to both. An image is exactly right when every labelled die is read ``ok`` with its
value and nothing else is reported.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from vision.camera_shifts import Shift
from vision.dataset import Dataset, LabelledDie
from vision.types import DieReading, FrameReading

Reader = Callable[[Any], FrameReading]

#: Centre distance, in units of the larger box's longer side, under which two boxes are the same die.
MATCH_DISTANCE = 0.75


@dataclass(frozen=True)
class ImageResult:
    """How one image went."""

    image: str
    expected: tuple[int, ...]
    read: tuple[DieReading, ...]
    correct: int  # labelled dice read ok with the right value
    wrong: int  # dice read ok with a wrong value, or read where no die is labelled
    missed: int  # labelled dice not read right (abstained or not found)
    abstained: int  # dice reported with a status other than ok
    extra: int  # reported dice that match no labelled die
    ms: float

    @property
    def exact(self) -> bool:
        return self.missed == 0 and self.wrong == 0 and self.extra == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "image": self.image,
            "expected": list(self.expected),
            "read": [d.to_json() for d in self.read],
            "exact": self.exact,
            "ms": round(self.ms, 2),
        }


@dataclass(frozen=True)
class EvalReport:
    """Totals over a labelled folder."""

    results: tuple[ImageResult, ...] = field(repr=False)

    @property
    def images(self) -> int:
        return len(self.results)

    @property
    def dice(self) -> int:
        return sum(len(r.expected) for r in self.results)

    @property
    def exact_images(self) -> int:
        return sum(r.exact for r in self.results)

    @property
    def exact_rate(self) -> float:
        return self.exact_images / self.images if self.images else 0.0

    @property
    def correct(self) -> int:
        return sum(r.correct for r in self.results)

    @property
    def read_ok(self) -> int:
        return sum(r.correct + r.wrong for r in self.results)

    @property
    def precision(self) -> float:
        return self.correct / self.read_ok if self.read_ok else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.dice if self.dice else 1.0

    @property
    def stated_confidence(self) -> float:
        """The mean confidence the reader stated for the dice it read ``ok`` (to set against precision)."""
        stated = [d.confidence for r in self.results for d in r.read if d.ok]
        return sum(stated) / len(stated) if stated else 1.0

    @property
    def abstentions(self) -> int:
        return sum(r.abstained for r in self.results)

    @property
    def median_ms(self) -> float:
        return statistics.median(r.ms for r in self.results) if self.results else 0.0

    @property
    def failures(self) -> tuple[ImageResult, ...]:
        return tuple(r for r in self.results if not r.exact)

    def to_json(self) -> dict[str, Any]:
        return {
            "images": self.images,
            "dice": self.dice,
            "exact_images": self.exact_images,
            "exact_rate": round(self.exact_rate, 4),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "abstentions": self.abstentions,
            "stated_confidence": round(self.stated_confidence, 4),
            "median_ms": round(self.median_ms, 2),
            "failures": [r.to_json() for r in self.failures],
        }

    def summary(self) -> str:
        """The few lines ``dicetray eval`` prints."""
        lines = [
            f"images      {self.images}",
            f"dice        {self.dice}",
            f"exact       {self.exact_images}/{self.images} = {self.exact_rate:.1%}",
            f"precision   {self.correct}/{self.read_ok} = {self.precision:.2%}",
            f"recall      {self.correct}/{self.dice} = {self.recall:.2%}",
            f"abstentions {self.abstentions}",
            f"confidence  {self.stated_confidence:.2%} stated for the dice read (precision {self.precision:.2%})",
            f"median ms   {self.median_ms:.1f} per image",
        ]
        if self.failures:
            names = ", ".join(r.image for r in self.failures[:12])
            more = f" and {len(self.failures) - 12} more" if len(self.failures) > 12 else ""
            lines.append(f"not exact   {names}{more}")
        return "\n".join(lines)


def score_image(name: str, labels: tuple[LabelledDie, ...], reading: FrameReading) -> ImageResult:
    """Matches one reading to its labels."""
    pairs: list[tuple[float, int, int]] = []
    for i, label in enumerate(labels):
        for j, die in enumerate(reading.dice):
            distance = _box_distance(label.box, die.box)
            if distance < MATCH_DISTANCE:
                pairs.append((distance, i, j))
    pairs.sort()
    label_taken: set[int] = set()
    die_taken: set[int] = set()
    correct = wrong = 0
    for _, i, j in pairs:
        if i in label_taken or j in die_taken:
            continue
        label_taken.add(i)
        die_taken.add(j)
        die = reading.dice[j]
        if die.ok:
            if die.value == labels[i].value:
                correct += 1
            else:
                wrong += 1
    unmatched = [d for j, d in enumerate(reading.dice) if j not in die_taken]
    wrong += sum(1 for d in unmatched if d.ok)
    return ImageResult(
        image=name,
        expected=tuple(sorted(d.value for d in labels)),
        read=reading.dice,
        correct=correct,
        wrong=wrong,
        missed=len(labels) - correct,
        abstained=sum(1 for d in reading.dice if not d.ok),
        extra=len(unmatched),
        ms=reading.ms,
    )


def _box_distance(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    ax, ay = a[0] + a[2] / 2, a[1] + a[3] / 2
    bx, by = b[0] + b[2] / 2, b[1] + b[3] / 2
    return math.hypot(ax - bx, ay - by) / max(a[2], a[3], b[2], b[3])


def evaluate(dataset: Dataset, read: Reader, progress: TextIO | None = sys.stderr, shift: Shift | None = None) -> EvalReport:
    """Reads every image of ``dataset`` with ``read`` (a frame -> :class:`FrameReading` callable);
    with ``shift`` (:mod:`vision.camera_shifts`), each image and its labels as that shift makes them.

    A progress bar goes to ``progress`` (``None`` for none) when there are more than 20 images: redrawn
    in place on a terminal, one line per tenth of the images elsewhere (a log or CI output).
    """
    results: list[ImageResult] = []
    total = len(dataset.images)
    show = progress is not None and total > 20
    for index, item in enumerate(dataset.images, 1):
        frame, dice = item.load(), item.dice
        if shift is not None:
            frame, dice = shift(frame, dice, item.name)
        results.append(score_image(item.name, dice, read(frame)))
        if show and progress is not None:
            _progress(progress, index, total)
    if show and progress is not None and progress.isatty():
        progress.write("\n")
        progress.flush()
    return EvalReport(tuple(results))


def _progress(stream: TextIO, done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    bar = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
    if stream.isatty():
        stream.write(f"\r{bar}")
    elif done * 10 // total != (done - 1) * 10 // total:
        stream.write(f"{bar}\n")
    else:
        return
    stream.flush()
