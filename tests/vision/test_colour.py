"""Body colours: measured on the top face, named, carried by every reading."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.colour import body_colour, colour_name
from vision.dataset import load_dataset
from vision.evaluate import MATCH_DISTANCE, _box_distance
from vision.reader import DiceReader
from vision.types import BodyColour, DieReading, DieStatus, FrameReading

BYLER = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "byler-d6-train"


def _face(body_rgb: tuple[int, int, int], pip_rgb: tuple[int, int, int], pips: int = 5) -> np.ndarray:
    face = np.full((60, 60, 3), body_rgb[::-1], np.uint8)
    spots = [(30, 30), (15, 15), (45, 45), (15, 45), (45, 15), (15, 30), (45, 30)][:pips]
    for x, y in spots:
        cv2.circle(face, (x, y), 5, pip_rgb[::-1], -1)
    return face


@pytest.mark.parametrize(
    "body, pips, name",
    [
        ((245, 245, 240), (20, 20, 20), "white"),
        ((25, 25, 30), (240, 240, 240), "black"),
        ((200, 30, 35), (250, 250, 250), "red"),
        ((240, 140, 20), (20, 20, 20), "orange"),
        ((235, 215, 40), (10, 10, 10), "yellow"),
        ((40, 160, 60), (250, 250, 250), "green"),
        ((30, 70, 200), (250, 250, 250), "blue"),
        ((110, 40, 160), (250, 250, 250), "purple"),
        ((240, 120, 180), (20, 20, 20), "pink"),
        ((120, 120, 125), (250, 250, 250), "grey"),
    ],
)
def test_a_face_is_named_by_its_body_not_its_pips(body, pips, name) -> None:
    colour = body_colour(_face(body, pips, pips=6), (0, 0, 60, 60))
    assert colour is not None and colour.name == name
    assert all(abs(a - b) <= 3 for a, b in zip(colour.rgb, body))


def test_a_box_mostly_outside_the_frame_has_no_colour() -> None:
    frame = _face((200, 30, 35), (250, 250, 250))
    assert body_colour(frame, (58, 58, 40, 40)) is None
    assert body_colour(frame, (-100, -100, 20, 20)) is None


def test_names_cover_every_hue() -> None:
    names = {colour_name((int(r), int(g), int(b))) for r in range(0, 256, 51) for g in range(0, 256, 51) for b in range(0, 256, 51)}
    assert names == {"white", "black", "grey", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink", "brown"}


def test_a_reading_round_trips_its_colour() -> None:
    die = DieReading(4, 0.99, (1, 2, 30, 30), DieStatus.OK, face="4", colour=BodyColour("red", (200, 30, 35)))
    reading = FrameReading((die,), 3.0)
    again = DieReading.from_json(reading.to_json()["dice"][0])
    assert again == die and reading.to_json()["dice"][0]["colour"] == {"name": "red", "rgb": [200, 30, 35]}


@pytest.mark.skipif(not BYLER.is_dir(), reason="needs the byler-d6-train photos beside the project")
def test_the_reader_names_the_colours_of_real_dice() -> None:
    # A real tray photo of many colours; the names were checked by eye on the photo.
    image = next(i for i in load_dataset(BYLER).images if i.name == "IMG_20191208_111228.jpg")
    reading = DiceReader().read(image.load())
    assert all(d.colour is not None for d in reading.dice)
    names = [d.colour.name for d in reading.dice if d.colour is not None]
    assert names.count("red") >= 5 and names.count("yellow") >= 3 and names.count("green") >= 3
    assert {"white", "black", "purple"} <= set(names)
    # Every labelled die was measured (whatever its reading).
    for label in image.dice:
        assert any(_box_distance(label.box, d.box) < MATCH_DISTANCE for d in reading.dice)
