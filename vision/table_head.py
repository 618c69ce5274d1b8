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
nearly certain of it, or where its feature layer (this table's dice learned from what the
classifier's networks' last layers weighed: :class:`FeatureLayer`) is sure of it and the
looks allow it (:func:`featured`).

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
from vision.learned import classifier_files_hash, face_size
from vision.smear import FACE_SHARE, gradient_balance
from vision.types import Die, Reading, doubt_crowds

#: the file format's version, stored in the file; a later one is refused by name. Version 1
#: files (no feature layer) are read as heads without one
VERSION = 2
#: the head's odds of a value that make a die the general reader doubted sure (with every
#: look favouring that value). At 0.95 more phone photos applied unasked (held-out epanemu
#: 0.463 -> 0.487, aws 0.279 -> 0.337) with no more silent misreads than the general reader,
#: but a head taught on half the committed renders made one die of the other half sure and
#: wrong, which the general reader had doubted
PROMOTE_ODDS = 0.98
#: odds below this count as this: a look sure against a face is no surer for more zeros
FLOOR = 1e-3
#: a feature layer makes a die sure only where the detector names another face, with under
#: ``LAYER_DETECTOR_VETO`` of its six (the layer learns where this table's classifier is right
#: against a detector whose value look is nearly flat, as on dim grey frames; lifting dice
#: every look agreed on made side faces seen at a slant sure), each of the classifier's two
#: networks gives the face at least ``LAYER_NET_ODDS``, and the classifier gives "not a die"
#: at most ``LAYER_NOT_A_DIE``. Each bar stopped dice made sure and wrong on the shared
#: photos, and was set after looking at them (docs/lab-notebook.md, 2026-12-02, "The table
#: head learns the classifier's features")
LAYER_NET_ODDS = 0.5
LAYER_NOT_A_DIE = 0.05
LAYER_DETECTOR_VETO = 0.6
#: the looks the head weighs: the detector, then each of the classifier's two networks
LOOKS = (lk.DETECTOR, slice(lk.NET_A.start + 1, lk.NET_A.stop),
         slice(lk.NET_B.start + 1, lk.NET_B.stop))


class TableHeadError(ValueError):
    """A table head file that cannot be used (missing, damaged, another version)."""


@dataclass(frozen=True)
class FeatureLayer:
    """This table's dice learned from what the classifier's networks' last layers weighed
    (``vision.looks.FEATURES``): a multinomial logistic model over those features,
    standardised, whose logits add to the classifier's own pooled log odds (classes 0..6, 0
    "not a die"), so that it corrects the classifier where this table's dice differ from
    the photos it was trained on and otherwise leaves it be."""

    weights: NDArray[np.float64]
    biases: NDArray[np.float64]
    mean: NDArray[np.float64]
    scale: NDArray[np.float64]
    #: the layer's odds of a value that make a die the rest of the head did not make sure
    #: sure (:func:`featured`)
    min_odds: float
    #: the classifier networks the features came from (``vision.learned.classifier_files_hash``):
    #: other networks' features mean nothing to it
    networks: str

    def odds(self, looks: NDArray[np.float32]) -> NDArray[np.float64]:
        """(n, 7) odds of "not a die" and faces 1..6 for (n, ``vision.looks.LENGTH``) looks."""
        x = (np.asarray(looks[:, lk.FEATURES], np.float64) - self.mean) / self.scale
        logits = x @ self.weights + self.biases + prior_logits(looks)
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return np.asarray(odds / odds.sum(axis=1, keepdims=True), dtype=np.float64)


def prior_logits(looks: NDArray[np.float32]) -> NDArray[np.float64]:
    """The classifier's pooled log odds (n, 7), which a feature layer corrects."""
    return np.log(np.maximum(np.asarray(looks[:, lk.POOLED], np.float64), FLOOR))


def has_features(looks: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Which dice the networks read apart, with their features kept (not all zeros)."""
    return np.asarray(np.abs(looks[:, lk.FEATURES]).sum(axis=1) > 0)


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
    #: this table's dice learned from the networks' features (``None``: not learned, or
    #: learned from other networks than the reader's)
    feature_layer: FeatureLayer | None = None

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
        passes = passing(looks, balance, self.min_score, self.min_balance)
        sure = (consistent & trusted(looks, value + 1, best, general_sure)
                & ((best >= self.min_value_odds) | agreed) & passes)
        values, odds_of = value + 1, best
        if self.feature_layer is not None:
            values, odds_of, sure = featured(self.feature_layer.odds(looks),
                                             self.feature_layer.min_odds,
                                             looks, passes, values, odds_of, sure)
        return values, odds_of, sure

    def to_arrays(self) -> dict[str, NDArray[Any]]:
        arrays = {
            "version": np.array(VERSION), "weights": self.weights, "biases": self.biases,
            "min_value_odds": np.array(self.min_value_odds),
            "min_score": np.array(self.min_score), "min_balance": np.array(self.min_balance),
            "die_px": np.array(self.die_px),
            "photos": np.array(self.photos), "dice": np.array(self.dice),
        }
        if self.feature_layer is not None:
            f = self.feature_layer
            arrays |= {"feature_weights": f.weights, "feature_biases": f.biases,
                       "feature_mean": f.mean, "feature_scale": f.scale,
                       "min_feature_odds": np.array(f.min_odds),
                       "feature_networks": np.array(f.networks)}
        return arrays

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the head as plain arrays (``numpy.savez``: no pickled objects)."""
        arrays: dict[str, Any] = self.to_arrays()
        with open(path, "wb") as fh:
            np.savez(fh, allow_pickle=False, **arrays)


def passing(looks: NDArray[np.float32], balance: NDArray[np.float64], min_score: float,
            min_balance: float) -> NDArray[np.bool_]:
    """Which dice pass a head's bars other than the value's: a strong proposal, the
    detector's score at least ``min_score``, the smear balance at least ``min_balance``."""
    return np.asarray((looks[:, lk.KIND] == lk.STRONG) & (looks[:, lk.SCORE] >= min_score)
                      & (balance >= min_balance))


def featured(layer_odds: NDArray[np.float64], min_odds: float, looks: NDArray[np.float32],
             passes: NDArray[np.bool_], values: NDArray[np.int64], odds: NDArray[np.float64],
             sure: NDArray[np.bool_],
             ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]]:
    """``values`` (1..6), ``odds`` and ``sure`` with the dice a feature layer makes sure,
    given its ``layer_odds`` (n, 7): those not sure yet that pass the other bars
    (``passes``) and that the layer may lift (:func:`liftable`). A die sure already stays
    as it is."""
    face, best, allowed = liftable(layer_odds, min_odds, looks)
    return lifted_by(face, best, allowed, passes, values, odds, sure)


def liftable(layer_odds: NDArray[np.float64], min_odds: float, looks: NDArray[np.float32],
             ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]]:
    """The layer's face (0..6) for each die, its odds, and whether the layer may make the die
    sure: its features were kept, the layer names a face with ``min_odds`` or more, the
    detector disputes that face and the looks allow it (``LAYER_DETECTOR_VETO``). Apart from
    the head's other bars, so that fitting works it out once per bar tried."""
    rows = np.arange(len(layer_odds))
    face = layer_odds.argmax(axis=1)
    best = layer_odds[rows, face]
    each_network = np.ones(len(face), bool)
    for net in (lk.NET_A, lk.NET_B):
        each_network &= np.asarray(looks[:, net])[rows, face] >= LAYER_NET_ODDS
    detector = np.asarray(looks[:, lk.DETECTOR], np.float64)
    detector = detector / np.maximum(detector.sum(axis=1, keepdims=True), 1e-12)
    disputed = ((detector.argmax(axis=1) + 1 != face)
                & (detector.max(axis=1) < LAYER_DETECTOR_VETO))
    allowed = (has_features(looks) & (face >= 1) & (best >= min_odds) & each_network
               & disputed & (looks[:, lk.POOLED.start] <= LAYER_NOT_A_DIE))
    return face, best, np.asarray(allowed)


def lifted_by(face: NDArray[np.int64], best: NDArray[np.float64], allowed: NDArray[np.bool_],
              passes: NDArray[np.bool_], values: NDArray[np.int64], odds: NDArray[np.float64],
              sure: NDArray[np.bool_],
              ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]]:
    """:func:`featured` from what :func:`liftable` found."""
    lifted = ~sure & passes & allowed
    return (np.where(lifted, face, values), np.where(lifted, best, odds),
            np.asarray(sure | lifted))


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
        if version not in (1, VERSION):
            raise TableHeadError(f"{path}: table head version {version}, this reader reads "
                                 f"up to {VERSION} (run bluffcam adapt again)")
        layer = _feature_layer(arrays) if "feature_weights" in arrays else None
        head = TableHead(
            weights=np.asarray(arrays["weights"], np.float64).reshape(len(LOOKS)),
            biases=np.asarray(arrays["biases"], np.float64).reshape(6),
            min_value_odds=float(arrays["min_value_odds"]),
            min_score=float(arrays["min_score"]), min_balance=float(arrays["min_balance"]),
            die_px=float(arrays["die_px"]), photos=int(arrays["photos"]),
            dice=int(arrays["dice"]), feature_layer=layer)
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        raise TableHeadError(f"{path}: not a table head file (missing or bad {exc})") from exc
    numbers = [*head.weights, *head.biases, head.min_value_odds, head.min_score,
               head.min_balance, head.die_px]
    if layer is not None:
        numbers += [*layer.weights.ravel(), *layer.biases, *layer.mean, *layer.scale,
                    layer.min_odds]
    if not all(np.isfinite(numbers)) or (layer is not None and (layer.scale <= 0).any()):
        raise TableHeadError(f"{path}: not a table head file (a number is not finite)")
    if layer is not None and layer.networks != classifier_files_hash():
        # learned from other networks' features: the rest of the head still holds
        head = replace(head, feature_layer=None)
    return head


def _feature_layer(arrays: dict[str, NDArray[Any]]) -> FeatureLayer:
    width = lk.FEATURES.stop - lk.FEATURES.start
    return FeatureLayer(
        weights=np.asarray(arrays["feature_weights"], np.float64).reshape(width, 7),
        biases=np.asarray(arrays["feature_biases"], np.float64).reshape(7),
        mean=np.asarray(arrays["feature_mean"], np.float64).reshape(width),
        scale=np.asarray(arrays["feature_scale"], np.float64).reshape(width),
        min_odds=float(arrays["min_feature_odds"]),
        networks=str(arrays["feature_networks"]))


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
