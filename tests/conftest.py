"""Fixtures every test area may use. Area-specific fixtures live in tests/<area>/conftest.py."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

REPO_ROOT = Path(__file__).resolve().parent.parent

# mutation testing (pyproject.toml, [tool.mutmut]) runs the tests traced and many times over:
# no deadline (tracing slows each example), the same examples every run, fewer of them
settings.register_profile("mutation", deadline=None, derandomize=True, max_examples=40)
SHARED_DATASETS = REPO_ROOT.parent / "shared" / "datasets"


def in_ci() -> bool:
    """CI sets CI=true; there a missing prerequisite must fail, not skip."""
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


#: how the skips of a missing prerequisite begin: a module (``pytest.importorskip``: torch,
#: onnx), the real photos beside the project, the rendered test data in tests/data
MISSING_PREREQUISITE = ("could not import ", "real dice photos not found",
                        "rendered test data not found")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """The one rule for what a test needs and lacks: skipped on a developer's machine (with
    its reason in the summary), failed under CI, where every test must run."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if not (report.skipped and in_ci() and call.excinfo is not None):
        return
    reason = str(call.excinfo.value)
    if reason.startswith(MISSING_PREREQUISITE):
        report.outcome = "failed"
        report.longrepr = f"CI=true and a prerequisite is missing: {reason}"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    """The real dice photos beside the project; they are never copied into it."""
    manifest = SHARED_DATASETS / "manifest.json"
    if not manifest.is_file():
        pytest.skip(f"real dice photos not found: {manifest} is absent (../shared/datasets)")
    return SHARED_DATASETS


@pytest.fixture()
def demo_profile_with(tmp_path: Path) -> Callable[[str], Path]:
    """A copy of the demo's calibration profile with ``extra`` TOML appended (a [panel]
    section, say), in the test's own folder."""

    def write(extra: str) -> Path:
        profile = tmp_path / "table.toml"
        demo = (REPO_ROOT / "calibration" / "demo.toml").read_text(encoding="utf-8")
        profile.write_text(f"{demo}\n{extra}\n", encoding="utf-8")
        return profile

    return write
