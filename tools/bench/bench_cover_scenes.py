"""How the cover check sorts dice beside and under real cups: rendered reveals.

Dev-time only. Run from the repository root:

    .venv/bin/python -m tools.bench.bench_cover_scenes [--first 50000 --count 200]

Each scene (``tools.render.cover_scenes``, rendered by the project, cached under
``.cache/cover_scenes``) is a reveal of 2 to 4 seats whose cups are set down right beside
the dice, still held over them, or put aside, with a hand reaching in now and then. The
renderer knows how much of each die's top face is seen. The reader reads the frame, and for
each die it reports as sure the check's odds are tallied against that truth: dice in plain
view it doubts (a needless review each), dice partly hidden it catches, and dice read sure
and wrong it catches (the silent misreads it is for). Seeds from 50,000 are the bench's;
``tools.train.train_cover_check --scenes`` trains on seeds below it.
"""

from __future__ import annotations

import argparse
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from tools.render.cover_scenes import cached_cover_scene, rendered_die
from vision import ReaderParams, read_dice
from vision.cover_check import covered_odds

CACHE = Path(".cache/cover_scenes")
#: a die counts as in plain view from this share of its top face seen ...
WHOLE = 0.98
#: ... and as covered up to this share (in between: not counted)
COVERED = 0.8
BARS = (0.5, 0.9, 0.97)


def scene_rows(seed: int) -> list[tuple[float, bool, float]]:
    """(visible share, read right, covered odds) for each sure die of one scene that matches
    a rendered die (nearest centre within 0.6 of its size)."""
    image, truth = cached_cover_scene(seed, CACHE)
    sure = read_dice(image, ReaderParams()).sure
    odds = covered_odds(image, [(d.x, d.y, d.side_px) for d in sure])
    rows = []
    for die, p in zip(sure, odds, strict=True):
        near = rendered_die(die.x, die.y, truth["dice"])
        if near is None:
            continue
        rows.append((float(near["visible"]), die.value == near["value"], float(p)))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=50_000)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with Pool(args.workers) as pool:
        per_scene = pool.map(scene_rows, range(args.first, args.first + args.count))
    rows = np.array([(n, *r) for n, scene in enumerate(per_scene) for r in scene],
                    np.float64).reshape(-1, 4)
    scene, visible, right, odds = rows[:, 0], rows[:, 1], rows[:, 2] > 0, rows[:, 3]
    whole, covered = visible >= WHOLE, visible <= COVERED
    wrong = covered & ~right
    print(f"{args.count} scenes: {int(whole.sum())} sure dice in plain view, "
          f"{int(covered.sum())} covered ({int(wrong.sum())} of them read wrong), "
          f"{int((~right & ~covered).sum())} read wrong uncovered")
    for bar in BARS:
        flag = odds > bar
        print(f"  at {bar}: plain view doubted {int((flag & whole).sum())}/{int(whole.sum())}, "
              f"covered caught {int((flag & covered).sum())}/{int(covered.sum())}, "
              f"covered and read wrong caught {int((flag & wrong).sum())}/{int(wrong.sum())}; "
              f"reveals sent to review for a die in plain view "
              f"{len(set(scene[flag & whole].tolist()))}/{args.count}")


if __name__ == "__main__":
    main()
