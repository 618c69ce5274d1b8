"""Adaptation on the real photos in ../shared/datasets (skipped where absent), as
``bluffcam bench-vision MANIFEST --adapt-first 20 --split held-out`` measures it: per table
source, a head taught on the first 20 of the source's held-out photos (by file name) reads
the rest of them. Only held-out photos: the crop classifier trained on the other four
fifths of every source, and a table's own photos are new to the networks (though these come
from the same sources: not a whole source held out).

Three kinds of check:

- adaptation (a head, and the die size where the taught dice measure one size) never adds a
  silent misread (a photo applied unasked and wrong) on any source, nor a die read sure and
  wrong but the ones looked at and named;
- floors a little below what adaptation reached (BENCHMARKS.md, "Adapted to the table"), so
  that a regression fails;
- the issue's targets (die accuracy 0.99, auto share 0.90, no silent misread): where a
  source does not reach them yet the test is an expected failure that must start failing the
  day it passes (strict), so that the floors are raised then.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.adapt_bench import SourceResult, adapt_first
from vision.bench import load_manifest
from vision.learned import held_out_photos
from vision.params import ReaderParams

SOURCES = ("matteo", "epanemu", "aws", "kaggle_d6", "rune55")
TAUGHT = 20
TARGETS = {"accuracy": 0.99, "auto_share": 0.90}
#: after adaptation; a little below what it reached (BENCHMARKS.md, "Adapted to the table";
#: aws holds only 25 held-out photos: 5 are read, so its share moves in steps of 0.2)
FLOORS = {
    "matteo": {"accuracy": 0.97, "auto_share": 0.92},
    "epanemu": {"accuracy": 0.88, "auto_share": 0.40},
    "aws": {"accuracy": 0.95, "auto_share": 0.4},
    "kaggle_d6": {"accuracy": 0.97, "auto_share": 0.47},
    "rune55": {"accuracy": 0.85, "auto_share": 0.68},
}
#: the sources that reach the issue's targets today (matteo's held-out photos: auto 0.952,
#: but accuracy 0.985: two of 135 dice)
REACHED: set[str] = set()

#: reading the held-out table photos of five sources takes a minute or two
pytestmark = [pytest.mark.dataset, pytest.mark.slow, pytest.mark.timeout(3600)]


@pytest.fixture(scope="module")
def adapted(shared_datasets: Path) -> dict[str, SourceResult]:
    root, entries = load_manifest(shared_datasets / "manifest.json")
    held = held_out_photos()
    tables = [e for e in entries
              if e.subset == "table" and e.source in SOURCES and e.image in held]
    return {r.source: r for r in adapt_first(root, tables, ReaderParams(), TAUGHT)}


#: dice read sure and wrong that adaptation may add on a source, each one looked at: on
#: kaggle_d6 the table's die size (its dice measure one size, so the adapted profile reads at
#: it) lifts a speck on the white board to a sure one-pip die, an extra die on a photo that
#: goes to review (no silent misread); with the head, the same size applies 0.267 -> 0.5 of
#: its photos
SURE_WRONG_ADDED = {"kaggle_d6": 1}


@pytest.mark.parametrize("source", SOURCES)
def test_adaptation_never_adds_a_silent_misread_nor_a_sure_wrong_die_unlooked_at(
        adapted: dict[str, SourceResult], source: str) -> None:
    result = adapted[source]
    assert result.head is not None, result.skipped
    assert result.after.silent <= result.before.silent
    assert result.after.sure_wrong <= result.before.sure_wrong + SURE_WRONG_ADDED.get(source, 0)


#: the reach (photos whose labelled dice were all found, none extra: the most a head can
#: apply) after adaptation, a little below what it was (BENCHMARKS.md, "Adapted to the
#: table"): the detector's part, which no head changes
REACH_FLOORS = {"matteo": 0.97, "epanemu": 0.75, "aws": 0.8, "kaggle_d6": 0.86,
                "rune55": 0.87}


@pytest.mark.parametrize("source", SOURCES)
def test_the_reader_finds_the_dice_a_head_needs(adapted: dict[str, SourceResult],
                                                source: str) -> None:
    assert adapted[source].after.to_json()["reach"] >= REACH_FLOORS[source]


@pytest.mark.parametrize("source", SOURCES)
def test_adaptation_holds_its_floor(adapted: dict[str, SourceResult], source: str) -> None:
    after = adapted[source].after.to_json()
    for metric, floor in FLOORS[source].items():
        assert after[metric] >= floor, (source, metric, after[metric])


@pytest.mark.parametrize("source", [
    s if s in REACHED else pytest.param(s, marks=pytest.mark.xfail(
        strict=True, reason="below the issue's targets today: BENCHMARKS.md, 'Adapted to the "
                            "table' (dice never proposed, or read the same wrong way by every "
                            "look, are beyond a head over the looks)"))
    for s in SOURCES])
def test_adaptation_reaches_the_issues_targets(
        adapted: dict[str, SourceResult], source: str) -> None:
    after = adapted[source].after.to_json()
    assert after["accuracy"] >= TARGETS["accuracy"]
    assert after["auto_share"] >= TARGETS["auto_share"]
    assert after["silent_misreads"] == 0
