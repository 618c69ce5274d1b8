"""Draw what the reader saw on manifest photos: pip candidates, faces, and the labels.

    .venv/bin/python tools/bench/vision_debug.py ../shared/datasets/manifest.json OUT_DIR \
        --source epanemu --limit 8 [--worst]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from vision import ReaderParams, draw_reading, load_image, read_dice
from vision.bench import load_manifest, run_bench
from vision.dice.pips import find_pips


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("manifest")
    ap.add_argument("out")
    ap.add_argument("--source")
    ap.add_argument("--limit", type=int, default=8)
    ap.add_argument("--worst", action="store_true", help="pick the photos with most errors")
    ap.add_argument("--skip", type=int, default=0)
    args = ap.parse_args()
    root, entries = load_manifest(args.manifest)
    entries = [e for e in entries if args.source in (None, e.source)]
    if args.worst:
        scores = run_bench(root, entries)
        scores.sort(key=lambda s: -(s.face_error + s.labelled - s.correct))
        entries = [s.entry for s in scores]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    params = ReaderParams()
    for k, entry in enumerate(entries[args.skip:args.skip + args.limit]):
        image = load_image(root / entry.image)
        gray = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
        pips = find_pips(gray, min_contrast=params.min_pip_contrast,
                         min_fill=params.min_pip_circularity,
                         max_elongation=params.max_pip_elongation,
                         min_diameter=params.min_pip_diameter_px, polarity="auto")
        canvas = draw_reading(image, read_dice(image, params))
        for p in pips:
            colour = (255, 0, 255) if p.dark else (255, 255, 0)
            cv2.circle(canvas, (round(p.x), round(p.y)), max(1, round(p.diameter / 2)), colour, 1)
        for d in entry.dice:
            if d.box:
                x, y, w, h = map(int, d.box)
                cv2.rectangle(canvas, (x, y), (x + w, y + h), (255, 0, 0), 1)
                cv2.putText(canvas, str(d.value), (x + w, y + h), 0, 0.5, (255, 0, 0), 1)
        big = cv2.resize(canvas, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST) \
            if max(canvas.shape[:2]) < 400 else canvas
        cv2.imwrite(str(out / f"{k:02d}_{Path(entry.image).stem}.png"), np.ascontiguousarray(big))


if __name__ == "__main__":
    main()
