"""Single-pixel specks (impulse noise): finding them and taking them out.

A speck is one pixel far brighter or darker than all its neighbours: a hot or dead sensor
pixel, or the salt-and-pepper noise of a dataset tool's export (most of the shared phone
photos carry it, each speck smudged into a small blot by JPEG). A pip is bigger than one
pixel, so a switching median (replace only the specks, keep every other pixel) removes them
without softening the dice. Where the detector reads a frame at twice its usual size
(:mod:`vision.dice.detected`'s closer look), a speck is as big as a small die's pip.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

#: a pixel this far (grey levels) from the median of its 3x3 neighbourhood is an impulse
IMPULSE_STEP = 80


def impulses(image: NDArray[np.uint8], step: int = IMPULSE_STEP) -> NDArray[np.bool_]:
    """Where a BGR ``image``'s pixels stand more than ``step`` grey levels from the median of
    their 3x3 neighbourhood (an impulse: a pip is bigger than one pixel)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    median = cv2.medianBlur(grey, 3)
    return np.asarray(np.abs(grey.astype(np.int16) - median.astype(np.int16)) > step)


def switching_median(image: NDArray[np.uint8], step: int = IMPULSE_STEP) -> NDArray[np.uint8]:
    """A copy of a BGR ``image`` whose impulses (pixels more than ``step`` grey levels from
    the median of their 3x3 neighbourhood) are replaced by that median, channel by channel;
    every other pixel is kept, so pips (bigger than a pixel) stay as they were."""
    hit = impulses(image, step)
    out = image.copy()
    out[hit] = cv2.medianBlur(image, 3)[hit]
    return out
