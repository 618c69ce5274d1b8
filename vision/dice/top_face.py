"""The outline of a found die's top face, turned as the die lies.

The detector gives each die a centre and a size, and that size stands for the die's whole
visible extent (it learned sizes from labelled boxes around the die), not its top face, nor
how the die is turned. An upright square of that size overlaps the true top face of the
project's unseen renders with an IoU of about 0.5, at nearly twice its area. The face's edges
all run in two directions a quarter turn apart (its pips, round, run every way), so the
fourfold mean of the gradient directions around the centre gives the turn; the face's side
is a share of the die's extent (docs/vision_detector.md, "The outline").
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.types import Reading

#: the top face's side as a share of the detector's size: the best overlap with the renders'
#: true faces (0.75-0.8 on two sets of 150 unseen scenes)
FACE_SHARE = 0.8
#: the gradients are read within this many sizes of the centre (a square window, weighed
#: by a Gaussian of 0.7 times that spread)
REACH = 0.5


def face_turn(image: NDArray[np.uint8], x: float, y: float, size: float) -> float:
    """The turn of a die's top face in a grey or BGR frame, in radians in [-pi/4, pi/4) (0:
    edges along the image's axes, positive: clockwise on the screen), from the gradients
    within ``REACH`` sizes of (x, y); 0 where there is nothing to see."""
    r = int(np.ceil(REACH * size)) + 2
    height, width = image.shape[:2]
    x0, y0 = max(int(round(x)) - r, 0), max(int(round(y)) - r, 0)
    x1, y1 = min(int(round(x)) + r + 1, width), min(int(round(y)) + r + 1, height)
    if x1 - x0 < 5 or y1 - y0 < 5:
        return 0.0
    crop = image[y0:y1, x0:x1]
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    patch = np.asarray(grey, np.float32)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    spread = 0.7 * REACH * size
    across = np.exp(-((np.arange(x0, x1) - x) ** 2) / (2 * spread**2)).astype(np.float32)
    down = np.exp(-((np.arange(y0, y1) - y) ** 2) / (2 * spread**2)).astype(np.float32)
    window = down[:, None] * across[None, :]
    # a direction and its quarter turns are one edge direction: sum the gradient's angle
    # times four, weighed by |g|^2, as (gx + i gy)^4 / |g|^2 (sq_re + i sq_im is its square)
    strength = gx * gx + gy * gy
    sq_re, sq_im = gx * gx - gy * gy, 2 * gx * gy
    safe = np.maximum(strength, 1e-6)
    re = float((window * (sq_re * sq_re - sq_im * sq_im) / safe).sum())
    im = float((window * 2 * sq_re * sq_im / safe).sum())
    if np.hypot(re, im) <= 1e-9 * max(float((window * strength).sum()), 1e-9):
        return 0.0
    turn = float(np.arctan2(im, re)) / 4.0
    return turn if turn < np.pi / 4 else turn - np.pi / 2


def top_face_outline(image: NDArray[np.uint8], x: float, y: float,
                     size: float) -> NDArray[np.float64]:
    """The (4, 2) corners of the top face of a die the detector centred at (x, y) with
    ``size``: a square of ``FACE_SHARE`` of it, turned by :func:`face_turn`, clockwise on the
    screen from the corner nearest the top left."""
    turn = face_turn(image, x, y, size)
    half = FACE_SHARE * size / 2
    c, s = np.cos(turn), np.sin(turn)
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return np.asarray(square @ np.array([[c, s], [-s, c]]) + [x, y], dtype=np.float64)


def with_top_faces(image: NDArray[np.uint8], reading: Reading) -> Reading:
    """``reading`` with each die outlined by its top face, its upright square's side kept as
    its ``extent`` (the size the reader's own checks measure a die by)."""
    if not reading.dice:
        return reading
    dice = []
    for die in reading.dice:
        size = die.extent  # a reading outlined before keeps the size it was read with
        if size is None:
            size = float((die.outline.max(axis=0) - die.outline.min(axis=0)).max())
        dice.append(replace(die, outline=top_face_outline(image, die.x, die.y, size),
                            extent=size))
    return replace(reading, dice=tuple(dice))
