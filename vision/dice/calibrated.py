"""Reading a table the profile knows: only its area, at the one scale its dice's size implies.

A camera over a table sees one set of dice at one size, on one table area. The reader without
a profile must guess both from each frame: it reads the whole frame, at a scale set by the
frame's size, then again closer where the dice look small, or again smaller where they look
big. With the profile's die size (``ReaderParams.die_size_px``, measured by ``bluffcam
calibrate``) and table box (``ReaderParams.table_box``) it reads the table's box alone, once,
at the scale that brings a die to the size the detector reads best (``WORKING_DIE_PX``), and
drops proposals far from the die's size (a heap of dice seen as one, a pip seen as a die).
Coordinates come back in the whole frame's pixels.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vision.detector import MAX_UPSCALE
from vision.learned import face_size
from vision.params import ReaderParams
from vision.types import Die, Reading

#: the size (input pixels) a die is brought to for the detector: of 22 to 32 px, where it
#: read the demo's reveals best, fewest dice doubted (the reader without a profile reads the
#: demo's dice at about 23 px; BENCHMARKS.md, "Reading with a table profile")
WORKING_DIE_PX = 28.0
#: a proposal whose size differs from the profile's die size by more than this ratio, either
#: way, is no die of this table
SIZE_RATIO = 1.7
#: the table box is grown by this many dice on every side: a die on the area's edge, and the
#: seat zones that reach past it, are read whole
MARGIN_DICE = 1.0
#: ... or by this share of the frame's longer side where the die size is not known
MARGIN_SHARE = 0.03
#: the detector's working side stays within the range ``ReaderParams.detector_side`` allows
SIDE_RANGE = (64, 2048)


def read_box(params: ReaderParams, width: int, height: int) -> tuple[int, int, int, int]:
    """The part of a ``width`` x ``height`` frame to read, ``(left, top, right, bottom)``
    (right and bottom exclusive): the table box grown by the margin, inside the frame; the
    whole frame without a table box, or where the box misses the frame."""
    if params.table_box is None:
        return 0, 0, width, height
    left, top, right, bottom = params.table_box
    grow = (MARGIN_DICE * params.die_size_px if params.die_size_px is not None
            else MARGIN_SHARE * max(width, height))
    x0, y0 = max(0, int(np.floor(left - grow))), max(0, int(np.floor(top - grow)))
    x1 = min(width, int(np.ceil(right + grow)) + 1)
    y1 = min(height, int(np.ceil(bottom + grow)) + 1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return 0, 0, width, height
    return x0, y0, x1, y1


def working_params(params: ReaderParams, width: int, height: int) -> ReaderParams:
    """The settings to read a ``width`` x ``height`` cut of the table with: at the one scale
    the die size implies (no closer look, no re-read at another size), or, without a die
    size, as the reader would read a frame of that size."""
    plain = replace(params, die_size_px=None, table_box=None, table_resolution=None)
    if params.die_size_px is None:
        return plain
    scale = min(WORKING_DIE_PX / params.die_size_px, MAX_UPSCALE)
    side = int(np.clip(round(scale * max(width, height)), *SIDE_RANGE))
    return replace(plain, detector_side=side, detector_max_side=side, closer_look_below=0.0,
                   reread_big_dice=False)


def of_this_size(die: Die, size: float | None) -> bool:
    """Whether ``die`` is about the table's die ``size`` (within ``SIZE_RATIO``; any size
    where it is not known)."""
    if size is None:
        return True
    ratio = face_size(die) / size
    return 1 / SIZE_RATIO <= ratio <= SIZE_RATIO


def shifted(die: Die, dx: float, dy: float) -> Die:
    """``die`` moved by (dx, dy) pixels: from a cut's pixels into the frame's."""
    return replace(die, x=die.x + dx, y=die.y + dy, outline=die.outline + np.array([dx, dy]))


def read_calibrated(image: NDArray[np.uint8], params: ReaderParams) -> Reading:
    """Every die in the table's box of a BGR frame, read at the profile's scale, in the
    frame's pixels."""
    from vision.dice.detected import read_detected

    h, w = image.shape[:2]
    if params.table_resolution not in (None, (w, h)):  # a photo the profile was not made for
        return read_detected(image, replace(params, die_size_px=None, table_box=None))
    x0, y0, x1, y1 = read_box(params, w, h)
    cut = image[y0:y1, x0:x1]
    reading = read_detected(cut, working_params(params, x1 - x0, y1 - y0))
    dice = tuple(shifted(d, x0, y0) for d in reading.dice
                 if of_this_size(d, params.die_size_px))
    return replace(reading, dice=dice, width=w, height=h)
