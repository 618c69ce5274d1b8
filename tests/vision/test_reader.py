"""Reader tests on drawn dice (known values and positions), bad files and empty scenes."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import Die, ImageLoadError, ReaderParams, Reading, draw_reading, load_image, read_dice
from vision.io import declared_size

_CELLS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _draw_die(img: np.ndarray, value: int, cx: int, cy: int, side: int) -> None:
    half = side // 2
    cv2.rectangle(img, (cx - half, cy - half), (cx + half, cy + half), (235, 235, 235), -1)
    cv2.rectangle(img, (cx - half, cy - half), (cx + half, cy + half), (90, 90, 90), 2)
    cell = side // 4
    radius = max(2, side // 11)
    for col, row in _CELLS[value]:
        cv2.circle(img, (cx + col * cell, cy + row * cell), radius, (20, 20, 20), -1, cv2.LINE_AA)


def _scene(dice: list[tuple[int, int, int]], side: int = 60) -> np.ndarray:
    img = np.full((400, 600, 3), (60, 110, 60), np.uint8)
    for value, x, y in dice:
        _draw_die(img, value, x, y, side)
    return cv2.GaussianBlur(img, (3, 3), 0)


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
def test_reads_each_multi_pip_face_at_its_place(value: int) -> None:
    reading = read_dice(_scene([(value, 300, 200)]))
    assert [d.value for d in reading.dice] == [value]
    die = reading.dice[0]
    assert abs(die.x - 300) < 4 and abs(die.y - 200) < 4
    assert die.outline.shape == (4, 2)


def test_reads_several_separate_dice() -> None:
    dice = [(2, 100, 100), (5, 300, 100), (6, 500, 300), (3, 150, 300)]
    reading = read_dice(_scene(dice))
    assert reading.values == sorted(v for v, _, _ in dice)
    for value, x, y in dice:
        assert any(d.value == value and abs(d.x - x) < 5 and abs(d.y - y) < 5
                   for d in reading.dice)


def test_empty_scene_is_an_empty_reading() -> None:
    reading = read_dice(np.full((300, 400, 3), 128, np.uint8))
    assert reading.dice == ()
    assert reading.uncertain == ()
    assert reading.face_counts() == dict.fromkeys(range(1, 7), 0)
    assert (reading.width, reading.height) == (400, 300)


def test_uncertain_dice_are_those_below_min_confidence() -> None:
    outline = np.zeros((4, 2))
    reading = Reading(dice=(Die(3, 1, 1, 0.9, outline), Die(4, 5, 5, 0.2, outline),
                            Die(6, 9, 9, 0.5, outline)), min_confidence=0.5)
    assert [d.value for d in reading.uncertain] == [4]
    assert [d.value for d in reading.sure] == [3, 6]  # at the threshold counts as sure
    assert not reading.is_certain


def test_die_rejects_impossible_values() -> None:
    with pytest.raises(ValueError, match="1..6"):
        Die(7, 0, 0, 0.5, np.zeros((4, 2)))


def test_params_round_trip_and_reject_unknown_keys() -> None:
    params = ReaderParams(min_confidence=0.7, pip_diameter_px=9)
    assert ReaderParams.from_dict(params.to_dict()) == params
    with pytest.raises(ValueError, match="unknown reader setting"):
        ReaderParams.from_dict({"pip_size": 3})
    with pytest.raises(ValueError, match="min_confidence"):
        ReaderParams(min_confidence=2.0)


def test_draw_reading_returns_an_annotated_copy() -> None:
    frame = _scene([(4, 300, 200)])
    before = frame.copy()
    out = draw_reading(frame, read_dice(frame))
    assert np.array_equal(frame, before)
    assert out.shape == frame.shape and not np.array_equal(out, frame)


def test_draw_reading_on_a_bgra_frame_draws_opaque() -> None:
    frame = cv2.cvtColor(_scene([(4, 300, 200), (2, 100, 100)]), cv2.COLOR_BGR2BGRA)
    reading = read_dice(frame)
    assert reading.values == [2, 4]
    out = draw_reading(frame, reading)
    drawn = np.any(out[:, :, :3] != frame[:, :, :3], axis=2)
    assert out.shape == frame.shape and drawn.sum() > 100
    assert (out[:, :, 3] == 255).all()  # alpha 0 where drawn used to hide the drawing
    see_through = frame.copy()
    see_through[:, :, 3] = 0
    over_nothing = draw_reading(see_through, reading)
    assert (over_nothing[:, :, 3][drawn] == 255).all()
    assert (over_nothing[:, :, 3][~drawn] == 0).all()  # the rest keeps its own alpha


def test_load_image_errors_name_the_problem(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff not really a jpeg")
    with pytest.raises(ImageLoadError, match="corrupt"):
        load_image(corrupt)
    with pytest.raises(ImageLoadError, match="no such file"):
        load_image(tmp_path / "missing.png")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(ImageLoadError, match="empty"):
        load_image(empty)
    with pytest.raises(ImageLoadError, match="cannot be read .File name too long"):
        load_image(tmp_path / ("x" * 300 + ".jpg"))


def _png_declaring(width: int, height: int) -> bytes:
    """A 2 x 2 PNG whose header (CRC and all) claims another size."""
    ok, png = cv2.imencode(".png", np.zeros((2, 2, 3), np.uint8))
    assert ok
    data = bytearray(png.tobytes())
    data[16:24] = struct.pack(">II", width, height)  # IHDR width and height
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
    return bytes(data)


@pytest.mark.parametrize(("width", "height"), [(100_000, 100_000), (16_000, 16_000)])
def test_an_image_claiming_more_pixels_than_are_read_is_refused_by_name(
        tmp_path: Path, width: int, height: int) -> None:
    # 16000 x 16000 is under OpenCV's own limit, so before the cap it took 1.5 GB to decode
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_declaring(width, height))
    with pytest.raises(ImageLoadError, match=f"bomb.png: its header declares {width} x "
                                             f"{height} pixels; at most 250 megapixels"):
        load_image(bomb)


def test_a_jpeg_header_behind_a_full_exif_block_is_still_measured(tmp_path: Path) -> None:
    ok, jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))
    assert ok
    body = jpeg.tobytes()
    app1 = b"\xff\xe1" + struct.pack(">H", 65535) + b"Exif\0\0" + bytes(65527)
    photo = body[:2] + app1 * 3 + body[2:]  # three full APP segments before the frame header
    assert declared_size(photo[:1 << 20]) == (64, 48)
    (tmp_path / "exif.jpg").write_bytes(photo)
    assert load_image(tmp_path / "exif.jpg").shape == (48, 64, 3)


@pytest.mark.parametrize(("frame", "problem"), [
    (np.zeros((0, 0, 3), np.uint8), "empty"),
    (np.zeros((40, 0, 3), np.uint8), "empty"),
    (np.zeros((40, 40, 3), np.float32), "uint8"),
    (np.zeros((40, 40, 5), np.uint8), "shape"),
])
def test_a_frame_that_is_not_an_image_is_refused_by_name(frame: np.ndarray, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        read_dice(frame)


@pytest.mark.parametrize("shape", [(1, 1, 3), (3, 7, 3), (1, 500, 3), (500, 1, 3), (16, 2000, 3)])
def test_a_tiny_or_sliver_frame_is_an_empty_reading(shape: tuple[int, int, int]) -> None:
    assert read_dice(np.full(shape, 128, np.uint8)).dice == ()


@pytest.mark.parametrize("shape", [(1, 5000, 3), (5000, 1, 3), (2, 10000, 3)])
def test_the_classical_reader_reads_a_sliver_as_empty_too(shape: tuple[int, int, int]) -> None:
    params = ReaderParams(method="classical")
    assert read_dice(np.full(shape, 128, np.uint8), params).dice == ()


def test_grey_and_bgra_frames_read_like_bgr() -> None:
    dice = [(2, 100, 100), (5, 300, 100), (6, 500, 300)]
    frame = _scene(dice)
    want = read_dice(frame).values
    assert want == [2, 5, 6]
    assert read_dice(cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)).values == want
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert read_dice(grey).values == want


@pytest.mark.parametrize(("suffix", "depth"),  # WebP holds 8 bits a channel only
                         [(".png", np.uint8), (".png", np.uint16), (".webp", np.uint8)])
def test_a_transparent_image_is_read_as_a_viewer_shows_it(
        tmp_path: Path, suffix: str, depth: type) -> None:
    """The colour under a clear pixel is arbitrary (here black, as editors often leave it):
    read by colour alone, dark dice would vanish into it; laid over grey they do not."""
    frame = _scene([(2, 100, 100), (5, 300, 100), (6, 500, 300)])
    table = np.all(frame == frame[5, 5], axis=2)
    bgra = cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)
    bgra[table] = 0  # clear and black where the table was
    scale = 257 if depth is np.uint16 else 1
    path = tmp_path / f"cut-out{suffix}"
    extra = [cv2.IMWRITE_WEBP_QUALITY, 101] if suffix == ".webp" else []  # 101: lossless
    assert cv2.imwrite(str(path), bgra.astype(depth) * scale, extra)
    loaded = load_image(path)
    assert loaded.shape == frame.shape and loaded.dtype == np.uint8
    assert np.all(loaded[table] == 128)
    assert np.array_equal(loaded[~table], frame[~table])
    assert read_dice(loaded).values == [2, 5, 6]


def test_an_opaque_png_loads_as_its_colours(tmp_path: Path) -> None:
    frame = _scene([(4, 200, 200)])
    for name, pixels in [("colour.png", frame), ("with-alpha.png",
                                                 cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA))]:
        assert cv2.imwrite(str(tmp_path / name), pixels)
        assert np.array_equal(load_image(tmp_path / name), frame)


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an EXIF block whose only tag is Orientation (as a phone writes it)."""
    import struct

    tiff = (b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1)
            + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack("<I", 0))
    app1 = b"\xff\xe1" + struct.pack(">H", len(tiff) + 8) + b"Exif\x00\x00" + tiff
    return jpeg[:2] + app1 + jpeg[2:]


def test_load_image_turns_a_phone_photo_upright(tmp_path: Path) -> None:
    # a phone stores the sensor's pixels and an EXIF turn; people (and labels) see it turned
    frame = _scene([(5, 150, 100)])
    ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    path = tmp_path / "phone.jpg"
    path.write_bytes(_with_exif_orientation(jpeg.tobytes(), 6))  # 6: turn 90 deg clockwise
    upright = load_image(path)
    assert upright.shape[:2] == (600, 400)
    (die,) = read_dice(upright).dice
    assert die.value == 5
    # (150, 100) in the stored frame lies at (400 - 1 - 100, 150) once turned clockwise
    assert abs(die.x - 299) < 5 and abs(die.y - 150) < 5
