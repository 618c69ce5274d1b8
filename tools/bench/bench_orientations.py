"""The reader on the held-out photos as shot, turned and mirrored: how much of a figure is luck.

Dev-time only. A die reads the same turned or mirrored, and the networks were trained on
turned and mirrored windows, yet a small die's read depends on how its pixels fall on the
detector's stride grid. This reads the held-out table photos (no network trained on them) as
shot, turned a quarter, a half and three quarters, and mirrored, with their labelled boxes
turned alike, and prints the issue's figures per source for each, then their mean: a
threshold chosen on the photos as shot can look better there than it is.

    .venv/bin/python -m tools.bench.bench_orientations ../shared/datasets/manifest.json
    .venv/bin/python -m tools.bench.bench_orientations ../shared/datasets/manifest.json --views 4

A measurement, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
from numpy.typing import NDArray

from vision import ReaderParams
from vision.bench import (
    Entry,
    LabelledDie,
    held_out_table_photos,
    score_frames,
    summarise,
)

Box = tuple[float, float, float, float]

#: name -> (quarter turns clockwise, then mirrored left to right)
ORIENTATIONS = {"as shot": (0, False), "quarter turn": (1, False), "half turn": (2, False),
                "three quarters": (3, False), "mirrored": (0, True)}


def turned_box(box: Box, height: int) -> Box:
    """Where a box (x, y, w, h) of an image ``height`` px high lands when the image is
    turned a quarter clockwise."""
    x, y, w, h = box
    return (height - y - h, x, h, w)


def mirrored_box(box: Box, width: int) -> Box:
    """Where a box lands when an image ``width`` px wide is mirrored left to right."""
    x, y, w, h = box
    return (width - x - w, y, w, h)


def oriented(image: NDArray[np.uint8], entry: Entry, turns: int,
             mirrored: bool) -> tuple[NDArray[np.uint8], Entry]:
    """The photo and its labels turned ``turns`` quarters clockwise, then maybe mirrored."""
    dice = []
    for die in entry.dice:
        box = die.box
        if box is not None:
            height, width = image.shape[:2]
            for _ in range(turns):
                box = turned_box(box, height)
                height, width = width, height
            if mirrored:
                box = mirrored_box(box, width)
        dice.append(LabelledDie(die.value, box))
    out = np.rot90(image, -turns)
    if mirrored:
        out = out[:, ::-1]
    return np.ascontiguousarray(out), dataclasses.replace(entry, dice=tuple(dice))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", help="manifest.json (format of ../shared/datasets)")
    ap.add_argument("--views", type=int, default=ReaderParams().detector_views,
                    help="ReaderParams.detector_views (default: the reader's)")
    args = ap.parse_args(argv)
    params = ReaderParams(detector_views=args.views)
    photos = held_out_table_photos(args.manifest)
    figures: dict[str, list[tuple[float, float, float, int]]] = {}
    print(f"{len(photos)} held-out table photos, detector views {args.views}")
    print("| orientation | source | accuracy | precision | image exact | s.wrong | median ms |")
    print("|---|---|---|---|---|---|---|")
    for name, (turns, flip) in ORIENTATIONS.items():
        turned = (oriented(image, entry, turns, flip) for entry, image in photos)
        scores = score_frames(((labels, frame) for frame, labels in turned), params)
        for s in summarise(scores):
            if "/" not in s.name:
                continue
            j = s.to_json()
            figures.setdefault(s.name, []).append(
                (j["accuracy"], j["precision"], j["image_exact"], j["sure_wrong"]))
            print(f"| {name} | {s.name} | {j['accuracy']:.3f} | {j['precision']:.3f} | "
                  f"{j['image_exact']:.3f} | {j['sure_wrong']} | {j['median_ms']:.1f} |")
    for source, rows in figures.items():
        acc, prec, exact, wrong = np.array(rows, dtype=float).T
        print(f"| mean | {source} | {acc.mean():.3f} (±{acc.std():.3f}) | "
              f"{prec.mean():.3f} (±{prec.std():.3f}) | {exact.mean():.3f} | "
              f"{int(wrong.sum())} in all | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
