"""Fixtures every test area may use. Area-specific fixtures live in tests/<area>/conftest.py."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATASETS = REPO_ROOT.parent / "shared" / "datasets"


def in_ci() -> bool:
    """CI sets CI=true; there a missing prerequisite must fail, not skip."""
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


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
