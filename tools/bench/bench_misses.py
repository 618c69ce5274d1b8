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

    .venv/bin/python -m tools.bench.bench_misses ../shared/datasets/manifest.json \
        [--sheet losses.png]

A measurement, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import ReaderParams, load_image, read_dice
from vision.bench import Entry, LabelledDie, in_grown_box, load_manifest, matched_pairs
from vision.detector import heat_maps, pixel_to_cell, working_side
from vision.learned import held_out_photos

Box = tuple[float, float, float, float]
#: heat under this is "not seen"
SEEN = 0.1
#: the side of one die's picture on the contact sheet (``--sheet``)
TILE = 200
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


@dataclass(frozen=True)
class Loss:
    """One labelled die not read right: its category, label and what was read there."""

    category: str
    die: LabelledDie
    read_as: int | None


def photo_losses(entry: Entry, image: NDArray[np.uint8], params: ReaderParams) -> list[Loss]:
    """One photo's labelled dice not read right, each with its category."""
    reading = read_dice(image, params)
    predicted = [(d.value, d.x, d.y) for d in reading.dice]
    matched = dict(matched_pairs(entry.dice, predicted))
    height, width = image.shape[:2]
    side = working_side(height, width, params.detector_side, params.detector_max_side)
    maps, scale = heat_maps(image, side, params.detector_views, params.detector_networks)
    losses = []
    for i, die in enumerate(entry.dice):
        assert die.box is not None
        k = matched.get(i)
        read_as = None if k is None else predicted[k][0]
        inside = any(in_grown_box(die.box, x, y) for _, x, y in predicted)
        category = loss_category(read_as, inside, box_heat(maps[0], scale, die.box), params,
                                 die.value)
        if category is not None:
            losses.append(Loss(category, die, read_as))
    return losses


def loss_tile(image: NDArray[np.uint8], loss: Loss, size: int = TILE) -> NDArray[np.uint8]:
    """The lost die with as much around it again on each side, enlarged to ``size`` square
    and captioned with its label, its category and what was read: to judge by eye whether
    the photo shows its top face at all."""
    assert loss.die.box is not None
    x, y, w, h = loss.die.box
    reach = max(w, h) * 1.2
    cx, cy = x + w / 2, y + h / 2
    x0, y0 = int(max(cx - reach, 0)), int(max(cy - reach, 0))
    x1, y1 = int(min(cx + reach, image.shape[1])), int(min(cy + reach, image.shape[0]))
    tile = cv2.resize(image[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)], (size, size),
                      interpolation=cv2.INTER_CUBIC)
    read = "-" if loss.read_as is None else str(loss.read_as)
    for line, text in enumerate((f"label {loss.die.value}, read {read}", loss.category)):
        cv2.putText(tile, text, (4, 16 + 16 * line), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    (0, 0, 255), 1, cv2.LINE_AA)
    return np.asarray(tile, np.uint8)


def contact_sheet(tiles: list[NDArray[np.uint8]], columns: int = 6) -> NDArray[np.uint8]:
    """Tiles of one size laid out in rows of ``columns`` (the last row padded with black)."""
    if not tiles:
        return np.zeros((TILE, TILE, 3), np.uint8)
    blank = np.zeros_like(tiles[0])
    padded = tiles + [blank] * (-len(tiles) % columns)
    rows = [np.hstack(padded[i:i + columns]) for i in range(0, len(padded), columns)]
    return np.asarray(np.vstack(rows), np.uint8)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", help="manifest.json (format of ../shared/datasets)")
    ap.add_argument("--split", choices=("held-out", "trained"), default="held-out",
                    help="trained: the photos the networks learned from (is a loss there one "
                         "the networks could not fit, or one they do not generalise?)")
    ap.add_argument("--sheet", metavar="PNG",
                    help="also draw every lost die, captioned, on one contact sheet (kept out "
                         "of the repository: it is cut from the dataset's photos)")
    args = ap.parse_args()
    root, entries = load_manifest(args.manifest)
    held = held_out_photos()
    params = ReaderParams()
    by_source: dict[str, Counter[str]] = {}
    labelled: Counter[str] = Counter()
    tiles: list[NDArray[np.uint8]] = []
    for entry in entries:
        if (entry.image in held) != (args.split == "held-out") or entry.subset != "table":
            continue
        if any(d.box is None for d in entry.dice):
            continue
        labelled[entry.source] += len(entry.dice)
        image = load_image(root / entry.image)
        lost = photo_losses(entry, image, params)
        by_source.setdefault(entry.source, Counter()).update(loss.category for loss in lost)
        tiles += [loss_tile(image, loss) for loss in lost] if args.sheet else []
    print("| source | labelled | not read right | " + " | ".join(CATEGORIES) + " |")
    print("|---|---|---|" + "---|" * len(CATEGORIES))
    for source in sorted(labelled):
        losses = by_source.get(source, Counter())
        cells = " | ".join(str(losses[c]) for c in CATEGORIES)
        print(f"| {source} | {labelled[source]} | {sum(losses.values())} | {cells} |")
    if args.sheet:
        cv2.imwrite(args.sheet, contact_sheet(tiles))
        print(f"{len(tiles)} lost dice drawn on {args.sheet}")


if __name__ == "__main__":
    main()
