"""Fitting a table's own head (``vision.table_head``) on labelled photos of that table.

Each photo is read once by the general reader; every die read keeps what its looks said
(``Die.looks``) and gets a label from the photo's (``vision.table_score.die_labels``). Then:

1. the value model (one weight per look, one bias per face) is fitted to the labelled dice
   by Newton's method on the cross-entropy, held near the general reader's weighing by a
   small ridge so that twenty photos cannot pull it far;
2. each die's odds are taken again from models fitted without its photo (five folds), so that
   the bars are set on odds the model did not learn from;
3. a feature layer (``vision.table_head.FeatureLayer``) is fitted to the same dice, "not a
   die" among them, over what the classifier's networks' last layers weighed, with a ridge
   that keeps it small, its odds again taken from fits without each die's photo;
4. the bars (value odds, detector score, smear balance, the feature layer's odds or none)
   are those of a small grid that apply the most of those photos unasked with none applied
   wrong, each die sure and wrong counting against them; the die size is the labelled
   dice's median.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vision import looks as lk
from vision.bench import Entry
from vision.io import load_image
from vision.learned import classifier_files_hash
from vision.params import ReaderParams
from vision.reader import load_networks, read_dice
from vision.table_head import (
    LOOKS,
    FeatureLayer,
    TableHead,
    balances,
    features,
    has_features,
    liftable,
    lifted_by,
    passing,
    prior_logits,
    trusted,
)
from vision.table_score import UNKNOWN, die_labels
from vision.types import Reading

#: the general reader's weighing of the looks, where the ridge holds the model
PRIOR_WEIGHTS = np.array([0.3, 0.5, 0.5])
#: the ridge's strength (in dice: the prior counts like this many dice' evidence)
RIDGE = 20.0
#: the bars tried; the smear bar never goes below the lowest one (a die smeared that much
#: is smeared on any table)
VALUE_BARS = (0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995)
SCORE_BARS = (0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8)
BALANCE_BARS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
FOLDS = 5
#: the feature layer's odds a doubted die needs to be made sure, tried; ``None``: no layer
#: (kept where the layer applies no more of the taught photos: the nearest the general reader)
FEATURE_BARS: tuple[float | None, ...] = (None, 0.99, 0.98, 0.95)
#: the feature layer's ridge (per die, on standardised features): on the held-out photos of
#: the shared sources 0.01 and 0.003 applied alike; at 0.001 more dice were made sure and
#: wrong (twenty photos overfitted)
FEATURE_RIDGE = 0.003
#: gradient steps and step size of the feature layer's fit (standardised features: plain
#: gradient descent converges well within these)
FEATURE_STEPS, FEATURE_RATE = 600, 0.5
#: the fewest labelled dice with features a feature layer is fitted on
FEATURE_MIN_DICE = 20
#: the general reader's own bars (value odds, detector score, smear balance): where several
#: bars apply as many of a table's photos unasked, the head keeps the nearest to these, so
#: that it changes the general reader only as far as the table's photos give a reason (the
#: strictest of them, chosen on twenty easy photos, sent more of the next photos to review
#: than the general reader did: BENCHMARKS.md, "Adapted to the table")
GENERAL_BARS = (ReaderParams().min_value_odds, ReaderParams().detector_min_score,
                ReaderParams().min_gradient_balance)
#: photos applied unasked that one die sure and wrong costs when the bars are chosen (such a
#: die on a photo that goes to review anyway misleads nobody, but it is one step from it)
WRONG_COST = 1.0


class AdaptError(ValueError):
    """Labelled photos a head cannot be fitted on (no dice, no die read)."""


@dataclass(frozen=True)
class ReadPhoto:
    """One labelled photo as the general reader read it."""

    entry: Entry
    reading: Reading
    #: each die's smear balance (``vision.smear``)
    balance: NDArray[np.float64]
    ms: float


@dataclass(frozen=True)
class TrainingDice:
    """Every read die of the photos, as arrays."""

    looks: NDArray[np.float32]
    balance: NDArray[np.float64]
    labels: NDArray[np.int64]
    photo: NDArray[np.int64]
    #: labelled dice per photo
    labelled: NDArray[np.int64]
    #: which dice the general reader's value decision was sure of (before its smear check)
    general_sure: NDArray[np.bool_]
    #: the value the general reader gave each die
    general_value: NDArray[np.int64]


def general_params(params: ReaderParams) -> ReaderParams:
    """``params`` without a table head: what a head is fitted over."""
    return replace(params, table_head=None)


def read_photos(root: Path, entries: Iterable[Entry], params: ReaderParams) -> list[ReadPhoto]:
    """Each photo read by the general reader (``params`` less any head); the time counts the
    read and the smear balances. ImageLoadError names a photo that cannot be read."""
    params = general_params(params)
    load_networks(params)
    out = []
    for entry in entries:
        image = load_image(root / entry.image)
        t0 = time.perf_counter()
        reading = read_dice(image, params)
        balance = balances(image, reading.dice)
        out.append(ReadPhoto(entry, reading, balance, (time.perf_counter() - t0) * 1000.0))
    return out


def training_dice(photos: Sequence[ReadPhoto]) -> TrainingDice:
    """The read dice that have looks, with their labels."""
    looks, bal, labels, photo, sure, value = [], [], [], [], [], []
    for k, p in enumerate(photos):
        lab = die_labels(p.entry, p.reading)
        for j, die in enumerate(p.reading.dice):
            if die.looks is None:
                continue
            looks.append(die.looks)
            bal.append(p.balance[j])
            labels.append(lab[j])
            photo.append(k)
            sure.append(die.looks[lk.CONFIDENCE] >= p.reading.min_confidence)
            value.append(die.value)
    return TrainingDice(
        looks=np.asarray(looks, np.float32).reshape(-1, lk.LENGTH),
        balance=np.asarray(bal, np.float64), labels=np.asarray(labels, np.int64),
        photo=np.asarray(photo, np.int64),
        labelled=np.array([len(p.entry.dice) for p in photos], np.int64),
        general_sure=np.asarray(sure, bool), general_value=np.asarray(value, np.int64))


def fit_values(feats: NDArray[np.float64], values: NDArray[np.int64]
               ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Weights (per look) and biases (per face) of the value model for (m, 6, looks)
    features and values 1..6, by Newton's method with a ridge towards ``PRIOR_WEIGHTS``."""
    m, faces, n_looks = feats.shape
    size = n_looks + faces
    grads = np.concatenate([feats, np.broadcast_to(np.eye(faces), (m, faces, faces))], axis=2)
    target = np.eye(faces)[values - 1]
    prior = np.concatenate([PRIOR_WEIGHTS[:n_looks], np.zeros(faces)])
    theta = prior.copy()
    for _ in range(30):
        logits = grads @ theta
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        mean_g = np.einsum("mv,mvk->mk", p, grads)
        grad = np.einsum("mv,mvk->k", p - target, grads) + RIDGE * (theta - prior)
        hess = (np.einsum("mv,mvk,mvl->kl", p, grads, grads)
                - np.einsum("mk,ml->kl", mean_g, mean_g) + RIDGE * np.eye(size))
        step = np.linalg.solve(hess, grad)
        theta -= step
        if float(np.abs(step).max()) < 1e-6:
            break
    return theta[:n_looks].copy(), theta[n_looks:].copy()


def crossfit_odds(dice: TrainingDice) -> NDArray[np.float64]:
    """Each die's (6,) value odds from a model fitted without its photo's fold."""
    feats = features(dice.looks)
    odds = np.zeros((len(dice.labels), 6))
    for held in held_folds(dice.photo):
        train = ~held & (dice.labels >= 1)
        if not train.any():
            train = dice.labels >= 1
        w, b = fit_values(feats[train], dice.labels[train])
        logits = feats[held] @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        odds[held] = e / e.sum(axis=1, keepdims=True)
    return odds


def fit_head(photos: Sequence[ReadPhoto]) -> TableHead:
    """This table's head from its labelled photos read by the general reader; AdaptError
    where they hold no die or the reader read none of their dice."""
    if not any(p.entry.dice for p in photos):
        raise AdaptError("the photos hold no labelled die: nothing to learn the table from")
    dice = training_dice(photos)
    valued = dice.labels >= 1
    if not valued.any():
        raise AdaptError("the reader found none of the labelled dice: nothing to learn from")
    w, b = fit_values(features(dice.looks[valued]), dice.labels[valued])
    die_px = float(np.median(dice.looks[valued, lk.SIZE]))
    head = TableHead(w, b, VALUE_BARS[-1], SCORE_BARS[-1], BALANCE_BARS[-1],
                     die_px, photos=len(photos), dice=int(dice.labelled.sum()))
    layer = fit_feature_layer(dice.looks, dice.labels)
    layer_odds = crossfit_feature_odds(dice) if layer is not None else None
    value_bar, score_bar, balance_bar, feature_bar = _bars(dice, crossfit_odds(dice),
                                                           layer_odds)
    return replace(head, min_value_odds=value_bar, min_score=score_bar, min_balance=balance_bar,
                   feature_layer=(replace(layer, min_odds=feature_bar)
                             if layer is not None and feature_bar is not None else None))


def fit_feature_layer(looks: NDArray[np.float32], labels: NDArray[np.int64]
                      ) -> FeatureLayer | None:
    """A feature layer (its bar left at 1: :func:`fit_head` sets it) fitted to the dice whose
    label is known (0: no die) and whose features were kept; ``None`` where there are fewer
    than ``FEATURE_MIN_DICE`` of them."""
    usable = (labels != UNKNOWN) & has_features(looks)
    if int(usable.sum()) < FEATURE_MIN_DICE:
        return None
    x = np.asarray(looks[usable][:, lk.FEATURES], np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-3
    weights, biases = _fit_layer((x - mean) / scale, labels[usable],
                                 prior_logits(looks[usable]))
    return FeatureLayer(weights, biases, mean, scale, 1.0, classifier_files_hash())


def _fit_layer(x: NDArray[np.float64], labels: NDArray[np.int64], prior: NDArray[np.float64]
               ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Weights (features, 7) and biases (7,) of logits added to ``prior``, by gradient descent
    on the mean cross-entropy plus ``FEATURE_RIDGE`` on the weights."""
    target = np.eye(7)[labels]
    weights, biases = np.zeros((x.shape[1], 7)), np.zeros(7)
    for _ in range(FEATURE_STEPS):
        logits = x @ weights + biases + prior
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        weights -= FEATURE_RATE * (x.T @ (p - target) / len(x) + FEATURE_RIDGE * weights)
        biases -= FEATURE_RATE * (p - target).mean(axis=0)
    return weights, biases


def crossfit_feature_odds(dice: TrainingDice) -> NDArray[np.float64]:
    """Each die's (7,) feature-layer odds from a layer fitted without its photo's fold (the
    classifier's own pooled odds where a fold leaves too few dice to fit one)."""
    odds = np.exp(prior_logits(dice.looks))
    odds /= odds.sum(axis=1, keepdims=True)
    for held in held_folds(dice.photo):
        layer = fit_feature_layer(dice.looks[~held], dice.labels[~held])
        if layer is not None:
            odds[held] = layer.odds(dice.looks[held])
    return odds


def held_folds(photo: NDArray[np.int64]) -> Iterator[NDArray[np.bool_]]:
    """For each of ``FOLDS`` folds of the photos that holds a die, which dice it holds out
    (``photo``: each die's photo): the cross-fitted odds' folds."""
    folds = photo % FOLDS
    for fold in range(FOLDS):
        held = folds == fold
        if held.any():
            yield held


def _bars(dice: TrainingDice, odds: NDArray[np.float64],
          layer_odds: NDArray[np.float64] | None = None
          ) -> tuple[float, float, float, float | None]:
    """The bars that apply the most photos unasked, less ``WRONG_COST`` for each die sure
    and wrong, and none applied wrong (then the most sure right dice, then the bars
    nearest ``GENERAL_BARS`` and no feature layer, counted in steps of the bars tried; of
    two as near, the lower). A die the general reader
    was sure of, whose value the head names too, needs no more value odds: only the score
    and smear bars (``TableHead.sure_mask``). With ``layer_odds`` (the feature layer's,
    cross-fitted) each of ``FEATURE_BARS`` is tried too, the layer making dice sure as
    ``vision.table_head.featured`` does (its :func:`~vision.table_head.liftable` worked out
    once per bar)."""
    value = odds.argmax(axis=1) + 1
    best = odds.max(axis=1)
    favoured = np.stack([dice.looks[:, s].argmax(axis=1) + 1 for s in LOOKS], axis=1)
    base = ((favoured == value[:, None]).any(axis=1)
            & trusted(dice.looks, value, best, dice.general_sure)
            & (dice.looks[:, lk.KIND] == lk.STRONG))
    agreed = dice.general_sure & (dice.general_value == value)
    considered = dice.labels != UNKNOWN
    n_photos = len(dice.labelled)
    counted = np.bincount(dice.photo[considered], minlength=n_photos)
    feature_bars = FEATURE_BARS if layer_odds is not None else (None,)
    lift = {f: liftable(layer_odds, f, dice.looks) for f in feature_bars
            if f is not None and layer_odds is not None}
    best_key: tuple[float, int, int] | None = None
    chosen: tuple[float, float, float, float | None] = (
        VALUE_BARS[-1], SCORE_BARS[-1], BALANCE_BARS[-1], None)
    passes_at = {(s, g): passing(dice.looks, dice.balance, s, g)
                 for s, g in itertools.product(SCORE_BARS, BALANCE_BARS)}
    for v, s, g, f in itertools.product(VALUE_BARS, SCORE_BARS, BALANCE_BARS, feature_bars):
        passes = passes_at[s, g]
        sure = base & ((best >= v) | agreed) & passes
        values = value
        if f is not None:
            values, _, sure = lifted_by(*lift[f], passes, value, best, sure)
        right = considered & (dice.labels == values)
        doubtful = np.bincount(dice.photo[considered & ~sure], minlength=n_photos)
        bad = np.bincount(dice.photo[considered & ~right], minlength=n_photos)
        auto = (doubtful == 0) & (counted == dice.labelled) & (dice.labelled > 0)
        if (auto & (bad > 0)).any():  # a photo applied unasked and wrong: never
            continue
        sure_wrong = int((sure & considered & ~right).sum())
        key = (int(auto.sum()) - WRONG_COST * sure_wrong, int((sure & right).sum()),
               -_steps((v, s, g)) - FEATURE_BARS.index(f))
        if best_key is None or key > best_key:
            best_key, chosen = key, (v, s, g, f)
    return chosen


def _steps(bars: tuple[float, float, float]) -> int:
    """How many steps of the bars tried lie between ``bars`` and ``GENERAL_BARS``."""
    return sum(abs(_index(tried, b) - _index(tried, general))
               for tried, b, general in zip((VALUE_BARS, SCORE_BARS, BALANCE_BARS), bars,
                                            GENERAL_BARS, strict=True))


def _index(tried: tuple[float, ...], bar: float) -> int:
    """The place of the bar tried nearest ``bar``."""
    return min(range(len(tried)), key=lambda k: abs(tried[k] - bar))
