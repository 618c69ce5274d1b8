"""A real Table on a temporary journal, a stand-in camera and reader, and the Flask test client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_api_helpers import PIN, StubCamera, StubReader

from bluffcam.table import Table
from web import create_app


@pytest.fixture
def camera() -> StubCamera:
    return StubCamera()


@pytest.fixture
def reader() -> StubReader:
    return StubReader()


@pytest.fixture
def table(tmp_path: Path, camera: StubCamera, reader: StubReader) -> Iterator[Table]:
    t = Table(tmp_path / "journal.sqlite", camera=camera, reveal_reader=reader,
              set_aside_reader=lambda frames, seat: ([4, 4], []))
    yield t
    t.close()


@pytest.fixture
def app(table: Table) -> Flask:
    return create_app({"TESTING": True, "TABLE_PIN": PIN, "SSE_HEARTBEAT_S": 0.05,
                       "PIN_FREE_TRIES": 3, "MAX_CONTENT_LENGTH": 64 * 1024}, table=table)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
