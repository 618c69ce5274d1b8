"""Browser tests: Debian's chromium, driven by Playwright, against the real dashboard.

The server is the real app (`web.create_app`) around a real `Table` on a temporary journal,
served by werkzeug in a thread on 127.0.0.1. Only the camera is a stand-in: it shows a
scene `browser_scene` draws (dice at known places), and the reveal reader reports those dice
with one deliberate, low-confidence misread, so the review page has something to correct.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SCREENSHOTS,
    TABLE_PIN,
    LiveServer,
    SceneCamera,
    StreamCutter,
    in_ci,
    misreading_reader,
    open_page,
    scene_profile,
)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    from werkzeug.serving import make_server

    from bluffcam.table import Table
    from web import create_app

    data = tmp_path_factory.mktemp("table")
    table = Table(data / "journal.sqlite", camera=SceneCamera(), profile=scene_profile(),
                  data_dir=data,
                  reveal_reader=misreading_reader)
    app = create_app({"TABLE_PIN": TABLE_PIN, "DATA_DIR": str(data), "TESTING": True,
                      "SSE_HEARTBEAT_S": 0.5}, table=table)
    cutter = StreamCutter(app.wsgi_app)
    app.wsgi_app = cutter  # type: ignore[method-assign]
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="browser-test-server", daemon=True)
    thread.start()
    try:
        yield LiveServer(f"http://127.0.0.1:{server.server_port}", TABLE_PIN, table, cutter)
    finally:
        server.shutdown()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.is_file():
        reason = f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                              args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture()
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


PHONE = {"viewport": {"width": 412, "height": 915}, "device_scale_factor": 2, "is_mobile": True,
         "has_touch": True}
TV = {"viewport": {"width": 1600, "height": 900}}


@pytest.fixture()
def phone(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from open_page(browser, live_server, PHONE, "phone")


@pytest.fixture()
def tv(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from open_page(browser, live_server, TV, "board")
