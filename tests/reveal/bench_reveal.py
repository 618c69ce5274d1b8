"""Benchmark: how long a reveal capture takes (prints figures; not a test).

    .venv/bin/python tests/reveal/bench_reveal.py [--repeat 5]

Times the stillness check per frame and a whole `capture_reveal` (wait for still + read and
vote over 5 frames) on drawn 640×480 frames, and on the rendered 800×600 reveal cases.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cv2

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from drawn_dice import DrawnDie, hand_leaves  # noqa: E402

from vision.reveal import capture_reveal  # noqa: E402
from vision.stillness import StillnessParams, moving_fraction, prepare  # noqa: E402
from vision.zones import PolygonZones  # noqa: E402


def timed(function, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def report(label: str, times: list[float]) -> None:
    print(
        f"{label:<48} median {statistics.median(times) * 1000:8.1f} ms   "
        f"min {min(times) * 1000:8.1f} ms   (n={len(times)})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    dice = [DrawnDie(60 + 70 * i, 330 + 20 * (i % 2), 1 + i % 6, 0.2 * i) for i in range(8)]
    frames = hand_leaves(dice, moving=4, still=8)
    params = StillnessParams(still_frames=4)
    small = [prepare(f, params) for f in frames]
    report(
        "stillness: prepare + difference, per frame",
        timed(
            lambda: moving_fraction(prepare(frames[0], params), small[1], params), args.repeat * 20
        ),
    )
    zones = PolygonZones(("Seat 1",), (((0, 0), (639, 0), (639, 479), (0, 479)),))
    report(
        "capture_reveal, drawn 640x480, up to 5 frames",
        timed(
            lambda: capture_reveal(iter(frames), zones, {"Ann": 8}, None, stillness=params),
            args.repeat,
        ),
    )
    data = HERE.parent / "data" / "reveal"
    for case in ("ok", "uncertain"):
        truth_path = data / f"{case}.json"
        if not truth_path.exists():
            print(f"(rendered case {case} not found in {data})")
            continue
        truth = json.loads(truth_path.read_text())
        image = cv2.imread(str(data / truth["image"]))
        seats = truth["layout"]["seats"]
        case_zones = PolygonZones(
            tuple(s["name"] for s in seats),
            tuple(tuple(map(tuple, s["zone"])) for s in seats),
            tuple(tuple(map(tuple, s["front"])) if s.get("front") else None for s in seats),
        )
        report(
            f"capture_reveal, rendered {case} 800x600, up to 5 frames",
            timed(
                lambda image=image, case_zones=case_zones, expected=truth["expected_counts"]: (
                    capture_reveal([image] * 5, case_zones, expected, None, stillness=None)
                ),
                args.repeat,
            ),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
