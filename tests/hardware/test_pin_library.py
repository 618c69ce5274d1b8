"""panel-test names the pin library gpiozero drives the pins with, and says what to install
when it finds none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from bluffcam.cli import main
from hardware.pin_library import factory_in_use, no_pin_library_fix, pin_library


def test_panel_test_says_which_pin_library_is_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["panel-test", "--mock", "--led-s", "0", "--seconds", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "pin library: gpiozero's mock pins (MockFactory)"


def test_a_pin_library_is_named_by_its_factory_class() -> None:
    lgpio_factory = type("LGPIOFactory", (), {})()
    assert pin_library(lgpio_factory) == "lgpio (LGPIOFactory)"
    unknown = type("SomeNewFactory", (), {})()
    assert pin_library(unknown) == "SomeNewFactory (SomeNewFactory)"


def test_without_a_factory_of_its_own_the_default_gpiozero_chose_is_named(
        mock_factory: MockFactory) -> None:
    assert factory_in_use(None) is mock_factory
    given = MockFactory()
    assert factory_in_use(given) is given


def test_no_pin_library_at_all_names_lgpio_and_how_to_install_it() -> None:
    model = Path("/proc/device-tree/model")
    if model.is_file() and b"Raspberry Pi" in model.read_bytes():
        pytest.skip("a Pi has GPIO pins: panel-test would open them")
    done = subprocess.run([sys.executable, "-m", "bluffcam", "panel-test", "--seconds", "0"],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={k: v for k, v in os.environ.items() if not k.startswith("GPIOZERO")})
    assert done.returncode == 2
    assert "Unable to load any default pin factory" in done.stderr
    assert "pip install lgpio" in done.stderr and "python3-lgpio" in done.stderr


def test_lgpio_there_but_failing_asks_for_the_gpio_group_not_an_install() -> None:
    # gpiozero's words in an arm64 userland that is no Pi, lgpio installed
    tried = ("lgpio: [Errno 2] No such file or directory: '/proc/cpuinfo'; rpigpio: No "
             "module named 'RPi'; pigpio: No module named 'pigpio'")
    assert "gpio group" in no_pin_library_fix(tried)
    missing = "lgpio: No module named 'lgpio'; rpigpio: No module named 'RPi'"
    assert "pip install lgpio" in no_pin_library_fix(missing)
