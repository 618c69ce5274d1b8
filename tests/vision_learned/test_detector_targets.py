"""The detector's training targets (tools.train.train_dice_detector.targets)."""

from __future__ import annotations

import numpy as np

from tools.train.train_dice_detector import (
    DRAWN_FACE_PX,
    MAX_ZOOM,
    SIZE_DRAWN,
    STRIDE,
    Sample,
    targets,
    window_scale,
)
from vision.detector import CLOSER_ZOOM, pixel_to_cell

#: cx, cy, face, value, size known, ignore: a 16-px 3 and a 60-px 5, in window pixels
DICE = np.array([[100.0, 100.0, 16.0, 3, True, False], [30.0, 30.0, 60.0, 5, True, False]])


def _cells(value_label: np.ndarray, value: int) -> set[tuple[int, int]]:
    return {(int(u), int(v)) for v, u in zip(*np.nonzero(value_label == value - 1), strict=True)}


def test_by_default_a_small_die_s_value_is_taught_at_its_centre_cell_only() -> None:
    _, _, value_label, _, _ = targets(DICE)
    centre = (round(pixel_to_cell(100.0)), round(pixel_to_cell(100.0)))
    assert _cells(value_label, 3) == {centre}


def test_value_reach_teaches_the_3x3_cells_of_a_small_die_and_more_of_a_big_one() -> None:
    _, _, before, _, _ = targets(DICE)
    heat, _, value_label, _, _ = targets(DICE, value_reach=0.25)
    u, v = round(pixel_to_cell(100.0)), round(pixel_to_cell(100.0))
    assert _cells(value_label, 3) == {(u + du, v + dv) for du in (-1, 0, 1) for dv in (-1, 0, 1)}
    big = _cells(value_label, 5)
    assert _cells(before, 5) < big  # a superset of the default's cells
    reach = 0.25 * 60.0 / STRIDE
    bu, bv = round(pixel_to_cell(30.0)), round(pixel_to_cell(30.0))
    assert all((x - bu) ** 2 + (y - bv) ** 2 <= reach ** 2 for x, y in big)  # on the top face
    assert np.array_equal(heat, targets(DICE)[0])  # presence is taught as before


def _sample(with_dice: bool) -> Sample:
    dice = np.array([[100.0, 100.0, 30.0, 4, 1, 0]]) if with_dice else np.zeros((0, 6))
    return Sample(np.zeros((480, 640, 3), np.uint8), 1.0, 0.5, dice, "epanemu")


def test_windows_at_the_reading_scale_are_exactly_the_working_scale_or_twice_it() -> None:
    rng = np.random.default_rng(3)
    sample = _sample(with_dice=False)  # no die: never a size-drawn window
    scales = {window_scale(sample, rng, at_reading_scale=1.0) for _ in range(200)}
    assert scales == {0.5, 0.5 * CLOSER_ZOOM}
    jittered = [window_scale(sample, rng) for _ in range(200)]
    assert all(0.45 * 0.5 <= s <= 2.0 * 0.5 for s in jittered)
    assert len(set(jittered)) == 200


def test_the_default_recipe_draws_the_same_scales_as_before_the_option() -> None:
    sample = _sample(with_dice=True)
    a, b = np.random.default_rng(11), np.random.default_rng(11)
    assert [window_scale(sample, a) for _ in range(100)] == \
        [window_scale(sample, b, at_reading_scale=0.0) for _ in range(100)]
    # the old rule, drawn by hand: size-drawn with SIZE_DRAWN, else jittered 0.45-2x
    c, d = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(50):
        got = window_scale(sample, c)
        if d.random() < SIZE_DRAWN:
            d.integers(1)
            want = float(np.clip(np.exp(d.uniform(*np.log(DRAWN_FACE_PX))) / 30.0,
                                 0.3 * 0.5, MAX_ZOOM * 0.5))
        else:
            want = 0.5 * float(np.exp(d.uniform(np.log(0.45), np.log(2.0))))
        assert got == want
