"""The board on a TV: the whole board on one screen, the last reveal's photo included, and
the QR code a phone scans to join the table.

Nobody scrolls a TV. A TV's browser is often 1280 × 720 CSS pixels, a laptop's a little more;
on such landscape screens the board lays itself out to the screen's height (app.css, "the
board on a TV"). Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from browser_support import (
    LiveServer,
    open_page,
    reveal_confirmed_as_read,
    scene_profile,
    serving,
)
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

CROWDED = re.compile(r"\bcrowded\b")

#: the most players a game of Bluff seats
SIX = ["Ann", "Ben", "Cho", "Dan", "Eve", "Fay"]

BOXES = """(parts) => Object.fromEntries(Object.entries(parts).map(([name, selector]) => {
  const node = document.querySelector(selector);
  if (!node) return [name, null];
  const box = node.getBoundingClientRect();
  return [name, {top: box.top, bottom: box.bottom, left: box.left, right: box.right,
                 width: box.width, height: box.height}];
}))"""

#: where the photo is drawn inside its box (scaled whole into it, placed by object-position)
DRAWN_PHOTO = """() => {
  const img = document.querySelector('.reveal-photo img');
  const box = img.getBoundingClientRect();
  const scale = Math.min(box.width / img.naturalWidth, box.height / img.naturalHeight);
  const height = img.naturalHeight * scale;
  const along = parseFloat(getComputedStyle(img).objectPosition.split(' ')[1]) / 100;
  const top = box.top + (box.height - height) * along;
  return {top, bottom: top + height};
}"""


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
    assert_the_whole_board_fits(screen, screenshot_dir, "board-tv")
    assert revealed["id"] in screen.locator(".reveal-photo img").get_attribute("src")


def play_an_evening(server: LiveServer, players: list[str], wins: int) -> None:
    """Games of one die each, two players a game, until every player has won ``wins``: the
    footer's standings at their longest."""
    for _ in range(wins):
        for winner, other in zip(players, players[1:] + players[:1], strict=True):
            server.post("/api/game", {"game": "bluff", "players": [other, winner],
                                      "starter": other, "options": {"dice_per_player": 1}})
            server.post("/api/action", {"player": other, "bid": "1x2"})
            server.post("/api/action", {"player": winner, "challenge": True})
            server.post("/api/action", {"reveal": {other: [3], winner: [4]}})


def settled_table(data: Path, players: list[str], evening: int = 0) -> Iterator[LiveServer]:
    """A game of Bluff with five dice each whose first round is settled from a camera reveal
    (the camera saw two seats' dice, the others were typed in at the review) and whose next
    round has a bid on the track; ``evening``: the wins each player had in earlier games."""
    with serving(data, scene_profile(seat_count=len(players))) as server:
        play_an_evening(server, players, evening)
        server.post("/api/game", {"game": "bluff", "players": players, "starter": players[0]})
        server.post("/api/action", {"player": players[0], "bid": "9x4"})
        server.post("/api/action", {"player": players[1], "challenge": True})
        review = server.post("/api/reveal/capture", {})["review"]
        server.post(f"/api/reveals/{review['id']}/confirm",
                    {"seats": {name: [1, 2, 3, 4, 6] for name in players}})
        turn = server.table.game.to_json()["turn"]
        server.post("/api/action", {"player": turn, "bid": "3x5"})
        yield server


@pytest.fixture(scope="module")
def full_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Six players with five dice each, the most a game of Bluff seats: the longest bid track
    (30 dice) and two rows of players; twelve games before it, won twice by each, in the
    footer's standings."""
    yield from settled_table(tmp_path_factory.mktemp("full-table"), SIX, evening=2)


@pytest.fixture()
def full_screen(request: pytest.FixtureRequest, browser: Any,
                full_table: LiveServer) -> Iterator[Any]:
    width, height = request.param
    yield from open_page(browser, full_table, {"viewport": {"width": width, "height": height}},
                         "board")


@pytest.mark.parametrize("full_screen", [(1920, 1080), (1366, 768), (1280, 720), (1024, 600)],
                         indirect=True, ids=["1080p", "768p", "720p", "1024x600"])
def test_a_full_table_of_six_fits_a_tv_screen(full_screen: Any, screenshot_dir: Path) -> None:
    """Six players' cards, a track of 30 dice and a reveal of six seats with its photo: on a
    720-line screen and a 1024 × 600 panel too, every part whole and nothing to scroll (the
    cards drawn compact)."""
    assert_the_whole_board_fits(full_screen, screenshot_dir, "board-tv-six")
    expect(full_screen.get_by_test_id("evening")).to_have_text(
        "Tonight, 12 games: " + " · ".join(f"{name} 2 wins" for name in sorted(SIX)))
    expect(full_screen.locator("#players .player")).to_have_count(6)
    expect(full_screen.locator(".seat-reading")).to_have_count(6)
    expect(full_screen.locator("#track .field-current")).to_have_attribute("data-field", "3")
    # a card's loss still shows, as its number beside the dice
    expect(full_screen.locator(".player", has_text="Ben").locator(".lost")).to_contain_text("−3")
    assert_the_latest_verdict_shows(full_screen)
    # "Counted 12 for 9 × 4s" repeats the verdict: only a screen under 700 lines leaves it out
    counted = expect(full_screen.locator(".reveal-count"))
    if full_screen.viewport_size["height"] < 700:
        counted.to_be_hidden()
    else:
        counted.to_have_text("Counted 12 for 9 × 4s")


@pytest.fixture(scope="module")
def full_table_with_news(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The full table of six, three more messages on the board than its reveal's: a camera
    fault, an undo and a long warning, as a bad evening at the table brings them."""
    for server in settled_table(tmp_path_factory.mktemp("full-table-news"), SIX):
        server.table.note("the camera's reading failed (the frame came back empty) — capture "
                          "again, or enter the reveal by hand", "warning")
        server.table.note("undone: Cho bid 4 × 5s", about_game=True)
        server.table.note("the camera read nothing (the scene never came to rest) — capture "
                          "again, or enter the reveal by hand", "warning")
        yield server


def test_a_full_table_with_several_messages_fits_a_720_line_tv(
        browser: Any, full_table_with_news: LiveServer, screenshot_dir: Path) -> None:
    """Messages on a TV share one row, each cut to two lines (its whole text its title, and on
    a phone's board), so a bad evening's news does not push the board off the screen."""
    for screen in open_page(browser, full_table_with_news,
                            {"viewport": {"width": 1280, "height": 720}}, "board"):
        assert_the_whole_board_fits(screen, screenshot_dir, "board-tv-six-messages")
        messages = screen.locator("#messages .message")
        expect(messages).to_have_count(3)
        tops = {round(messages.nth(i).bounding_box()["y"]) for i in range(3)}
        assert len(tops) == 1, f"the messages take more than one row: {tops}"
        expect(messages.first).to_have_attribute("title", re.compile("enter the reveal by hand"))


@pytest.fixture(scope="module", params=[3, 4], ids=["three", "four"])
def small_screen_table(request: pytest.FixtureRequest,
                       tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    players = SIX[:request.param]
    yield from settled_table(tmp_path_factory.mktemp("small-screen"), players)


def test_three_or_four_players_fit_a_1024_by_600_panel(
        browser: Any, small_screen_table: LiveServer, screenshot_dir: Path) -> None:
    """The smallest screen to get the TV layout (a 1024 × 600 panel beside the table): the
    cards drawn compact from three players on, every part whole and nothing to scroll."""
    players = small_screen_table.table.game.to_json()["players"]
    for screen in open_page(browser, small_screen_table,
                            {"viewport": {"width": 1280, "height": 720}}, "board"):
        # a TV of 720 lines keeps the cards whole, their counts in words
        screen.goto("/")
        expect(screen.locator("#players .player .player-count").first).to_be_visible()
        expect(screen.locator("#players")).not_to_have_class(CROWDED)
        # the same board on the smaller screen (a window made smaller, too) redraws them
        screen.set_viewport_size({"width": 1024, "height": 600})
        expect(screen.locator("#players")).to_have_class(CROWDED)
        expect(screen.locator("#players .player .player-count").first).to_be_hidden()
        assert_the_whole_board_fits(screen, screenshot_dir, f"board-tv-{len(players)}-players")
        assert_the_latest_verdict_shows(screen)
        # the loser's loss is shown inside the card, beside its dice where three cards leave
        # room for it (four a row do not: it goes under them)
        card = screen.locator(".player", has_text="Ann")
        box, dice = card.bounding_box(), card.locator(".player-dice").bounding_box()
        lost = card.locator(".lost").bounding_box()
        assert box["x"] < lost["x"] and lost["x"] + lost["width"] < box["x"] + box["width"], lost
        assert box["y"] < lost["y"] and lost["y"] + lost["height"] < box["y"] + box["height"], lost
        if len(players) == 3:
            beside = lost["x"] >= dice["x"] + dice["width"]
            assert beside and lost["y"] < dice["y"] + dice["height"], (dice, lost)


def assert_the_latest_verdict_shows(screen: Any) -> None:
    """The rounds' panel, short here, shows the latest round's verdict whole, not a sliver:
    its line lies inside the list that clips it (a comma's tail included)."""
    latest = screen.locator(".history .round").first.locator(".round-verdict")
    expect(latest).to_have_text(screen.get_by_test_id("verdict").inner_text())
    shown = screen.locator(".history").bounding_box()
    line = latest.bounding_box()
    assert shown["y"] <= line["y"] and line["y"] + line["height"] <= shown["y"] + shown["height"], \
        (shown, line)


def assert_the_whole_board_fits(screen: Any, screenshot_dir: Path, name: str) -> None:
    """The board, once live and showing the last reveal's verdict and photo, fills the screen
    without scrolling, each of its PARTS drawn whole on it; a screenshot is kept."""
    screen.goto("/")
    expect(screen.locator("#live")).to_have_attribute("data-status", "live")
    expect(screen.get_by_test_id("verdict")).not_to_be_empty()
    screen.wait_for_function("""() => { const photo = document.querySelector('.reveal-photo img');
        return photo && photo.complete && photo.naturalWidth > 0; }""")
    width, height = screen.viewport_size["width"], screen.viewport_size["height"]
    screen.screenshot(path=str(screenshot_dir / f"{name}-{width}x{height}.png"))

    page_size = screen.evaluate("[document.documentElement.scrollWidth, "
                                "document.documentElement.scrollHeight]")
    assert page_size == [width, height], f"the board scrolls on a {width}×{height} screen"
    boxes = screen.evaluate(BOXES, PARTS)
    for part, box in boxes.items():
        assert box is not None, f"no {part} on the board"
        assert box["width"] > 0 and box["height"] > 0, f"the {part} is not drawn: {box}"
        assert box["top"] >= 0 and box["bottom"] <= height, f"the {part} is off screen: {box}"
        assert box["left"] >= 0 and box["right"] <= width, f"the {part} is off screen: {box}"
    # the photo is shown at a size one can see from the sofa, not a thumbnail (12% of the
    # screen's height at least, to the 64th of a pixel a browser lays out in), and its words
    # follow right under it (its box no taller than the photo drawn in it)
    assert boxes["reveal photo"]["height"] >= 0.12 * height - 1 / 64, boxes["reveal photo"]
    drawn = screen.evaluate(DRAWN_PHOTO)
    gap = boxes["verdict"]["top"] - drawn["bottom"]
    assert 0 <= gap <= 0.04 * height, (drawn, boxes["verdict"])


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
    assert shot is not None, "the QR code's screenshot is not an image"
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(shot)
    assert text.endswith(f":{port}/control#pin={live_server.pin}"), text

    # the phone has never seen the PIN: the address it scanned carries it
    phone.goto(f"/control#pin={live_server.pin}")
    expect(phone.locator("#live")).to_have_attribute("data-status", "live")
    expect(phone.locator("#pin-gate")).to_be_hidden()
    assert phone.evaluate("location.hash") == ""  # not left in the address bar
    assert phone.evaluate("localStorage.getItem('bluffcam.pin')") == live_server.pin


@pytest.mark.parametrize("screen", [(915, 412, 2), (1280, 720)], indirect=True,
                         ids=["phone-sideways", "720p"])
def test_only_a_screen_tall_enough_gets_the_tv_layout(screen: Any,
                                                      revealed: dict[str, Any]) -> None:
    """A phone held sideways is wide but short: fitted to its 412 lines the board would be
    unreadable, so it keeps the one-column board and scrolls; a TV lays the reveal beside."""
    screen.goto("/")
    expect(screen.get_by_test_id("verdict")).not_to_be_empty()
    players = screen.locator("#players").bounding_box()
    reveal = screen.locator(".reveal-panel").bounding_box()
    beside = reveal["x"] >= players["x"] + players["width"]
    assert beside == (screen.viewport_size["height"] >= 600), (players, reveal)


def test_before_the_first_round_the_board_has_no_empty_rounds_panel(
        browser: Any, tmp_path: Path) -> None:
    """A game just begun: nothing in the rounds' panel to show, so a TV leaves it out and
    gives its height to the rest; the top cards keep to one row."""
    with serving(tmp_path, scene_profile()) as server:
        server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben", "Cho"],
                                  "starter": "Ann"})
        for page in open_page(browser, server, {"viewport": {"width": 1280, "height": 720}},
                              "board"):
            page.goto("/")
            expect(page.locator("#live")).to_have_attribute("data-status", "live")
            expect(page.locator("#history")).to_contain_text("No rounds played yet")
            expect(page.locator(".history-panel")).to_be_hidden()
            tops = page.eval_on_selector_all(
                ".board-hero > *", """cards => cards.filter(c => c.getClientRects().length)
                    .map(c => c.getBoundingClientRect().top)""")
            assert len(tops) >= 3 and len(set(tops)) == 1, tops
            assert page.evaluate("document.documentElement.scrollHeight") == 720
