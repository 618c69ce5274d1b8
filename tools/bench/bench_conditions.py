"""The reader under the conditions issue #3 lists: what each costs, and whether it misleads.

Dev-time only. The shared photos were taken in few conditions; a table's camera meets more
(a dim room, a lamp overhead, a shadow across the mat, a cheap lens out of focus). This reads
the held-out table photos (no network trained on them) once as shot and once under each
condition below, made from the photo itself (seeded; then JPEG at quality 90 as a camera
saves it), and prints the issue's figures with the dice reported sure and wrong:

    .venv/bin/python -m tools.bench.bench_conditions ../shared/datasets/manifest.json

A measurement, not a test: it asserts nothing. Motion blur has its own bench
(``tools.bench.bench_motion_blur``), impulse noise too (``tools.bench.bench_impulse``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.bench.common import Image, jpeg, print_rows
from vision import ReaderParams
from vision.bench import Entry, held_out_table_photos


def ramp(shape: tuple[int, ...], angle: float) -> NDArray[np.float32]:
    """0..1 across a frame of ``shape`` along the direction ``angle`` (degrees)."""
    h, w = shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = xx * np.cos(np.radians(angle)) + yy * np.sin(np.radians(angle))
    return np.asarray((t - t.min()) / max(float(np.ptp(t)), 1e-6), np.float32)


def uneven_light(image: Image, rng: np.random.Generator) -> Image:
    """A lamp off to one side: brightness falls from 1.15 to 0.35 across the frame."""
    gain = 0.35 + 0.8 * ramp(image.shape, rng.uniform(0, 360))
    return jpeg(image.astype(np.float32) * gain[..., None])


def shadow(image: Image, rng: np.random.Generator) -> Image:
    """A soft-edged shadow (0.45 of the light) over one side of a line through the middle."""
    edge = np.clip((ramp(image.shape, rng.uniform(0, 360)) - 0.5) * 12 + 0.5, 0, 1)
    return jpeg(image.astype(np.float32) * (0.45 + 0.55 * edge)[..., None])


def enlarged(image: Image, factor: int) -> Image:
    """``image`` ``factor`` times bigger (cubic), then JPEG as a camera saves it."""
    return jpeg(cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC))


Make = Callable[[Image, np.random.Generator], Image]
#: condition: (how to make it from a photo, the scale it leaves the photo at)
CONDITIONS: dict[str, tuple[Make, float]] = {
    "out of focus (Gaussian 1.5 px)":
        (lambda im, rng: jpeg(cv2.GaussianBlur(im, (0, 0), 1.5)), 1.0),
    "out of focus (Gaussian 3 px)": (lambda im, rng: jpeg(cv2.GaussianBlur(im, (0, 0), 3.0)), 1.0),
    "sensor noise (sd 12)": (lambda im, rng: jpeg(im + rng.normal(0, 12, im.shape)), 1.0),
    "sensor noise (sd 25)": (lambda im, rng: jpeg(im + rng.normal(0, 25, im.shape)), 1.0),
    "JPEG quality 15": (lambda im, rng: jpeg(im, 15), 1.0),
    "under-exposed (gamma 2.2, x0.6)":
        (lambda im, rng: jpeg(255 * (im / 255.0) ** 2.2 * 0.6), 1.0),
    "over-exposed (x1.4 + 10)": (lambda im, rng: jpeg(im.astype(np.float32) * 1.4 + 10), 1.0),
    "warm white balance": (lambda im, rng: jpeg(im * np.array([0.7, 0.95, 1.25])), 1.0),
    "uneven light": (uneven_light, 1.0),
    "shadow across half": (shadow, 1.0),
    "half the size": (lambda im, rng: np.asarray(
        cv2.resize(im, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA), np.uint8), 0.5),
    # a camera of more pixels: the same dice, bigger (read at a larger working size)
    "twice the size": (lambda im, rng: enlarged(im, 2), 2.0),
    "four times the size": (lambda im, rng: enlarged(im, 4), 4.0),
}


def scaled(entry: Entry, factor: float) -> Entry:
    """``entry`` with its labelled boxes scaled by ``factor``, for a photo resized so."""
    if factor == 1.0:
        return entry
    def box(b: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        return (b[0] * factor, b[1] * factor, b[2] * factor, b[3] * factor)

    return replace(entry, dice=tuple(d if d.box is None else replace(d, box=box(d.box))
                                     for d in entry.dice))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", help="manifest.json (format of ../shared/datasets)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", metavar="TEXT",
                    help="only the conditions whose name holds TEXT (e.g. 'size')")
    args = ap.parse_args(argv)
    params = ReaderParams()
    photos = held_out_table_photos(args.manifest)
    print("| condition | source | accuracy | precision | image exact | sure% | s.wrong |")
    print("|---|---|---|---|---|---|---|")
    print_rows("as shot", photos, params)
    for name, (make, factor) in CONDITIONS.items():
        if args.only not in name:
            continue
        rng = np.random.default_rng(args.seed)
        changed = [(scaled(e, factor), make(image, rng)) for e, image in photos]
        print_rows(name, changed, params)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
