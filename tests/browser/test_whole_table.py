"""The whole table looks at the board together: a doubtful reading shown large (its photo,
the doubtful dice numbered, no stale verdict), the round's story (a raise and re-roll with
the dice set aside, Scam's passes), the camera's one banner, and nothing under 24 px on a
1080p TV. At 1920 × 1080 and on a 390 × 844 phone. Screenshots go to
test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import LiveServer, open_page, redrawn_after, scene_profile, serving
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SIZES = [(1920, 1080), (390, 844)]
SIZE_IDS = ["1080p", "phone"]

#: every visible text on the board (not a die's drawing) and its computed size in CSS px
TEXT_SIZES = """() => {
  const out = [];
  const board = document.querySelector('main.board');
  const walker = document.createTreeWalker(board, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode;
    const node = text.parentElement;
    if (!text.textContent.trim() || node.closest('svg, .visually-hidden')) continue;
    const range = document.createRange();
    range.selectNodeContents(text);
    const box = range.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (!node.checkVisibility({visibilityProperty: true})) continue;
    out.push({text: text.textContent.trim().slice(0, 40),
              size: parseFloat(getComputedStyle(node).fontSize),
              where: node.className || node.tagName});
  }
  return out;
}"""


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with serving(tmp_path_factory.mktemp("whole-table"), scene_profile()) as server:
        yield server


@pytest.fixture()
def board(request: pytest.FixtureRequest, browser: Any, table: LiveServer) -> Iterator[Any]:
    width, height = request.param
    phone = width < 600
    yield from open_page(browser, table, {
        "viewport": {"width": width, "height": height}, "is_mobile": phone, "has_touch": phone,
        "device_scale_factor": 2 if phone else 1}, "board")


def settled_then_pending(server: LiveServer) -> dict[str, Any]:
    """A round settled from a reading confirmed by hand (a verdict on the board), then the
    next round doubted and read again: that reading waits for a check."""
    server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                              "options": {"dice_per_player": 3}})
    server.post("/api/action", {"player": "Ann", "bid": "2x4"})
    server.post("/api/action", {"player": "Ben", "challenge": True})
    first = server.post("/api/reveal/capture", {})["review"]
    server.post(f"/api/reveals/{first['id']}/confirm",
                {"seats": {"Ann": [4, 1, 6], "Ben": [4, 4, 2]}})
    game = server.table.game.to_json()
    bidder = game["turn"]
    doubter = next(p["name"] for p in game["players"] if p["name"] != bidder)
    server.post("/api/action", {"player": bidder, "bid": "1x2"})
    server.post("/api/action", {"player": doubter, "challenge": True})
    review: dict[str, Any] = server.post("/api/reveal/capture", {})["review"]
    return review


@pytest.mark.parametrize("board", SIZES, indirect=True, ids=SIZE_IDS)
def test_the_tv_shows_the_pending_reading_large_and_no_stale_verdict(
        board: Any, table: LiveServer, screenshot_dir: Path) -> None:
    review = settled_then_pending(table)
    old_verdict = table.table.state()["history"][-1]["verdict"]
    board.goto("/")
    photo = board.locator("[data-testid=pending-photo] img")
    expect(photo).to_be_visible()
    board.wait_for_function(
        "document.querySelector('[data-testid=pending-photo] img').naturalWidth > 0")
    doubts = [p for p in review["problems"] if p.get("x") is not None]
    assert doubts, "the scene has a doubtful die"
    markers = board.locator("[data-testid=doubt-marker]")
    expect(markers).to_have_count(len(doubts))
    expect(markers.first).to_have_text("1")
    expect(board.locator("[data-testid=doubt]").first).to_contain_text(doubts[0]["message"])
    # each seat's dice as read, the doubtful one marked
    expect(board.locator(".review-seat")).to_have_count(2)
    expect(board.locator(".review-die.in-doubt")).to_have_count(len(doubts))
    # the marker lies on the photo, where the die is
    box, mark = photo.bounding_box(), markers.first.bounding_box()
    assert box and mark
    assert box["x"] <= mark["x"] + mark["width"] / 2 <= box["x"] + box["width"]
    assert box["y"] <= mark["y"] + mark["height"] <= box["y"] + box["height"]
    # the photo is large: at least half the panel's width on a TV
    if board.viewport_size["width"] > 1000:
        assert box["width"] >= 0.3 * board.viewport_size["width"]
    # the last round's verdict waits until this one applies
    expect(board.locator("[data-testid=verdict]")).to_have_count(0)
    expect(board.locator(".reveal-panel")).not_to_contain_text(old_verdict)
    width = board.viewport_size["width"]
    board.screenshot(path=str(screenshot_dir / f"board-pending-review-{width}.png"))
    # once confirmed, the new verdict shows and the photo goes
    seats = {s: [d["value"] for d in dice][:review["expected"][s]]
             for s, dice in review["seats"].items()}
    redrawn_after(board, lambda: table.post(f"/api/reveals/{review['id']}/confirm",
                                            {"seats": seats}))
    expect(board.locator("[data-testid=pending-photo]")).to_have_count(0)
    new_verdict = table.table.state()["history"][-1]["verdict"]
    expect(board.locator("[data-testid=verdict]")).to_have_text(new_verdict)


@pytest.mark.parametrize("board", SIZES, indirect=True, ids=SIZE_IDS)
def test_the_story_lists_a_raise_and_re_roll_and_scams_passes(
        board: Any, table: LiveServer, screenshot_dir: Path) -> None:
    table.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                             "options": {"dice_per_player": 3}})
    table.post("/api/action", {"player": "Ann", "bid": "2x4"})
    table.post("/api/action", {"player": "Ben", "bid": "3x4", "set_aside": [4, 4]})
    board.goto("/")
    story = board.locator("[data-testid=story]")
    expect(story.locator(".story-step")).to_have_count(2)
    first, second = story.locator(".story-step").nth(0), story.locator(".story-step").nth(1)
    expect(first).to_contain_text("Ann")
    expect(first.locator("svg[aria-label='fours']")).to_have_count(0)  # the face is drawn, not said
    expect(first.locator(".story-bid svg.die")).to_have_count(1)
    expect(second).to_have_attribute("data-kind", "raise_reroll")
    expect(second).to_contain_text("Ben")
    expect(second.locator("[data-testid=story-set-aside] svg.die")).to_have_count(2)
    board.screenshot(path=str(screenshot_dir / f"board-story-{board.viewport_size['width']}.png"))

    redrawn_after(board, lambda: table.post("/api/game", {
        "game": "scam", "players": ["Ann", "Ben", "Cho"], "starter": "Ann"}))
    table.post("/api/action", {"player": "Ann", "bid": "2x5"})
    redrawn_after(board, lambda: table.post("/api/action", {"player": "Ben", "pass": True}))
    expect(story.locator(".story-step")).to_have_count(2)
    expect(story.locator(".story-step").nth(1)).to_have_attribute("data-kind", "pass")
    expect(story.locator(".story-step").nth(1)).to_contain_text("Ben")


def test_nothing_on_a_1080p_tv_board_is_under_24_px(browser: Any, table: LiveServer,
                                                    screenshot_dir: Path) -> None:
    """Tags, dice counts, the rounds list, the story, standings and the footer, read from 3 m."""
    table.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                             "options": {"dice_per_player": 3}})
    table.post("/api/action", {"player": "Ann", "bid": "2x4"})
    table.post("/api/action", {"player": "Ben", "challenge": True})
    review = table.post("/api/reveal/capture", {})["review"]
    table.post(f"/api/reveals/{review['id']}/confirm",
               {"seats": {"Ann": [4, 1, 6], "Ben": [4, 4, 2]}})
    turn = table.table.game.to_json()["turn"]
    table.post("/api/action", {"player": turn, "bid": "2x3", "set_aside": [3]})
    table.table.note("a message for the table")
    for page in open_page(browser, table, {"viewport": {"width": 1920, "height": 1080}}, "board"):
        page.goto("/")
        expect(page.locator("[data-testid=story] .story-step")).to_have_count(1)
        expect(page.locator("[data-testid=verdict]")).to_be_visible()
        sizes = page.evaluate(TEXT_SIZES)
        # and a game's start: no reveal yet, no bid yet
        redrawn_after(page, lambda: table.post("/api/game", {
            "game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"}))
        expect(page.locator(".story-empty")).to_be_visible()
        sizes += page.evaluate(TEXT_SIZES)
        assert len(sizes) > 20, sizes  # the board's words were found
        small = [s for s in sizes if s["size"] < 24]
        page.screenshot(path=str(screenshot_dir / "board-1080p-24px.png"))
        assert not small, "\n".join(f"{s['size']} px {s['where']}: {s['text']}" for s in small)


@pytest.mark.parametrize("board", SIZES, indirect=True, ids=SIZE_IDS)
def test_a_camera_retrying_is_one_banner_and_the_board_shows_no_commands(
        board: Any, table: LiveServer) -> None:
    """As serve's camera watch says it (`watch_camera`): each retry's countdown is a new
    status; the board showed each as a banner of its own, shell command and all."""
    from bluffcam.camera_news import CAMERA_TOPIC, camera_summary

    camera = table.table.camera
    board.goto("/")
    try:
        for wait in (1, 2, 4):
            camera.status = (f"camera offline: opencv:0: could not open the camera; is the "
                             f"webcam plugged in? (`ls /dev/video*`) (retrying in {wait} s)")
            redrawn_after(board, lambda: table.table.note(
                camera_summary(camera.status), "warning", topic=CAMERA_TOPIC))
        banners = board.locator(".message", has_text="camera offline")
        expect(banners).to_have_count(1)
        expect(board.locator(".board-foot")).to_contain_text("camera offline")
        shown = board.locator("main.board").inner_text()
        assert "`" not in shown and "/dev/video" not in shown
    finally:
        camera.status = "ok"


def test_the_qr_code_is_shown_big_on_request(browser: Any, table: LiveServer) -> None:
    """Scanned from a seat, not from in front of the TV: a tap (or /?qr=big) fills the screen."""
    for page in open_page(browser, table, {"viewport": {"width": 1920, "height": 1080}}, "board"):
        page.goto("/")
        page.click("#pin-card .qr-button")
        big = page.locator("#qr-big img")
        expect(big).to_be_visible()
        box = big.bounding_box()
        assert box and box["height"] >= 0.6 * 1080
        page.keyboard.press("Escape")
        expect(page.locator("#qr-big")).to_have_count(0)
        page.goto("/?qr=big")
        expect(page.locator("#qr-big img")).to_be_visible()


def draft_on_server(server: LiveServer, review_id: str) -> Any:
    import json
    import urllib.request

    with urllib.request.urlopen(f"{server.url}/api/reveals/{review_id}/draft", timeout=5) as r:
        return json.loads(r.read())["draft"]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_a_correction_survives_a_reload_the_pin_and_a_second_phone(
        browser: Any, table: LiveServer, size: tuple[int, int], screenshot_dir: Path) -> None:
    """A phone without the PIN corrects the misread die, reloads, enters the PIN on the review
    page: the correction is still there, and a second phone opens the review with it. A
    set-aside die missing from its seat is named before Confirm; Confirm goes back to the
    control page."""
    width, height = size
    options = {"viewport": {"width": width, "height": height}, "is_mobile": width < 600,
               "has_touch": width < 600}
    table.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                             "options": {"dice_per_player": 3}})
    table.post("/api/action", {"player": "Ann", "bid": "2x4", "set_aside": [4]})
    table.post("/api/action", {"player": "Ben", "challenge": True})
    review = table.post("/api/reveal/capture", {})["review"]
    misread = "#per-seat .seat-die[data-seat=Ben][data-value='5']"
    for first in open_page(browser, table, options, "review"):
        first.goto("/review")
        expect(first.locator("#review-pin-form")).to_be_visible()  # no PIN on this phone yet
        first.click(misread)
        first.click("button[aria-label='set to 4']")
        expect(first.locator("#confirm")).to_have_text("Confirm with 1 change")
        first.reload()
        expect(first.locator("#confirm")).to_have_text("Confirm with 1 change")
        expect(first.locator(misread)).to_have_count(0)
        first.fill("#review-pin", table.pin)
        first.click("#review-pin-form button[type=submit]")
        expect(first.locator("#review-pin-form")).to_have_count(0)
        expect(first.locator("#confirm")).to_have_text("Confirm with 1 change")
        kept = None
        for _ in range(50):  # sent a moment after the PIN was taken
            kept = draft_on_server(table, review["id"])
            if kept:
                break
            first.wait_for_timeout(100)
        assert kept and [d["value"] for d in kept["dice"] if d["edited"]] == [4]
    for second in open_page(browser, table, options, "review"):
        second.add_init_script(f"localStorage.setItem('bluffcam.pin', {table.pin!r})")
        second.goto("/review")
        expect(second.locator("#confirm")).to_have_text("Confirm with 1 change")
        expect(second.locator(misread)).to_have_count(0)
        expect(second.locator("#review-pin-form")).to_have_count(0)
        # Ann's set-aside 4 changed to a 2: the page says which seat lacks which die
        second.click("#per-seat .seat-die[data-seat=Ann][data-value='4']")
        second.click("button[aria-label='set to 2']")
        gaps = second.locator("#set-aside-gaps")
        expect(gaps).to_contain_text("Ann set a 4 aside")
        expect(second.locator("#per-seat .seat-row.seat-gap")).to_have_attribute("data-seat", "Ann")
        second.screenshot(path=str(screenshot_dir / f"review-set-aside-{width}.png"),
                          full_page=True)
        second.click("#per-seat .seat-die[data-seat=Ann][data-value='2']")
        second.click("button[aria-label='set to 4']")
        expect(gaps).to_have_count(0)
        second.click("#confirm")
        second.wait_for_url("**/control")
        assert table.table.state()["last_reveal"]["seats"]["Ben"] == [4, 4, 2]


#: what a claimed phone did when its turn came: the vibration asked, a sound started
TURN_PROBES = """
window.__vibrations = [];
navigator.vibrate = (pattern) => { window.__vibrations.push(pattern); return true; };
window.__tones = 0;
const Real = window.AudioContext;
if (Real) {
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.__tones += 1;
    return start.apply(this, args);
  };
}
"""


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_a_claimed_phone_announces_its_players_turn_and_acts_only_for_him(
        browser: Any, table: LiveServer, size: tuple[int, int], screenshot_dir: Path) -> None:
    width, height = size
    table.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                             "options": {"dice_per_player": 3}})
    options = {"viewport": {"width": width, "height": height}, "is_mobile": width < 600,
               "has_touch": width < 600}
    sent: list[str] = []

    def record(request: Any) -> None:
        sent.append(f"{request.method} {request.url} {request.post_data or ''}")

    for phone in open_page(browser, table, options, "control"):
        phone.add_init_script(f"localStorage.setItem('bluffcam.pin', {table.pin!r})")
        phone.add_init_script(TURN_PROBES)
        phone.on("request", record)
        phone.goto("/control")
        phone.select_option("#claim-seat", "Ben")
        # Ann's turn: Ben's phone waits, and has no bid buttons for Ann
        expect(phone.locator("#waiting-turn")).to_contain_text("Waiting for Ann")
        expect(phone.locator("#bid-submit")).to_have_count(0)
        # Ben types his dice under the cup: his odds, on this phone only
        for face in (4, 4, 1):
            phone.click(f"button[aria-label='I have a {face}']")
        table.post("/api/action", {"player": "Ann", "bid": "3x4"})
        notice = phone.get_by_test_id("my-turn")
        expect(notice).to_have_text("Your turn, Ben!")
        assert phone.evaluate("window.__vibrations.length") == 1
        assert phone.evaluate("window.__tones") >= 1
        # 4, 4 and the ★: Ben holds the three 4s the bid needs
        expect(phone.get_by_test_id("my-chance")).to_contain_text("100%")
        expect(phone.locator("#bid-submit")).to_be_visible()
        phone.screenshot(path=str(screenshot_dir / f"control-claimed-{width}.png"),
                         full_page=True)
        # the dice typed in never left the phone: no request since carried anything
        assert not [r for r in sent if r.startswith("POST")], sent
        # unclaimed again: the host's phone acts for whoever plays
        phone.select_option("#claim-seat", "")
        expect(phone.locator("#my-turn")).to_have_count(0)
        expect(phone.locator("#bid-submit")).to_be_visible()


@pytest.mark.parametrize("board", SIZES, indirect=True, ids=SIZE_IDS)
def test_between_games_the_board_shows_tonights_standings_as_a_table(
        board: Any, table: LiveServer, screenshot_dir: Path) -> None:
    table.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                             "options": {"dice_per_player": 1}})
    table.post("/api/action", {"player": "Ann", "bid": "1x2"})
    table.post("/api/action", {"player": "Ben", "challenge": True})
    table.post("/api/action", {"reveal": {"Ann": [3], "Ben": [4]}})  # Ben wins
    board.goto("/")
    standings = board.get_by_test_id("standings")
    expect(standings).to_be_visible()
    ben = standings.locator("tr[data-player=Ben]")
    ann = standings.locator("tr[data-player=Ann]")
    expect(ann).to_be_visible()  # no win, listed all the same
    expect(ben.locator("td").first).to_have_text(re.compile(r"^\d+ of \d+$"))
    expect(ben.locator(".standings-place")).to_have_text("#1")
    expect(ann.locator(".standings-place")).to_have_text("#2")
    ratings = [int(t) for t in standings.locator(".standings-rating").all_inner_texts()
               if t.strip().isdigit()]
    assert len(ratings) >= 2
    width = board.viewport_size["width"]
    board.screenshot(path=str(screenshot_dir / f"board-standings-{width}.png"))
    # the next game under way: the round's story again, not the table
    redrawn_after(board, lambda: table.post("/api/game", {
        "game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"}))
    expect(standings).to_be_hidden()


def test_a_second_phone_on_the_review_sees_the_first_ones_corrections(
        browser: Any, table: LiveServer) -> None:
    """Two phones on one review: what one corrects shows on the other, which may zoom."""
    table.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                             "options": {"dice_per_player": 3}})
    table.post("/api/action", {"player": "Ann", "bid": "2x4"})
    table.post("/api/action", {"player": "Ben", "challenge": True})
    table.post("/api/reveal/capture", {})
    options = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
    pin = f"localStorage.setItem('bluffcam.pin', {table.pin!r})"
    for one in open_page(browser, table, options, "review"):
        for other in open_page(browser, table, options, "review"):
            for page in (one, other):
                page.add_init_script(pin)
                page.goto("/review")
                expect(page.locator("#confirm")).to_have_text("Confirm this reading")
            one.click("#per-seat .seat-die[data-seat=Ben][data-value='5']")
            one.click("button[aria-label='set to 4']")
            expect(other.locator("#confirm")).to_have_text("Confirm with 1 change")
            expect(other.locator("#per-seat .seat-die[data-seat=Ben][data-value='5']")
                   ).to_have_count(0)
            before = other.locator("#review-photo").bounding_box()
            other.click("#zoom-photo")
            after = other.locator("#review-photo").bounding_box()
            assert before and after and after["width"] >= 1.9 * before["width"]


def test_a_claimed_phones_odds_agree_with_the_engines(browser: Any, table: LiveServer) -> None:
    """The phone works out its player's chance itself (his dice never leave it): by the
    engine's rule (engine.odds.bid_probability), for number, ★ and Scam bids."""
    from engine import Bid
    from engine.odds import bid_probability

    cases = [  # bid, kind, dice in play, public (set aside), mine
        ("3x4", "bluff", 10, [4], [4, 1]),
        ("5x6", "bluff", 15, [], [2, 3, 5]),
        ("2*", "bluff", 12, [1], [3]),
        ("4x5", "scam", 12, [5], [5, 1]),
        ("9x2", "bluff", 10, [], [2, 2]),
    ]
    for page in open_page(browser, table, {"viewport": {"width": 390, "height": 844}}, "control"):
        page.goto("/control")
        for text, kind, in_play, public, mine in cases:
            bid = Bid.parse(text)
            seen = page.evaluate(
                """async ([count, face, kind, inPlay, pub, mine]) => {
                  const m = await import('/assets/js/seatclaim.js');
                  return m.oddsWithMyDice({bid: {count, face}, kind, joker: 1,
                    diceInPlay: inPlay, publicFaces: pub, myFaces: mine});
                }""", [bid.count, bid.face, kind, in_play, public, mine])
            expected = bid_probability(bid, hidden_dice=in_play - len(public) - len(mine),
                                       public_faces=public, own_faces=mine,
                                       joker_face=None if kind == "scam" else 1)
            assert seen == pytest.approx(expected, abs=1e-9), (text, kind)
