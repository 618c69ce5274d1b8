"""How well each of the reader's two looks names a die's value, on unseen renders.

Dev-time only. The reader adjudicates on a die only where the detector's own value guess and
the crop classifier's agree (``vision.dice.detected``); this prints, for each look, the
confusion matrix of true against named values, so one can see which look sends dice to
review. Same scenes as ``tools.bench_categories`` (rendered once into its cache); only dice
lying flat, fully visible, not marked uncertain and at least ``--min-size`` px across count,
each matched to the nearest proposal within half its size:

    .venv/bin/python -m tools.bench_value_looks --count 300
    .venv/bin/python -m tools.bench_value_looks --styles red,blue,green

A measurement, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np

from tools.bench_categories import FIRST_UNSEEN, cached_render
from vision.detector import find_candidates
from vision.learned import classify_crops
from vision.params import ReaderParams


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--start", type=int, default=FIRST_UNSEEN)
    ap.add_argument("--cache", type=Path, default=Path(".cache/category_renders"))
    ap.add_argument("--min-size", type=float, default=20.0, help="least face size in px")
    ap.add_argument("--styles", help="only these dice styles, comma separated")
    args = ap.parse_args(argv)
    styles = set(args.styles.split(",")) if args.styles else None
    params = ReaderParams()
    looks: dict[str, Counter[tuple[int, int]]] = {"detector": Counter(), "classifier": Counter()}
    for index in range(args.start, args.start + args.count):
        image, truth = cached_render(args.cache, index)
        dice = [
            d for d in truth["dice"]
            if d.get("visible", 1.0) >= 0.99 and d.get("tilt_deg", 0.0) < 5
            and not d.get("uncertain") and d["size_px"] >= args.min_size
            and (styles is None or d["style"] in styles)
        ]
        found = find_candidates(image, side=params.detector_side,
                                min_score=params.detector_min_score) if dice else []
        if not found:
            continue
        _, second = classify_crops(image, [(c.x, c.y, c.size) for c in found])
        for die in dice:
            nearest = min(range(len(found)),
                          key=lambda i: (found[i].x - die["x"]) ** 2 + (found[i].y - die["y"]) ** 2)
            c = found[nearest]
            if np.hypot(c.x - die["x"], c.y - die["y"]) > die["size_px"] / 2:
                continue
            looks["detector"][(die["value"], int(c.values.argmax()) + 1)] += 1
            looks["classifier"][(die["value"], int(second[nearest][1:].argmax()) + 1)] += 1
    for name, counts in looks.items():
        right = sum(counts[(v, v)] for v in range(1, 7))
        total = sum(counts.values())
        print(f"{name}: {right} of {total} named right ({right / max(total, 1):.0%})")
        print("  true \\ named " + " ".join(f"{v:>4}" for v in range(1, 7)))
        for true in range(1, 7):
            print(f"  {true:>12} " + " ".join(f"{counts[(true, v)]:>4}" for v in range(1, 7)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
