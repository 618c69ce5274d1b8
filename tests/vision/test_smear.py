"""The smear check (vision.smear): dice smeared by motion are sent to review, dice in focus
are left alone."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.test_reader import _scene
from tools.train.train_dice_classifier import motion_blur
from vision import Die, ReaderParams, Reading, read_dice
from vision.dice.detected import square_outline
from vision.smear import doubt_smeared, gradient_balance

SIDE = 70


def _smeared(image: np.ndarray, length: float, angle: float) -> np.ndarray:
    return np.clip(motion_blur(image, length, angle), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
def test_a_die_in_focus_is_balanced_and_a_smeared_one_is_not(value: int) -> None:
    image = _scene([(value, 300, 200)], side=SIDE)
    assert gradient_balance(image, 300, 200, 0.8 * SIDE) > 0.9
    assert gradient_balance(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), 300, 200, 0.8 * SIDE) > 0.9
    for angle in (0, 45, 90, 135):
        smeared = _smeared(image, 0.3 * SIDE, angle)
        assert gradient_balance(smeared, 300, 200, 0.8 * SIDE) < 0.3, angle


def test_a_flat_crop_counts_as_balanced() -> None:
    assert gradient_balance(np.full((100, 100, 3), 128, np.uint8), 50, 50, 40) == 1.0


def test_a_smeared_die_is_never_read_surely_wrong() -> None:
    # smeared by 0.27 of its face, a 4's pips run into two short bars that every look takes
    # for the two rows of a 6: without the check it was read as a sure 6
    for value in (2, 3, 4, 5, 6):
        image = _scene([(value, 300, 200)], side=SIDE)
        for angle in range(0, 180, 30):
            reading = read_dice(_smeared(image, 19, angle))
            sure = [d for d in reading.dice if d.confidence >= reading.min_confidence]
            assert all(d.value == value for d in sure), (value, angle, sure)


def test_only_sure_smeared_dice_are_doubted() -> None:
    sharp = _scene([(4, 150, 200), (4, 450, 200)], side=SIDE)
    frame = sharp.copy()
    frame[:, 300:] = _smeared(sharp, 0.3 * SIDE, 0)[:, 300:]  # the right-hand die moved

    def die(x: float, confidence: float) -> Die:
        return Die(4, x, 200, confidence, square_outline(x, 200, SIDE))

    reading = Reading(dice=(die(150, 0.95), die(450, 0.95), die(450, 0.3)), width=600,
                      height=400, min_confidence=0.6)
    doubted = doubt_smeared(frame, reading, 0.3)
    assert [d.confidence for d in doubted.dice] == pytest.approx([0.95, 0.54, 0.3])
    assert [(d.value, d.x, d.y) for d in doubted.dice] == [(d.value, d.x, d.y)
                                                           for d in reading.dice]
    assert doubt_smeared(frame, reading, 0.0) is reading


def test_reader_params_check_the_balance_setting() -> None:
    assert ReaderParams(min_gradient_balance=0.0).min_gradient_balance == 0.0
    for bad in (-0.1, 1.0):
        with pytest.raises(ValueError, match="min_gradient_balance"):
            ReaderParams(min_gradient_balance=bad)


def test_the_bench_smears_like_a_moving_camera() -> None:
    from tools.bench.bench_motion_blur import smeared

    image = _scene([(5, 300, 200)], side=SIDE)
    assert smeared(image, 0, 30) is image
    out = smeared(image, 0.3 * SIDE, 30)
    assert out.shape == image.shape and out.dtype == np.uint8
    assert gradient_balance(out, 300, 200, 0.8 * SIDE) < 0.3


def test_one_die_smeared_in_a_sharp_recorded_frame_is_not_read_as_sure() -> None:
    """Found by an audit (docs/lab-notebook.md, "Smeared dice", 2026-11-27): Ben's 5 in the
    demo's round 2, smeared 11 px at 60° (still spinning) while every other die is sharp, was
    read as a sure 6 under the old 0.3 bar."""
    recording = Path(__file__).resolve().parents[2] / "bluffcam" / "recordings" / "demo"
    frame = cv2.imread(str(sorted((recording / "frames" / "r02b_reveal").glob("*.jpg"))[-1]))
    x, y, reach = 933, 652, 48  # the die's centre in the recording's truth, and a margin
    streak = np.zeros((11, 11), np.float32)  # an 11-px line of whole pixels, at 60°
    for t in np.linspace(-5, 5, 44):
        streak[round(5 + t * np.sin(np.pi / 3)), round(5 + t * np.cos(np.pi / 3))] = 1
    patch = frame[y - reach:y + reach, x - reach:x + reach]
    frame[y - reach:y + reach, x - reach:x + reach] = cv2.filter2D(patch, -1,
                                                                   streak / streak.sum())
    reading = read_dice(frame)
    spinning = min(reading.dice, key=lambda d: np.hypot(d.x - x, d.y - y))
    assert np.hypot(spinning.x - x, spinning.y - y) < 10
    assert spinning.confidence < reading.min_confidence or spinning.value == 5
