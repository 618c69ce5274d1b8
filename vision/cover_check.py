"""The cover check: does something lie over part of this die?

A finger resting on the table, a sleeve or a cup's rim over half a die leaves part of its
face to read, and the visible pips of a half-hidden 5 look like a sure 2. This small colour
network (``vision/models/dice_cover_check.onnx``, trained by ``tools/train/train_cover_check.py``
on photos and renders with fingers, hands, cloth, cups and cards drawn over their dice, and
on rendered reveals with cups set down against the dice or held over them)
looks at each die a reveal read, at twice its size, and says how likely it is that
something covers part of it; the reveal sends a die it doubts to review. Runtime: numpy,
and ONNX Runtime or OpenCV (``vision.onnx_net``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision.onnx_net import LazyNet
from vision.verifier import crop_odds

MODEL_PATH = Path(__file__).with_name("models") / "dice_cover_check.onnx"
#: side in pixels of the colour crop the network sees
CROP_PX = 40
#: a crop spans this many times the die's size: enough to see what lies over its edge
CROP_SPAN = 2.0

NET = LazyNet(MODEL_PATH, "cover check", "tools/train/train_cover_check.py")


def covered_odds(image: NDArray[np.uint8], dice: list[tuple[float, float, float]]
                 ) -> NDArray[np.float32]:
    """For each (x, y, size) die in a BGR frame, the probability (0..1) that something lies
    over part of it."""
    return crop_odds(NET, image, dice, CROP_SPAN, CROP_PX)


def doubted(image: NDArray[np.uint8], dice: list[tuple[float, float, float]], bar: float
            ) -> list[bool]:
    """For each (x, y, size) die, whether the check gives over ``bar`` that something lies
    over part of it (``ReaderParams.cover_doubt_odds``; at 1 the check is off and runs no
    network)."""
    if bar >= 1.0 or not dice:
        return [False] * len(dice)
    return [bool(p > bar) for p in covered_odds(image, dice)]
