"""Smeared dice: a die the camera saw move is never read as sure.

A die in focus has edges running every way: the two directions of its outline and the round
rims of its pips. Smeared along a line while the shutter was open (the die still rolling, a
hand or the table shaking), the edges across the line stay and those along it fade. The
looks were trained on dice in focus and read smeared pips as more pips: a 4 drawn out into
two short bars reads as a 6, and every look agrees, so agreement is no safeguard. What the
looks cannot see, the crop's gradients can: the eigenvalues of its structure tensor (the
summed outer products of the grey-level gradients) are the gradient energy along the
strongest and the weakest direction, and their ratio, the *gradient balance*, is near 1 for
a die in focus and falls towards 0 for one smeared along a line.

Measured (BENCHMARKS.md, "Smeared dice"; ``tools.bench.bench_motion_blur``): on held-out photos
smeared by 13 px at a random angle (a webcam die is 60-80 px) the webcam dice read sure and
wrong fall from 14 to 1; on the same photos in focus, the two webcam dice sent to review
were the two read sure and wrong, and 2 of 129 sure phone-photo dice go to review for nothing.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.learned import die_crop, face_size
from vision.types import Die, Reading

#: a sure die whose crop is smeared is reported this far below the reading's threshold
DOUBT = 0.9
#: the crop looked at spans this share of the die's face: its pips (round in focus, drawn out
#: when smeared), not the table or the neighbours around it. Across the whole classifier
#: crop (1.6 faces) a wood grain or a neighbour's edges hid more of the smear: at the same
#: threshold a 13-px blur left 8 webcam dice sure and wrong of 18 (2 here)
FACE_SHARE = 0.8


def gradient_balance(frame: NDArray[np.uint8], x: float, y: float, side: float) -> float:
    """The ratio (0..1) of the weakest to the strongest directional gradient energy in the
    square crop of ``side`` pixels centred on (x, y) of a grey or BGR frame: near 1 where
    edges run every way, near 0 where the crop is smeared along a line. A flat crop (no
    gradients) counts as balanced: it holds no smear to see."""
    crop = die_crop(frame, x, y, side)
    if crop.ndim == 3:
        crop = np.asarray(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    crop = crop.astype(np.float32)
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1)
    xx, yy, xy = float((gx * gx).sum()), float((gy * gy).sum()), float((gx * gy).sum())
    mean = (xx + yy) / 2
    spread = float(np.hypot((xx - yy) / 2, xy))
    if mean + spread <= 1e-6:
        return 1.0
    return max(0.0, (mean - spread) / (mean + spread))


def is_smeared(frame: NDArray[np.uint8], die: Die, min_balance: float) -> bool:
    """Whether the middle ``FACE_SHARE`` of ``die``'s face in ``frame`` (grey or BGR) has a
    gradient balance under ``min_balance`` (never, at 0)."""
    return gradient_balance(frame, die.x, die.y, FACE_SHARE * face_size(die)) < min_balance


def doubt_smeared(frame: NDArray[np.uint8], reading: Reading, min_balance: float) -> Reading:
    """``reading`` with every sure die that :func:`is_smeared` moved below the reading's
    threshold, for a human to look at; other dice as they are. ``frame`` is the frame read
    (grey or BGR)."""
    if min_balance <= 0:
        return reading
    threshold = reading.min_confidence
    dice = tuple(
        replace(d, confidence=min(d.confidence, threshold * DOUBT))
        if d.confidence >= threshold and is_smeared(frame, d, min_balance)
        else d
        for d in reading.dice
    )
    return replace(reading, dice=dice)
