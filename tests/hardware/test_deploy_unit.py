"""deploy/bluffcam.service and deploy/install.sh: no assumed "pi" user, no retrying a start
that cannot heal. Installing needs root and systemd on a Pi; the unit it writes and its
refusals are checked here."""

from __future__ import annotations

import configparser
import os
import re
import subprocess
from pathlib import Path

import pytest

from bluffcam.commands.serve import EXIT_CONFIG

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
CHECKOUT = DEPLOY.parent
INSTALL = DEPLOY / "install.sh"


def _install(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("SUDO_USER", "BLUFFCAM_USER", "UNIT_DIR")}
    return subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True,
                          timeout=30, check=False, env={**clean, **env})


def _sections(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(text)
    return parser


def test_the_unit_assumes_no_user_and_no_home() -> None:
    unit = (DEPLOY / "bluffcam.service").read_text(encoding="utf-8")
    assert not re.search(r"^User=pi$", unit, re.M) and "/home/pi" not in unit
    service = _sections(unit)["Service"]
    assert service["User"] == "@USER@" and service["WorkingDirectory"] == "@CHECKOUT@"


def test_a_start_that_cannot_heal_is_not_retried() -> None:
    unit = _sections((DEPLOY / "bluffcam.service").read_text(encoding="utf-8"))
    assert unit["Service"]["Restart"] == "on-failure"
    assert str(EXIT_CONFIG) in unit["Service"]["RestartPreventExitStatus"].split()
    # systemd reads the start limit from [Unit] only
    assert int(unit["Unit"]["StartLimitBurst"]) >= 1
    assert int(unit["Unit"]["StartLimitIntervalSec"]) > 0


def test_serve_exits_with_the_no_retry_status_for_a_missing_profile(tmp_path: Path) -> None:
    from bluffcam.cli import main

    assert main(["serve", "--profile", str(tmp_path / "gone.toml"), "--data",
                 str(tmp_path / "data"), "--camera", "none", "--gpio", "none"]) == EXIT_CONFIG


def test_the_installer_writes_the_invoking_user_and_this_checkout_in() -> None:
    done = _install("--print-unit", SUDO_USER="alice")
    assert done.returncode == 0, done.stderr
    service = _sections(done.stdout)["Service"]
    assert service["User"] == "alice"
    assert service["WorkingDirectory"] == str(CHECKOUT)
    assert service["ExecStart"] == f"{CHECKOUT}/.venv/bin/bluffcam serve $BLUFFCAM_ARGS"
    assert "@USER@" not in done.stdout and "@CHECKOUT@" not in done.stdout


@pytest.mark.parametrize("user", ["bob smith", "x|y", "Root;"])
def test_the_installer_refuses_a_user_name_systemd_would_not_take(user: str) -> None:
    done = _install("--print-unit", SUDO_USER=user)
    assert done.returncode == 2 and "is not one systemd takes" in done.stderr
    assert done.stdout == ""


def test_the_installer_will_not_make_a_root_service_and_writes_nothing(tmp_path: Path) -> None:
    done = _install(BLUFFCAM_USER="root", UNIT_DIR=str(tmp_path))
    assert done.returncode == 2 and "must not run as root" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_installer_refuses_an_unknown_argument() -> None:
    done = _install("--frobnicate", SUDO_USER="alice")
    assert done.returncode == 2 and "unknown argument" in done.stderr
