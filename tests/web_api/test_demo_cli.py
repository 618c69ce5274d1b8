"""`bluffcam demo --headless` end to end: the recorded game through the real reader."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RECORDING = REPO / "bluffcam" / "recordings" / "demo"


@pytest.mark.slow
def test_headless_demo_plays_the_recorded_game_through() -> None:
    if not (RECORDING / "game.json").is_file():
        message = f"the demo recording is missing: {RECORDING} (python -m tools.render demo)"
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run(
        [sys.executable, "-m", "bluffcam", "demo", "--headless"],
        cwd=REPO, capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rounds = re.findall(r"^round (\d+): camera read", done.stdout, flags=re.MULTILINE)
    verdicts = re.findall(r"^\s+verdict: (.+)$", done.stdout, flags=re.MULTILINE)
    script = json.loads((RECORDING / "game.json").read_text())
    reveals = [a for a in script["actions"] if "reveal" in a]
    assert len(rounds) == len(verdicts) == len(reveals) > 0
    assert [int(n) for n in rounds] == list(range(1, len(rounds) + 1))
    assert all(v.strip() != "?" for v in verdicts)
    # each round says how the camera read it: the vote stops at 3 frames that agree, or 5
    took = re.findall(r"^round \d+: camera read .* \((\d) frames, (\d+\.\d\d) s\) — ",
                      done.stdout, flags=re.MULTILINE)
    assert len(took) == len(rounds) and all(3 <= int(n) <= 5 for n, _ in took), done.stdout
    assert "none adjudicated on a misread" in done.stdout


def test_the_demo_names_a_reader_that_cannot_start_before_the_game(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from bluffcam.commands import demo
    from vision import detector
    from vision.onnx_net import LazyNet

    broken = tmp_path / "dice_detector.onnx"
    broken.write_bytes(b"version https://git-lfs.github.com/spec/v1\n")  # an LFS pointer
    monkeypatch.setattr(detector, "NET", LazyNet(broken, "die detector", "x"))
    args = argparse.Namespace(headless=True, recording=None, speed=1.0, pin=None)
    assert demo.run(args) == 2
    err = capsys.readouterr()
    assert err.err.startswith("bluffcam demo: the dice reader cannot start: ")
    assert "round 1" not in err.out  # refused before the game, not at its first reveal


@pytest.mark.parametrize("value", ["0", "-2", "nan", "inf", "fast"])
def test_a_speed_the_demo_cannot_play_at_is_refused_at_the_command_line(
        value: str, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from bluffcam.commands import demo

    parser = argparse.ArgumentParser(prog="bluffcam demo")
    demo.add_arguments(parser)
    assert parser.parse_args(["--speed", "0.5"]).speed == 0.5
    with pytest.raises(SystemExit) as stopped:  # parsed only: never plays, even if accepted
        parser.parse_args(["--speed", value])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith("bluffcam demo: error: argument --speed: must be ")
    assert repr(value) in err


def test_the_demo_player_refuses_a_speed_rather_than_playing_at_another() -> None:
    from bluffcam.demo_player import DemoPlayer

    with pytest.raises(ValueError, match="speed must be above 0, got 0"):
        DemoPlayer(None, None, speed=0)  # type: ignore[arg-type]  # refused before use


def test_a_blank_pin_is_refused_by_demo_as_by_serve(capsys: pytest.CaptureFixture[str]) -> None:
    from bluffcam.cli import main

    assert main(["demo", "--pin", "   ", "--once", "--port", "0"]) == 2
    assert "--pin is empty" in capsys.readouterr().err


def test_an_ipv6_address_is_bracketed_in_the_printed_url() -> None:
    from web.server import urls

    assert urls("::1", 8080) == ["http://[::1]:8080/"]  # http://::1:8080/ opens nowhere
    assert urls("127.0.0.1", 8080) == ["http://127.0.0.1:8080/"]
