"""Reading with a table profile against today's path, in one run, so the ratio is clear.

    BLUFFCAM_ONNX_THREADS=1 taskset -c 0 python -m tools.bench.bench_profile_speed [--reads 9]

Two figures, each for the path without a profile (the default reader, as it reads a
stranger's photo: the whole frame, its scale guessed from the frame, the float networks) and
the profile's path (``calibration/demo.toml``: the table's box, at the one scale its
``[dice]`` size implies, with the networks' 8-bit copies its ``[reader]`` asks for; and,
between the two, the same with the float networks):

1. **A camera frame.** The demo's fullest reveal (15 dice) as a Camera Module 3 at
   2304 × 1296 would frame it: scaled 1.35 times (the table fills the picture's height) and
   set in the middle of the wider picture, its sides mirrored; the profile's table box and
   die size scaled with it. Median ms of ``--reads`` reads, and the dice read sure and right.
2. **A reveal on a 10 fps camera.** The demo's 8 recorded reveals through the Table's own
   bridge (``bluffcam.table.vision_bridge.read_reveal``: the stillness wait, the vote, the
   checks, the drawing and the JPEG); frame *i* is on the sensor *i* tenths of a second
   after the start. The time is from the last frame with motion on the sensor to the
   verdict, its median apart for the reveals applied at once (settled by the still run's
   first three frames: 0.3 s of it is the camera's) and those sent to review (they wait
   for the whole still window, ``still_frames`` frames after the first still one: 0.6 s);
   the CPU time a reveal took (the stillness wait, the reads, the checks, the drawing and
   the JPEGs: what a slower board must fit in); each reveal's outcome is printed.

One core as on a Pi: ``taskset -c 0``; ``BLUFFCAM_ONNX_THREADS`` sets ONNX Runtime's
threads. A benchmark, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np

from bluffcam.demo_player import load_recording
from calibration import load_profile
from engine import Game
from hardware.cameras import list_frame_files
from tools.bench.common import PacedRecording
from vision import ReaderParams, load_networks, read_dice

#: a Camera Module 3's video size, and how much bigger than the demo's 1280 x 960 it frames
#: the table (the table fills the picture's height)
CAMERA = (2304, 1296)
ZOOM = CAMERA[1] / 960


def camera_frame(frame: np.ndarray) -> np.ndarray:
    """The demo frame as a 2304 x 1296 camera frames it: scaled by ZOOM, in the middle."""
    scaled = cv2.resize(frame, None, fx=ZOOM, fy=ZOOM, interpolation=cv2.INTER_LINEAR)
    side = (CAMERA[0] - scaled.shape[1]) // 2
    wide = cv2.copyMakeBorder(scaled, 0, 0, side, CAMERA[0] - scaled.shape[1] - side,
                              cv2.BORDER_REFLECT)
    return np.ascontiguousarray(wide[:CAMERA[1]])


def camera_params(params: ReaderParams, frame_width: int) -> ReaderParams:
    """The profile's reader settings for :func:`camera_frame`'s frames."""
    side = (CAMERA[0] - round(frame_width * ZOOM)) // 2
    box = params.table_box
    assert box is not None and params.die_size_px is not None
    left, top, right, bottom = box
    return replace(params, die_size_px=params.die_size_px * ZOOM,
                   table_box=(left * ZOOM + side, top * ZOOM, right * ZOOM + side,
                              bottom * ZOOM), table_resolution=CAMERA)


def sure_and_right(reading: Any, truth: list[tuple[int, float, float]]) -> tuple[int, int]:
    """(dice read sure with their true value, dice read sure but wrong or where none is)."""
    right = wrong = 0
    for die in reading.sure:
        near = [v for v, x, y in truth if np.hypot(die.x - x, die.y - y) < 0.5 * die.side_px]
        if near and near[0] == die.value:
            right += 1
        else:
            wrong += 1
    return right, wrong


def time_frame(reads: int, today: ReaderParams, profiled: ReaderParams) -> None:
    recording = load_recording()
    fullest = max(recording.reveals, key=lambda r: sum(map(len, r.truth.values())))
    files = list_frame_files(fullest.folder)
    frame = np.asarray(cv2.imread(str(files[-1])))
    truth_file = json.loads((fullest.folder / "truth.json").read_text())["frames"][-1]
    big = camera_frame(frame)
    side = (CAMERA[0] - round(frame.shape[1] * ZOOM)) // 2
    truth = [(d["value"], d["x"] * ZOOM + side, d["y"] * ZOOM) for d in truth_file["dice"]]
    at_camera = camera_params(profiled, frame.shape[1])
    paths = {"today (no profile)": today,
             "profile, float nets": replace(at_camera, int8_networks=False),
             "profile": at_camera}
    times: dict[str, list[float]] = {name: [] for name in paths}
    cpu: dict[str, list[float]] = {name: [] for name in paths}
    for params in paths.values():
        read_dice(big, params)  # each input size's first run is not charged
    for _ in range(reads):
        for name, params in paths.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            read_dice(big, params)
            times[name].append((time.perf_counter() - start) * 1000)
            cpu[name].append((time.process_time() - start_cpu) * 1000)
    print(f"1. a {CAMERA[0]}x{CAMERA[1]} frame of {len(truth)} dice "
          f"({fullest.folder.name} scaled {ZOOM:.2f}x), median of {reads} reads (wall clock; "
          "CPU time of the process, which other work on the machine hardly changes):")
    for name, params in paths.items():
        right, wrong = sure_and_right(read_dice(big, params), truth)
        print(f"   {name:<20} {statistics.median(times[name]):7.1f} ms  "
              f"(CPU {statistics.median(cpu[name]):6.1f} ms)   sure and right "
              f"{right}/{len(truth)}, sure and wrong {wrong}")
    ratio = statistics.median(cpu["today (no profile)"]) / statistics.median(cpu["profile"])
    print(f"   ratio (CPU) {ratio:.1f}x")


class PacedFrames(PacedRecording):
    """A 10 fps camera over recorded frames (:class:`PacedRecording`), read as an iterator."""

    def __iter__(self) -> Iterator[np.ndarray]:
        return self.paced()


def time_reveals(runs: int, fps: float, today: ReaderParams, profile: Any) -> None:
    from bluffcam.table.vision_bridge import read_reveal

    recording = load_recording()
    manifest = json.loads((recording.folder / "manifest.json").read_text())
    script = recording.script
    setup = {k: v for k, v in script.items() if k != "actions"}
    at = [i for i, action in enumerate(script["actions"]) if "reveal" in action]
    float_nets = replace(profile.reader_params, int8_networks=False)
    paths = {"today (no profile)": SimpleNamespace(zones=profile.zones, reader_params=today),
             "profile, float nets": SimpleNamespace(zones=profile.zones,
                                                    reader_params=float_nets),
             "profile": profile}
    print(f"2. a reveal at {fps:g} fps, last motion -> verdict, {runs} runs of the 8 reveals:")
    for name, table in paths.items():
        times: dict[str, list[float]] = {"applied": [], "review": []}
        cpu, outcomes = [], []
        for run in range(runs + 1):  # the first run is not timed (each size's first read)
            for number, index in enumerate(at):
                game = Game.from_script({**setup, "actions": script["actions"][:index]})
                folder = recording.reveals[number].folder
                frames = [np.asarray(cv2.imread(str(p))) for p in list_frame_files(folder)]
                last_motion = manifest["reveals"][number]["still_from"] - 1
                camera = PacedFrames(frames, fps)
                start_cpu = time.process_time()
                reading = read_reveal(iter(camera), game.expected_reveal(), table,
                                      seating=game.players)
                spent = (time.process_time() - start_cpu) * 1000
                took = (time.perf_counter() - camera.start - last_motion / fps) * 1000
                truth = {p: sorted(v) for p, v in recording.reveals[number].truth.items()}
                right = {p: sorted(v) for p, v in reading.values().items()} == truth
                if run:
                    times["review" if reading.needs_review else "applied"].append(took)
                    cpu.append(spent)
                    if run == 1:
                        outcomes.append("review" if reading.needs_review
                                        else "sure+right" if right else "SURE+WRONG")
        applied, review = (f"{statistics.median(times[k]):4.0f} ms" if times[k] else "none"
                           for k in ("applied", "review"))
        print(f"   {name:<20} median {applied} where applied, {review} where sent to "
              f"review (CPU {statistics.median(cpu):4.0f} ms a reveal)   "
              f"{outcomes.count('sure+right')}/8 sure and right, "
              f"{outcomes.count('SURE+WRONG')} sure and wrong: {' '.join(outcomes)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reads", type=int, default=9, help="timed reads of the frame (9)")
    ap.add_argument("--runs", type=int, default=2, help="timed runs of the 8 reveals (2)")
    ap.add_argument("--fps", type=float, default=10.0, help="the camera's rate (10)")
    args = ap.parse_args(argv)
    recording = load_recording()
    assert recording.profile_path is not None
    profile = load_profile(recording.profile_path)
    profiled = profile.reader_params
    today = ReaderParams()  # the reader as it reads a stranger's photo
    load_networks(profiled)
    cores = len(os.sched_getaffinity(0))
    print(f"{platform.machine()}, Python {platform.python_version()}, {cores} core(s), "
          f"ONNX threads {os.environ.get('BLUFFCAM_ONNX_THREADS', 'default')}; "
          f"profile {Path(recording.profile_path).name}: die {profiled.die_size_px} px")
    time_frame(args.reads, today, profiled)
    time_reveals(args.runs, args.fps, today, profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
