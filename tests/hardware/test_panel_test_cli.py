"""`bluffcam panel-test`: bad durations and wiring are refused in one line, before any pin."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bluffcam.cli import main
from bluffcam.commands import panel_test


@pytest.mark.parametrize("option", ["--led-s", "--seconds"])
@pytest.mark.parametrize("value", ["-1", "nan", "inf", "soon", "1e10"])  # 1e10: overflowed
def test_a_bad_duration_is_refused_at_the_command_line(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog="bluffcam panel-test")
    panel_test.add_arguments(parser)
    with pytest.raises(SystemExit) as stopped:  # parsed only: never runs, even if accepted
        parser.parse_args(["--mock", option, value])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"bluffcam panel-test: error: argument {option}: must be ")
    assert repr(value) in last


def test_panel_test_runs_on_mock_pins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["panel-test", "--mock", "--led-s", "0", "--seconds", "0"]) == 0
    out = capsys.readouterr().out
    assert "LED seat 6 (GPIO25) on" in out and "press buttons" in out


def test_ctrl_c_during_the_led_sweep_ends_the_test_without_a_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(panel_test.time, "sleep", interrupted)
    assert main(["panel-test", "--mock", "--led-s", "1", "--seconds", "0"]) == 0
    assert "LED seat 1" in capsys.readouterr().out


def test_panel_test_names_bad_wiring_in_the_profile(
    demo_profile_with: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    profile = demo_profile_with("[panel]\nbogus = 5")
    assert main(["panel-test", "--mock", "--profile", str(profile), "--seconds", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"panel-test: {profile}: panel.bogus: unknown key; known: face, ")
    assert err.count("\n") == 1


def test_off_a_pi_without_mock_the_refusal_is_one_line_naming_what_was_tried() -> None:
    """gpiozero warns of each pin library it passes over; those warnings are folded into the
    one line that says why, not printed as noise above it."""
    import subprocess
    import sys

    model = Path("/proc/device-tree/model")
    if model.is_file() and b"Raspberry Pi" in model.read_bytes():
        pytest.skip("a Pi has GPIO pins: panel-test would open them")
    done = subprocess.run([sys.executable, "-m", "bluffcam", "panel-test", "--seconds", "0"],
                          capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("GPIOZERO")})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("panel-test: cannot open the GPIO pins (")
    assert " Tried " in lines[0] and "native: " in lines[0]
    assert lines[0].endswith("; try --mock off a Pi")
