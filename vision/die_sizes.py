"""A table's die size from its labelled photos: what a profile's ``[dice] size_px`` is set to
where nobody calibrated it.

A camera over a table does not move, so the dice of its photos measure nearly alike: the
median of the labelled dice's sizes is the table's die size, and the reader then reads at
the one scale it implies (``vision.dice.calibrated``). Photos whose dice measure many sizes
(a phone moved about, photos of several tables) have no one size: reading them at one scale
loses the dice far from it (on held-out photos of such sources, die accuracy 0.90 -> 0.22),
so a size is given only where nearly every die is close to the median.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

from vision.adapt import ReadPhoto
from vision.learned import face_size
from vision.table_score import die_labels

#: labelled dice needed before their median is the table's size
MIN_DICE = 10
#: "close to the median": within this ratio either way (a camera's tilt makes the far dice
#: smaller than the near ones)
STEADY_RATIO = 1.5
#: the share of the dice that must be close to the median
STEADY_SHARE = 0.95


def labelled_sizes(photos: Sequence[ReadPhoto], resolution: tuple[int, int]) -> list[float]:
    """The reader's size (``face_size``, as calibrate measures it) of every die read where a
    labelled die lies, on the photos of ``resolution`` (another size of photo is another
    camera setting) whose dice are all placed (dice labelled by value alone are matched by
    the reader's own odds: not a measurement)."""
    sizes = []
    for photo in photos:
        if (photo.reading.width, photo.reading.height) != resolution or \
                any(d.box is None for d in photo.entry.dice):
            continue
        labels = die_labels(photo.entry, photo.reading)
        sizes += [face_size(d) for d, label in zip(photo.reading.dice, labels, strict=True)
                  if label >= 1]
    return sizes


def steady_share(sizes: Sequence[float]) -> float:
    """The share of ``sizes`` within ``STEADY_RATIO`` of their median (0 for none)."""
    if not sizes:
        return 0.0
    median = statistics.median(sizes)
    return sum(1 for s in sizes if median / STEADY_RATIO <= s <= median * STEADY_RATIO) / len(
        sizes)


def steady_size(sizes: Sequence[float]) -> float | None:
    """The median of ``sizes`` (pixels), rounded to 0.1, where there are ``MIN_DICE`` or more
    and ``STEADY_SHARE`` of them lie within ``STEADY_RATIO`` of it; else None."""
    if len(sizes) < MIN_DICE or steady_share(sizes) < STEADY_SHARE:
        return None
    return round(float(statistics.median(sizes)), 1)


def most_common_resolution(photos: Sequence[ReadPhoto]) -> tuple[int, int] | None:
    """The photos' most common (width, height), None for no photo."""
    counts = Counter((p.reading.width, p.reading.height) for p in photos)
    return counts.most_common(1)[0][0] if counts else None


__all__ = ["MIN_DICE", "STEADY_RATIO", "STEADY_SHARE", "labelled_sizes",
           "most_common_resolution", "steady_share", "steady_size"]
