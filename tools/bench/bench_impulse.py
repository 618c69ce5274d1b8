"""The reader on photos with and without salt-and-pepper noise: what impulse noise costs.

Dev-time only. Most of the shared phone photos carry impulse noise (single black and white
pixels, smudged by JPEG: ``tools.render.impulse_noise``). This reads the held-out table photos (no
network trained on them) and prints the issue's figures

1. per source, for the photos that carry impulse noise and those that do not, and
2. for the clean ones again with salt-and-pepper added (seeded; 0.3, 1 and 3% of the pixels,
   then JPEG at quality 85), so that the noise is the only difference.

    .venv/bin/python -m tools.bench.bench_impulse ../shared/datasets/manifest.json

A measurement, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse

import numpy as np

from tools.render.impulse_noise import impulse_share, salt_and_pepper
from vision import ReaderParams
from vision.bench import ImageScore, held_out_table_photos, score_frames, summarise

#: a photo with more of its pixels standing out as impulses than this carries impulse noise
NOISY_SHARE = 0.002
#: shares of pixels set black or white on the clean photos
ADDED = (0.003, 0.01, 0.03)


def print_rows(label: str, scores: list[ImageScore]) -> None:
    for s in summarise(scores):
        if "/" not in s.name:
            continue
        j = s.to_json()
        print(f"| {label} | {s.name} | {j['images']} | {j['labelled']} | {j['accuracy']:.3f} | "
              f"{j['precision']:.3f} | {j['image_exact']:.3f} | {j['sure_wrong']} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", help="manifest.json (format of ../shared/datasets)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    params = ReaderParams()
    photos = held_out_table_photos(args.manifest)
    shares = [impulse_share(image) for _, image in photos]
    noisy = [photo for photo, share in zip(photos, shares, strict=True) if share > NOISY_SHARE]
    clean = [photo for photo, share in zip(photos, shares, strict=True) if share <= NOISY_SHARE]
    print(f"{len(photos)} held-out table photos: {len(noisy)} carry impulse noise "
          f"(over {NOISY_SHARE:.1%} of pixels stand out), {len(clean)} do not")
    print("| photos | source | images | dice | accuracy | precision | image exact | s.wrong |")
    print("|---|---|---|---|---|---|---|---|")
    print_rows("with impulse noise", score_frames(noisy, params))
    print_rows("clean", score_frames(clean, params))
    rng = np.random.default_rng(args.seed)
    for amount in ADDED:
        added = [(e, salt_and_pepper(im, amount, rng, jpeg_quality=85)) for e, im in clean]
        print_rows(f"clean + {amount:.1%} salt and pepper", score_frames(added, params))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
