"""`bluffcam serve` as a real process: it listens, takes actions, stops cleanly and resumes."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def serving(data: Path, pin: tuple[str, ...] = ("--pin", "4321"),
            env: dict[str, str] | None = None, said: list[str] | None = None) -> Iterator[str]:
    """Start the server on a free port; yield its base URL; stop it with SIGTERM. The lines
    it printed at start go into ``said`` where one is given."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bluffcam", "serve", "--data", str(data), "--host", "127.0.0.1",
         "--port", "0", *pin, "--gpio", "mock"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )
    try:
        url = None
        lines = [] if said is None else said
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
            assert process.stdout is not None
            said = process.stdout.read()
            assert "stopping…" in said, "SIGTERM is told, not silent"
            assert "Traceback" not in said, said  # the panel's thread ends before its pins
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


@pytest.mark.slow
def test_serve_takes_its_pin_from_bluffcam_pin_as_the_env_file_sets_it(tmp_path: Path) -> None:
    said: list[str] = []
    with serving(tmp_path / "d", pin=(), env={"BLUFFCAM_PIN": "2468"}, said=said) as url:
        call(url + "api/state")  # served, so a SIGTERM now is a clean stop
    assert "table PIN: 2468\n" in said
    said.clear()  # --pin still wins over the environment
    with serving(tmp_path / "d", pin=("--pin", "1357"), env={"BLUFFCAM_PIN": "2468"},
                 said=said) as url:
        call(url + "api/state")
    assert "table PIN: 1357\n" in said


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
                                "missing; run tools/train/train_dice_detector.py to make it")

    monkeypatch.setattr(vision, "load_networks", missing)
    problem = load_reader(None)
    assert problem is not None and problem.startswith("the dice reader cannot start: ")
    assert "detector model is missing" in problem


def test_serve_says_when_it_cannot_open_the_gpio_pins(tmp_path: Path) -> None:
    # a pin library that does not exist, as off a Pi (and the same on one)
    result = subprocess.run(
        [sys.executable, "-m", "bluffcam", "serve", "--data", str(tmp_path), "--host",
         "127.0.0.1", "--port", "0", "--camera", "none", "--gpio", "real"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
        env={**os.environ, "GPIOZERO_PIN_FACTORY": "no-such-factory"},
    )
    assert result.returncode == 2
    assert result.stderr == (
        "bluffcam serve: cannot open the GPIO pins (Unable to find pin factory "
        "'no-such-factory'); off a Pi use --gpio mock or --gpio none\n"
    )
    assert not (tmp_path / "journal.sqlite").exists()


def test_serve_opens_its_panel_as_panel_test_does() -> None:
    from bluffcam.commands.panel_test import PanelOpenError
    from bluffcam.commands.serve import open_panel_for

    assert open_panel_for("none", None) is None
    twice = SimpleNamespace(panel={"face": 5, "up": 5})  # a profile checked by nobody
    with pytest.raises(PanelOpenError, match="^BCM pin 5 is wired to both FACE and UP$"):
        open_panel_for("mock", twice)
    panel = open_panel_for("mock", SimpleNamespace(panel={"bid": 4}))
    try:
        assert panel.wiring.buttons["BID"] == 4
    finally:
        panel.close()


@pytest.mark.parametrize("gpio", ["mock", "none"])
@pytest.mark.parametrize(("panel", "fault"), [
    ("face = 5\nup = 5", "BCM pin 5 is wired to both FACE and UP"),
    ("bidd = 4", "panel.bidd: unknown key"),
])
def test_serve_refuses_a_profile_with_bad_wiring_naming_its_file(
    tmp_path: Path, demo_profile_with: Callable[[str], Path],
    capsys: pytest.CaptureFixture[str], gpio: str, panel: str, fault: str,
) -> None:
    """With --gpio none too: the file is wrong all the same, and its fault was named without
    the file (or not at all)."""
    from bluffcam.cli import main
    from bluffcam.commands.serve import EXIT_CONFIG

    profile = demo_profile_with(f"[panel]\n{panel}")
    data = tmp_path / "data"
    assert main(["serve", "--profile", str(profile), "--data", str(data), "--camera", "none",
                 "--gpio", gpio, "--port", "0", "--host", "127.0.0.1"]) == EXIT_CONFIG
    assert capsys.readouterr().err.startswith(f"bluffcam serve: {profile}: {fault}")
    assert not (data / "journal.sqlite").exists()


def test_serve_names_a_data_file_and_an_empty_pin(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bluffcam.cli import main

    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder")
    assert main(["serve", "--data", str(a_file), "--camera", "none", "--port", "0"]) == 2
    assert capsys.readouterr().err == (
        f"bluffcam serve: --data {a_file} is a file, not a folder: give a folder (it is made "
        "if missing)\n")
    assert main(["serve", "--data", str(tmp_path / "d"), "--pin", " ", "--camera", "none",
                 "--port", "0"]) == 2
    assert "--pin is empty" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("command", ["serve", "demo"])
@pytest.mark.parametrize("value", ["99999", "65536", "-5", "http"])
def test_a_port_out_of_range_is_refused_at_the_command_line(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog=f"bluffcam {command}")
    importlib.import_module(f"bluffcam.commands.{command}").add_arguments(parser)
    with pytest.raises(SystemExit) as stopped:  # parsed only: never serves, even if accepted
        parser.parse_args(["--port", value])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"bluffcam {command}: error: argument --port: must be a port number 0..65535 "
        f"(0 picks a free one), got {value!r}"
    )


@pytest.mark.parametrize("command", ["serve", "demo"])
def test_a_port_in_use_is_named_in_one_line_and_exits_2(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    from bluffcam.cli import main

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = str(taken.getsockname()[1])
    try:
        extra = ["--data", str(tmp_path), "--camera", "none"] if command == "serve" else []
        assert main([command, "--host", "127.0.0.1", "--port", port, *extra]) == 2
    finally:
        taken.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"bluffcam {command}: cannot listen on "
                                               f"127.0.0.1:{port}: ")
    assert "Address already in use" in err[0]


@pytest.mark.parametrize("spec", ["opencv:", "picamera2:axb", "bogus:1", "files:"])
def test_a_camera_spec_no_camera_could_answer_to_stops_serve_at_once(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bluffcam.cli import main

    assert main(["serve", "--data", str(tmp_path), "--camera", spec, "--port", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bluffcam serve: ") and spec in err[0]
    assert not (tmp_path / "journal.sqlite").exists()


def test_serve_asks_the_camera_for_the_profiles_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    """The zones are in the profile's pixels: a webcam left at its own default size would
    put every die in the wrong place."""
    import hardware.cameras as cameras
    from bluffcam.commands.serve import open_camera_for

    asked: list[Any] = []

    class Webcam:
        def __init__(self, target: Any, resolution: Any = None) -> None:
            asked.append((target, resolution))

        def read(self) -> Any:
            return np.zeros((1200, 1600, 3), np.uint8)

        def close(self) -> None:
            pass

    monkeypatch.setattr(cameras, "OpenCVCamera", Webcam)
    camera, first = open_camera_for("opencv:0", (1600, 1200))
    assert asked == [(0, (1600, 1200))] and camera.status == "ok"
    assert first.shape == (1200, 1600, 3)
    camera.close()


def test_serve_says_at_start_that_the_cameras_frames_do_not_fit_the_zones(
        tmp_path: Path) -> None:
    """A camera giving 640 × 480 where the demo profile's zones are pixels of 1280 × 960: said
    when serve starts, on the board and in its output, not first at the first reveal."""
    import cv2

    repo = Path(__file__).resolve().parents[2]
    frames = tmp_path / "frames"
    frames.mkdir()
    for k in range(3):
        cv2.imwrite(str(frames / f"{k}.png"), np.full((480, 640, 3), 60 + k, np.uint8))
    server = subprocess.Popen(
        [sys.executable, "-m", "bluffcam", "serve", "--profile",
         str(repo / "calibration" / "demo.toml"), "--camera", f"files:{frames}",
         "--data", str(tmp_path / "data"), "--port", "0", "--host", "127.0.0.1",
         "--gpio", "none"], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        for line in server.stdout:
            if line.startswith("table PIN"):
                break
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert "bluffcam serve: warning: " in err
    assert "the camera gives 640×480 frames, but this table's zones were fitted on 1280×960" \
        in err


def test_a_live_camera_that_dies_between_reveals_is_said_on_the_board_and_comes_back(
        tmp_path: Path) -> None:
    """Nothing reads a camera between reveals: without a watch the board said "ok" long
    after a phone's stream died, and the camera was never reopened until a reveal failed."""
    import threading
    import time

    from bluffcam.commands.serve import watch_camera
    from bluffcam.table import Table
    from hardware.camera_words import said
    from hardware.cameras import CameraError, ResilientCamera

    alive = [True]
    ended = said("{camera}: no frame (camera disconnected or stream ended)",
                 camera="opencv:http://phone/video")

    class Stream:
        def read(self) -> Any:
            if not alive[0]:
                raise CameraError.saying(ended)
            return np.random.default_rng().integers(0, 255, (48, 64, 3), dtype=np.uint8)

        def close(self) -> None:
            pass

    def opener(spec: str) -> Stream:
        if not alive[0]:
            raise CameraError(f"{spec}: could not open the camera")
        return Stream()

    camera = ResilientCamera("opencv:http://phone/video", opener=opener, first_retry_s=0.0)
    camera.read()
    table = Table(tmp_path / "journal.sqlite", camera=camera)
    stop = threading.Event()
    watcher = threading.Thread(target=watch_camera, args=(table, stop, 0.02), daemon=True)
    watcher.start()

    def board_says(words: str) -> dict[str, Any] | None:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            said: list[dict[str, Any]] = [m for m in table.state()["messages"]
                                          if words in m["text"]]
            if said:
                return said[0]
            time.sleep(0.02)
        return None

    try:
        assert table.camera_status() == "ok"
        alive[0] = False  # the phone's Wi-Fi drops; no reveal is asked for
        offline = board_says("camera offline: opencv:http://phone/video: no frame")
        assert offline is not None  # in hardware's words too, for a board in another language
        assert offline["said"]["params"]["fault"] == {"msgid": ended.msgid,
                                                      "params": dict(ended.params)}
        alive[0] = True
        assert board_says("camera back: reading again")
        assert table.camera_status() == "ok"
    finally:
        stop.set()
        watcher.join(timeout=5)
        table.close()


def test_a_recorded_camera_is_not_watched(tmp_path: Path) -> None:
    """Each read of a files: camera uses up a frame of the recording."""
    import threading

    import cv2

    from bluffcam.commands.serve import watch_camera
    from bluffcam.table import Table
    from hardware.cameras import open_camera

    for k in range(3):
        cv2.imwrite(str(tmp_path / f"{k}.png"), np.full((8, 8, 3), k, np.uint8))
    camera = open_camera(f"files:{tmp_path}")
    table = Table(tmp_path / "journal.sqlite", camera=camera)
    stop = threading.Event()
    watcher = threading.Thread(target=watch_camera, args=(table, stop, 0.01), daemon=True)
    watcher.start()
    try:
        stop.wait(0.2)
        assert camera.position == 0
    finally:
        stop.set()
        watcher.join(timeout=5)
        table.close()


@pytest.mark.slow
def test_serve_reads_a_reveal_from_a_folder_of_recorded_frames(tmp_path: Path) -> None:
    """A recording has a few frames a reveal; the reveal waits for a still scene longer than
    that. serve's files: camera keeps showing the last frame, as a camera over a table that
    no longer changes would, so the reveal is read (applied, or sent to review), never
    refused as "all frames played" or "frozen"."""
    from bluffcam.commands.serve import open_camera_for
    from bluffcam.table import Table
    from calibration import load_profile

    repo = Path(__file__).resolve().parents[2]
    script = json.loads((repo / "bluffcam/recordings/demo/game.json").read_text())
    folder = repo / "bluffcam/recordings/demo/frames/r01b_reveal"
    camera, first = open_camera_for(f"files:{folder}", (1280, 960))
    assert first is not None
    table = Table(tmp_path / "journal.sqlite", camera=camera,
                  profile=load_profile(repo / "calibration/demo.toml"))
    try:
        table.new_game({k: script[k] for k in ("game", "players", "starter", "options")})
        for action in script["actions"][:5]:  # to round 1's challenge
            table.submit(action)
        state = table.capture_reveal()
        assert camera.status == "ok"
        truth = script["actions"][5]["reveal"]
        if state["review"] is None:  # applied: only ever the truth
            read = state["history"][0]["reveal"]
            assert {n: sorted(f) for n, f in read.items()} == \
                {n: sorted(f) for n, f in truth.items()}
        else:
            assert state["game"]["phase"] == "reveal"
    finally:
        table.close()
        camera.close()
