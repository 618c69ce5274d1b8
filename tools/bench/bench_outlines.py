"""How well the reader outlines each die's top face, on unseen renders (exact outlines known).

Dev-time only. Reads the cached unseen renders of ``tools.bench.bench_categories`` and, for every
flat, fully visible die matched to a prediction within half its size, prints the IoU of the
reader's outline with the true top face, beside that of the detector's upright square
(``Die.extent``, the outline before the top-face outlines), by view tilt:

    .venv/bin/python -m tools.bench.bench_outlines --count 300

A measurement, not a test: it asserts nothing (tests/vision/test_top_face.py holds a floor).
"""

from __future__ import annotations

from collections import defaultdict

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.bench.common import (
    cached_render,
    nearest_pairs,
    unseen_renders_parser,
    view_tilt_group,
)
from vision import ReaderParams, read_dice
from vision.dice.detected import square_outline


def outline_iou(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """Intersection over union of two convex quadrilaterals, in any corner order."""
    hull_a = cv2.convexHull(np.asarray(a, np.float32))[:, 0]
    hull_b = cv2.convexHull(np.asarray(b, np.float32))[:, 0]
    inter, _ = cv2.intersectConvexConvex(hull_a, hull_b)
    union = cv2.contourArea(hull_a) + cv2.contourArea(hull_b) - inter
    return float(inter / union) if union > 0 else 0.0


def main() -> None:
    args = unseen_renders_parser(__doc__.splitlines()[0]).parse_args()
    params = ReaderParams()
    rows: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for index in range(args.start, args.start + args.count):
        image, truth = cached_render(args.cache, index)
        reading = read_dice(image, params)
        flat = [d for d in truth["dice"] if d["visible"] >= 0.99 and d["tilt_deg"] <= 3]
        group = view_tilt_group(truth)
        for i, k in nearest_pairs(flat, reading).items():
            die, face = reading.dice[k], np.asarray(flat[i]["outline"], np.float64)
            upright = square_outline(die.x, die.y, die.side_px)
            pair = (outline_iou(die.outline, face), outline_iou(upright, face))
            rows["all"].append(pair)
            rows[group].append(pair)
    print("| dice | n | IoU, outline (median) | IoU, upright square (median) | outline better |")
    print("|---|---|---|---|---|")
    for name in sorted(rows, key=lambda n: (n != "all", n)):
        ious = np.array(rows[name])
        print(f"| {name} | {len(ious)} | {np.median(ious[:, 0]):.3f} | "
              f"{np.median(ious[:, 1]):.3f} | {np.mean(ious[:, 0] > ious[:, 1]):.2f} |")


if __name__ == "__main__":
    main()
