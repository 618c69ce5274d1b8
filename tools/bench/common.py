"""What the benches share: the cached unseen renders and how a reading of one is scored,
the table photos' rows under a changed condition, and recorded frames paced as a live
camera. Benches import this, never each other.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision import ReaderParams, read_dice
from vision.bench import Entry, score_frames, summarise
from vision.types import Reading

#: first scene index: far from the indices the detector's training renders used
FIRST_UNSEEN = 100_000
SIZE_BUCKETS = ((0, 20), (20, 35), (35, 60), (60, 120), (120, 10_000))


def cached_render(cache: Path, index: int) -> tuple[np.ndarray, dict[str, Any]]:
    """Scene ``index`` as (BGR image, truth), rendered once and then read from ``cache``."""
    image_path, truth_path = cache / f"scene_{index}.jpg", cache / f"scene_{index}.json"
    if not truth_path.exists():
        from tools.render.detector_renders import random_scene
        from tools.render.output import write_jpeg
        from tools.render.renderer import render

        image, truth = render(random_scene(index))
        cache.mkdir(parents=True, exist_ok=True)
        write_jpeg(image_path, image)
        truth_path.write_text(json.dumps(truth))
    image = np.asarray(cv2.imread(str(image_path), cv2.IMREAD_COLOR), np.uint8)
    return image, json.loads(truth_path.read_text())


def unseen_renders_parser(description: str) -> argparse.ArgumentParser:
    """The options of a bench over the cached unseen renders: how many, from which index,
    and where the cache lies."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--start", type=int, default=FIRST_UNSEEN)
    ap.add_argument("--cache", type=Path, default=Path(".cache/category_renders"))
    return ap


def view_tilt_deg(truth: dict[str, Any]) -> float:
    """How far the camera looks away from straight down (degrees)."""
    axis_z = float(truth["camera"]["rotation"][2][2])
    return float(np.degrees(np.arccos(np.clip(-axis_z, -1.0, 1.0))))


def view_tilt_group(truth: dict[str, Any]) -> str:
    """The scene's view tilt as a category: 0-15, 15-30 or 30+ degrees."""
    tilt = view_tilt_deg(truth)
    return "view tilt 0-15" if tilt < 15 else "view tilt 15-30" if tilt < 30 else "view tilt 30+"


def categories(die: dict[str, Any], truth: dict[str, Any]) -> list[str]:
    size = float(die["size_px"])
    lo, hi = next(b for b in SIZE_BUCKETS if b[0] <= size < b[1])
    return [
        "all",
        f"size {lo}-{hi} px" if hi < 10_000 else f"size {lo}+ px",
        f"style {die['style']}",
        f"table {truth['table']}",
        view_tilt_group(truth),
        "touching" if die.get("touching") else "apart",
    ]


def nearest_pairs(readable: list[dict[str, Any]], reading: Reading) -> dict[int, int]:
    """{readable die index: prediction index}: each die with the nearest prediction within
    half its size, pairs taken nearest first over the whole scene, so that where dice touch a
    die listed first cannot take its neighbour's prediction (the same rule as
    :func:`vision.bench.matched_pairs`), and the score does not depend on the order the dice
    are listed in."""
    pairs = []
    for i, d in enumerate(readable):
        for k, p in enumerate(reading.dice):
            gap = float(np.hypot(p.x - d["x"], p.y - d["y"]))
            if gap <= 0.5 * float(d["size_px"]):
                pairs.append((gap, p.value != d["value"], i, k))
    out: dict[int, int] = {}
    taken: set[int] = set()
    for _, _, i, k in sorted(pairs):
        if i not in out and k not in taken:
            out[i] = k
            taken.add(k)
    return out


def score_scene(reading: Reading, truth: dict[str, Any], tally: dict[str, list[int]]) -> int:
    """Add each readable die to its categories' [dice, found, right, sure wrong]; return the
    number of false dice (predictions near no die at all)."""
    readable = [d for d in truth["dice"] if d["visible"] >= 0.9 and not d["uncertain"]
                and 0 <= d["x"] < truth["width"] and 0 <= d["y"] < truth["height"]]
    paired = nearest_pairs(readable, reading)
    for i, d in enumerate(readable):
        k = paired.get(i)
        found = k is not None
        right = k is not None and reading.dice[k].value == d["value"]
        sure_wrong = k is not None and not right and \
            reading.dice[k].confidence >= reading.min_confidence
        for name in categories(d, truth):
            row = tally[name]
            row[0] += 1
            row[1] += int(found)
            row[2] += int(right)
            row[3] += int(sure_wrong)
    used = set(paired.values())
    others = truth["dice"]
    return sum(1 for k, p in enumerate(reading.dice) if k not in used and not any(
        np.hypot(p.x - d["x"], p.y - d["y"]) <= 0.6 * float(d["size_px"]) for d in others))


def score_unseen_renders(count: int, start: int = FIRST_UNSEEN,
                         cache: Path = Path(".cache/category_renders")) -> None:
    """Read ``count`` unseen renders from ``start`` with the default reader and print, per
    category, how many dice were found, read right, and reported sure but wrong."""
    params = ReaderParams()
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    false_dice = scenes = 0
    t0 = time.time()
    for index in range(start, start + count):
        image, truth = cached_render(cache, index)
        false_dice += score_scene(read_dice(image, params), truth, tally)
        scenes += 1
    print(f"{scenes} unseen rendered scenes, {false_dice} false dice "
          f"({false_dice / max(scenes, 1):.2f} per scene), {time.time() - t0:.0f}s\n")
    print("| category | dice | found | read right | sure and wrong |")
    print("|---|---|---|---|---|")
    for name in sorted(tally, key=lambda n: (n != "all", n)):
        dice, found, right, wrong = tally[name]
        print(f"| {name} | {dice} | {found / dice:.3f} | {right / dice:.3f} | {wrong} |")



Image = NDArray[np.uint8]


def jpeg(image: NDArray[Any], quality: int = 90) -> Image:
    """``image`` clipped to 0..255 and saved and loaded as JPEG at ``quality``."""
    clipped = np.clip(image, 0, 255).astype(np.uint8)
    ok, buffer = cv2.imencode(".jpg", clipped, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return np.asarray(cv2.imdecode(buffer, cv2.IMREAD_COLOR), np.uint8)


def print_rows(label: str, frames: list[tuple[Entry, Image]], params: ReaderParams) -> None:
    for s in summarise(score_frames(frames, params)):
        if "/" not in s.name:
            continue
        j = s.to_json()
        print(f"| {label} | {s.name} | {j['accuracy']:.3f} | {j['precision']:.3f} | "
              f"{j['image_exact']:.3f} | {j['sure_share']:.3f} | {j['sure_wrong']} |",
              flush=True)


class PacedRecording:
    """Recorded frames as a live camera gives them: frame i is on the sensor from
    ``start + i * period`` (the last for good); a read waits for the next frame (a late reader
    gets the frame showing now, as a camera drops frames) and gets a fresh copy, as a new
    sensor readout. ``start`` may be moved before reading (to the press of a capture)."""

    def __init__(self, frames: list[np.ndarray], fps: float) -> None:
        self.recorded, self.period = frames, 1.0 / fps
        self.start = time.perf_counter()

    def paced(self) -> Iterator[np.ndarray]:
        n = 0
        while True:
            wait = self.start + n * self.period - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            else:
                n = int((time.perf_counter() - self.start) / self.period)
            yield self.recorded[min(n, len(self.recorded) - 1)].copy()
            n += 1
