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


def _with_orientation(jpeg: bytes, orientation: int) -> bytes:
    """``jpeg`` with an EXIF block saying how the camera was held (a phone's portrait shot: 6)."""
    entry = (0x0112).to_bytes(2, "big") + (3).to_bytes(2, "big") + (1).to_bytes(4, "big") + orientation.to_bytes(2, "big") + b"\0\0"
    tiff = b"MM\0\x2a" + (8).to_bytes(4, "big") + (1).to_bytes(2, "big") + entry + (0).to_bytes(4, "big")
    block = b"Exif\0\0" + tiff
    return jpeg[:2] + b"\xff\xe1" + (len(block) + 2).to_bytes(2, "big") + block + jpeg[2:]


def test_a_phone_photo_is_read_the_way_up_it_was_taken(tmp_path: Path) -> None:
    # a phone stores a portrait shot as the sensor saw it (landscape) and says in EXIF how to turn it
    image = np.full((60, 100, 3), 200, np.uint8)
    image[:, :20] = (0, 0, 255)  # red down the left as stored: along the top once turned a quarter clockwise
    jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    (tmp_path / "portrait.jpg").write_bytes(_with_orientation(jpeg, 6))
    (tmp_path / "upright.jpg").write_bytes(_with_orientation(jpeg, 1))
    turned = load_image(tmp_path / "portrait.jpg")
    assert turned.shape == (100, 60, 3)
    assert turned[5, 30].tolist()[2] > 200 and turned[95, 30].tolist()[2] < 210 and turned[95, 30].tolist()[0] > 150
    np.testing.assert_array_equal(load_image(tmp_path / "upright.jpg"), cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR))


def test_a_48_megapixel_phone_photo_loads(tmp_path: Path) -> None:
    photo = np.full((6048, 8064, 3), 180, np.uint8)
    cv2.imwrite(str(tmp_path / "48mp.jpg"), photo)
    assert load_image(tmp_path / "48mp.jpg").shape == (6048, 8064, 3)


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
