"""A table's own head: the value and the sureness of each die, decided again from what the
reader's looks said of it (``Die.looks``), by a small model fitted on this table's labelled
photos (``vision.adapt``, ``bluffcam adapt``).

The reader's general rules were set on photos of many tables; one table has one camera, one
light and one set of dice, and there the looks are wrong in their own steady ways (dim grey
frames where the detector's value guess disputes the classifier, sharp dice an oblique view
makes look smeared). The head weighs the looks' log odds for this table (a multinomial
logistic model: one weight per look and one bias per face, numpy only) and sets the bars a
die must pass to be sure on this table's own photos: the value's odds, the detector's
score and the smear check's gradient balance. A die is sure only where the
head is confident of a value that one of the looks also favours, and every bar is passed;
one the general reader doubted, only where every look favours that value and the head is
nearly certain of it.

The head lives in an ``.npz`` of plain arrays beside the profile (no pickled code); the
profile's ``[reader] table_head`` names it.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision import looks as lk
from vision.learned import face_size
from vision.smear import FACE_SHARE, gradient_balance
from vision.types import Die, Reading, doubt_crowds

#: the file format's version, stored in the file; another is refused by name
VERSION = 1
#: the head's odds of a value that make a die the general reader doubted sure (with every
#: look favouring that value). At 0.95 more phone photos applied unasked (held-out epanemu
#: 0.463 -> 0.487, aws 0.279 -> 0.337) with no more silent misreads than the general reader,
#: but a head taught on half the committed renders made one die of the other half sure and
#: wrong, which the general reader had doubted
PROMOTE_ODDS = 0.98
#: odds below this count as this: a look sure against a face is no surer for more zeros
FLOOR = 1e-3
#: the looks the head weighs: the detector, then each of the classifier's two networks
LOOKS = (lk.DETECTOR, slice(lk.NET_A.start + 1, lk.NET_A.stop),
         slice(lk.NET_B.start + 1, lk.NET_B.stop))


class TableHeadError(ValueError):
    """A table head file that cannot be used (missing, damaged, another version)."""


@dataclass(frozen=True)
class TableHead:
    """One table's head. ``weights`` (one per look in ``LOOKS``) and ``biases`` (faces 1..6)
    make the value model; the bars below make a die sure."""

    weights: NDArray[np.float64]
    biases: NDArray[np.float64]
    #: the head's odds of the value a sure die needs
    min_value_odds: float
    #: the detector's score a sure die needs
    min_score: float
    #: the smear check's gradient balance a sure die needs (``vision.smear``)
    min_balance: float
    #: the usual size of this table's dice in the frame's pixels (the detector's extent):
    #: reported, not a bar (a sure die's size within a range of it cost held-out aws photos
    #: applied unasked, 0.279 -> 0.231, and caught no die sure and wrong)
    die_px: float
    #: labelled photos and dice it was fitted on
    photos: int
    dice: int

    def value_odds(self, looks: NDArray[np.float32]) -> NDArray[np.float64]:
        """(n, 6) odds of faces 1..6 for (n, ``vision.looks.LENGTH``) looks."""
        feats = features(looks)
        logits = feats @ self.weights + self.biases
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return np.asarray(odds / odds.sum(axis=1, keepdims=True), dtype=np.float64)

    def sure_mask(self, looks: NDArray[np.float32], balance: NDArray[np.float64],
                  general_sure: NDArray[np.bool_],
                  general_value: NDArray[np.int64],
                  ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]]:
        """Each die's value (1..6), its odds, and whether it is sure on this table.

        ``general_sure`` says which dice the general reader's value decision was sure of
        (before its smear check: ``min_balance`` is this table's own), ``general_value``
        the values it gave them. Where the head names the value the general reader was
        sure of, its own odds need not pass ``min_value_odds`` (a head fitted on a few
        photos gave a plain 6 of the committed renders 0.54 and sent it to review); the
        score and smear bars still apply. The head makes
        another die sure only where it gives its value ``PROMOTE_ODDS`` and every look
        favours that value (a head fitted on twenty photos and trusted alone applied more
        photos unasked, and more of them wrong: sources no network had seen then, 1 -> 2, 0 -> 3,
        3 -> 5)."""
        odds = self.value_odds(looks)
        value = odds.argmax(axis=1)
        best = odds[np.arange(len(odds)), value]
        favoured = np.stack([looks[:, s].argmax(axis=1) for s in LOOKS], axis=1)
        consistent = (favoured == value[:, None]).any(axis=1)
        agreed = general_sure & (value + 1 == general_value)
        sure = (consistent & trusted(looks, value + 1, best, general_sure)
                & ((best >= self.min_value_odds) | agreed)
                & (looks[:, lk.KIND] == lk.STRONG) & (looks[:, lk.SCORE] >= self.min_score)
                & (balance >= self.min_balance))
        return value + 1, best, sure

    def to_arrays(self) -> dict[str, NDArray[Any]]:
        return {
            "version": np.array(VERSION), "weights": self.weights, "biases": self.biases,
            "min_value_odds": np.array(self.min_value_odds),
            "min_score": np.array(self.min_score), "min_balance": np.array(self.min_balance),
            "die_px": np.array(self.die_px),
            "photos": np.array(self.photos), "dice": np.array(self.dice),
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the head as plain arrays (``numpy.savez``: no pickled objects)."""
        arrays: dict[str, Any] = self.to_arrays()
        with open(path, "wb") as fh:
            np.savez(fh, allow_pickle=False, **arrays)


def trusted(looks: NDArray[np.float32], value: NDArray[np.int64], odds: NDArray[np.float64],
            general_sure: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Which dice the head may make sure: those the general reader's value decision was sure
    of, and those whose ``value`` (1..6) every look favours with the head's ``odds`` at
    least ``PROMOTE_ODDS``."""
    favoured = np.stack([looks[:, s].argmax(axis=1) + 1 for s in LOOKS], axis=1)
    unanimous = (favoured == value[:, None]).all(axis=1)
    return np.asarray(general_sure | (unanimous & (odds >= PROMOTE_ODDS)))


def features(looks: NDArray[np.float32]) -> NDArray[np.float64]:
    """(n, 6, looks) log odds each look gives each face (the classifier's renormalised
    without "not a die")."""
    cols = []
    for s in LOOKS:
        p = np.maximum(np.asarray(looks[:, s], np.float64), FLOOR)
        cols.append(np.log(p / p.sum(axis=1, keepdims=True)))
    return np.stack(cols, axis=2)


def load_head(path: str | os.PathLike[str]) -> TableHead:
    """The head in ``path``; TableHeadError naming the file and what is wrong with it."""
    p = Path(path)
    try:
        stamp = p.stat().st_mtime_ns
    except OSError:
        raise TableHeadError(f"{p}: no such table head file (run bluffcam adapt)") from None
    return _load(str(p), stamp)


@functools.lru_cache(maxsize=8)
def _load(path: str, stamp: int) -> TableHead:
    """The file read once per change (``stamp``: its modification time)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError) as exc:
        raise TableHeadError(f"{path}: not a table head file ({exc})") from exc
    try:
        version = int(arrays["version"])
        if version != VERSION:
            raise TableHeadError(f"{path}: table head version {version}, this reader reads "
                                 f"{VERSION} (run bluffcam adapt again)")
        head = TableHead(
            weights=np.asarray(arrays["weights"], np.float64).reshape(len(LOOKS)),
            biases=np.asarray(arrays["biases"], np.float64).reshape(6),
            min_value_odds=float(arrays["min_value_odds"]),
            min_score=float(arrays["min_score"]), min_balance=float(arrays["min_balance"]),
            die_px=float(arrays["die_px"]), photos=int(arrays["photos"]),
            dice=int(arrays["dice"]))
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        raise TableHeadError(f"{path}: not a table head file (missing or bad {exc})") from exc
    numbers = [*head.weights, *head.biases, head.min_value_odds, head.min_score,
               head.min_balance, head.die_px]
    if not all(np.isfinite(numbers)):
        raise TableHeadError(f"{path}: not a table head file (a number is not finite)")
    return head


def balances(image: NDArray[np.uint8], dice: tuple[Die, ...]) -> NDArray[np.float64]:
    """The smear check's gradient balance of each die's face (``vision.smear``)."""
    return np.array([gradient_balance(image, d.x, d.y, FACE_SHARE * face_size(d))
                     for d in dice], dtype=np.float64)


def adapt_reading(image: NDArray[np.uint8], reading: Reading, head: TableHead,
                  max_dice: int) -> Reading:
    """``reading`` with each die's value and confidence decided by this table's ``head``.

    A sure die gets the head's odds of its value as its confidence (at least the reading's
    threshold); any other die is put below the threshold for a person to look at. Dice
    without looks (the classical reader's) are left as they are."""
    return decide(reading, head, balances(image, reading.dice), max_dice)


def decide(reading: Reading, head: TableHead, balance: NDArray[np.float64],
           max_dice: int) -> Reading:
    """:func:`adapt_reading` with each die's smear balance already measured."""
    judged = [k for k, d in enumerate(reading.dice) if d.looks is not None]
    if not judged:
        return reading
    dice = list(reading.dice)
    looks = np.stack([np.asarray(dice[k].looks, np.float32) for k in judged])
    low = reading.min_confidence
    # the reader's value decision, before its smear check: this table's smear bar decides
    general_sure = looks[:, lk.CONFIDENCE] >= low
    values, odds, sure = head.sure_mask(looks, np.asarray(balance, np.float64)[judged],
                                        general_sure,
                                        np.array([dice[k].value for k in judged], np.int64))
    for k, value, p, ok in zip(judged, values, odds, sure, strict=True):
        confidence = max(float(p), low) if ok else min(float(p), low * 0.9)
        dice[k] = replace(dice[k], value=int(value),
                          confidence=float(np.clip(confidence, 0.0, 1.0)))
    return replace(reading, dice=doubt_crowds(tuple(dice), max_dice, low))
