"""What the learned classifier adds: the manifest read by ``read_dice`` alone and by
``read_dice`` with ``learned_check`` (``refine_reading``), scored as
``bluffcam bench-vision`` scores it.

    .venv/bin/python -m tools.bench.bench_refine ../shared/datasets/manifest.json

The honest figure is the held-out one (photos the classifier never trained on, listed in
``vision/models/dice_value_holdout.json``); "all" includes its training photos. The last table
is the classifier alone on the single-die crops (the whole image is one die).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.bench import Entry, load_manifest, matched_pairs, run_bench, summarise
from vision.io import load_image
from vision.learned import classify_crops, held_out_photos
from vision.params import ReaderParams
from vision.reader import read_dice
from vision.types import Die, Reading

COLUMNS = ("accuracy", "precision", "image_exact", "face_error", "median_ms", "p95_ms")


def classical_reader(frame: np.ndarray, params: ReaderParams | None = None) -> Reading:
    return read_dice(frame, replace(params or ReaderParams(), learned_check=False))


def refined_reader(frame: np.ndarray, params: ReaderParams | None = None) -> Reading:
    return read_dice(frame, replace(params or ReaderParams(), learned_check=True))


def confident_misreads(root: Path, entries: list[Entry]) -> None:
    """Matched dice read wrong yet certain (confidence >= the reading's threshold): the silent
    misreads the project must not make; and dice read right but left uncertain."""
    for label, reader in (("classical", classical_reader), ("refined", refined_reader)):
        wrong_certain = wrong = right_uncertain = right = 0
        for e in entries:
            if any(d.box is None for d in e.dice):
                continue
            reading = reader(load_image(root / e.image))
            for labelled, die in _matches(e, reading):
                certain = die.confidence >= reading.min_confidence
                if die.value == labelled:
                    right += 1
                    right_uncertain += int(not certain)
                else:
                    wrong += 1
                    wrong_certain += int(certain)
        print(f"{label:>9}: {wrong} matched dice misread, {wrong_certain} of them certain; "
              f"{right} read right, {right_uncertain} of them left uncertain")


def _matches(entry: Entry, reading: Reading) -> list[tuple[int, Die]]:
    """(labelled value, matched die) by bench-vision's rule (``vision.bench.matched_pairs``)."""
    predicted = [(d.value, d.x, d.y) for d in reading.dice]
    return [(entry.dice[i].value, reading.dice[k])
            for i, k in matched_pairs(entry.dice, predicted)]


def print_table(title: str, root: Path, entries: list[Entry]) -> None:
    print(f"\n== {title} ({len(entries)} photos)")
    print(f"{'group':24} {'reader':>8}" + "".join(f" {c:>11}" for c in COLUMNS))
    for label, reader in (("classical", classical_reader), ("refined", refined_reader)):
        for s in summarise(run_bench(root, entries, reader=reader)):
            row = s.to_json()
            cells = "".join(f" {'-' if row[c] is None else row[c]:>11}" for c in COLUMNS)
            print(f"{row['name']:24} {label:>8}{cells}")


def crops_alone(root: Path, entries: list[Entry]) -> None:
    """The classifier alone on single-die crops: the whole image is the die (with a margin)."""
    crops = [e for e in entries if e.subset == "crop"]
    if not crops:
        return
    correct = 0
    for e in crops:
        image = load_image(root / e.image)
        h, w = image.shape[:2]
        (value,), _ = classify_crops(image, [((w - 1) / 2, (h - 1) / 2, 0.8 * max(h, w))])
        correct += int(value == e.dice[0].value)
    print(f"classifier alone on {len(crops)} single-die crops: accuracy "
          f"{correct / len(crops):.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", type=Path)
    ap.add_argument("--held-out-only", action="store_true", help="skip the all-photos tables")
    args = ap.parse_args()
    root, entries = load_manifest(args.manifest)
    held = held_out_photos()
    held_entries = [e for e in entries if e.image in held]
    print_table("held out (never trained on)", root, held_entries)
    print("held out:", end=" ")
    crops_alone(root, held_entries)
    confident_misreads(root, held_entries)
    if not args.held_out_only:
        print_table("all photos (includes training photos)", root, entries)
        print("all:", end=" ")
        crops_alone(root, entries)
        confident_misreads(root, entries)


if __name__ == "__main__":
    main()
