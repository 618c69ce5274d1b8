"""The held-out photos: one list for every network, drawn by the classifier's training script
with a fixed seed that a run's ``--seed`` does not change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.train.train_dice_classifier import (
    FIRST_SOURCES,
    HOLDOUT_FRACTION,
    HOLDOUT_SEED,
    split_holdout,
)
from vision.bench import Entry, load_manifest
from vision.learned import CLASSIFIER_ONLY_SOURCES, HOLDOUT_PATH, TRAINED_SOURCES


def _entries(n: int, source: str) -> list[Entry]:
    return [Entry(image=f"{source}/{k}.jpg", dice=(), complete=True, source=source,
                  subset="table") for k in range(n)]


def test_a_fifth_of_each_source_is_held_out_by_its_seed() -> None:
    entries = _entries(50, "a") + _entries(20, "b")
    held = split_holdout(entries, HOLDOUT_SEED)
    assert sum(1 for h in held if h.startswith("a/")) == round(50 * HOLDOUT_FRACTION)
    assert sum(1 for h in held if h.startswith("b/")) == round(20 * HOLDOUT_FRACTION)
    assert split_holdout(entries, HOLDOUT_SEED) == held
    assert split_holdout(entries, HOLDOUT_SEED + 1) != held


def test_a_source_added_moves_no_other_sources_held_out_photos() -> None:
    first = [e for s in sorted(FIRST_SOURCES) for e in _entries(40, s)]
    held = split_holdout(first, HOLDOUT_SEED)
    # "aaa" sorts before every first source: drawn in name order it would take their draws
    grown = split_holdout(first + _entries(30, "aaa"), HOLDOUT_SEED)
    assert {h for h in grown if not h.startswith("aaa/")} == held
    assert sum(1 for h in grown if h.startswith("aaa/")) == round(30 * HOLDOUT_FRACTION)
    again = split_holdout(first + _entries(30, "aaa") + _entries(25, "0new"), HOLDOUT_SEED)
    assert {h for h in again if not h.startswith("0new/")} == grown


@pytest.mark.dataset
def test_the_shipped_list_is_the_scripts_split_of_the_shared_photos(
        shared_datasets: Path) -> None:
    """Over every source of the shared photos: each network keeps the same fifth of each out."""
    _, entries = load_manifest(shared_datasets / "manifest.json")
    shipped = set(json.loads(HOLDOUT_PATH.read_text()))
    assert {path.split("/")[0] for path in shipped} == TRAINED_SOURCES | CLASSIFIER_ONLY_SOURCES
    assert {e.source for e in entries} == TRAINED_SOURCES | CLASSIFIER_ONLY_SOURCES
    assert split_holdout(entries, HOLDOUT_SEED) == shipped
