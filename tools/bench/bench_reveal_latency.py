"""How long a player waits: from the capture press to the verdict on a live board.

A real `Table` and dashboard on 127.0.0.1 (a free port), a live-update client on a socket, and
the demo's eight recorded reveals, each pressed as a phone does (``POST /api/reveal/capture``).
The camera is the recording from disk (frames as fast as the disk gives them), or, with
``--fps``, a stand-in for a live camera: the recording's frame *i* is on the sensor from *i*
frame periods after the press, the last one for good after that, and a read waits for the next
frame (the cups coming up in the first frames, then the wait for a still scene, are in the
figure). Prints each reveal's time and outcome, then the median, so a change that alters a
reading shows as well as one that alters the time. Not a test: figures go to BENCHMARKS.md.

    python -m tools.bench.bench_reveal_latency [--fps 10] [--runs 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tools.bench.common import PacedRecording

PIN = "4242"


class PacedCamera(PacedRecording):
    """A live camera over recorded frames (:class:`PacedRecording`), as the Table reads one."""

    spec = "paced:recording"
    status = "ok"

    def frames(self) -> Iterator[np.ndarray]:
        return self.paced()

    def read(self) -> np.ndarray:
        return self.recorded[-1].copy()


class BoardClient(threading.Thread):
    """A board's live stream on a raw socket: each state's arrival time, version and reveal."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port, self.changed = port, threading.Condition()
        self.seen: list[tuple[float, int, set[str | None]]] = []
        self.ready = threading.Event()

    def run(self) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port))
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        buffer = b""
        while chunk := sock.recv(1 << 20):
            arrived, buffer = time.perf_counter(), buffer + chunk
            *events, buffer = buffer.split(b"\n\n")  # an event ends with a blank line
            for event in events:
                for line in event.split(b"\n"):
                    if line.startswith(b"data: "):
                        self._heard(arrived, json.loads(line[6:]))
        sock.close()

    def _heard(self, arrived: float, state: dict[str, Any]) -> None:
        ids = {(state.get(k) or {}).get("id") for k in ("review", "last_reveal")}
        with self.changed:
            self.seen.append((arrived, state["version"], ids))
            self.changed.notify_all()
        self.ready.set()

    def arrival(self, after_version: int, reveal_id: str, timeout: float = 30) -> float:
        with self.changed:
            found = self.changed.wait_for(lambda: any(
                v > after_version and reveal_id in ids for _, v, ids in self.seen), timeout)
            assert found, f"the board never heard of {reveal_id}"
            return float(next(t for t, v, ids in self.seen
                              if v > after_version and reveal_id in ids))


def outcome(state: dict[str, Any]) -> str:
    review = state.get("review")
    if review:
        return f"review ({len(review.get('problems') or [])} problems)"
    seats = (state.get("last_reveal") or {}).get("seats") or {}
    return "applied " + " ".join(f"{k}:{''.join(map(str, sorted(v)))}" for k, v in seats.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fps", type=float, default=None,
                        help="a live camera at this rate (default: frames from disk)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs over the 8 reveals")
    args = parser.parse_args()

    from bluffcam.commands.serve import load_reader
    from bluffcam.demo_player import RecordedCamera, load_recording
    from bluffcam.table import Table
    from calibration import load_profile
    from hardware.cameras import list_frame_files
    from web import create_app
    from web.server import make_dashboard_server

    recording = load_recording()
    assert recording.profile_path is not None, "the demo recording names its profile"
    profile = load_profile(recording.profile_path)
    load_reader(profile)  # as serve does at start: the networks' loading is not in a reveal
    data = Path(tempfile.mkdtemp(prefix="bench-reveal-"))
    table = Table(data / "journal.sqlite", None, profile, data_dir=data)
    server = make_dashboard_server(create_app({"TABLE_PIN": PIN, "DATA_DIR": str(data)},
                                              table=table), "127.0.0.1", 0, log_requests=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    board = BoardClient(server.server_port)
    board.start()
    board.ready.wait(5)

    script = recording.script
    actions = script["actions"]
    reveal_at = [i for i, action in enumerate(actions) if "reveal" in action]
    setup = {k: v for k, v in script.items() if k != "actions"}
    times: list[float] = []
    print(f"press → verdict on the board, {'disk' if args.fps is None else f'{args.fps:g} fps'}"
          f", {args.runs} runs (after one untimed)")
    for run in range(args.runs + 1):
        for number, at in enumerate(reveal_at, start=1):
            table.new_game({**setup, "actions": actions[:at]})
            folder = recording.reveals[number - 1].folder
            camera: Any
            if args.fps is None:
                camera = RecordedCamera(folder.parent)
                camera.point_at(folder)
            else:
                frames = [np.asarray(cv2.imread(str(p))) for p in list_frame_files(folder)]
                camera = PacedCamera(frames, args.fps)
            table.set_camera(camera)
            before = table.version
            connection = http.client.HTTPConnection("127.0.0.1", server.server_port)
            pressed = time.perf_counter()
            if isinstance(camera, PacedCamera):
                camera.start = pressed  # the cups start coming up at the press
            connection.request("POST", "/api/reveal/capture", headers={"X-Table-PIN": PIN})
            response = connection.getresponse()
            state = json.loads(response.read())
            connection.close()
            if response.status != 200:
                raise SystemExit(f"reveal {number} refused: {state['error']['message']}")
            reveal_id = (state.get("review") or state.get("last_reveal"))["id"]
            took = (board.arrival(before, reveal_id) - pressed) * 1000
            if run:
                times.append(took)
                print(f"run {run} reveal {number}: {took:6.0f} ms  {outcome(state)}")
    print(f"median {statistics.median(times):.0f} ms, "
          f"p95 {statistics.quantiles(times, n=20)[-1]:.0f} ms over {len(times)} reveals")
    server.shutdown()
    table.close()


if __name__ == "__main__":
    main()
