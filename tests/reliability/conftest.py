"""A real Table on a temporary data folder behind the Flask test client, for in-process tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from reliability_helpers import PIN

from bluffcam.table import Table
from web import create_app


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.fixture
def table(data_dir: Path) -> Iterator[Table]:
    t = Table(data_dir / "journal.sqlite", data_dir=data_dir)
    yield t
    t.close()


@pytest.fixture
def app(table: Table, data_dir: Path) -> Flask:
    return create_app({"TESTING": True, "TABLE_PIN": PIN, "DATA_DIR": str(data_dir),
                       "SSE_HEARTBEAT_S": 0.05}, table=table)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
