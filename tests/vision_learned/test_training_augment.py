"""The classifier's training views (tools.train_dice_classifier.augment): an upright look
keeps the photo's up, the default turns crops all the way round."""

from __future__ import annotations

import numpy as np

from tools.train_dice_classifier import PATCH_PX, augment, motion_blur


def _textured_top() -> np.ndarray:
    """A patch whose upper half is a coarse checkerboard and whose lower half is plain: which
    half is on top survives contrast changes, inversion, blur and noise."""
    yy, xx = np.mgrid[0:PATCH_PX, 0:PATCH_PX]
    checker = np.where((yy // 10 + xx // 10) % 2 == 0, 220, 40)
    return np.where(yy < PATCH_PX // 2, checker, 130).astype(np.uint8)


def _top_is_textured(crop: np.ndarray) -> bool:
    half = crop.shape[0] // 2
    return float(crop[:half].astype(float).std()) > float(crop[half:].astype(float).std())


def test_upright_views_keep_the_photos_up() -> None:
    patch = _textured_top()
    rng = np.random.default_rng(3)
    assert all(_top_is_textured(augment(patch, rng, upright=True)) for _ in range(60))


def test_default_views_turn_all_the_way_round() -> None:
    patch = _textured_top()
    rng = np.random.default_rng(3)
    tops = [_top_is_textured(augment(patch, rng)) for _ in range(60)]
    assert 10 <= sum(tops) <= 50  # the texture lies above, below or beside


def test_upright_views_are_mirrored_left_to_right_half_the_time() -> None:
    yy, xx = np.mgrid[0:PATCH_PX, 0:PATCH_PX]
    left_textured = np.where(xx < PATCH_PX // 2,
                             np.where((yy // 10 + xx // 10) % 2 == 0, 220, 40), 130)
    rng = np.random.default_rng(5)
    lefts = 0
    for _ in range(80):
        crop = augment(left_textured.astype(np.uint8), rng, upright=True).astype(float)
        half = crop.shape[1] // 2
        lefts += int(crop[:, :half].std() > crop[:, half:].std())
    assert 20 <= lefts <= 60


def test_motion_blur_smears_along_its_direction_and_keeps_the_light() -> None:
    dot = np.zeros((48, 48), np.float32)
    dot[24, 24] = 255.0
    for angle, axis in ((0.0, 1), (90.0, 0)):
        smeared = motion_blur(dot, 6.0, angle)
        assert abs(float(smeared.sum()) - 255.0) < 0.5
        ys, xs = np.nonzero(smeared > 1.0)
        along, across = (xs, ys) if axis == 1 else (ys, xs)
        assert along.max() - along.min() >= 5
        assert across.max() - across.min() == 0
