"""Helpers for the reliability tests: a real `bluffcam serve` process, HTTP calls, a legal player.

Imported by name (pytest puts this folder on sys.path), like tests/web_api/web_api_helpers.py.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
PIN = "7351"
SETUP = {"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann"}
#: how long a starting server may take to answer (imports of OpenCV and Flask on a busy box)
START_TIMEOUT_S = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def call(port: int, method: str, path: str, body: Any = None, *, pin: str | None = PIN,
         timeout: float = 10.0, raw: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """One HTTP request to 127.0.0.1:port; returns (status, parsed JSON or text)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    if data is not None and raw is None:
        request.add_header("Content-Type", "application/json")
    if pin is not None:
        request.add_header("X-Table-PIN", pin)
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, payload = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, payload = error.code, error.read()
    try:
        return status, json.loads(payload)
    except ValueError:
        return status, payload.decode("utf-8", "replace")


class Server:
    """`bluffcam serve` as a real child process on 127.0.0.1 (killed, never left running)."""

    def __init__(self, data_dir: Path, *extra: str) -> None:
        self.data_dir = data_dir
        self.extra = list(extra)
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "serve.log"

    def start(self) -> Server:
        self.port = free_port()
        command = [sys.executable, "-m", "bluffcam", "serve", "--data", str(self.data_dir),
                   "--host", "127.0.0.1", "--port", str(self.port), "--pin", PIN,
                   "--gpio", "none", *self.extra]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=log,
                                            stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited {self.process.returncode}: {self.tail()}")
            try:
                status, _ = call(self.port, "GET", "/api/state", pin=None, timeout=1.0)
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"serve did not answer within {START_TIMEOUT_S} s: {self.tail()}")

    def kill(self) -> None:
        """SIGKILL: what a pulled plug looks like to the process (no cleanup runs)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""

    def call(self, method: str, path: str, body: Any = None, **kwargs: Any) -> tuple[int, Any]:
        return call(self.port, method, path, body, **kwargs)

    def state(self) -> dict[str, Any]:
        status, state = self.call("GET", "/api/state", pin=None)
        assert status == 200, state
        result: dict[str, Any] = state
        return result


def next_action(state: dict[str, Any], rng: random.Random,
                challenge_p: float = 0.35) -> dict[str, Any] | None:
    """A legal Bluff action for the state (None when the game is over)."""
    game = state.get("game")
    if game is None or game["phase"] == "over":
        return None
    legal = state["legal"]
    if game["phase"] == "reveal":
        hands = {}
        for name, hand in legal["expected_reveal"].items():
            kept = list(hand["set_aside"])
            hands[name] = kept + [rng.randint(1, 6) for _ in range(hand["count"] - len(kept))]
        return {"reveal": hands}
    turn = game["turn"]
    if "challenge" in legal["kinds"] and (rng.random() < challenge_p
                                          or not legal["lowest_raises"]):
        return {"player": turn, "challenge": True}
    return {"player": turn, "bid": rng.choice(legal["lowest_raises"][:3])}


def write_review_table(folder: Path) -> tuple[Path, Path]:
    """A three-seat calibration profile (one seat for each player of `SETUP`) and still, empty
    frames: every camera reveal reads no dice, so the count never matches and each capture
    waits for a person (a review)."""
    frames = folder / "frames"
    frames.mkdir(parents=True, exist_ok=True)
    noise = np.random.default_rng(7)
    for i in range(30):  # a still, empty table with a live sensor's noise (not a frozen feed)
        felt = np.full((240, 320, 3), (40, 110, 30), dtype=np.int16)
        felt += noise.integers(-3, 4, size=felt.shape, dtype=np.int16)
        cv2.imwrite(str(frames / f"f{i:02d}.png"), felt.astype(np.uint8))
    profile = folder / "table.toml"
    profile.write_text(
        'name = "review-table"\n'
        f'[camera]\nspec = "files:{frames}"\nresolution = [320, 240]\n'
        "[table]\narea = [[0, 0], [320, 0], [320, 240], [0, 240]]\n"
        '[[seats]]\nname = "West"\nzone = [[0, 0], [107, 0], [107, 240], [0, 240]]\n'
        '[[seats]]\nname = "North"\nzone = [[107, 0], [213, 0], [213, 240], [107, 240]]\n'
        '[[seats]]\nname = "East"\nzone = [[213, 0], [320, 0], [320, 240], [213, 240]]\n',
        encoding="utf-8",
    )
    return profile, frames


class EventReader(threading.Thread):
    """Reads a live `GET /api/events` stream over a real socket and keeps each state event's
    (version, actions_count, time received)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.connection.request("GET", "/api/events")
        self._socket = self.connection.sock  # the connection forgets it once streaming starts
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        self.events: list[tuple[int, int, float]] = []
        self.error: BaseException | None = None
        self._stopping = False

    def run(self) -> None:
        data: list[bytes] = []
        try:
            while True:
                line = self.response.fp.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    data.append(line[6:])
                elif line == b"\n" and data:
                    state = json.loads(b"".join(data))
                    data = []
                    self.events.append((state["version"], state["actions_count"],
                                        time.monotonic()))
        except (OSError, ValueError) as exc:
            if not self._stopping:
                self.error = exc

    def close(self) -> None:
        self._stopping = True
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)
        self.connection.close()
        self.join(timeout=5)
