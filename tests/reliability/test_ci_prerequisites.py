"""tests/conftest.py's rule: a test whose prerequisite is missing (a module such as torch, the
real photos in ../shared/datasets) skips on a developer's machine and fails under CI=true,
where every test must run. Checked by running pytest on a few stand-in tests with that
conftest, in a folder that has no ../shared/datasets beside it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
STAND_INS = '''
import pytest


def test_needs_a_module_that_is_not_installed():
    pytest.importorskip("bluffcam_no_such_module")


def test_needs_the_real_photos(shared_datasets):
    pass


def test_skips_for_a_reason_of_its_own():
    pytest.skip("a Pi has GPIO pins: panel-test would open them")
'''


def run_stand_ins(folder: Path, ci: str | None) -> dict[str, int]:
    """The outcomes of the stand-in tests, and how many missing things a failure named."""
    tests = folder / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "conftest.py").write_text(CONFTEST.read_text(encoding="utf-8"), encoding="utf-8")
    (tests / "test_stand_ins.py").write_text(STAND_INS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfs", "-p", "no:cacheprovider",
                           "--rootdir", str(folder), str(tests)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    assert not (folder.parent / "shared" / "datasets").exists()
    last = done.stdout.splitlines()[-1]
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|error)", last)}
    outcome = {word: counts.get(word, 0) for word in ("passed", "failed", "skipped", "error")}
    outcome["named"] = sum(what in done.stdout for what in (
        "prerequisite is missing: could not import 'bluffcam_no_such_module'",
        "prerequisite is missing: real dice photos not found"))
    return outcome


def test_a_missing_prerequisite_skips_on_a_developers_machine(tmp_path: Path) -> None:
    assert run_stand_ins(tmp_path, None) == {"passed": 0, "failed": 0, "skipped": 3,
                                             "error": 0, "named": 0}


@pytest.mark.parametrize("ci", ["true"])
def test_a_missing_prerequisite_fails_under_ci(tmp_path: Path, ci: str) -> None:
    """The module and the photos fail (the photos' fixture as an error in set-up), naming
    what is missing; a skip for another reason (a Pi's pins) stays a skip."""
    assert run_stand_ins(tmp_path, ci) == {"passed": 0, "failed": 1, "skipped": 1,
                                           "error": 1, "named": 2}
