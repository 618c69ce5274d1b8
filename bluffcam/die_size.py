"""The profile's die size (``[dice] size_px``) refined from the dice people confirmed.

``bluffcam calibrate`` measures the die size on one frame; every labelled photo of the table
(a reveal a person confirmed, a photo taught on the calibration page) measures it again, die
by die. When the profile is learned again (``bluffcam.adaptation``) the size becomes the
median of those dice' sizes, but only where there are enough of them to trust and the change
is one a camera that did not move could make: a size far off the calibrated one is more
likely a heap of dice read as one, or photos of another table, than the truth.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from vision.die_sizes import MIN_DICE, STEADY_RATIO, STEADY_SHARE, steady_share, steady_size

#: the most the size may change by, either way, in one refinement (the reader itself drops
#: proposals 1.7 times off the size: `vision.dice.calibrated.SIZE_RATIO`)
MAX_RATIO = 1.5


@dataclass(frozen=True, slots=True)
class SizeRefinement:
    """The die size a learning chose, and why (``note``: words for the summary line)."""

    old: float | None
    size: float | None
    dice: int
    note: str

    @property
    def changed(self) -> bool:
        return self.size is not None and self.size != self.old


def refine_size(old: float | None, sizes: Sequence[float]) -> SizeRefinement:
    """The median of ``sizes`` (the confirmed dice's sizes, pixels) in place of ``old`` (the
    profile's size), where there are ``MIN_DICE`` or more and the median is within
    ``MAX_RATIO`` of ``old``; else ``old`` kept, the note saying why. A profile with no size
    yet (``old`` None: nobody calibrated it) gets the median where the dice measure one size
    (`vision.die_sizes.steady_size`), else none. ValueError names a size that is not a
    positive number."""
    for size in sizes:
        if isinstance(size, bool) or not math.isfinite(size) or size <= 0:
            raise ValueError(f"a die's size must be a positive number of pixels, got {size!r}")
    n = len(sizes)
    if old is None:
        return _first_size(sizes)
    if n < MIN_DICE:
        return SizeRefinement(old, old, n, f"die size kept at {old:.0f} px ({n} confirmed "
                                           f"{'die' if n == 1 else 'dice'}, {MIN_DICE} needed)")
    median = round(float(statistics.median(sizes)), 1)
    if not 1 / MAX_RATIO <= median / old <= MAX_RATIO:
        return SizeRefinement(old, old, n, (
            f"die size kept at {old:.0f} px: the {n} confirmed dice measure {median:.0f} px, "
            f"more than {MAX_RATIO:g} times off (calibrate again if the camera moved)"))
    return SizeRefinement(old, median, n, f"die size {old:.0f} -> {median:.0f} px "
                                          f"(median of {n} confirmed dice)")


def _first_size(sizes: Sequence[float]) -> SizeRefinement:
    """A size for a profile that has none: the dice's median where they measure one size."""
    n = len(sizes)
    size = steady_size(sizes)
    if size is not None:
        return SizeRefinement(None, size, n, f"die size set to {size:.0f} px (median of {n} "
                                             "confirmed dice)")
    if n < MIN_DICE:
        why = f"{n} confirmed {'die' if n == 1 else 'dice'}, {MIN_DICE} needed"
    else:
        why = (f"the {n} confirmed dice measure many sizes: {steady_share(sizes):.0%} within "
               f"{STEADY_RATIO:g} times their median, {STEADY_SHARE:.0%} needed")
    return SizeRefinement(None, None, n, f"no die size set ({why}; calibrate the table)")
