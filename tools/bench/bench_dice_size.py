"""How well the reader does by how big a frame's dice are where it reads them.

Dev-time only. The calibration page tells the host when the dice are small in the camera's
picture (``vision.frame_check.SMALL_DICE_PX``); this is the measurement behind that bar. Each
frame is put in a bucket by the median face of the dice the reader found, in the pixels of
the size it works at (``vision.frame_check.working_face``: what the host can change by moving
the camera), and per bucket it prints how many labelled dice were read right and how many of
those were sure (a sure die needs no review at the table):

    .venv/bin/python -m tools.bench.bench_dice_size ../shared/datasets/manifest.json --renders 300

Photos are the shared table photos with every box labelled (held out and trained on: the
question is the camera's, not the networks'); renders are the unseen scenes of
``tools.bench.bench_categories``. A measurement, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from tools.bench.common import FIRST_UNSEEN, cached_render, nearest_pairs
from vision import ReaderParams, load_image, read_dice
from vision.bench import load_manifest, matched_pairs
from vision.frame_check import SMALL_DICE_PX, working_face
from vision.types import Reading

#: bucket edges (working-size pixels) besides SMALL_DICE_PX itself
EDGES = (10.0, 20.0, 30.0)
#: the bucket of frames where the reader found no die (no size to judge; no advice either)
NONE_FOUND = "no die found"


class FrameScore(NamedTuple):
    """One frame: where it came from, its dice's median working face (``None``: none found),
    its labelled dice, and how many of them were read right, and right and sure."""

    source: str
    face: float | None
    labelled: int
    right: int
    sure_right: int


@dataclass(slots=True)
class Tally:
    """Frames, labelled dice, dice read right and dice read right and sure, of one bucket."""

    frames: int = 0
    dice: int = 0
    right: int = 0
    sure_right: int = 0

    def add(self, frame: FrameScore) -> None:
        self.frames += 1
        self.dice += frame.labelled
        self.right += frame.right
        self.sure_right += frame.sure_right

    def share(self, count: int) -> str:
        """``count`` as a share of the bucket's dice ("-" for a bucket without dice)."""
        return f"{count / self.dice:.3f}" if self.dice else "-"

    def row(self, name: str) -> str:
        return (f"| {name} | {self.frames} | {self.dice} | {self.share(self.right)} | "
                f"{self.share(self.sure_right)} |")


def _cuts(edges: Iterable[float]) -> list[float]:
    return sorted({*edges, SMALL_DICE_PX})


def bucket_names(edges: Iterable[float] = EDGES) -> list[str]:
    """The buckets' names in order, from the edges and ``SMALL_DICE_PX``."""
    cuts = _cuts(edges)
    lows = [0.0, *cuts[:-1]]
    return [f"{lo:.0f}-{hi:.0f} px" for lo, hi in zip(lows, cuts, strict=True)] + \
        [f"{cuts[-1]:.0f}+ px"]


def bucket_of(face: float | None, edges: Iterable[float] = EDGES) -> str:
    """The bucket of a frame whose dice have this median working face (``None``: no dice)."""
    if face is None:
        return NONE_FOUND
    return bucket_names(edges)[sum(1 for c in _cuts(edges) if face >= c)]


def scored(reading: Reading, values: list[int], pairs: dict[int, int]) -> tuple[int, int]:
    """(read right, read right and sure) of labelled dice ``values``, given the pairs
    (labelled index -> reading's die index)."""
    right = [k for i, k in pairs.items() if reading.dice[k].value == values[i]]
    sure = sum(1 for k in right if reading.dice[k].confidence >= reading.min_confidence)
    return len(right), sure


def photo_frames(manifest: Path, params: ReaderParams) -> Iterator[FrameScore]:
    """The score of each fully boxed table photo of a manifest."""
    root, entries = load_manifest(manifest)
    for entry in entries:
        if entry.subset != "table" or not entry.dice or any(d.box is None for d in entry.dice):
            continue
        image = load_image(root / entry.image)
        reading = read_dice(image, params)
        predicted = [(d.value, d.x, d.y) for d in reading.dice]
        pairs = dict(matched_pairs(entry.dice, predicted))
        right, sure = scored(reading, [d.value for d in entry.dice], pairs)
        face = working_face(image.shape[0], image.shape[1], reading, params)
        yield FrameScore(entry.source, face, len(entry.dice), right, sure)


def render_frames(count: int, cache: Path, params: ReaderParams) -> Iterator[FrameScore]:
    """The same for unseen renders (their fully visible, flat-lying dice)."""
    for index in range(FIRST_UNSEEN, FIRST_UNSEEN + count):
        image, truth = cached_render(cache, index)
        readable = [d for d in truth["dice"] if d["visible"] >= 0.9 and not d["uncertain"]
                    and 0 <= d["x"] < truth["width"] and 0 <= d["y"] < truth["height"]]
        if not readable:
            continue
        reading = read_dice(image, params)
        right, sure = scored(reading, [d["value"] for d in readable],
                             nearest_pairs(readable, reading))
        face = working_face(image.shape[0], image.shape[1], reading, params)
        yield FrameScore("renders", face, len(readable), right, sure)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", type=Path, nargs="?", help="manifest.json of the shared photos")
    ap.add_argument("--renders", type=int, default=0, help="this many unseen renders too")
    ap.add_argument("--cache", type=Path, default=Path(".cache/category_renders"))
    args = ap.parse_args()
    params = ReaderParams()
    frames: list[FrameScore] = []
    if args.manifest is not None:
        frames += photo_frames(args.manifest, params)
    if args.renders:
        frames += render_frames(args.renders, args.cache, params)
    print(f"bucket: the median face of the dice found, at the reader's working size "
          f"(under {SMALL_DICE_PX:.0f} px the calibration page calls the dice small)\n")
    print("| frames of | bucket | frames | dice | read right | sure and right |")
    print("|---|---|---|---|---|---|")
    for source in sorted({f.source for f in frames}):
        split = {"small": Tally(), "not small": Tally()}
        buckets = {name: Tally() for name in [*bucket_names(), NONE_FOUND]}
        for frame in (f for f in frames if f.source == source):
            buckets[bucket_of(frame.face)].add(frame)
            if frame.face is not None:
                split["small" if frame.face < SMALL_DICE_PX else "not small"].add(frame)
        for name, tally in [*buckets.items(), *split.items()]:
            if tally.frames:
                print(f"| {source} " + tally.row(name))


if __name__ == "__main__":
    main()
