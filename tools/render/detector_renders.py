"""Render varied table scenes as extra training photos for the die detector.

Dev-time only. Writes JPEGs and a manifest in the format of ``../shared/datasets`` (plus a
``centre`` per die and ``ignore`` for dice that lean or are half hidden) to a cache folder
that git ignores, so that ``tools/train/train_dice_detector.py`` can mix them with real photos:

    .venv/bin/python -m tools.render.detector_renders .cache/detector_renders --count 1200

Scenes are seeded by their index: the same command makes the same images. ``--family
board`` makes another family (seeded apart): many small dice (12-40 px) on a settlers-style
board among its die-sized pieces and dotted number tokens, the phone photos' hardest case.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from tools.render.camera import Camera
from tools.render.dice import STYLES, Die
from tools.render.generate import (
    cocked_against,
    random_camera,
    random_effects,
    random_light,
    random_table,
    scatter_dice,
    visible_region,
)
from tools.render.output import write_jpeg
from tools.render.renderer import render
from tools.render.scene import Scene

SIZES = ((640, 480), (480, 640), (640, 640), (800, 600))


def _scatter(rng: np.random.Generator, cam: Camera, die_px: float, count: int,
             most_touching: float) -> list[Die]:
    """Up to ``count`` dice of one to three styles in the camera's view (fewer where they do
    not fit), touching each other up to ``most_touching`` of the time."""
    region = visible_region(cam, margin_px=0.8 * die_px)
    n_styles = int(rng.integers(1, 4))
    styles = [str(s) for s in rng.choice(np.array(sorted(STYLES)), size=n_styles, replace=False)]
    values = [int(v) for v in rng.integers(1, 7, count)]
    while values:
        try:
            return scatter_dice(rng, region, values, styles=styles,
                                touching=float(rng.uniform(0, most_touching)), size_jitter=0.1)
        except ValueError:
            values = values[:-1]
    return []


def random_scene(index: int) -> Scene:
    """Scene number ``index``: 1-30 dice of 14-300 px, any style, table, tilt and light."""
    rng = np.random.default_rng(10_000 + index)
    width, height = SIZES[int(rng.integers(len(SIZES)))]
    kind = rng.random()
    if kind < 0.05:
        die_px, count = float(rng.uniform(20, 80)), 0
    elif kind < 0.15:
        die_px, count = float(rng.uniform(120, 300)), int(rng.integers(1, 3))
    else:
        die_px = float(np.exp(rng.uniform(np.log(14), np.log(110))))
        room = (width * height) / (4.5 * die_px) ** 2
        count = int(rng.integers(1, max(2, min(30, int(room))) + 1))
    cam = random_camera(rng, width, height, die_px=die_px, tilt=(0.0, 45.0))
    dice = _scatter(rng, cam, die_px, count, most_touching=0.7)
    if len(dice) >= 2 and rng.random() < 0.15:
        anchor = dice[0]
        dice.append(cocked_against(rng, anchor, int(rng.integers(1, 7)), anchor.style))
    return Scene(cam, random_light(rng), random_table(rng), index, dice,
                 effects=random_effects(rng, mild=bool(rng.random() < 0.3)), noise_seed=index)


def board_scene(index: int) -> Scene:
    """Scene number ``index`` of the board family: 3-30 dice of 12-40 px on a hex board."""
    rng = np.random.default_rng(50_000 + index)
    width, height = SIZES[int(rng.integers(len(SIZES)))]
    die_px = float(np.exp(rng.uniform(np.log(12), np.log(40))))
    room = (width * height) / (5.0 * die_px) ** 2
    count = int(rng.integers(3, max(4, min(30, int(room))) + 1))
    cam = random_camera(rng, width, height, die_px=die_px, tilt=(0.0, 40.0))
    dice = _scatter(rng, cam, die_px, count, most_touching=0.5)
    return Scene(cam, random_light(rng), "hex_board", 50_000 + index, dice,
                 effects=random_effects(rng, mild=bool(rng.random() < 0.3)), noise_seed=index)


FAMILIES = {"mixed": random_scene, "board": board_scene}


def entry_for(name: str, truth: dict[str, Any]) -> dict[str, Any]:
    """The manifest entry of one render: a box around each top face's outline."""
    dice = []
    for d in truth["dice"]:
        outline = np.array(d["outline"], float)
        lo, hi = outline.min(axis=0), outline.max(axis=0)
        inside = 0 <= d["x"] < truth["width"] and 0 <= d["y"] < truth["height"]
        if not inside or d["visible"] < 0.3:
            continue
        dice.append({"value": d["value"],
                     "box": [round(float(lo[0]), 1), round(float(lo[1]), 1),
                             round(float(hi[0] - lo[0]), 1), round(float(hi[1] - lo[1]), 1)],
                     "centre": [d["x"], d["y"]],
                     "ignore": bool(d["uncertain"])})
    return {"image": name, "dice": dice, "complete": True, "width": truth["width"],
            "height": truth["height"], "source": "render", "subset": "table"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--count", type=int, default=1200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--family", choices=sorted(FAMILIES), default="mixed")
    args = ap.parse_args()
    make_scene = FAMILIES[args.family]
    args.out.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    entries: list[dict[str, Any]] = (
        json.loads(manifest_path.read_text()) if manifest_path.exists() else [])
    done = {e["image"] for e in entries}
    t0 = time.time()
    for index in range(args.start, args.start + args.count):
        name = f"render_{index:05d}.jpg"
        if name in done:
            continue
        image, truth = render(make_scene(index))
        write_jpeg(args.out / name, image)
        entries.append(entry_for(name, truth))
        if len(entries) % 50 == 0:
            manifest_path.write_text(json.dumps(entries))
            print(f"{len(entries)} renders ({time.time() - t0:.0f}s)", flush=True)
    manifest_path.write_text(json.dumps(entries))
    print(f"wrote {len(entries)} renders to {args.out}")


if __name__ == "__main__":
    main()
