from pathlib import Path

import cv2
import numpy as np
import pytest

REAL_D6 = Path(__file__).resolve().parents[3] / "shared" / "data" / "real-d6"
from vision.errors import ImageLoadError, InvalidFrameError
from vision.imageio import check_frame, load_image


def test_loads_png_as_bgr(tmp_path: Path) -> None:
    image = np.zeros((40, 50, 3), dtype=np.uint8)
    image[:, :, 2] = 200
    cv2.imwrite(str(tmp_path / "red.png"), image)
    frame = load_image(tmp_path / "red.png")
    assert frame.shape == (40, 50, 3) and frame.dtype == np.uint8
    assert frame[0, 0].tolist() == [0, 0, 200]


def test_grey_and_alpha_images_become_bgr(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "grey.png"), np.full((32, 32), 90, dtype=np.uint8))
    cv2.imwrite(str(tmp_path / "alpha.png"), np.full((32, 32, 4), 90, dtype=np.uint8))
    assert load_image(tmp_path / "grey.png").shape == (32, 32, 3)
    assert load_image(tmp_path / "alpha.png").shape == (32, 32, 3)


def test_missing_image_is_named(tmp_path: Path) -> None:
    with pytest.raises(ImageLoadError, match="nope.jpg"):
        load_image(tmp_path / "nope.jpg")


def test_empty_and_corrupt_images_are_named(tmp_path: Path) -> None:
    (tmp_path / "empty.jpg").write_bytes(b"")
    (tmp_path / "corrupt.jpg").write_bytes(b"\xff\xd8 this is not a jpeg")
    with pytest.raises(ImageLoadError, match="empty.jpg"):
        load_image(tmp_path / "empty.jpg")
    with pytest.raises(ImageLoadError, match="corrupt.jpg"):
        load_image(tmp_path / "corrupt.jpg")
    assert issubclass(ImageLoadError, ValueError)


def test_a_folder_is_not_an_image(tmp_path: Path) -> None:
    with pytest.raises(ImageLoadError, match="folder"):
        load_image(tmp_path)


@pytest.mark.skipif(not REAL_D6.is_dir(), reason="real-d6 photos not present")
def test_real_photo_loads() -> None:
    assert load_image(REAL_D6 / "valid_70.jpg").shape == (480, 640, 3)


@pytest.mark.parametrize(
    "frame, message",
    [
        ([[1, 2]], "numpy array"),
        (np.zeros((64, 64, 3), dtype=np.float32), "uint8"),
        (np.zeros((64, 64), dtype=np.uint8), "HxWx3"),
        (np.zeros((8, 64, 3), dtype=np.uint8), "at least 32x32"),
    ],
)
def test_check_frame_rejects_bad_frames(frame: object, message: str) -> None:
    with pytest.raises(InvalidFrameError, match=message):
        check_frame(frame)
