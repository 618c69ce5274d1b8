"""What a table profile's ``[dice]`` records, measured from a reading of the table's own dice.

``bluffcam calibrate`` reads the players' dice on the calibration frame; from that reading come
the dice's size in pixels (the scale the reader then reads this table at), the quarter turn
in which the crop classifier reads this camera's dice (its up), and the dice's colours.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.learned import classify_crops_and_up, face_size
from vision.types import Die

#: two dice whose face colours (BGR, 0..255) lie closer than this are one set's colour
SAME_COLOUR = 60.0
#: the face's middle this share of a die's size wide is its colour (pips are a small part)
COLOUR_SHARE = 0.4


def die_size(dice: Sequence[Die]) -> float | None:
    """The median size (the reader's extent, pixels) of ``dice``; ``None`` without any."""
    if not dice:
        return None
    return float(np.median([face_size(d) for d in dice]))


def camera_up(frame: NDArray[np.uint8], dice: Sequence[Die]) -> int | None:
    """The quarter turn (0..3) in which the crop classifier is surest of ``dice`` in
    ``frame`` (``vision.learned.photo_up``); ``None`` without any dice."""
    if not dice:
        return None
    _, up = classify_crops_and_up(frame, [(d.x, d.y, face_size(d)) for d in dice])
    return up


def dice_colours(frame: NDArray[np.uint8], dice: Sequence[Die]) -> tuple[str, ...]:
    """The dice's face colours as ``"#rrggbb"``, one per set of like-coloured dice (most
    dice first): the median colour of the middle of each face, grouped within
    ``SAME_COLOUR``."""
    if frame.ndim == 2:  # a grey frame's colours are its greys
        frame = np.asarray(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    height, width = frame.shape[:2]
    groups: list[list[NDArray[np.float64]]] = []
    for die in dice:
        half = max(1, round(COLOUR_SHARE * face_size(die) / 2))
        x, y = round(die.x), round(die.y)
        patch = frame[max(0, y - half):min(height, y + half + 1),
                      max(0, x - half):min(width, x + half + 1)]
        if patch.size == 0:
            continue
        colour = np.median(patch.reshape(-1, patch.shape[-1]), axis=0).astype(np.float64)
        home = next((g for g in groups
                     if np.linalg.norm(np.mean(g, axis=0) - colour) < SAME_COLOUR), None)
        if home is None:
            groups.append([colour])
        else:
            home.append(colour)
    groups.sort(key=len, reverse=True)
    return tuple(_hex(np.mean(g, axis=0)) for g in groups)


def _hex(bgr: NDArray[np.float64]) -> str:
    b, g, r = (int(np.clip(round(v), 0, 255)) for v in bgr)
    return f"#{r:02x}{g:02x}{b:02x}"

