"""A seeded fuzz of the files and words a user hands the tray.

A few hundred mutations of valid hero files, configs, labels, profiles, images and die tokens go
through the same entry points the command line uses. Any traceback, hang (the test's timeout) or
exit status other than 0, 1 or 2 fails, naming the case so it can be replayed.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profiles import DieProfile, save_profile
from firmware_host.cli import main
from firmware_host.config import load_config
from firmware_host.errors import ConfigError
from rules.heroes import HEROES_DIRECTORY
from vision.errors import ImageLoadError
from vision.imageio import load_image
from vision.profile_reader import CalibratedFace

SEED = int(os.environ.get("DICETRAY_FUZZ_SEED", "15"))
CASES = int(os.environ.get("DICETRAY_FUZZ_CASES", "100"))
"""Per kind of input (seven kinds); both can be raised from the environment for a longer hunt."""

REPO = Path(__file__).resolve().parent.parent

SNIPPETS: tuple[bytes, ...] = (
    b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400", b"9" * 5000, b"1" + b"0" * 400,
    b"[" * 200, b"{" * 200, b"a = " + b"[" * 2000, b"]", b"}", b'"', b"'", b"\\", b"\x00", b"\xff\xfe",
    "²".encode(), "①".encode(), "٣".encode(), "３".encode(), b"\r\n", b"=", b",", b".", b"-", b"0x7fffffff",
    b"true", b"null", b"[]", b"{}", b"\xff\xc0\x00\x11\x08\x4e\x20\x4e\x20", b"IHDR\x00\x01\x00\x00\x00\x01\x00\x00",
)  # fmt: skip


NUMBERS: tuple[bytes, ...] = (
    b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-0", b"0", b"-1", b"7", b"65536", b"4294967296",
    b"9" * 30, b"1" + b"0" * 400, b"9" * 5000, b"0.5", b"1e-400", b"nan", b"inf", b"-inf",
)  # fmt: skip


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three edits: insert a snippet, flip a byte, cut, duplicate or truncate a span, or swap
    a number for an odd one."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(out) + 1)
        op = rng.randrange(7)
        numbers = list(re.finditer(rb"[0-9]+(?:\.[0-9]+)?", bytes(out)))
        if op >= 5 and numbers:
            # Keep the file well-formed more often: swap one number for an odd one.
            found = rng.choice(numbers)
            out[found.start() : found.end()] = rng.choice(NUMBERS)
        elif op == 0:
            out[at:at] = rng.choice(SNIPPETS)
        elif op == 1 and out:
            out[min(at, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif op == 2:
            del out[at : at + rng.randint(1, 64)]
        elif op == 3:
            span = out[at : at + rng.randint(1, 256)]
            out[at:at] = span * rng.randint(1, 20)
        else:
            del out[at:]
    return bytes(out)


def cli_status(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse's own usage errors
        status = stop.code if isinstance(stop.code, int) else 2
    return status, capsys.readouterr().err


def fuzz(kind: str, seed_file: bytes, attempt: Callable[[bytes], tuple[int, str]]) -> int:
    rng = random.Random(f"{SEED}-{kind}")
    tried = 0
    for case in range(CASES):
        data = mutate(seed_file, rng)
        try:
            status, err = attempt(data)
        except Exception as error:  # noqa: BLE001 - that is what this test is for
            pytest.fail(f"{kind} case {case} (seed {SEED}): {type(error).__name__}: {error}")
        assert status in (0, 1, 2), f"{kind} case {case}: exit {status}: {err}"
        assert "Traceback" not in err, f"{kind} case {case}: {err}"
        if status != 0:
            assert len(err.strip().splitlines()) == 1, f"{kind} case {case}: {err}"
        tried += 1
    return tried


@pytest.mark.timeout(240)
def test_fuzzed_inputs_never_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tried = 0

    hero = tmp_path / "hero.toml"

    def hero_case(data: bytes) -> tuple[int, str]:
        hero.write_bytes(data)
        return cli_status(["heroes", "show", str(hero)], capsys)

    tried += fuzz("hero", (HEROES_DIRECTORY / "barbarian.toml").read_bytes(), hero_case)

    config = tmp_path / "config.toml"

    def config_case(data: bytes) -> tuple[int, str]:
        config.write_bytes(data)
        try:
            load_config(config)
        except ConfigError as error:
            return 2, str(error) + "\n"
        return 0, ""

    tried += fuzz("config", (REPO / "deploy" / "config.example.toml").read_bytes(), config_case)

    labelled = tmp_path / "labelled"
    labelled.mkdir()
    cv2.imwrite(str(labelled / "a.png"), np.full((64, 64, 3), 90, dtype=np.uint8))
    labels = json.dumps([{"image": "a.png", "dice": [{"value": 3, "box": [4, 4, 20, 20], "face": "pips"}]}]).encode()

    def labels_case(data: bytes) -> tuple[int, str]:
        (labelled / "labels.json").write_bytes(data)
        return cli_status(["eval", str(labelled)], capsys)

    tried += fuzz("labels", labels, labels_case)

    crops = (np.full((64, 64, 3), 120, dtype=np.uint8),)
    faces = tuple(CalibratedFace(f"face-{n}", n) for n in range(1, 7))
    folder = save_profile(DieProfile("fuzz", faces, {f.label: crops for f in faces}))
    manifest = (folder / "profile.json").read_bytes()

    def profile_case(data: bytes) -> tuple[int, str]:
        (folder / "profile.json").write_bytes(data)
        status, err = cli_status(["profiles", "list"], capsys)
        if status != 0:
            return status, err
        return cli_status(["profiles", "show", "fuzz"], capsys)

    tried += fuzz("profile", manifest, profile_case)

    image = tmp_path / "frame"
    ok, png = cv2.imencode(".png", np.random.default_rng(SEED).integers(0, 255, (48, 64, 3), dtype=np.uint8))
    ok_jpeg, jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 100, dtype=np.uint8))
    assert ok and ok_jpeg
    seeds = [png.tobytes(), jpeg.tobytes()]

    def image_case(data: bytes) -> tuple[int, str]:
        image.write_bytes(data)
        try:
            frame = load_image(image)
        except ImageLoadError as error:
            return 2, str(error) + "\n"
        assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8
        return 0, ""

    for index, seed_image in enumerate(seeds):
        tried += fuzz(f"image{index}", seed_image, image_case)

    def token_case(data: bytes) -> tuple[int, str]:
        tokens = data.decode("utf-8", errors="replace").split() or ["?"]
        return cli_status(["score", "--hero", "barbarian", *tokens[:5]], capsys)

    tried += fuzz("dice", b"1 2 sword 5 6", token_case)

    assert tried == 7 * CASES
