"""Picture advice for the calibration page (vision.frame_check): dark, blown out, grainy,
smeared, small dice, and a good picture left alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.vision.test_reader import _scene
from tools.bench.bench_motion_blur import smeared
from vision import Die, ReaderParams, Reading, load_image, read_dice
from vision.dice.detected import square_outline
from vision.frame_check import SMALL_DICE_PX, frame_advice, noise_sd, small_dice_advice

DATA = Path(__file__).resolve().parents[1] / "data"


def _kinds(frame: np.ndarray, **kw: object) -> list[str]:
    return [a.kind for a in frame_advice(frame, **kw)]  # type: ignore[arg-type]


def test_a_well_lit_sharp_picture_needs_nothing() -> None:
    frame = _scene([(3, 150, 150), (5, 400, 250)])
    assert frame_advice(frame, read_dice(frame)) == []
    assert frame_advice(frame[:, :, 1]) == []  # a grey picture too


def test_dark_blown_out_and_grainy_pictures_are_named_with_their_figure() -> None:
    frame = _scene([(3, 150, 150)])
    dark = (frame * 0.2).astype(np.uint8)
    advice = frame_advice(dark)
    assert [a.kind for a in advice] == ["dark"]
    assert "median brightness" in advice[0].message
    blown = frame.copy()
    blown[:100] = 255
    assert _kinds(blown) == ["blown_out"]
    assert frame_advice(blown)[0].message.startswith("25% of the picture")
    rng = np.random.default_rng(0)
    grainy = np.clip(frame + rng.normal(0, 15, frame.shape), 0, 255).astype(np.uint8)
    assert _kinds(grainy) == ["grainy"]


def test_noise_is_measured_in_grey_levels_and_not_fooled_by_edges() -> None:
    rng = np.random.default_rng(1)
    flat = np.full((300, 300), 128.0)
    assert noise_sd(flat.astype(np.uint8)) < 0.5
    assert noise_sd(_scene([(6, 300, 200)])[:, :, 0]) < 2.0  # dice edges are not noise
    noisy = np.clip(flat + rng.normal(0, 10, flat.shape), 0, 255).astype(np.uint8)
    assert 8.5 < noise_sd(noisy) < 11.5
    assert noise_sd(np.zeros((2, 2), np.uint8)) == 0.0


def test_smeared_dice_are_counted_from_the_reading() -> None:
    frame = smeared(_scene([(4, 150, 200), (2, 450, 200)], side=70), 21, 0)
    reading = read_dice(frame)
    assert len(reading.dice) == 2, "the smeared dice should still be found"
    advice = frame_advice(frame, reading)
    assert [a.kind for a in advice] == ["smeared"]
    assert advice[0].message.startswith("2 dice look smeared")
    assert frame_advice(frame, reading, ReaderParams(min_gradient_balance=0.0)) == []


def test_a_big_frame_is_judged_by_a_sample_of_its_pixels() -> None:
    big = np.full((3024, 4032, 3), 128, np.uint8)
    big[:, :400] = 255  # a tenth of it blown out
    advice = frame_advice(big)
    assert [a.kind for a in advice] == ["blown_out"]
    assert advice[0].message.startswith("10% of the picture")


def _reading_of(width: int, height: int, faces: list[float]) -> Reading:
    """A reading of dice with these faces (px), spread over a ``width`` x ``height`` frame."""
    dice = tuple(Die(value=3, x=40.0 + 30 * k, y=height / 2, confidence=0.9,
                     outline=square_outline(40.0 + 30 * k, height / 2, face))
                 for k, face in enumerate(faces))
    return Reading(dice=dice, width=width, height=height)


def test_small_dice_are_judged_at_the_size_the_reader_works_at() -> None:
    params = ReaderParams()
    # a 640-px picture is read at 320 px: 20-px dice are 10 px there, 30-px dice 15 px
    small = small_dice_advice(480, 640, _reading_of(640, 480, [19, 20, 22]), params)
    assert small is not None and small.kind == "small_dice"
    assert "about 20 px across in this 640×480 picture" in small.message
    assert f"{2 * SMALL_DICE_PX:.0f} px and more" in small.message
    assert "raise its resolution (up to 1920 px across)" in small.message
    assert small_dice_advice(480, 640, _reading_of(640, 480, [29, 30, 31]), params) is None
    # the median decides: one small die among big ones is not a camera problem
    assert small_dice_advice(480, 640, _reading_of(640, 480, [12, 40, 42]), params) is None
    # a 1280-px frame is read at 640 px: the demo's dice (about 46 px) are 23 px there
    assert small_dice_advice(960, 1280, _reading_of(1280, 960, [45, 46, 48]), params) is None
    # a 12-MP frame is read at 960 px at most: 50-px dice are 12 px there, and only a closer
    # camera helps (a higher resolution is shrunk the more)
    big = small_dice_advice(3024, 4032, _reading_of(4032, 3024, [50, 50]), params)
    assert big is not None and "resolution" not in big.message
    assert "dice of 59 px and more" in big.message
    # a profile that lets the reader work larger moves the bar
    wide = ReaderParams(detector_max_side=2016)
    assert small_dice_advice(3024, 4032, _reading_of(4032, 3024, [50, 50]), wide) is None
    assert small_dice_advice(480, 640, Reading(width=640, height=480), params) is None


def test_the_picture_advice_names_small_dice_from_a_real_read() -> None:
    tiny = load_image(DATA / "sizes" / "tiny_dice.jpg")  # rendered dice of about 16 px
    assert [a.kind for a in frame_advice(tiny, read_dice(tiny))] == ["small_dice"]
    assert frame_advice(tiny) == []  # without a reading nothing is said about dice
    table = load_image(DATA / "tables" / "wood.jpg")  # dice of about 34 px
    assert frame_advice(table, read_dice(table)) == []
