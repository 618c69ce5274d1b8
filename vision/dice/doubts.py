"""Dice the looks may read surely whose count is still in doubt: cut by the frame, or twice.

A die cut by the frame's edge shows part of its face: the pips in sight are read surely, and
the count is wrong. On an oblique view one die can be proposed twice (its top face and the
side face below it) where the detector's merge leaves both: two sure dice where one lies.
Either goes to review, never into a sure count (``Reading.uncertain``).

Measured on the held-out phone photos and the aws photos (181 photos, 780 sure dice), with
the thresholds below: no sure die lies this near an edge (at 0.3 of a die: 4, all right), and
5 sure dice lie this near another (2 of them extra dice, 3 right): those photos go to review.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.learned import face_size
from vision.types import Die, Reading

#: a die whose centre lies nearer the frame's edge than this share of its size has at least a
#: quarter of it outside the picture
EDGE_CUT = 0.25
#: two dice whose centres lie nearer than this share of the larger one's size are one die
#: proposed twice (``vision.detector.SAME_SPOT``, 0.42, merges nearer proposals already)
TWICE = 0.5
#: a doubted die is reported this far below the reading's threshold
DOUBT = 0.9


def cut_by_edge(die: Die, width: int, height: int) -> bool:
    """Whether ``die`` reaches past a ``width`` x ``height`` frame's edge by ``EDGE_CUT``."""
    margin = min(die.x, die.y, width - 1 - die.x, height - 1 - die.y)
    return margin < EDGE_CUT * face_size(die)


def proposed_twice(dice: tuple[Die, ...]) -> set[int]:
    """Indices of the dice that lie within ``TWICE`` of another's size of it."""
    twice: set[int] = set()
    for i, a in enumerate(dice):
        for j in range(i + 1, len(dice)):
            b = dice[j]
            if np.hypot(a.x - b.x, a.y - b.y) < TWICE * max(face_size(a), face_size(b)):
                twice.update((i, j))
    return twice


def doubt_cut_and_twice(reading: Reading) -> Reading:
    """``reading`` with each sure die cut by the frame's edge or proposed twice moved below
    its threshold; every other die as it was."""
    threshold = reading.min_confidence
    twice = proposed_twice(reading.dice)
    dice = tuple(
        replace(d, confidence=min(d.confidence, threshold * DOUBT))
        if d.confidence >= threshold
        and (k in twice or cut_by_edge(d, reading.width, reading.height))
        else d
        for k, d in enumerate(reading.dice)
    )
    return replace(reading, dice=dice)
