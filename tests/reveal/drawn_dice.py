"""A tiny generator of top-down table frames with pip dice, hands and sensor noise.

The tests draw their own frames (made by the project, ground truth = the arguments), so
reveal capture is checked end to end with the real `vision.read_dice` without shipping images.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

Frame = NDArray[np.uint8]
PIPS: dict[int, list[tuple[int, int]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}
FELT = (40, 110, 40)


@dataclass(frozen=True)
class DrawnDie:
    x: float
    y: float
    value: int
    angle: float = 0.0


def draw_die(image: Frame, die: DrawnDie, size: float = 48.0) -> None:
    """A white die seen from above with black pips, rotated by ``angle`` radians."""
    half = size / 2
    c, s = np.cos(die.angle), np.sin(die.angle)
    rotation = np.array([[c, -s], [s, c]])
    corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]]) @ rotation.T
    corners += [die.x, die.y]
    cv2.fillConvexPoly(image, np.round(corners).astype(np.int32), (235, 235, 235), cv2.LINE_AA)
    for px, py in PIPS[die.value]:
        p = np.array([px, py]) * size * 0.27 @ rotation.T + [die.x, die.y]
        radius = max(2, round(size * 0.09))
        cv2.circle(image, (round(p[0]), round(p[1])), radius, (20, 20, 20), -1, cv2.LINE_AA)


def draw_hand(image: Frame, x: float, y: float) -> None:
    """A skin-coloured blob with an arm running off the bottom edge: something moving."""
    cv2.ellipse(image, (round(x), round(y)), (55, 40), 20, 0, 360, (120, 160, 215), -1)
    cv2.rectangle(
        image, (round(x) - 30, round(y)), (round(x) + 30, image.shape[0]), (110, 150, 205), -1
    )


def frame(
    dice: Sequence[DrawnDie],
    *,
    size: tuple[int, int] = (640, 480),
    hand: tuple[float, float] | None = None,
    noise_seed: int | None = None,
    noise_sigma: float = 2.0,
) -> Frame:
    """One frame: felt, dice, an optional hand, optional Gaussian sensor noise."""
    width, height = size
    image = np.full((height, width, 3), FELT, dtype=np.uint8)
    for die in dice:
        draw_die(image, die)
    if hand is not None:
        draw_hand(image, *hand)
    if noise_seed is not None:
        rng = np.random.default_rng(noise_seed)
        noisy = image.astype(np.float64) + rng.normal(0.0, noise_sigma, image.shape)
        image = np.clip(noisy, 0, 255).astype(np.uint8)
    return image


def hand_leaves(dice: Sequence[DrawnDie], *, moving: int = 6, still: int = 8) -> list[Frame]:
    """A hand sweeping across the table for ``moving`` frames, then ``still`` quiet frames."""
    frames = [frame(dice, hand=(80 + 70 * i, 260), noise_seed=i) for i in range(moving)]
    frames += [frame(dice, noise_seed=100 + i) for i in range(still)]
    return frames
