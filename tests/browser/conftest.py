"""Browser tests: Debian's chromium, driven by Playwright, against the real dashboard.

The server is the real app (`web.create_app`) around a real `Table` on a temporary journal,
served by werkzeug in a thread on 127.0.0.1. Only the camera is a stand-in: it shows a
scene `browser_scene` draws (dice at known places), and the reveal reader reports those dice
with one deliberate, low-confidence misread, so the review page has something to correct.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SCREENSHOTS,
    LiveServer,
    in_ci,
    open_page,
    scene_profile,
    serving,
)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with serving(tmp_path_factory.mktemp("table"), scene_profile()) as server:
        yield server


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
