"""The reader's result types: one die, and one reading of a frame.

Kept apart from the algorithm so that callers (reveal, table, web) depend only on these.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class Die:
    """One die whose top face was read.

    ``x``, ``y`` are the top face's centre in image pixels; ``outline`` is a (4, 2) float
    array of the top face's corners (image pixels, clockwise); ``confidence`` is in 0..1.
    ``extent`` is the side in pixels of the upright square that holds the whole visible die,
    where the reader sized the die so (the learned reader: its detector's size); ``None``
    where the outline is itself the measure (the classical reader). ``looks`` is what the
    learned reader's looks said of it (``vision.looks``), for a table's own head to decide
    again; ``None`` where no look was kept.
    """

    value: int
    x: float
    y: float
    confidence: float
    outline: NDArray[np.float64] = field(compare=False, repr=False)
    extent: float | None = field(default=None, compare=False, repr=False)
    looks: NDArray[np.float32] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 6:
            raise ValueError(f"die value must be 1..6, got {self.value}")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"die confidence must be in 0..1, got {self.confidence}")
        outline = np.asarray(self.outline, dtype=np.float64)
        if outline.shape != (4, 2):
            raise ValueError(f"die outline must have shape (4, 2), got {outline.shape}")
        object.__setattr__(self, "outline", outline)

    @property
    def side_px(self) -> float:
        """The die's size in pixels: its ``extent`` where the reader gave one, else the mean
        side of its outline."""
        if self.extent is not None:
            return self.extent
        edges = self.outline - np.roll(self.outline, 1, axis=0)
        return float(np.linalg.norm(edges, axis=1).mean())

    def to_json(self) -> dict[str, float | int]:
        return {
            "value": self.value,
            "x": round(self.x, 1),
            "y": round(self.y, 1),
            "confidence": round(self.confidence, 3),
        }


def doubt_crowds(dice: tuple[Die, ...], max_dice: int, min_confidence: float
                 ) -> tuple[Die, ...]:
    """``dice`` as they are, or, where there are more than ``max_dice`` (a reading that found
    dice in texture or noise), every one of them well below ``min_confidence``."""
    if len(dice) <= max_dice:
        return dice
    return tuple(replace(d, confidence=min(d.confidence, min_confidence * 0.5)) for d in dice)


@dataclass(frozen=True, slots=True)
class Reading:
    """Every die read in one frame. No dice is a valid, empty reading.

    ``min_confidence`` is the threshold the reading was made with: dice below it are in
    ``uncertain`` and must not be used to adjudicate without a human look.
    """

    dice: tuple[Die, ...] = ()
    width: int = 0
    height: int = 0
    min_confidence: float = 0.6

    @property
    def values(self) -> list[int]:
        return sorted(d.value for d in self.dice)

    @property
    def uncertain(self) -> tuple[Die, ...]:
        return tuple(d for d in self.dice if d.confidence < self.min_confidence)

    @property
    def sure(self) -> tuple[Die, ...]:
        """The dice at or over ``min_confidence``: the ones a verdict may rest on."""
        return tuple(d for d in self.dice if d.confidence >= self.min_confidence)

    @property
    def is_certain(self) -> bool:
        return not self.uncertain

    def face_counts(self) -> dict[int, int]:
        counts = dict.fromkeys(range(1, 7), 0)
        for die in self.dice:
            counts[die.value] += 1
        return counts

    def to_json(self) -> list[dict[str, float | int]]:
        return [d.to_json() for d in self.dice]
