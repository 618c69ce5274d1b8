"""How the cover check fares when the picture is dark, blown out, soft, grainy or tinted.

Dev-time only. Run from the repository root after ``tools.train.train_cover_check`` has mined its
patches (``.cache/cover_patches.npz``):

    .venv/bin/python -m tools.bench.bench_cover_conditions

Each held-out patch (dice the reader found on the held-out photos, as shot or with a drawing
over or beside them) is changed as a whole, then cropped and checked as a reveal would; the
reader's positions stay those of the unchanged photo, so this isolates the check. It prints,
per condition, the sure dice in plain view the check doubts at the shipped bar (needless
reviews) and the covered sure dice it catches.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.train.train_dice_verifier import centre_crops
from vision.cover_check import NET
from vision.params import ReaderParams
from vision.verifier import net_odds

Patch = NDArray[np.uint8]


def _scaled(gain: NDArray[np.float64] | float) -> Callable[[Patch], Patch]:
    return lambda p: np.asarray(np.clip(p * gain, 0, 255), np.uint8)


def _noisy(p: Patch) -> Patch:
    noise = np.random.default_rng(0).normal(0, 12, p.shape)
    return np.asarray(np.clip(p + noise, 0, 255), np.uint8)


CONDITIONS: dict[str, Callable[[Patch], Patch]] = {
    "as shot": lambda p: p,
    "dark (x0.4)": _scaled(0.4),
    "blown out (x1.6)": _scaled(1.6),
    "out of focus (1.5 px)": lambda p: np.asarray(cv2.GaussianBlur(p, (0, 0), 1.5), np.uint8),
    "grainy (sd 12)": _noisy,
    "warm light": _scaled(np.array([0.75, 0.95, 1.2])),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path(".cache/cover_patches.npz"))
    args = ap.parse_args()
    z = np.load(args.cache)
    labels, sure, kind = z["h_labels"], z["h_sure"], z["h_kind"]
    plain = (labels == 0) & sure & (kind == -1)
    covered = (labels == 1) & sure
    bar = ReaderParams().cover_doubt_odds
    for name, change in CONDITIONS.items():
        odds = net_odds(NET, centre_crops(np.stack([change(p) for p in z["h_pixels"]])))
        print(f"{name:24s} plain sure dice doubted {int((odds[plain] > bar).sum())}/"
              f"{int(plain.sum())}, covered sure dice caught {int((odds[covered] > bar).sum())}/"
              f"{int(covered.sum())}")

if __name__ == "__main__":
    main()
