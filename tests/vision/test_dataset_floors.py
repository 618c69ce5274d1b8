"""Accuracy floors on the real photos in ../shared/datasets (skipped where absent).

Floors sit a little below what the reader achieved when they were set (see BENCHMARKS.md),
so a regression fails. The epanemu source is left out here to keep the test under a minute
on two cores; `bluffcam bench-vision` measures it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.bench import Summary, load_manifest, run_bench, summarise

FLOORS = {
    "matteo/table": {"accuracy": 0.82, "precision": 0.83},
    "chase/crop": {"accuracy": 0.22, "precision": 0.45},
}

pytestmark = [pytest.mark.dataset, pytest.mark.slow]


@pytest.fixture(scope="session")
def summaries(shared_datasets: Path) -> dict[str, Summary]:
    root, entries = load_manifest(shared_datasets / "manifest.json")
    chosen = [e for e in entries if f"{e.source}/{e.subset}" in FLOORS]
    return {s.name: s for s in summarise(run_bench(root, chosen))}


@pytest.mark.parametrize("group", sorted(FLOORS))
def test_reader_holds_its_floor(summaries: dict[str, Summary], group: str) -> None:
    got = summaries[group].to_json()
    for metric, floor in FLOORS[group].items():
        assert got[metric] >= floor, f"{group} {metric} {got[metric]} fell below {floor}"
