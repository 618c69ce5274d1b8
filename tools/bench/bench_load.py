"""Load benchmark: many live boards and a steady stream of actions against `bluffcam serve`.

    .venv/bin/python tools/bench/bench_load.py                       # 50 boards, 20 actions/s, 60 s
    .venv/bin/python tools/bench/bench_load.py --boards 10 --seconds 10

Starts its own `bluffcam serve` on 127.0.0.1 (a fresh data folder, no camera, no GPIO),
opens ``--boards`` SSE connections to ``/api/events``, posts legal Bluff actions at
``--rate`` per second for ``--seconds``, then stops everything and prints: actions
acknowledged and refused, events delivered and lost per board (a lost event is a gap in the
versions a board saw), delivery latency from the action's POST to each board (p50/p95/max)
and errors. Loopback only, bounded in time; a benchmark, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

PIN = "4242"
SETUP = {"game": "bluff", "players": ["Ann", "Ben", "Cho", "Dee"], "starter": "Ann",
         "options": {"dice_per_player": 10}}
REPO_ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def request(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"X-Table-PIN": PIN}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def next_action(state: dict[str, Any], rng: random.Random) -> tuple[str, Any]:
    """A legal request for the state: a bid, a challenge, a reveal, or a new game."""
    game = state.get("game")
    if game is None or game["phase"] == "over":
        return "/api/game", SETUP
    legal = state["legal"]
    if game["phase"] == "reveal":
        hands = {}
        for name, hand in legal["expected_reveal"].items():
            kept = list(hand["set_aside"])
            hands[name] = kept + [rng.randint(1, 6) for _ in range(hand["count"] - len(kept))]
        return "/api/action", {"reveal": hands}
    if "challenge" in legal["kinds"] and (rng.random() < 0.1 or not legal["lowest_raises"]):
        return "/api/action", {"player": game["turn"], "challenge": True}
    return "/api/action", {"player": game["turn"], "bid": rng.choice(legal["lowest_raises"][:3])}


class Board(threading.Thread):
    """One live dashboard: an SSE connection recording (version, time received)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.connection.request("GET", "/api/events")
        self.socket = self.connection.sock
        self.response = self.connection.getresponse()
        self.received: list[tuple[int, float]] = []
        self.error: str | None = None
        self.stopping = False

    def run(self) -> None:
        try:
            while True:
                line = self.response.fp.readline()
                if not line:
                    break
                if line.startswith(b"id: "):
                    self.received.append((int(line[4:]), time.monotonic()))
        except (OSError, ValueError) as exc:
            if not self.stopping:
                self.error = f"{type(exc).__name__}: {exc}"
        if not self.stopping and self.error is None:
            self.error = "the stream ended early"

    def close(self) -> None:
        self.stopping = True
        if self.socket is not None:
            with contextlib.suppress(OSError):
                self.socket.shutdown(socket.SHUT_RDWR)
        self.connection.close()
        self.join(timeout=5)


def start_server(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "bluffcam", "serve", "--data", str(data_dir),
               "--host", "127.0.0.1", "--port", str(port), "--pin", PIN,
               "--camera", "none", "--gpio", "none"]
    process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if request(port, "GET", "/api/state")[0] == 200:
                return process
        time.sleep(0.1)
    process.kill()
    raise SystemExit("bench_load: bluffcam serve did not start within 30 s")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def run(boards_wanted: int, rate: float, seconds: float, seed: int) -> int:
    rng = random.Random(seed)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-load-") as folder:
        process = start_server(Path(folder), port)
        try:
            request(port, "POST", "/api/game", SETUP)
            boards = [Board(port) for _ in range(boards_wanted)]
            for board in boards:
                board.start()
            time.sleep(0.5)  # every board has its first event
            sent_at: dict[int, float] = {}  # version -> when its POST was sent
            post_latency: list[float] = []
            acked = refused = http_errors = 0
            state = request(port, "GET", "/api/state")[1]
            started = time.monotonic()
            for n in range(int(rate * seconds)):
                pause = started + n / rate - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
                path, body = next_action(state, rng)
                sent = time.monotonic()
                try:
                    status, answer = request(port, "POST", path, body)
                except OSError:
                    http_errors += 1
                    continue
                post_latency.append(time.monotonic() - sent)
                if status == 200:
                    acked += 1
                    sent_at[answer["version"]] = sent
                    state = answer
                elif status in (400, 409):
                    refused += 1
                    state = request(port, "GET", "/api/state")[1]
                else:
                    http_errors += 1
            elapsed = time.monotonic() - started
            final_version = request(port, "GET", "/api/state")[1]["version"]
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not all(
                b.received and b.received[-1][0] >= final_version for b in boards
            ):
                time.sleep(0.05)
            for board in boards:
                board.close()
        finally:
            stop_server(process)
    report(boards, sent_at, post_latency, acked, refused, http_errors, elapsed, rate)
    return 0


def report(boards: list[Board], sent_at: dict[int, float], post_latency: list[float],
           acked: int, refused: int, http_errors: int, elapsed: float, rate: float) -> None:
    delivered = lost = 0
    latencies: list[float] = []
    for board in boards:
        versions = [v for v, _ in board.received]
        delivered += len(versions)
        lost += sum(b - a - 1 for a, b in zip(versions, versions[1:], strict=False) if b > a)
        lost += sum(1 for v in sent_at if versions and v > versions[-1])
        latencies += [t - sent_at[v] for v, t in board.received if v in sent_at]
    stream_errors = [b.error for b in boards if b.error]
    ms = 1000.0
    print(f"machine: {platform.node()} · {platform.machine()} · {os.cpu_count()} CPUs · "
          f"{platform.system()} {platform.release()} · Python {platform.python_version()}")
    print(f"load: {len(boards)} boards (SSE), {rate:g} actions/s for {elapsed:.1f} s")
    print(f"actions: {acked} acknowledged, {refused} refused, "
          f"{acked / elapsed:.1f}/s acknowledged")
    print(f"POST latency: p50 {percentile(post_latency, 0.5) * ms:.1f} ms, "
          f"p95 {percentile(post_latency, 0.95) * ms:.1f} ms, "
          f"max {max(post_latency, default=0) * ms:.1f} ms")
    print(f"events: {delivered} delivered to {len(boards)} boards "
          f"(expected {len(boards) * (acked + 1)}), {lost} lost (version gaps)")
    print(f"delivery latency (POST sent -> board received): "
          f"p50 {percentile(latencies, 0.5) * ms:.1f} ms, "
          f"p95 {percentile(latencies, 0.95) * ms:.1f} ms, "
          f"max {max(latencies, default=0) * ms:.1f} ms")
    print(f"errors: {http_errors} HTTP, {len(stream_errors)} streams"
          + (f" ({stream_errors[0]})" if stream_errors else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=50, help="live SSE connections (50)")
    parser.add_argument("--rate", type=float, default=20.0, help="actions per second (20)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long (60, max 600)")
    parser.add_argument("--seed", type=int, default=1, help="random seed for the actions")
    args = parser.parse_args()
    if not (1 <= args.boards <= 500 and 0 < args.rate <= 500 and 0 < args.seconds <= 600):
        parser.error("keep it bounded: 1-500 boards, rate up to 500/s, up to 600 s")
    return run(args.boards, args.rate, args.seconds, args.seed)


if __name__ == "__main__":
    raise SystemExit(main())
