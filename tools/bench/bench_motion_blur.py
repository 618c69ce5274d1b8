"""The reader on smeared photos: what motion blur costs, and what the smear check catches.

Dev-time only. A die photographed while it still rolls, or by a hand or camera that shook,
is smeared along a line; the looks read smeared pips as more pips with every look agreeing
(one webcam photo of the shared set has two such 4s read as 6s). This reads the held-out
table photos (no network trained on them) smeared along a straight line of each length at a
seeded random angle per photo, then JPEG at quality 90, with the smear check
(``ReaderParams.min_gradient_balance``, ``vision.smear``) off and on:

    .venv/bin/python -m tools.bench.bench_motion_blur ../shared/datasets/manifest.json

A measurement, not a test: it asserts nothing. ``sure%`` is the share of the dice found that
are reported sure; ``s.wrong`` the dice reported sure and wrong (silent misreads).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from tools.bench.common import jpeg, print_rows
from tools.train.train_dice_classifier import motion_blur
from vision import ReaderParams
from vision.bench import held_out_table_photos

#: smear lengths in pixels of the shared photos (at most 640 px; a webcam die is 60-80 px,
#: a phone photo's 15-40)
LENGTHS = (0, 5, 9, 13)


def smeared(image: NDArray[np.uint8], length: float, angle: float) -> NDArray[np.uint8]:
    """``image`` smeared along a ``length``-pixel line at ``angle`` degrees, then saved as
    JPEG (as a camera would save it); unchanged where ``length`` is under 1."""
    if length < 1:
        return image
    return jpeg(motion_blur(image, length, angle))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", help="manifest.json (format of ../shared/datasets)")
    ap.add_argument("--lengths", type=float, nargs="+", default=list(LENGTHS))
    args = ap.parse_args(argv)
    on = ReaderParams()
    off = replace(on, min_gradient_balance=0.0)
    photos = held_out_table_photos(args.manifest)
    print("| smear, check | source | accuracy | precision | image exact | sure% | s.wrong |")
    print("|---|---|---|---|---|---|---|")
    for length in args.lengths:
        rng = np.random.default_rng(round(length * 10))
        frames = [(e, smeared(image, length, rng.uniform(0.0, 180.0))) for e, image in photos]
        print_rows(f"{length:g} px, off", frames, off)
        print_rows(f"{length:g} px, on ({on.min_gradient_balance})", frames, on)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
