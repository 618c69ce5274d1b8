"""Time the dice reader on a 12-megapixel frame (what a Pi HQ camera gives at full size).

    .venv/bin/python -m tools.bench.bench_large_frame ../shared/datasets/manifest.json

Takes the first table photo of the manifest, scales it to 4032×3024 (the dice grow with it,
as they would on a higher-resolution sensor), reads it once to warm up, then ``--reads``
times, and prints the median and the slowest read. A benchmark, not a test: it asserts
nothing.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import cv2
import numpy as np

from vision import ReaderParams, load_image, read_dice
from vision.bench import load_manifest

SIZE = (4032, 3024)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", help="manifest.json (format of ../shared/datasets)")
    ap.add_argument("--reads", type=int, default=5, help="timed reads (default 5)")
    ap.add_argument("--source", default="matteo", help="photo source to take (default matteo)")
    args = ap.parse_args(argv)
    root, entries = load_manifest(args.manifest)
    entry = next(e for e in entries if e.subset == "table" and e.source == args.source)
    frame = np.asarray(cv2.resize(load_image(root / entry.image), SIZE,
                                  interpolation=cv2.INTER_CUBIC), np.uint8)
    params = ReaderParams()
    read_dice(frame, params)
    times = []
    for _ in range(args.reads):
        start = time.perf_counter()
        reading = read_dice(frame, params)
        times.append((time.perf_counter() - start) * 1000)
    print(f"{entry.image} at {SIZE[0]}x{SIZE[1]}: {len(reading.dice)} dice")
    print(f"median {statistics.median(times):.1f} ms, slowest {max(times):.1f} ms "
          f"over {args.reads} reads ({platform.machine()}, Python {platform.python_version()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
