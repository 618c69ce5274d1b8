"""Card-shaped outlines: corner order, shape tests and finding drawn cards."""

from __future__ import annotations

import cv2
import numpy as np

from vision.card_outlines import (
    CARD_ASPECT,
    aspect,
    corner_skew,
    find_card_outlines,
    is_card_shaped,
    order_corners,
    portrait_corners,
    quad_overlap,
)

UPRIGHT = np.array([[100.0, 50.0], [163.0, 50.0], [163.0, 138.0], [100.0, 138.0]])


def test_order_corners_starts_top_left_and_goes_clockwise() -> None:
    shuffled = UPRIGHT[[2, 0, 3, 1]]
    assert np.array_equal(order_corners(shuffled), UPRIGHT)


def test_portrait_corners_put_a_short_side_first() -> None:
    landscape = np.array([[0.0, 0.0], [88.0, 0.0], [88.0, 63.0], [0.0, 63.0]])
    pts = portrait_corners(landscape)
    assert np.hypot(*(pts[1] - pts[0])) == 63.0


def test_shape_measures() -> None:
    assert abs(aspect(UPRIGHT) - CARD_ASPECT) < 1e-9
    assert corner_skew(UPRIGHT) < 1e-9
    assert is_card_shaped(UPRIGHT, min_side=30, max_skew=0.5)
    square = np.array([[0.0, 0.0], [80.0, 0.0], [80.0, 80.0], [0.0, 80.0]])
    assert not is_card_shaped(square, min_side=30, max_skew=0.5)
    assert not is_card_shaped(UPRIGHT * 0.2, min_side=30, max_skew=0.5)
    bow = UPRIGHT[[0, 2, 1, 3]]
    assert not is_card_shaped(bow, min_side=30, max_skew=0.5)


def test_overlap_of_quads() -> None:
    assert quad_overlap(UPRIGHT, UPRIGHT) == 1.0
    assert quad_overlap(UPRIGHT, UPRIGHT + 500) == 0.0


def test_finds_a_rotated_light_card_on_a_dark_table() -> None:
    frame = np.full((400, 500, 3), (40, 60, 90), np.uint8)
    rect = ((250.0, 200.0), (126.0, 176.0), 30.0)
    corners = cv2.boxPoints(rect)
    cv2.fillConvexPoly(frame, corners.astype(np.int32), (235, 240, 240), cv2.LINE_AA)
    found = find_card_outlines(frame)
    assert len(found) == 1
    error = max(np.hypot(*(found[0] - c).T).min() for c in corners)
    assert error < 4.0


def test_finds_nothing_on_a_plain_table() -> None:
    assert find_card_outlines(np.full((300, 300, 3), 120, np.uint8)) == []
