"""Picture advice for the calibration page (vision.frame_check): dark, blown out, grainy,
smeared, and a good picture left alone."""

from __future__ import annotations

import numpy as np

from tests.vision.test_reader import _scene
from tools.bench_motion_blur import smeared
from vision import read_dice
from vision.frame_check import frame_advice, noise_sd


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
    assert frame_advice(frame, reading, min_balance=0.0) == []


def test_a_big_frame_is_judged_by_a_sample_of_its_pixels() -> None:
    big = np.full((3024, 4032, 3), 128, np.uint8)
    big[:, :400] = 255  # a tenth of it blown out
    advice = frame_advice(big)
    assert [a.kind for a in advice] == ["blown_out"]
    assert advice[0].message.startswith("10% of the picture")
