"""`bluffcam serve` as a real process: it listens, takes actions, stops cleanly and resumes."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def serving(data: Path) -> Iterator[str]:
    """Start the server on a free port; yield its base URL; stop it with SIGTERM."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bluffcam", "serve", "--data", str(data), "--host", "127.0.0.1",
         "--port", "0", "--pin", "4321", "--gpio", "mock"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        url = None
        lines = []
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            match = re.search(r"dashboard: (http://\S+/)", line)
            if match:
                url = match.group(1)
            if line.startswith("table PIN"):
                break
        if url is None:
            pytest.fail("serve printed no URL:\n" + "".join(lines))
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            assert process.wait(timeout=10) == 0
        finally:
            if process.poll() is None:
                process.kill()


def call(url: str, method: str = "GET", body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Content-Type": "application/json", "X-Table-PIN": "4321"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.slow
def test_serve_takes_actions_and_resumes_after_a_restart(tmp_path: Path) -> None:
    with serving(tmp_path) as url:
        call(url + "api/game", "POST", {"game": "bluff", "players": ["Ann", "Ben"]})
        state = call(url + "api/action", "POST", {"player": "Ann", "bid": "2x5"})
        assert state["game"]["bid"] == "2x5"
        page = urllib.request.urlopen(url, timeout=10)
        assert page.status == 200
    assert (tmp_path / "journal.sqlite").is_file()
    with serving(tmp_path) as url:
        resumed = call(url + "api/state")
        assert resumed["game"]["bid"] == "2x5" and resumed["game"]["turn"] == "Ben"
        assert resumed["version"] > state["version"]


def test_serve_names_a_reader_that_cannot_start(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    import vision
    from bluffcam.commands.serve import load_reader
    from vision import detector
    from vision.onnx_net import LazyNet

    assert load_reader(None) is None  # the shipped networks load

    # a truncated model (or a Git LFS pointer in its place): not an OSError
    broken = tmp_path / "dice_detector.onnx"
    broken.write_bytes(b"version https://git-lfs.github.com/spec/v1\n")
    monkeypatch.setattr(detector, "NET", LazyNet(broken, "die detector", "x"))
    problem = load_reader(None)
    assert problem is not None and problem.startswith("the dice reader cannot start: ")
    monkeypatch.undo()
    broken_wide = tmp_path / "dice_detector_wide.onnx"
    broken_wide.write_bytes(broken.read_bytes())
    monkeypatch.setattr(detector, "WIDE_NET", LazyNet(broken_wide, "wide die detector", "x"))
    problem = load_reader(None)  # the second detector is read at start-up too
    assert problem is not None and "dice_detector_wide.onnx" in problem
    monkeypatch.undo()

    def missing(params: Any) -> None:
        raise FileNotFoundError("vision/models/dice_detector.onnx: the die detector model is "
                                "missing; run tools/train_dice_detector.py to make it")

    monkeypatch.setattr(vision, "load_networks", missing)
    problem = load_reader(None)
    assert problem is not None and problem.startswith("the dice reader cannot start: ")
    assert "detector model is missing" in problem
