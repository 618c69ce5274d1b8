"""The classifier's training views (tools.train.train_dice_classifier.augment): an upright look
keeps the photo's up, the default turns crops all the way round."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from tools.train.train_dice_classifier import (
    ANY_ANGLE_TURN,
    PATCH_PX,
    UPRIGHT_TURN,
    Patch,
    augment,
    detector_patches,
    load_patches,
    motion_blur,
    occlude,
    photo_patches,
    save_patches,
    tone_curve,
)
from vision import load_image
from vision.bench import Entry, LabelledDie


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


def test_detector_crops_cut_each_labelled_die_where_the_detector_places_it() -> None:
    data = Path(__file__).resolve().parents[1] / "data" / "tables"
    truth = json.loads((data / "wood.json").read_text())
    dice = tuple(LabelledDie(d["value"], (d["x"] - d["size_px"] / 2, d["y"] - d["size_px"] / 2,
                                          d["size_px"], d["size_px"])) for d in truth["dice"])
    entry = Entry("wood.jpg", dice, True, "renders", "table")
    image = load_image(data / "wood.jpg")
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    patches = detector_patches(image, grey, entry)
    assert len(patches) == len(dice)  # every die of this scene is proposed
    assert sorted(p.label for p in patches) == sorted(d.value for d in dice)
    assert all(p.pixels.shape == (PATCH_PX, PATCH_PX) for p in patches)
    # asked for, they come beside the labelled boxes' patches and the background ones
    plain = photo_patches(data, entry, np.random.default_rng(0))
    with_them = photo_patches(data, entry, np.random.default_rng(0), detector_crops=True)
    assert len(with_them) == len(plain) + len(dice)


def _bar_angle(crop: np.ndarray) -> float:
    """The angle in degrees (0..90, 0 = level) of the longest bright or dark streak."""
    c = crop.astype(float)
    w = np.abs(c - np.median(c))
    w = np.where(w >= np.quantile(w, 0.9), w, 0.0)
    m = cv2.moments(w.astype(np.float32))
    theta = 0.5 * np.degrees(np.arctan2(2 * m["mu11"], m["mu20"] - m["mu02"]))
    return abs(float(theta)) if abs(theta) <= 90 else 180 - abs(float(theta))


def _level_bar() -> np.ndarray:
    patch = np.full((PATCH_PX, PATCH_PX), 120, np.uint8)
    patch[PATCH_PX // 2 - 3:PATCH_PX // 2 + 3, PATCH_PX // 2 - 30:PATCH_PX // 2 + 30] = 240
    return patch


def test_any_angle_views_turn_past_the_upright_turn_and_stay_within_45_degrees() -> None:
    rng = np.random.default_rng(11)
    upright = [_bar_angle(augment(_level_bar(), rng, upright=True)) for _ in range(60)]
    anywhere = [_bar_angle(augment(_level_bar(), rng, upright=True, any_angle=1.0))
                for _ in range(60)]
    assert max(upright) < UPRIGHT_TURN + 4
    assert sum(a > UPRIGHT_TURN + 8 for a in anywhere) >= 20
    assert max(anywhere) < ANY_ANGLE_TURN + 4


def test_tone_curves_squeeze_light_pips_on_a_light_body_or_spread_them() -> None:
    rng = np.random.default_rng(2)
    gaps = []
    for _ in range(200):
        body, pip = tone_curve(np.array([200.0, 245.0]), rng)
        assert 0.0 <= body <= pip <= 255.0  # the order of shades is kept
        gaps.append(pip - body)
    assert min(gaps) < 0.6 * 45 and max(gaps) > 1.4 * 45


def test_saved_patches_come_back_as_they_were(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    train = [Patch(rng.integers(0, 256, (PATCH_PX, PATCH_PX), dtype=np.uint8), k % 7,
                   f"s{k % 3}") for k in range(5)]
    test = [Patch(np.zeros((PATCH_PX, PATCH_PX), np.uint8), 0, "held")]
    save_patches(tmp_path / "p.npz", train, test)
    back_train, back_test = load_patches(tmp_path / "p.npz")
    assert [(p.label, p.source) for p in back_train] == [(p.label, p.source) for p in train]
    assert all(np.array_equal(a.pixels, b.pixels) for a, b in zip(back_train, train, strict=True))
    assert [(p.label, p.source) for p in back_test] == [(0, "held")]


def test_a_covered_view_hides_part_of_the_face_and_never_its_middle() -> None:
    # the same cover drawn over a face of 200 and one of 100: where the face shows (its
    # shadow only darkens it by a share) the first stays twice the second; where the cover
    # lies, both are the cover
    face_px = 24.0
    face = np.zeros((48, 48), bool)
    face[12:36, 12:36] = True
    covered_shares = []
    for seed in range(80):
        bright = occlude(np.full((48, 48), 200.0, np.float32), np.random.default_rng(seed),
                         face_px)
        dim = occlude(np.full((48, 48), 100.0, np.float32), np.random.default_rng(seed),
                      face_px)
        covered = np.abs(bright - 2 * dim) > 1.0
        assert not covered[22:26, 22:26].any()  # the middle pip is always in sight
        covered_shares.append(float(covered[face].mean()))
    assert max(covered_shares) > 0.1  # some views lose a good part of the face
    assert min(covered_shares) < 0.1  # others only its edge
    assert max(covered_shares) < 0.5


def test_covering_views_leave_not_a_die_patches_and_the_default_draw_alone() -> None:
    patch = _textured_top()
    plain = augment(patch, np.random.default_rng(4), upright=True)
    again = augment(patch, np.random.default_rng(4), upright=True, cover=0.0)
    assert np.array_equal(plain, again)
    covered = augment(patch, np.random.default_rng(4), upright=True, cover=1.0)
    assert not np.array_equal(plain, covered)
