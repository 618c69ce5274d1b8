"""Adaptation measured per source (``bluffcam bench-vision --adapt-first N``): each source's
first N photos (by file name) teach a head (``vision.adapt``), the rest of that source are
read by the general reader and by the reader with that head, and scored as a table would
take them (``vision.table_score``). The head decides again from the looks the general
reading kept, exactly as ``read_dice`` does with a head. Where the
taught photos' dice measure one size (``vision.die_sizes.steady_size``), "after" reads the
rest again at that size, as the profile `bluffcam adapt` writes would.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vision.adapt import ReadPhoto, fit_head, read_photos
from vision.bench import Entry
from vision.die_sizes import labelled_sizes, most_common_resolution, steady_size
from vision.params import ReaderParams
from vision.table_head import TableHead, decide
from vision.table_score import outcome
from vision.types import Reading


@dataclass
class Tally:
    """Photos of one source read one way, as a table takes them."""

    photos: int = 0
    labelled: int = 0
    correct: int = 0
    auto: int = 0
    silent: int = 0
    sure_wrong: int = 0
    #: photos whose labelled dice were all found and none extra (``TableOutcome.all_found``)
    found: int = 0
    ms: list[float] = field(default_factory=list)

    def add(self, entry: Entry, reading: Reading, ms: float) -> None:
        o = outcome(entry, reading)
        self.photos += 1
        self.labelled += o.labelled
        self.correct += o.correct
        self.auto += int(o.auto_right)
        self.silent += int(o.silent_misread)
        self.sure_wrong += o.sure_wrong
        self.found += int(o.all_found)
        self.ms.append(ms)

    def to_json(self) -> dict[str, Any]:
        return {
            "photos": self.photos,
            "accuracy": round(self.correct / self.labelled, 4) if self.labelled else None,
            "auto_share": round(self.auto / self.photos, 4) if self.photos else None,
            "silent_misreads": self.silent,
            "sure_wrong": self.sure_wrong,
            "reach": round(self.found / self.photos, 4) if self.photos else None,
            "median_ms": round(statistics.median(self.ms), 1) if self.ms else None,
        }


@dataclass
class SourceResult:
    """One source: the head its first photos taught, and its other photos before and after."""

    source: str
    taught: int
    head: TableHead | None
    before: Tally
    after: Tally
    #: why no head was fitted (too few photos, no dice), or ""
    skipped: str = ""
    #: the die size the taught photos gave the table (None: their dice measure many sizes)
    die_size_px: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "taught": self.taught, "skipped": self.skipped or None,
                "die_size_px": self.die_size_px,
                "before": self.before.to_json(), "after": self.after.to_json()}


def by_source(entries: Iterable[Entry]) -> dict[str, list[Entry]]:
    """Each source's photos sorted by file name."""
    out: dict[str, list[Entry]] = {}
    for e in entries:
        out.setdefault(e.source, []).append(e)
    return {s: sorted(v, key=lambda e: e.image) for s, v in sorted(out.items())}


def adapt_first(root: Path, entries: Sequence[Entry], params: ReaderParams,
                first: int) -> list[SourceResult]:
    """Per source: a head fitted on its first ``first`` photos, its other photos read without
    and with it. A source of no more than ``first`` photos is named and skipped."""
    results = []
    for source, photos in by_source(entries).items():
        if len(photos) <= first:
            results.append(SourceResult(source, 0, None, Tally(), Tally(),
                                        f"{len(photos)} photos: none left to read after "
                                        f"teaching on {first}"))
            continue
        taught = read_photos(root, photos[:first], params)
        rest = read_photos(root, photos[first:], params)
        resolution = most_common_resolution(taught)
        size = (steady_size(labelled_sizes(taught, resolution))
                if params.die_size_px is None and resolution is not None else None)
        if size is None:
            results.append(score_source(source, taught, rest, params.max_dice))
            continue
        # as `bluffcam adapt` does: a table whose dice measure one size is read at it (photos
        # of another resolution, as the profile's reader reads them: without it)
        sized = replace(params, die_size_px=size, table_resolution=resolution)
        result = score_source(source, read_photos(root, photos[:first], sized), rest,
                              params.max_dice, read_photos(root, photos[first:], sized))
        results.append(replace(result, die_size_px=size))
    return results


def score_source(source: str, taught: Sequence[ReadPhoto], rest: Sequence[ReadPhoto],
                 max_dice: int = 60, rest_after: Sequence[ReadPhoto] | None = None
                 ) -> SourceResult:
    """The head ``taught`` fits, and ``rest`` scored without and with it (ms: the general
    read, plus the head's own time after); ``max_dice`` as the reader's setting. With
    ``rest_after`` (the same photos read at the table's die size), the head decides on those
    reads instead."""
    before, after = Tally(), Tally()
    try:
        head: TableHead | None = fit_head(taught)
    except ValueError as exc:
        head = None
        skipped = str(exc)
    else:
        skipped = ""
    for p in rest:
        before.add(p.entry, p.reading, p.ms)
    for p in rest if rest_after is None else rest_after:
        if head is not None:
            t0 = time.perf_counter()
            adapted = decide(p.reading, head, p.balance, max_dice)
            after.add(p.entry, adapted, p.ms + (time.perf_counter() - t0) * 1000.0)
    return SourceResult(source, len(taught), head, before, after, skipped)
