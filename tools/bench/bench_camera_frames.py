"""The reader on camera-sized frames made of real photos: the regime of a table camera.

Dev-time only. The shared photos are at most 640 px; a table camera's frame is 1280-2028 px
and more, with dice of about the same pixel size, so they fill less of it. This tiles the
held-out photos (no network trained on them) 2x2 and 3x3 — the same dice, in a frame two or
three times bigger — writes the mosaics and a manifest to a git-ignored cache (never into
the project), and scores them as ``bluffcam bench-vision`` does:

    .venv/bin/python -m tools.bench.bench_camera_frames ../shared/datasets/manifest.json

A measurement, not a test: it asserts nothing. ``--shrink-to-working-side`` reads every frame
at the detector's working side whatever its size (the reader's first way of reading big frames).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

import vision.detector
from bluffcam.commands import bench_vision
from vision import load_image
from vision.bench import load_manifest
from vision.learned import held_out_photos

SOURCES = ("matteo", "epanemu")


def write_mosaics(manifest: Path, cache: Path) -> Path:
    """Tile the complete held-out table photos of each source n x n (n = 2, 3)."""
    root, entries = load_manifest(manifest)
    held = held_out_photos()
    cache.mkdir(parents=True, exist_ok=True)
    out: list[dict[str, Any]] = []
    for source in SOURCES:
        photos = [e for e in entries if e.source == source and e.image in held and e.complete]
        for n in (2, 3):
            for k in range(0, len(photos) - n * n + 1, n * n):
                group = photos[k:k + n * n]
                first = load_image(root / group[0].image)
                h, w = first.shape[:2]
                canvas = np.zeros((h * n, w * n, 3), np.uint8)
                dice = []
                for i, entry in enumerate(group):
                    image = load_image(root / entry.image)
                    if image.shape[:2] != (h, w):
                        image = np.asarray(cv2.resize(image, (w, h)), np.uint8)
                    ox, oy = (i % n) * w, (i // n) * h
                    canvas[oy:oy + h, ox:ox + w] = image
                    for d in entry.dice:
                        box = [d.box[0] + ox, d.box[1] + oy, d.box[2], d.box[3]] if d.box else None
                        dice.append({"value": d.value, "box": box})
                name = f"{source}{n}x{n}_{k:03d}.png"
                cv2.imwrite(str(cache / name), canvas)
                out.append({"image": name, "dice": dice, "complete": True, "width": w * n,
                            "height": h * n, "source": f"{source}{n}x{n}", "subset": "table"})
    path = cache / "manifest.json"
    path.write_text(json.dumps(out))
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", type=Path, help="manifest.json (format of ../shared/datasets)")
    ap.add_argument("--cache", type=Path, default=Path(".cache/camera_frames"))
    ap.add_argument("--shrink-to-working-side", action="store_true",
                    help="read big frames at the working side (the reader's first way)")
    args = ap.parse_args(argv)
    mosaics = write_mosaics(args.manifest, args.cache)
    if args.shrink_to_working_side:
        vision.detector.MAX_SHRINK = float("inf")
    parser = argparse.ArgumentParser()
    bench_vision.add_arguments(parser)
    return bench_vision.run(parser.parse_args([str(mosaics)]))


if __name__ == "__main__":
    raise SystemExit(main())
