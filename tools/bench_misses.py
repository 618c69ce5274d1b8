"""Where the reader loses dice on the held-out table photos, by what happened to each die.

Dev-time only. Every labelled die not read right is put in one category, from the last
stage that saw it (bench-vision's matching, ``vision.bench.matched_pairs``):

- ``wrong value``: a prediction is matched to it, with another value;
- ``shares a neighbour's prediction``: a prediction lies inside its grown box, but a
  nearer die took it (touching dice read as one);
- ``dropped after a strong peak``: the detector's heat in its box reaches
  ``detector_min_score``, yet no die was reported there (merged into a neighbour, or the
  classifier called it no die);
- ``faint peak turned down``: heat between ``detector_faint_score`` and
  ``detector_min_score``, not accepted by the die verifier or the classifier;
- ``weak peak`` (heat 0.1 up to the faint score) and ``not seen`` (under 0.1).

    .venv/bin/python -m tools.bench_misses ../shared/datasets/manifest.json

A measurement, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np
from numpy.typing import NDArray

from vision import ReaderParams, load_image, read_dice
from vision.bench import Entry, in_grown_box, load_manifest, matched_pairs
from vision.detector import heat_maps, pixel_to_cell, working_side
from vision.learned import held_out_photos

Box = tuple[float, float, float, float]
#: heat under this is "not seen"
SEEN = 0.1
CATEGORIES = ("wrong value", "shares a neighbour's prediction", "dropped after a strong peak",
              "faint peak turned down", "weak peak", "not seen")


def box_heat(heat: NDArray[np.float32], scale: float, box: Box) -> float:
    """The highest heat of the detector's map (read at ``scale``) over a labelled box."""
    x, y, w, h = box
    u0, u1 = (int(np.floor(pixel_to_cell((p + 0.5) * scale - 0.5))) for p in (x, x + w))
    v0, v1 = (int(np.floor(pixel_to_cell((p + 0.5) * scale - 0.5))) for p in (y, y + h))
    rows, cols = heat.shape
    patch = heat[max(v0, 0):min(v1 + 2, rows), max(u0, 0):min(u1 + 2, cols)]
    return float(patch.max()) if patch.size else 0.0


def loss_category(predicted_here: int | None, other_inside: bool, heat: float,
                  params: ReaderParams, label: int) -> str | None:
    """The category of one labelled die (``None``: read right). ``predicted_here`` is the
    value of the prediction matched to it, ``other_inside`` whether an unmatched-to-it
    prediction lies in its grown box, ``heat`` :func:`box_heat`."""
    if predicted_here is not None:
        return None if predicted_here == label else "wrong value"
    if other_inside:
        return "shares a neighbour's prediction"
    if heat >= params.detector_min_score:
        return "dropped after a strong peak"
    if heat >= params.detector_faint_score:
        return "faint peak turned down"
    return "weak peak" if heat >= SEEN else "not seen"


def photo_losses(entry: Entry, image: NDArray[np.uint8], params: ReaderParams) -> Counter[str]:
    """The categories of one photo's labelled dice not read right."""
    reading = read_dice(image, params)
    predicted = [(d.value, d.x, d.y) for d in reading.dice]
    matched = dict(matched_pairs(entry.dice, predicted))
    height, width = image.shape[:2]
    side = working_side(height, width, params.detector_side, params.detector_max_side)
    maps, scale = heat_maps(image, side, params.detector_views, params.detector_networks)
    losses: Counter[str] = Counter()
    for i, die in enumerate(entry.dice):
        assert die.box is not None
        k = matched.get(i)
        inside = any(in_grown_box(die.box, x, y) for _, x, y in predicted)
        category = loss_category(None if k is None else predicted[k][0], inside,
                                 box_heat(maps[0], scale, die.box), params, die.value)
        if category is not None:
            losses[category] += 1
    return losses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", help="manifest.json (format of ../shared/datasets)")
    ap.add_argument("--split", choices=("held-out", "trained"), default="held-out",
                    help="trained: the photos the networks learned from (is a loss there one "
                         "the networks could not fit, or one they do not generalise?)")
    args = ap.parse_args()
    root, entries = load_manifest(args.manifest)
    held = held_out_photos()
    params = ReaderParams()
    by_source: dict[str, Counter[str]] = {}
    labelled: Counter[str] = Counter()
    for entry in entries:
        if (entry.image in held) != (args.split == "held-out") or entry.subset != "table":
            continue
        if any(d.box is None for d in entry.dice):
            continue
        labelled[entry.source] += len(entry.dice)
        losses = photo_losses(entry, load_image(root / entry.image), params)
        by_source.setdefault(entry.source, Counter()).update(losses)
    print("| source | labelled | not read right | " + " | ".join(CATEGORIES) + " |")
    print("|---|---|---|" + "---|" * len(CATEGORIES))
    for source in sorted(labelled):
        losses = by_source.get(source, Counter())
        cells = " | ".join(str(losses[c]) for c in CATEGORIES)
        print(f"| {source} | {labelled[source]} | {sum(losses.values())} | {cells} |")


if __name__ == "__main__":
    main()
