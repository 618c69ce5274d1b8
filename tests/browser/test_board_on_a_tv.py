"""The board on a TV: the whole board on one screen, the last reveal's photo included, and
the QR code a phone scans to join the table.

Nobody scrolls a TV. A TV's browser is often 1280 × 720 CSS pixels, a laptop's a little more;
on such landscape screens the board lays itself out to the screen's height (app.css, "the
board on a TV"). Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from browser_support import LiveServer, open_page, reveal_confirmed_as_read
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

#: what the board must show whole, each by a selector
PARTS = {
    "turn": "#turn",
    "current bid": "#current-bid",
    "bid track": "#track",
    "players": "#players",
    "verdict": "[data-testid=verdict]",
    "reveal photo": ".reveal-photo img",
    "dice revealed": ".seat-readings",
    "footer": ".board-foot",
}

BOXES = """(parts) => Object.fromEntries(Object.entries(parts).map(([name, selector]) => {
  const node = document.querySelector(selector);
  if (!node) return [name, null];
  const box = node.getBoundingClientRect();
  return [name, {top: box.top, bottom: box.bottom, left: box.left, right: box.right,
                 width: box.width, height: box.height}];
}))"""


@pytest.fixture(scope="module")
def revealed(live_server: LiveServer) -> dict[str, Any]:
    """A two-player round settled from a camera reveal, so the board shows a verdict and the
    photo it was read from."""
    return reveal_confirmed_as_read(live_server)


@pytest.fixture()
def screen(request: pytest.FixtureRequest, browser: Any, live_server: LiveServer) -> Iterator[Any]:
    width, height, *scale = request.param
    yield from open_page(browser, live_server, {
        "viewport": {"width": width, "height": height},
        "device_scale_factor": scale[0] if scale else 1}, "board")


@pytest.mark.parametrize("screen", [(1920, 1080), (1600, 900), (1280, 720)], indirect=True,
                         ids=["1080p", "900p", "720p"])
def test_the_whole_board_fits_a_tv_screen(screen: Any, revealed: dict[str, Any],
                                          screenshot_dir: Path) -> None:
    screen.goto("/")
    expect(screen.locator("#live")).to_have_attribute("data-status", "live")
    expect(screen.get_by_test_id("verdict")).not_to_be_empty()
    screen.wait_for_function("""() => { const photo = document.querySelector('.reveal-photo img');
        return photo && photo.complete && photo.naturalWidth > 0; }""")
    width, height = screen.viewport_size["width"], screen.viewport_size["height"]
    screen.screenshot(path=str(screenshot_dir / f"board-tv-{width}x{height}.png"))

    page_size = screen.evaluate("[document.documentElement.scrollWidth, "
                                "document.documentElement.scrollHeight]")
    assert page_size == [width, height], f"the board scrolls on a {width}×{height} screen"
    boxes = screen.evaluate(BOXES, PARTS)
    for name, box in boxes.items():
        assert box is not None, f"no {name} on the board"
        assert box["width"] > 0 and box["height"] > 0, f"the {name} is not drawn: {box}"
        assert box["top"] >= 0 and box["bottom"] <= height, f"the {name} is off screen: {box}"
        assert box["left"] >= 0 and box["right"] <= width, f"the {name} is off screen: {box}"
    # the photo is shown at a size one can see from the sofa, not a thumbnail
    assert boxes["reveal photo"]["height"] >= 0.12 * height, boxes["reveal photo"]
    assert revealed["id"] in screen.locator(".reveal-photo img").get_attribute("src")


@pytest.mark.parametrize("screen", [(1600, 900, 4)], indirect=True, ids=["900p-sharp"])
def test_a_phone_joins_by_scanning_the_boards_qr_code(screen: Any, phone: Any,
                                                      live_server: LiveServer) -> None:
    """The board on the table's screen shows a QR code of the control page with the PIN in
    its fragment; a phone that opens it is unlocked without typing the PIN. (The screen is
    drawn at four device pixels to the CSS pixel, as a camera close to the TV sees it, so
    that the QR code's modules do not fall between pixels.)"""
    tv = screen
    tv.goto("/")
    qr = tv.locator("#pin-card .join-qr")
    expect(qr).to_be_visible()
    tv.wait_for_function("() => document.querySelector('#pin-card .join-qr').naturalWidth > 0")
    port = live_server.url.rsplit(":", 1)[1]
    expect(tv.get_by_test_id("join")).to_contain_text(f":{port}/control")
    shot = cv2.imdecode(np.frombuffer(qr.screenshot(), np.uint8), cv2.IMREAD_GRAYSCALE)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(shot)
    assert text.endswith(f":{port}/control#pin={live_server.pin}"), text

    # the phone has never seen the PIN: the address it scanned carries it
    phone.goto(f"/control#pin={live_server.pin}")
    expect(phone.locator("#live")).to_have_attribute("data-status", "live")
    expect(phone.locator("#pin-gate")).to_be_hidden()
    assert phone.evaluate("location.hash") == ""  # not left in the address bar
    assert phone.evaluate("localStorage.getItem('bluffcam.pin')") == live_server.pin
