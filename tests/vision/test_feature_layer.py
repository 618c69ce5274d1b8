"""A table head's feature layer (vision.table_head.FeatureLayer, fitted by vision.adapt):
this table's dice learned from what the classifier's networks' last layers weighed, on
made-up features. What it may make sure, what it learns, what its file keeps."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

from vision import looks as lk
from vision.adapt import FEATURE_MIN_DICE, fit_feature_layer
from vision.learned import classifier_files_hash
from vision.looks import FEATURE_WIDTH
from vision.table_head import FeatureLayer, TableHead, decide, featured, load_head
from vision.types import Die, Reading

WIDTH = 2 * FEATURE_WIDTH


def table_features(value: int, rng: np.random.Generator) -> np.ndarray:
    """Features of a die of ``value`` on a made-up table: each face its own direction, plus
    noise (0: no die)."""
    centre = np.zeros(WIDTH)
    centre[value * 10:(value + 1) * 10] = 3.0
    return centre + rng.normal(size=WIDTH)


def looks(value: int, leaning: int, rng: np.random.Generator, odds: float = 0.6,
          confidence: float = 0.5, kind: int = lk.STRONG,
          with_features: bool = True) -> np.ndarray:
    """A die of ``value`` whose classifier leans to ``leaning`` at ``odds``, whose detector
    names the next face at 0.3 (a nearly flat look disputing it, as on dim grey frames), the
    reader's own decision ``confidence``."""
    pooled = np.full(7, (1 - odds - 0.01) / 5, np.float32)
    pooled[0] = 0.01  # a die, by the classifier
    pooled[leaning] = odds
    pooled /= pooled.sum()
    detector = np.full(6, 0.7 / 5, np.float32)
    detector[leaning % 6] = 0.3
    return lk.looks_vector(detector, pooled, np.stack([pooled, pooled]), 0.9, kind, 1.0,
                           40.0, confidence,
                           table_features(value, rng).reshape(2, FEATURE_WIDTH)
                           if with_features else None)


def taught_layer(rng: np.random.Generator, dice: int = 120) -> FeatureLayer:
    """A layer taught on a table where the classifier leans, at 0.6, to each die's value."""
    values = rng.integers(0, 7, size=dice)
    rows = np.stack([looks(int(v), int(v), rng) for v in values])
    layer = fit_feature_layer(rows, values)
    assert layer is not None
    return replace(layer, min_odds=0.98)


def head(layer: FeatureLayer | None) -> TableHead:
    return TableHead(np.array([0.3, 0.5, 0.5]), np.zeros(6), 0.8, 0.5, 0.2, 40.0, photos=20,
                     dice=120, feature_layer=layer)


def reading_of(*rows: np.ndarray) -> Reading:
    dice = []
    for k, row in enumerate(rows):
        x = 100.0 + 60 * k
        outline = np.array([[x - 20, 80], [x + 20, 80], [x + 20, 120], [x - 20, 120]], float)
        dice.append(Die(int(np.argmax(row[lk.POOLED][1:])) + 1, x, 100.0,
                        float(row[lk.CONFIDENCE]), outline, looks=row))
    return Reading(tuple(dice), 640, 480, 0.6)


def test_the_layer_learns_a_tables_dice_the_classifier_only_leans_to() -> None:
    rng = np.random.default_rng(0)
    layer = taught_layer(rng)
    fresh = np.stack([looks(v, v, rng) for v in range(1, 7)])
    odds = layer.odds(fresh)
    assert list(odds.argmax(axis=1)) == [1, 2, 3, 4, 5, 6]
    assert (odds.max(axis=1) > 0.98).all()
    # the reader alone would doubt them all (its own 0.5); with the layer each is sure
    adapted = decide(reading_of(*fresh), head(layer), np.full(6, 0.9), 60)
    assert [(d.value, d.confidence >= 0.6) for d in adapted.dice] == [
        (v, True) for v in range(1, 7)]
    assert all(d.confidence < 0.6 for d in
               decide(reading_of(*fresh), head(None), np.full(6, 0.9), 60).dice)


def given_odds(face: int, at: float) -> np.ndarray:
    """A layer's (1, 7) odds naming ``face`` (0: no die) at ``at``."""
    odds = np.full((1, 7), (1 - at) / 6)
    odds[0, face] = at
    return odds


@dataclass(frozen=True)
class Case:
    """One die before the layer: what the looks say, what the layer says."""

    leaning: int = 5  # the classifier's favourite (both networks alike)
    face: int = 5  # the layer's favourite (0: no die)
    at: float = 0.99  # the layer's odds of it
    passes: bool = True  # the head's other bars
    with_features: bool = True
    sure: bool = False  # sure before the layer
    photos_net: tuple[int, float] | None = None  # the photos network's own favourite, odds
    not_a_die: float | None = None  # the classifier's odds of no die
    detector: tuple[int, float] | None = None  # the detector's favourite, odds


@pytest.mark.parametrize(("case", "why"), [
    (Case(), ""),
    (Case(leaning=4), "the classifier favours another face"),
    (Case(photos_net=(4, 0.9)), "one of its networks favours another face"),
    (Case(photos_net=(5, 0.45)), "a network gives the face under half"),
    (Case(face=0), "the layer sees no die"),
    (Case(at=0.97), "the layer's odds under its bar"),
    (Case(passes=False), "another bar failed (score, smear, a faint proposal)"),
    (Case(with_features=False), "no features kept"),
    (Case(sure=True), "sure already: left as it was"),
    (Case(not_a_die=0.1), "the classifier thinks it may be no die"),
    (Case(detector=(3, 0.65)), "the detector names another face with some odds"),
    (Case(detector=(3, 0.55)), ""),
    (Case(detector=(5, 0.6)), "the detector agrees: the head's own rules decide"),
])
def test_what_the_layer_may_make_sure(case: Case, why: str) -> None:
    row = looks(5, case.leaning, np.random.default_rng(1),
                with_features=case.with_features)[None]
    if case.photos_net is not None:
        row[0, lk.NET_A] = (1 - case.photos_net[1]) / 6
        row[0, lk.NET_A.start + case.photos_net[0]] = case.photos_net[1]
    if case.not_a_die is not None:
        row[0, lk.POOLED.start] = case.not_a_die
    if case.detector is not None:
        row[0, lk.DETECTOR] = (1 - case.detector[1]) / 5
        row[0, lk.DETECTOR.start + case.detector[0] - 1] = case.detector[1]
    odds = np.full((1, 7), (1 - case.at) / 6)
    odds[0, case.face] = case.at
    values, given, sure = featured(odds, 0.98, row, np.array([case.passes]), np.array([2]),
                                   np.array([0.4]), np.array([case.sure]))
    lifted = not why
    assert bool(sure[0]) == (lifted or case.sure), why
    assert (int(values[0]), float(given[0])) == ((5, 0.99) if lifted else (2, 0.4)), why


def test_too_few_dice_teach_no_layer() -> None:
    rng = np.random.default_rng(3)
    rows = np.stack([looks(2, 2, rng) for _ in range(FEATURE_MIN_DICE - 1)])
    assert fit_feature_layer(rows, np.full(len(rows), 2)) is None
    # dice without features, or of no known label, do not count
    blank = np.stack([looks(2, 2, rng, with_features=False) for _ in range(40)])
    assert fit_feature_layer(blank, np.full(40, 2)) is None
    assert fit_feature_layer(np.concatenate([rows, rows]), np.full(2 * len(rows), -1)) is None


def test_the_file_keeps_the_layer_and_a_first_version_file_still_loads(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    layer = taught_layer(rng)
    path = tmp_path / "t.adapt.npz"
    head(layer).save(path)
    loaded = load_head(path)
    assert loaded.feature_layer is not None and loaded.feature_layer.min_odds == 0.98
    probe = np.stack([looks(v, v, rng) for v in range(1, 7)])
    np.testing.assert_allclose(loaded.feature_layer.odds(probe), layer.odds(probe))
    # a head written before the layer existed (version 1) is a head without one
    first = tmp_path / "v1.adapt.npz"
    arrays = head(None).to_arrays()
    arrays["version"] = np.array(1)
    np.savez(first, **arrays)
    assert load_head(first).feature_layer is None


def test_a_layer_learned_from_other_networks_is_left_out(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    layer = taught_layer(rng)
    assert layer.networks == classifier_files_hash() != ""
    path = tmp_path / "other.adapt.npz"
    head(replace(layer, networks="0123456789abcdef")).save(path)
    loaded = load_head(path)
    assert loaded.feature_layer is None and loaded.min_value_odds == 0.8
