"""Every bad input is one line naming it and exit 2, never a traceback, a hang or a flood of memory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware_host.cli import main
from rules.heroes import HEROES_DIRECTORY

BARBARIAN = (HEROES_DIRECTORY / "barbarian.toml").read_text(encoding="utf-8")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(argv)
    err = capsys.readouterr().err
    return status, err


def assert_one_line_error(status: int, err: str, *named: str) -> None:
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for text in named:
        assert text in lines[0], (text, lines[0])


def small_jpeg() -> bytes:
    image = np.full((48, 64, 3), 120, dtype=np.uint8)
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    return data.tobytes()


def claiming(data: bytes, width: int, height: int) -> bytes:
    """A real JPEG whose start-of-frame header claims another size (the decoder believes it)."""
    at = data.index(b"\xff\xc0")
    patched = bytearray(data)
    patched[at + 5 : at + 7] = height.to_bytes(2, "big")
    patched[at + 7 : at + 9] = width.to_bytes(2, "big")
    return bytes(patched)


def png_claiming(width: int, height: int) -> bytes:
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))


# -- die tokens -------------------------------------------------------------------------------


@pytest.mark.parametrize("token", ["²", "①", "1" * 5000, "٣", "３", "-" + "9" * 400])
def test_a_die_token_that_is_no_ascii_number_is_refused(token: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run(["score", "--hero", "barbarian", "1", "2", "3", "4", token], capsys)
    assert_one_line_error(status, err, "dicetray score: error:")
    assert len(err) < 300  # a 5,000-digit token is not echoed whole


# -- data files -------------------------------------------------------------------------------


def labelled_folder(tmp_path: Path, labels_text: str) -> Path:
    folder = tmp_path / "set"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.full((64, 64, 3), 100, dtype=np.uint8))
    (folder / "labels.json").write_text(labels_text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("box", ["[NaN, 1, 10, 10]", "[1, 1, Infinity, 10]", "[1, 1, 1e400, 10]", "[1, -Infinity, 3, 3]"])
def test_labels_with_a_box_that_is_no_finite_number_are_refused(
    tmp_path: Path, box: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = labelled_folder(tmp_path, f'[{{"image": "a.png", "dice": [{{"value": 3, "box": {box}}}]}}]')
    status, err = run(["eval", str(folder)], capsys)
    assert_one_line_error(status, err, "labels.json", "number")


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


def deep_toml(key: str, depth: int) -> str:
    return f"{key} = " + "[" * depth + "]" * depth + "\n"


def test_deeply_nested_labels_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = labelled_folder(tmp_path, deep_json(100_000))
    status, err = run(["eval", str(folder)], capsys)
    assert_one_line_error(status, err, "labels.json", "nested")


def test_a_deeply_nested_profile_is_listed_as_damaged_and_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = Path(os.environ["DICETRAY_STATE_DIR"]) / "profiles" / "deep"
    folder.mkdir(parents=True)
    (folder / "profile.json").write_text('{"version": 1, "x": ' + deep_json(50_000) + "}", encoding="utf-8")
    status = main(["profiles", "list"])
    out, err = capsys.readouterr()
    assert status == 0 and "Traceback" not in err
    assert "deep" in out and "DAMAGED" in out and "nested" in out
    status, err = run(["profiles", "show", "deep"], capsys)
    assert_one_line_error(status, err, "profile.json", "nested")


@pytest.mark.parametrize("depth", [40, 5000])
def test_a_deeply_nested_hero_file_is_refused(tmp_path: Path, depth: int, capsys: pytest.CaptureFixture[str]) -> None:
    hero = tmp_path / "deep.toml"
    hero.write_text(BARBARIAN + deep_toml("nested", depth), encoding="utf-8")
    status, err = run(["heroes", "show", str(hero)], capsys)
    assert_one_line_error(status, err, "deep.toml")


@pytest.mark.parametrize("depth", [40, 5000])
def test_a_deeply_nested_config_is_refused(tmp_path: Path, depth: int, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text(deep_toml("camera", depth), encoding="utf-8")
    status, err = run(["run", "--config", str(config), "--max-frames", "1"], capsys)
    assert_one_line_error(status, err, "config.toml", "nested")


@pytest.mark.parametrize("amount", ["1" + "0" * 400, "1" + "0" * 5000, "-" + "9" * 30])
def test_a_hero_amount_beyond_any_hero_sheet_is_refused(
    tmp_path: Path, amount: str, capsys: pytest.CaptureFixture[str]
) -> None:
    hero = tmp_path / "huge.toml"
    hero.write_text(BARBARIAN.replace("damage = 4", f"damage = {amount}", 1), encoding="utf-8")
    assert hero.read_text(encoding="utf-8") != BARBARIAN
    for argv in (["heroes", "show", str(hero)], ["odds", "--hero", str(hero)], ["score", "--hero", str(hero), "1", "1", "1", "2", "3"]):
        status, err = run(argv, capsys)
        assert_one_line_error(status, err, "huge.toml")
        assert len(err) < 400


def test_a_folder_named_like_a_hero_file_is_refused_and_blocks_no_other_hero(
    capsys: pytest.CaptureFixture[str],
) -> None:
    heroes = Path(os.environ["DICETRAY_STATE_DIR"]) / "heroes"
    (heroes / "x.toml").mkdir(parents=True)
    status, err = run(["heroes", "list"], capsys)
    assert_one_line_error(status, err, "x.toml", "folder")
    status, err = run(["heroes", "show", "x"], capsys)
    assert_one_line_error(status, err, "x.toml")
    assert main(["score", "--hero", "barbarian", "1", "1", "1", "2", "3"]) == 0


def test_a_profile_with_thousands_of_faces_is_refused_before_loading_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = Path(os.environ["DICETRAY_STATE_DIR"]) / "profiles" / "huge"
    (folder / "exemplars").mkdir(parents=True)
    crop = folder / "exemplars" / "crop.png"
    cv2.imwrite(str(crop), np.full((96, 96, 3), 80, dtype=np.uint8))
    faces = [
        {"label": f"f{i}", "value": 1 + i % 6, "exemplars": ["exemplars/crop.png"] * 3} for i in range(2000)
    ]
    manifest = {"format": "dicetray-die-profile", "version": 1, "kind": "die", "name": "huge", "faces": faces,
                "matcher": {"accept_distance": 0.1}}  # fmt: skip
    (folder / "profile.json").write_text(json.dumps(manifest), encoding="utf-8")
    image = folder.parent / "frame.png"
    cv2.imwrite(str(image), np.full((64, 64, 3), 80, dtype=np.uint8))
    for argv in (["profiles", "show", "huge"], ["read", "--profile", "huge", str(image)]):
        status, err = run(argv, capsys)
        assert_one_line_error(status, err, "profile.json", "2000 faces")
    many = [{"label": "one", "value": 1, "exemplars": ["exemplars/crop.png"] * 5000}]
    (folder / "profile.json").write_text(json.dumps({**manifest, "faces": many}), encoding="utf-8")
    status, err = run(["profiles", "show", "huge"], capsys)
    assert_one_line_error(status, err, "profile.json", "5000 exemplars")


# -- images -----------------------------------------------------------------------------------


def test_an_image_beyond_the_pixel_limit_is_refused_from_its_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "wide.png").write_bytes(png_claiming(40_000, 40_000))  # above OpenCV's own limit
    (tmp_path / "big.jpg").write_bytes(claiming(small_jpeg(), 20_000, 20_000))
    for name in ("wide.png", "big.jpg"):
        status, err = run(["read", str(tmp_path / name)], capsys)
        assert_one_line_error(status, err, name, "20000x20000" if name == "big.jpg" else "40000x40000")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_a_header_claiming_20000x20000_costs_no_memory(tmp_path: Path) -> None:
    """Peak memory of reading the 45 KB JPEG claiming 20000x20000 (it took 2.35 GB), in a child."""
    image = tmp_path / "big.jpg"
    image.write_bytes(claiming(small_jpeg(), 20_000, 20_000))
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forking parent (pytest, large).
    script = textwrap.dedent(
        f"""
        import re, sys
        from firmware_host.cli import main
        status = main(["read", {str(image)!r}])
        with open("/proc/self/status") as status_file:
            peak_kb = int(re.search(r"VmHWM:\\s+(\\d+)", status_file.read()).group(1))
        print(status, peak_kb // 1024, file=sys.stderr)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    status, peak_mb = result.stderr.strip().splitlines()[-1].split()
    assert status == "2", result.stderr
    assert int(peak_mb) < 400, f"peak {peak_mb} MB"


def test_reading_dev_zero_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    status, err = run(["read", "/dev/zero"], capsys)
    assert_one_line_error(status, err, "/dev/zero", "not a regular file")


@pytest.mark.timeout(30)
def test_reading_a_fifo_nobody_writes_to_never_blocks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "frame.jpg"
    os.mkfifo(fifo)
    status, err = run(["read", str(fifo)], capsys)
    assert_one_line_error(status, err, "frame.jpg", "FIFO")
    config = tmp_path / "config.toml"
    os.mkfifo(config)
    status, err = run(["run", "--config", str(config), "--max-frames", "1"], capsys)
    assert_one_line_error(status, err, "config.toml", "FIFO")


def test_a_folder_given_as_an_image_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "photo.jpg"
    folder.mkdir()
    status, err = run(["read", str(folder)], capsys)
    assert_one_line_error(status, err, "photo.jpg", "folder")


def test_an_oversized_config_is_refused_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    with config.open("wb") as stream:
        stream.truncate(64 * 1024 * 1024)  # sparse: no disk used
    status, err = run(["run", "--config", str(config), "--max-frames", "1"], capsys)
    assert_one_line_error(status, err, "config.toml", "limit")
    shutil.rmtree(tmp_path, ignore_errors=True)
