"""What a table would do with a reading of a labelled photo: apply it without review (every
die sure, as many dice as were rolled) or send it to a person, and whether what it applied
was right. Also each read die's label, for fitting a table's head (``vision.adapt``).

The dice considered are all those read, except one centred in an ``ignore`` box of the
manifest (and in no labelled die's box), and, on a photo marked incomplete, one matched to
no labelled die (the manifest says such dice are not necessarily wrong).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.bench import Entry, in_grown_box, matched_pairs
from vision.types import Reading

#: a read die's label where it is no labelled die (an extra die on a complete photo)
NOT_A_DIE = 0
#: a read die's label where the photo cannot say (ignored, or an incomplete photo's extra)
UNKNOWN = -1


@dataclass(frozen=True, slots=True)
class TableOutcome:
    """One photo as a table would take it."""

    labelled: int
    #: labelled dice matched by a read die of their value
    correct: int
    #: no considered die doubtful, and as many considered dice as labelled: applied unasked
    auto: bool
    #: applied unasked and every labelled die read right
    auto_right: bool
    #: considered dice read sure and wrong (a wrong value, or no die at all)
    sure_wrong: int
    #: every labelled die found and no considered die that is none: the photo is one a head
    #: deciding only values and sureness over these dice could apply (``vision.table_head``
    #: changes no die's place and adds or drops none)
    all_found: bool

    @property
    def silent_misread(self) -> bool:
        """Applied unasked, and wrong."""
        return self.auto and not self.auto_right


def die_labels(entry: Entry, reading: Reading) -> NDArray[np.int64]:
    """Each read die's label: its labelled value where it is matched to a labelled die,
    ``NOT_A_DIE`` where it is considered and matched to none, else ``UNKNOWN``.

    Where the photo's boxes are null, the read dice take the labelled values by the
    reader's own odds (surest die first, its likeliest value still unclaimed); dice left
    over are ``NOT_A_DIE`` on a complete photo."""
    dice = reading.dice
    labels = np.full(len(dice), UNKNOWN, dtype=np.int64)
    if any(d.box is None for d in entry.dice):
        left = Counter(d.value for d in entry.dice)
        for k in sorted(range(len(dice)), key=lambda k: -dice[k].confidence):
            odds = _value_odds(reading, k)
            for value in np.argsort(-odds) + 1:
                if left[int(value)] > 0:
                    left[int(value)] -= 1
                    labels[k] = int(value)
                    break
            else:
                labels[k] = NOT_A_DIE if entry.complete else UNKNOWN
        return labels
    predicted = [(d.value, d.x, d.y) for d in dice]
    for i, k in matched_pairs(entry.dice, predicted):
        labels[k] = entry.dice[i].value
    for k, d in enumerate(dice):
        if labels[k] == UNKNOWN and entry.complete and not _ignored(entry, d.x, d.y):
            labels[k] = NOT_A_DIE
    return labels


def _value_odds(reading: Reading, k: int) -> NDArray[np.float64]:
    die = reading.dice[k]
    odds = np.zeros(6)
    if die.looks is not None:
        odds = np.asarray(die.looks[7:13], np.float64)
    odds[die.value - 1] += 1.0  # the reading's own value first
    return odds


def _ignored(entry: Entry, x: float, y: float) -> bool:
    return any(in_grown_box(b, x, y) for b in entry.ignore) and not any(
        d.box is not None and in_grown_box(d.box, x, y) for d in entry.dice)


def outcome(entry: Entry, reading: Reading) -> TableOutcome:
    """How a table would take ``reading`` of ``entry``'s photo."""
    labels = die_labels(entry, reading)
    considered = [k for k, label in enumerate(labels) if label != UNKNOWN]
    sure = {k for k, d in enumerate(reading.dice) if d.confidence >= reading.min_confidence}
    correct = sum(int(labels[k] == reading.dice[k].value) for k in considered)
    auto = (len(considered) == len(entry.dice) and all(k in sure for k in considered))
    sure_wrong = sum(int(k in sure and labels[k] != reading.dice[k].value) for k in considered)
    right = auto and correct == len(entry.dice)
    found = sorted(int(labels[k]) for k in considered)
    all_found = found == sorted(d.value for d in entry.dice)
    return TableOutcome(len(entry.dice), correct, auto, right, sure_wrong, all_found)
