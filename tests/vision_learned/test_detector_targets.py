"""The detector's training targets (tools.train_dice_detector.targets)."""

from __future__ import annotations

import numpy as np

from tools.train_dice_detector import STRIDE, targets
from vision.detector import pixel_to_cell

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
