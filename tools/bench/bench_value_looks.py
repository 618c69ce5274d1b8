"""How well each of the reader's two looks names a die's value, on unseen renders or photos.

Dev-time only. The reader adjudicates on a die only where the detector's own value guess and
the crop classifier's agree, or where each of the classifier's two networks is sure of its
value on its own (``vision.dice.detected``); this prints, for each look, the confusion matrix
of true against named values, how the two combine (agree and right, agree and wrong — what
the agreement rule lets through —, and which look is right where they disagree), and how
many disagreements the classifier's networks settle, right and wrong, so one can see which
look sends dice to review. Each die is matched to the nearest
proposal near its centre. On renders (the scenes of ``tools.bench.bench_categories``, rendered once
into its cache) only dice lying flat, fully visible, not marked uncertain and at least
``--min-size`` px across count; with ``--manifest`` the held-out table photos of the shared
datasets (no network trained on them) are scored instead, per source:

    .venv/bin/python -m tools.bench.bench_value_looks --count 300
    .venv/bin/python -m tools.bench.bench_value_looks --styles red,blue,green
    .venv/bin/python -m tools.bench.bench_value_looks --manifest ../shared/datasets/manifest.json

A measurement, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from tools.bench.common import cached_render, unseen_renders_parser
from vision.bench import load_manifest
from vision.detector import find_candidates
from vision.dice.detected import classifiers_overrule
from vision.io import load_image
from vision.learned import classify_crops_by_net, held_out_photos, pool
from vision.params import ReaderParams

#: (true value, x, y, how far from the centre a proposal may lie) of one labelled die
Truth = tuple[int, float, float, float]


def rendered_dice(args: argparse.Namespace) -> Iterator[tuple[str, NDArray[np.uint8], list[Truth]]]:
    """The unseen category renders, with their flat, fully visible, certain dice."""
    styles = set(args.styles.split(",")) if args.styles else None
    for index in range(args.start, args.start + args.count):
        image, truth = cached_render(args.cache, index)
        yield "renders", image, [
            (d["value"], d["x"], d["y"], d["size_px"] / 2) for d in truth["dice"]
            if d.get("visible", 1.0) >= 0.99 and d.get("tilt_deg", 0.0) < 5
            and not d.get("uncertain") and d["size_px"] >= args.min_size
            and (styles is None or d["style"] in styles)
        ]


def photo_dice(manifest: Path) -> Iterator[tuple[str, NDArray[np.uint8], list[Truth]]]:
    """The held-out table photos with labelled boxes; a die's centre is its box's."""
    root, entries = load_manifest(manifest)
    held = held_out_photos()
    for e in entries:
        if e.subset != "table" or e.image not in held or any(d.box is None for d in e.dice):
            continue
        dice = []
        for d in e.dice:
            assert d.box is not None
            x, y, w, h = d.box
            dice.append((d.value, x + w / 2, y + h / 2, 0.75 * max(w, h)))
        yield e.source, load_image(root / e.image), dice


def main(argv: list[str] | None = None) -> int:
    ap = unseen_renders_parser(__doc__.splitlines()[0])
    ap.add_argument("--min-size", type=float, default=20.0, help="least face size in px")
    ap.add_argument("--styles", help="only these dice styles, comma separated")
    ap.add_argument("--manifest", type=Path,
                    help="score the held-out photos of this manifest instead of renders")
    args = ap.parse_args(argv)
    params = ReaderParams()
    looks: dict[str, dict[str, Counter[tuple[int, int]]]] = defaultdict(
        lambda: {"detector": Counter(), "classifier": Counter()})
    both: dict[str, Counter[str]] = defaultdict(Counter)
    scenes = photo_dice(args.manifest) if args.manifest else rendered_dice(args)
    for group, image, dice in scenes:
        found = find_candidates(image, side=params.detector_side,
                                min_score=params.detector_min_score,
                                max_side=params.detector_max_side) if dice else []
        if not found:
            continue
        by_net = classify_crops_by_net(image, [(c.x, c.y, c.size) for c in found])
        second = pool(by_net)
        for value, x, y, reach in dice:
            nearest = min(range(len(found)),
                          key=lambda i: (found[i].x - x) ** 2 + (found[i].y - y) ** 2)
            c = found[nearest]
            if np.hypot(c.x - x, c.y - y) > reach:
                continue
            first, look = int(c.values.argmax()) + 1, int(second[nearest][1:].argmax()) + 1
            looks[group]["detector"][(value, first)] += 1
            looks[group]["classifier"][(value, look)] += 1
            both[group][_combined(value, first, look)] += 1
            if first != look and classifiers_overrule(by_net[:, nearest]):
                both[group][SETTLED[look == value]] += 1
    for group in sorted(looks):
        print(f"## {group}")
        for name, counts in looks[group].items():
            _print_confusion(name, counts)
        print("  both looks: " + ", ".join(f"{k} {both[group][k]}" for k in COMBINED))
        print("  disputes the classifier's networks settle (sure): "
              + ", ".join(f"{k} {both[group][k]}" for k in SETTLED))
    return 0


#: how the two looks at one die can combine (the agreement rule adjudicates only the first
#: two; "agree, wrong" is a silent misread unless presence or odds doubt the die)
COMBINED = ("agree, right", "agree, wrong", "only the classifier right",
            "only the detector right", "disagree, both wrong")


#: a disagreement each of the classifier's networks is sure of on its own
#: (``vision.dice.detected.classifiers_overrule``): the die is sure, with the classifier's value
SETTLED = ("settled wrong", "settled right")


def _combined(value: int, first: int, look: int) -> str:
    if first == look:
        return COMBINED[0] if look == value else COMBINED[1]
    if look == value:
        return COMBINED[2]
    return COMBINED[3] if first == value else COMBINED[4]


def _print_confusion(name: str, counts: Counter[tuple[int, int]]) -> None:
    right = sum(counts[(v, v)] for v in range(1, 7))
    total = sum(counts.values())
    print(f"{name}: {right} of {total} named right ({right / max(total, 1):.0%})")
    print("  true \\ named " + " ".join(f"{v:>4}" for v in range(1, 7)))
    for true in range(1, 7):
        print(f"  {true:>12} " + " ".join(f"{counts[(true, v)]:>4}" for v in range(1, 7)))


if __name__ == "__main__":
    raise SystemExit(main())
