"""Scam and Impus on the pages, a reveal entered by hand, undo, calibration, and reconnecting."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from browser_support import (
    MISREAD_INDEX,
    MISREAD_VALUE,
    SCENE,
    DimSceneCamera,
    LiveServer,
    SceneCamera,
    remember_pin,
    reveal_confirmed_as_read,
    start_game,
)
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def enter_dice(page: Any, hands: dict[str, list[int]]) -> None:
    """Hand entry: one tap on the seat's face pad for each die."""
    for seat, faces in hands.items():
        for face in faces:
            page.click(f"button[aria-label='{seat}: add a {face}']")


def test_scam_round_with_pass_undo_and_a_reveal_entered_by_hand(
        phone: Any, tv: Any, live_server: LiveServer, screenshot_dir: Path) -> None:
    remember_pin(phone, live_server.pin)
    phone.goto("/setup")
    phone.click("[data-game=scam]")
    while phone.locator(".player-row input").count() < 3:
        phone.click("#add-player")
    while phone.locator(".player-row input").count() > 3:  # the form keeps the last game's
        phone.locator(".player-row button[aria-label^=remove]").last.click()
    # the browser tests' table is calibrated for two seats: three players are told so
    expect(phone.locator("#too-few-seats")).to_contain_text(
        "The table is calibrated for 2 seats: the camera cannot tell 3 players apart")
    for index, name in enumerate(["Ann", "Ben", "Cho"]):
        phone.locator(".player-row input").nth(index).fill(name)
    phone.select_option("#starter", "Ann")
    phone.fill("#opt-target", "5")
    phone.dispatch_event("#opt-target", "change")
    start_game(phone)
    expect(phone.locator("#status-turn")).to_have_text("Ann's turn")
    tv.goto("/")
    expect(tv.locator(".player [data-testid=score]")).to_have_count(3)
    expect(tv.locator(".player[data-player=Ann] .score-target")).to_contain_text("/ 5 points")
    expect(tv.locator(".player[data-player=Ann] .tag-first")).to_have_text("first bidder")
    # Scam has no joker: no star button, and "Scam!" only once there is a bid.
    expect(phone.locator("button[data-face='*']")).to_have_count(0)
    expect(phone.locator("#scam")).to_have_count(0)

    phone.click("button[data-face='2']")
    phone.click("#bid-submit")
    expect(tv.locator("#current-bid")).to_have_attribute("data-bid", "2x2")
    phone.click("#undo")
    expect(tv.locator("#current-bid")).to_have_attribute("data-bid", "")
    expect(tv.get_by_test_id("turn")).to_have_text("Ann")

    phone.click("button[data-face='3']")
    phone.click("#bid-submit")
    expect(tv.get_by_test_id("turn")).to_have_text("Ben")
    phone.click("#pass")
    expect(tv.get_by_test_id("turn")).to_have_text("Cho")
    tv.screenshot(path=str(screenshot_dir / "board-scam.png"), full_page=True)
    phone.click("#scam")
    expect(tv.locator("body")).to_have_attribute("data-phase", "reveal")
    expect(tv.locator("#turn .turn-sub")).to_have_text("Cho called Scam! on Ann's 2 × 3s")

    # Two 3s on the table: the bid holds, and a bid that held against "Scam!" scores 3 (S8).
    phone.click("#hand-reveal summary")
    expect(phone.locator("#reveal-submit")).to_have_text("9 more dice to enter")
    expect(phone.locator("#reveal-submit")).to_be_disabled()
    enter_dice(phone, {"Ann": [3, 1, 5], "Ben": [1, 1, 2], "Cho": [1, 6]})
    # a die entered wrongly is taken back with a tap, and the seat's pad stops when it is full
    phone.click("button[aria-label=\"take back Ann's 5\"]")
    enter_dice(phone, {"Ann": [1], "Cho": [3]})
    ann = phone.locator(".seat-entry[data-seat=Ann]")
    expect(ann.get_by_test_id("entered")).to_have_text("3 of 3")
    expect(ann.locator("button[aria-label='Ann: add a 2']")).to_be_disabled()
    phone.screenshot(path=str(screenshot_dir / "control-reveal-by-hand.png"), full_page=True)
    expect(phone.locator("#reveal-submit")).to_have_text("Apply this reveal")
    phone.click("#reveal-submit")
    expect(tv.locator(".player[data-player=Ann] [data-testid=score]")).to_have_text("3")
    expect(tv.get_by_test_id("verdict")).not_to_be_empty()
    expect(tv.locator("#history .round")).to_have_count(1)

    # A die typed wrongly settles nothing for good: until the next action, Undo takes the
    # typed reveal back, and the dice typed are still there to mend.
    phone.click("#undo")
    expect(tv.locator("body")).to_have_attribute("data-phase", "reveal")
    expect(tv.locator(".player[data-player=Ann] [data-testid=score]")).to_have_text("0")
    expect(tv.locator("#history .round")).to_have_count(0)
    expect(ann.get_by_test_id("entered")).to_have_text("3 of 3")
    phone.click("button[aria-label=\"take back Cho's 3\"]")
    enter_dice(phone, {"Cho": [6]})
    phone.click("#reveal-submit")
    expect(tv.locator("#history .round")).to_have_count(1)
    assert live_server.table.export()["actions"][-1] == {
        "reveal": {"Ann": [3, 1, 1], "Ben": [1, 1, 2], "Cho": [1, 6, 6]}}

    # Round 2, Ben first (S2): a bid every other player passes on ends the round (S5), no
    # doubt and no "Scam!" in it
    for action in ({"player": "Ben", "bid": "2x4"}, {"player": "Cho", "pass": True},
                   {"player": "Ann", "pass": True}):
        live_server.post("/api/action", action)
    expect(tv.locator("#turn .turn-sub")).to_have_text("Everyone else passed: Ben's 2 × 4s")


def test_hand_entry_keeps_the_dice_set_aside_in_front_of_a_cup(
        phone: Any, live_server: LiveServer) -> None:
    """Ben raised and re-rolled with two 4s in front of his cup: the hand entry shows them
    already entered, and they cannot be taken back."""
    remember_pin(phone, live_server.pin)
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                                   "options": {"dice_per_player": 3}})
    live_server.post("/api/action", {"player": "Ann", "bid": "2x4"})
    live_server.post("/api/action", {"player": "Ben", "bid": "3x4", "set_aside": [4, 4]})
    live_server.post("/api/action", {"player": "Ann", "challenge": True})
    phone.goto("/control")
    phone.click("#hand-reveal summary")
    ben = phone.locator(".seat-entry[data-seat=Ben]")
    expect(ben.get_by_test_id("entered")).to_have_text("2 of 3")
    expect(ben.locator(".die-fixed")).to_have_count(2)
    expect(ben.locator("button[aria-label^='take back']")).to_have_count(0)
    enter_dice(phone, {"Ann": [4, 2, 6], "Ben": [1]})
    phone.click("#reveal-submit")
    # 4s and ★ (1s): Ann's 4, Ben's 4, 4 and ★ = 4 against a bid of 3: Ann loses a die
    expect(phone.locator("#status-turn")).not_to_have_text("Lift the cups!")
    round_one = live_server.table.state()["history"][0]
    assert round_one["reveal"] == {"Ann": [4, 2, 6], "Ben": [4, 4, 1]}
    # the next round ends on the same bid: its entry starts empty, at the new dice counts
    turn = live_server.table.state()["game"]["turn"]
    other = "Ben" if turn == "Ann" else "Ann"
    live_server.post("/api/action", {"player": turn, "bid": "3x4"})
    live_server.post("/api/action", {"player": other, "challenge": True})
    expect(phone.locator(".seat-entry[data-seat=Ann]").get_by_test_id("entered")).to_have_text(
        "0 of 2")
    expect(ben.get_by_test_id("entered")).to_have_text("0 of 3")


def test_a_table_without_a_camera_offers_the_hand_entry_at_once(
        phone: Any, live_server: LiveServer) -> None:
    remember_pin(phone, live_server.pin)
    table = live_server.table
    camera = table.camera
    table.set_camera(None)
    try:
        live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"],
                                       "starter": "Ann"})
        live_server.post("/api/action", {"player": "Ann", "bid": "2x4"})
        live_server.post("/api/action", {"player": "Ben", "challenge": True})
        phone.goto("/control")
        expect(phone.locator("#no-camera")).to_have_text(
            "No camera at this table: enter the dice below.")
        expect(phone.locator("#capture")).to_have_count(0)
        expect(phone.locator("button[aria-label='Ann: add a 1']")).to_be_visible()
    finally:
        table.set_camera(camera)


def test_players_pick_their_seats_where_the_table_has_more(
        phone: Any, live_server: LiveServer) -> None:
    """Two players at a table calibrated for four: the setup form asks each for their seat."""
    from types import SimpleNamespace

    from vision.zones import PolygonZones

    remember_pin(phone, live_server.pin)
    table = live_server.table
    profile = table.profile
    table.profile = SimpleNamespace(zones=PolygonZones(
        ("North", "East", "South", "West"),
        tuple(((x, 0.0), (x + 10.0, 0.0), (x + 10.0, 10.0)) for x in (0.0, 20.0, 40.0, 60.0))))
    try:
        live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"],
                                       "starter": "Ann"})
        phone.goto("/setup")
        expect(phone.locator(".player-row .seat-pick")).to_have_count(2)
        expect(phone.locator("#setup-card h2").first).to_have_text(
            "Players, clockwise, and their seats")
        # beside a seat picker and three buttons the name kept a sliver ("Ch" of Christopher):
        # on a phone it has a line of its own
        viewport = phone.viewport_size["width"]
        for name in phone.locator(".player-row input").all():
            box = name.bounding_box()
            assert box is not None and box["width"] >= 0.6 * viewport, box
        expect(phone.locator("select[aria-label=\"Ben's seat\"]")).to_have_value("2")
        phone.select_option("select[aria-label=\"Ben's seat\"]", label="South")
        start_game(phone)
        expect(phone.locator("#setup-card")).to_have_count(0)  # the new game was taken
        assert table.state()["setup"]["seats"] == [1, 3]
        assert table.seating() == ["Ann", None, "Ben"]
        # the board names each player's seat
        phone.goto("/")
        expect(phone.locator(".player[data-player=Ben]").get_by_test_id("seat")).to_have_text(
            " · South")
        # seats in an order the players do not sit in are refused with the reason
        phone.goto("/setup")
        phone.select_option("select[aria-label=\"Ann's seat\"]", label="West")
        start_game(phone)
        expect(phone.locator("#control-error")).to_contain_text(
            "Ben's seat must come after Ann's 4, not 3")
    finally:
        table.profile = profile


def test_impus_renders_cards_pile_and_claim(phone: Any, tv: Any, live_server: LiveServer,
                                            screenshot_dir: Path) -> None:
    live_server.post("/api/game", {"game": "impus", "players": ["Ann", "Ben", "Cho"],
                                   "starter": "Ann"})
    remember_pin(phone, live_server.pin)
    tv.goto("/")
    expect(tv.locator(".player")).to_have_count(3)
    expect(tv.locator(".player[data-player=Ann] .player-count")).to_have_text("14 cards")
    phone.goto("/control")
    phone.fill("#impus-count", "2")
    phone.select_option("#impus-claim", "orc")
    phone.click("#impus-play")
    expect(tv.locator(".player[data-player=Ann] .player-count")).to_have_text("12 cards")
    expect(tv.get_by_test_id("claim")).to_have_text("2× orc")
    expect(tv.locator("#game-extras")).to_contain_text("Ann: 2 × orc")
    expect(tv.get_by_test_id("turn")).to_have_text("Ben")
    expect(phone.locator("#doubt")).to_be_visible()
    expect(phone.locator("#status-pile")).to_have_text("Pile: 2 cards claimed as orc")
    tv.screenshot(path=str(screenshot_dir / "board-impus.png"), full_page=True)
    phone.screenshot(path=str(screenshot_dir / "control-impus.png"), full_page=True)


def test_calibration_shows_the_snapshot_and_a_test_read(phone: Any, screenshot_dir: Path) -> None:
    phone.goto("/calibration")
    snapshot = phone.locator("#snapshot")
    expect(snapshot).to_be_visible()
    expect(snapshot).to_have_js_property("complete", True)
    assert phone.evaluate("document.querySelector('#snapshot').naturalWidth") == 960
    phone.click("#test-read-btn")
    expect(phone.locator("#test-read h2")).to_contain_text("Test read: 6 dice")
    expect(phone.locator("#read-confidence")).to_have_text("✓ every die read with confidence")
    expect(phone.locator("#picture-advice")).to_contain_text("well lit and still")
    phone.screenshot(path=str(screenshot_dir / "calibration.png"), full_page=True)


class LateCamera(SceneCamera):
    """A camera that says "ok" but gives no picture for its first reads (starting up; the
    demo's recording before it is pointed at a reveal)."""

    def __init__(self, blank_reads: int) -> None:
        self.blank_reads = blank_reads

    def read(self) -> Any:
        if self.blank_reads > 0:
            self.blank_reads -= 1
            return None
        return super().read()


def test_calibration_asks_again_for_a_snapshot_a_camera_could_not_give_yet(
        phone: Any, live_server: LiveServer) -> None:
    """The page blamed the camera's cable for good, beside "Camera: ok"."""
    live_server.table.set_camera(LateCamera(blank_reads=2))
    try:
        phone.goto("/calibration")
        expect(phone.locator(".empty-state")).to_contain_text("no picture yet: asking again")
        expect(phone.locator("#snapshot")).to_have_js_property("complete", True, timeout=15000)
        assert phone.evaluate("document.querySelector('#snapshot').naturalWidth") == 960
    finally:
        live_server.table.set_camera(SceneCamera())


def test_a_page_without_the_pin_says_where_to_enter_it(phone: Any,
                                                       live_server: LiveServer) -> None:
    """The calibration page has no PIN field: it named an HTTP header."""
    phone.goto("/calibration")
    phone.evaluate("localStorage.clear()")
    phone.click("#fit-zones")
    said = ("This needs the table PIN (shown on the board): enter it once on the control page, "
            "then try again here.")
    expect(phone.locator("#calibration-error")).to_have_text(said)
    expect(phone.locator("#alerter")).to_have_text(said)  # said once, at once


def test_calibration_refits_the_seat_zones_to_the_dice_on_the_table(
        phone: Any, live_server: LiveServer, tmp_path: Path, screenshot_dir: Path) -> None:
    """The scene's two groups of dice: the page proposes two zones around them and, asked,
    writes them into the table's profile file."""
    from calibration import load_profile, save_profile

    remember_pin(phone, live_server.pin)
    table = live_server.table
    previous = table.profile
    path = save_profile(previous, tmp_path / "scene.toml")
    table.profile = load_profile(path)  # the table as `bluffcam serve --profile FILE` opens it
    try:
        live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"],
                                       "starter": "Ann"})
        phone.goto("/calibration")
        expect(phone.locator("#fit-seats")).to_have_value("2")  # a seat for each player
        phone.click("#fit-zones")
        expect(phone.locator("#zones-proposal")).to_have_text(
            "Proposed on the photo: Seat 1, Seat 2, fitted to 6 dice.")
        expect(phone.locator("#snapshot")).to_have_attribute("src", re.compile("^data:image/jpeg"))
        phone.screenshot(path=str(screenshot_dir / "calibration-zones.png"), full_page=True)
        before = path.read_text()
        phone.click("#keep-zones")  # nothing is written unless asked
        expect(phone.locator("#zones-proposal")).to_have_count(0)
        assert path.read_text() == before
        assert not previous.panel  # an edit of the pins since the start waits for a restart
        path.write_text(before + "\n[panel]\nbuzzer = 4\n")
        phone.click("#fit-zones")
        phone.click("#apply-zones")
        expect(phone.locator("#zones-note")).to_contain_text(f"Saved: Seat 1, Seat 2 ({path})")
        expect(phone.locator("#zones-note")).to_contain_text(
            "The panel settings edited in the file since the start apply after a restart")
        assert load_profile(path).zones.names == ["Seat 1", "Seat 2"]
        assert table.state()["table_seats"] == ["Seat 1", "Seat 2"]
    finally:
        table.profile = previous


def test_a_review_in_a_dim_room_says_to_add_light(phone: Any, live_server: LiveServer,
                                                  screenshot_dir: Path) -> None:
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"})
    live_server.post("/api/action", {"player": "Ann", "bid": "2x5"})
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    previous = live_server.table.camera
    live_server.table.set_camera(DimSceneCamera())
    try:
        review = live_server.post("/api/reveal/capture", {})["review"]
    finally:
        live_server.table.set_camera(previous)
    assert [a["kind"] for a in review["advice"]] == ["dark"]
    remember_pin(phone, live_server.pin)
    phone.goto("/review")
    advice = phone.locator("#picture-advice li[data-kind=dark]")
    expect(advice).to_contain_text("The picture is dark")
    phone.screenshot(path=str(screenshot_dir / "review-dim.png"), full_page=True)


def test_the_board_says_a_reveal_was_checked_by_hand(tv: Any, live_server: LiveServer) -> None:
    """The reveal photo keeps the camera's "NEEDS REVIEW" stamp: a reading a person checked
    and confirmed as read says so beside it, so a settled round does not look unsettled."""
    reveal_confirmed_as_read(live_server)
    tv.goto("/")
    expect(tv.locator("#last-reveal .corrected")).to_have_text(
        "✓ checked by hand: the camera's reading stood")
    # the same line says what a person changed, or that the dice were entered by hand
    texts = tv.evaluate("""import('/assets/js/board.js').then((m) => [
        m.settledText({how: "camera", corrections: {}}),
        m.settledText({how: "confirmed", corrections: {Ann: {removed: [3], added: [5]}}}),
        m.settledText({how: "entered by hand (control page)", corrections: {}}),
        m.settledText(null)])""")
    assert texts == [None, "✎ corrected by hand — Ann: 3 → 5", "✎ entered by hand", None]


def test_a_reading_confirmed_wrongly_comes_back_to_the_review_page(
        phone: Any, tv: Any, live_server: LiveServer, screenshot_dir: Path) -> None:
    """Until the next bid, the last round's camera reading can be checked again: its verdict
    is taken back, and the dice confirmed anew settle the round."""
    review = reveal_confirmed_as_read(live_server)
    tv.goto("/")
    remember_pin(phone, live_server.pin)
    phone.goto("/control")  # where the players are when the verdict comes
    phone.click("#reopen-link")
    expect(phone.locator("#review-empty")).to_contain_text("Last verdict")
    phone.screenshot(path=str(screenshot_dir / "review-reopen.png"), full_page=True)
    phone.click("#reopen")
    expect(phone.locator("#problems")).to_contain_text("reopened after its verdict")
    expect(tv.locator("body")).to_have_attribute("data-phase", "reveal")
    misread = SCENE[MISREAD_INDEX]
    phone.locator(f".mark[data-seat={misread.seat}][data-value='{MISREAD_VALUE}']").click()
    phone.click(f"button[aria-label='set to {misread.value}']")
    phone.click("#confirm")
    phone.wait_for_url("**/control")  # back to the game, which says the verdict
    expect(phone.locator("#status-verdict")).not_to_be_empty()
    expect(tv.locator("body")).to_have_attribute("data-phase", "bidding")
    last = live_server.table.state()["last_reveal"]
    assert last["id"] == review["id"] and last["how"] == "confirmed"
    assert last["corrections"][misread.seat] == {"removed": [MISREAD_VALUE],
                                                 "added": [misread.value]}


def test_calibration_says_what_to_fix_about_a_dark_photo(phone: Any, tmp_path: Path,
                                                         screenshot_dir: Path) -> None:
    dark = tmp_path / "dark.png"
    ok, buffer = cv2.imencode(".png", np.full((240, 320, 3), 20, dtype=np.uint8))
    assert ok
    dark.write_bytes(buffer.tobytes())
    phone.goto("/calibration")
    # chosen from the keyboard: the button is reached by Tab (a label is not) and Enter on
    # it opens the file input's chooser (here stopped at the input: headless Chrome opens a
    # chooser only now and then, whatever the page does)
    phone.locator("#upload-btn").focus()
    assert phone.evaluate("document.activeElement.id") == "upload-btn"
    phone.evaluate("""() => document.addEventListener('click', (e) => {
        if (e.target.id === 'upload') { window.choosing = true; e.preventDefault(); } },
        true)""")  # on the document: the page may draw a new input meanwhile
    phone.keyboard.press("Enter")
    phone.wait_for_function("window.choosing === true")
    phone.set_input_files("#upload", str(dark))
    advice = phone.locator("#picture-advice li[data-kind=dark]")
    expect(advice).to_contain_text("The picture is dark (median brightness 20 of 255)")
    expect(phone.locator("#read-confidence")).to_have_text(
        "No dice seen: lay a few dice in the seat zones and test again.")
    phone.screenshot(path=str(screenshot_dir / "calibration-dark.png"), full_page=True)


def test_calibration_says_when_something_lies_over_a_die(phone: Any, tmp_path: Path) -> None:
    """A hand left over a die at setup: the test read says a reveal would go to review."""
    from tests.web_api.test_calibration_cover import _reroll_frame
    from tools.occluders import occlude

    frame, die = _reroll_frame()
    finger, _ = occlude(frame, die["x"], die["y"], die["size_px"], "finger",
                        np.random.default_rng([0, 0]), reach=-0.1)
    photo = tmp_path / "finger.png"
    assert cv2.imwrite(str(photo), finger)
    phone.goto("/calibration")
    phone.set_input_files("#upload", str(photo))
    expect(phone.locator("#read-confidence")).to_have_text(re.compile(
        r"⚠ \d with something over (it|them) \(a hand\? a cup\?\): a reveal like this would "
        "go to review"))


def test_calibration_says_when_the_dice_are_too_small(phone: Any, screenshot_dir: Path) -> None:
    tiny = Path(__file__).resolve().parents[1] / "data" / "sizes" / "tiny_dice.jpg"
    phone.goto("/calibration")
    phone.set_input_files("#upload", str(tiny))  # rendered dice of about 16 px, 640x480
    advice = phone.locator("#picture-advice li[data-kind=small_dice]")
    # the size is the reader's estimate (the detector's size map): 20-22 px for these dice
    expect(advice).to_contain_text(re.compile(
        r"The dice are small in the picture \(about 2[0-4] px across in this 640×480 picture\)"))
    expect(advice).to_contain_text("Move the camera closer to the table")
    phone.screenshot(path=str(screenshot_dir / "calibration-small-dice.png"), full_page=True)


def test_the_board_reconnects_by_itself(tv: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"})
    tv.goto("/")
    badge = tv.locator("#live")
    expect(badge).to_have_attribute("data-status", "live")
    live_server.cutter.down.set()
    try:
        expect(badge).to_have_attribute("data-status", "reconnecting")
        expect(badge).to_have_text("reconnecting…")
        # as a table restarted with its clock an hour behind counts its versions from lower
        live_server.table._version -= 3_600_000
        live_server.post("/api/action", {"player": "Ann", "bid": "2x5"})
    finally:
        live_server.cutter.down.clear()
    expect(badge).to_have_attribute("data-status", "live", timeout=12000)
    # Changes made while it was away, and after, both reach the board.
    expect(tv.locator("#current-bid")).to_have_attribute("data-bid", "2x5")
    live_server.post("/api/action", {"player": "Ben", "bid": "3x5"})
    expect(tv.locator("#current-bid")).to_have_attribute("data-bid", "3x5")


def test_game_over_shows_the_winner(phone: Any, tv: Any, live_server: LiveServer,
                                    screenshot_dir: Path) -> None:
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                                   "options": {"dice_per_player": 1}})
    live_server.post("/api/action", {"player": "Ann", "bid": "1x2"})
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    tv.goto("/")
    expect(tv.locator("body")).to_have_attribute("data-phase", "reveal")
    live_server.post("/api/action", {"reveal": {"Ann": [3], "Ben": [4]}})
    expect(tv.get_by_test_id("winner")).to_have_text("Ben wins!")
    expect(tv.locator(".player[data-player=Ann]")).to_have_class(re.compile("player-out"))
    expect(tv.locator(".player[data-player=Ann] .tag-out")).to_have_text("out")
    expect(tv.get_by_test_id("verdict")).to_contain_text("Ann loses 1 die")
    # the game is over: the winner's die is no secret any more, the last reveal showed it
    winner_dice = tv.locator(".player[data-player=Ben] .player-dice .die")
    expect(winner_dice).to_have_count(1)
    expect(winner_dice.first).to_have_attribute("aria-label", "die showing 4")
    tv.screenshot(path=str(screenshot_dir / "board-game-over.png"), full_page=True)
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    expect(phone.locator("#status-turn")).to_have_text("Ben wins!")
    phone.get_by_role("button", name="Play again").click()
    expect(phone.locator("#setup-card .player-row input").first).to_have_value("Ann")


def test_a_short_impus_game_from_the_control_page_through_a_doubt_and_a_pile_taken(
        phone: Any, tv: Any, live_server: LiveServer, screenshot_dir: Path) -> None:
    remember_pin(phone, live_server.pin)
    phone.goto("/setup")
    phone.click("[data-game=impus]")
    while phone.locator(".player-row input").count() < 3:
        phone.click("#add-player")
    while phone.locator(".player-row input").count() > 3:  # the form keeps the last game's
        phone.locator(".player-row button[aria-label^=remove]").last.click()
    # a card game needs no seat zones: three players at the two-seat table are not warned
    expect(phone.locator("#too-few-seats")).to_have_count(0)
    for index, name in enumerate(["Ann", "Ben", "Cho"]):
        phone.locator(".player-row input").nth(index).fill(name)
    phone.select_option("#starter", "Ann")
    start_game(phone)
    expect(phone.locator("#status-turn")).to_have_text("Ann's turn")
    tv.goto("/")
    expect(tv.locator(".player[data-player=Ben] .player-count")).to_have_text("14 cards")
    # Three players: 14 cards each, no polymorph dealt, so the discard picker never offers one.
    assert live_server.table.state()["game"]["card_kinds"].count("polymorph") == 0

    phone.fill("#impus-count", "0")  # refused by the rules, not quietly put down as 1
    phone.click("#impus-play")
    expect(phone.locator("#control-error")).to_have_text(
        re.compile("Ann's play of 0 cards as (orc|elf|[a-z]+)s?: a batch is one or more cards "
                   r"\(I3\)"))
    phone.fill("#impus-count", "")
    phone.click("#impus-play")
    expect(phone.locator("#control-error")).to_contain_text("How many cards?")
    assert live_server.table.state()["actions_count"] == 0
    phone.fill("#impus-count", "2")
    phone.select_option("#impus-claim", "elf")
    phone.click("#impus-play")
    expect(tv.get_by_test_id("turn")).to_have_text("Ben")
    phone.fill("#impus-count", "1")
    phone.click("#impus-play")  # Ben believes: one more "elf"
    expect(tv.get_by_test_id("turn")).to_have_text("Cho")
    expect(phone.locator("#status-pile")).to_have_text("Pile: 3 cards claimed as elf")
    phone.click("#doubt")  # Cho: "don't believe"
    expect(tv.locator("body")).to_have_attribute("data-phase", "reveal")
    expect(phone.locator("#reveal-card h2")).to_have_text("Turn up Ben's 1 card")
    # a card game has no cups to lift
    expect(phone.locator("#status-turn")).to_have_text("Turn up the cards!")
    expect(tv.locator("#turn .turn-name")).to_have_text("Turn up the cards!")
    expect(tv.locator("#turn .turn-sub")).to_have_text("Cho does not believe Ben's 1 × elf")
    tv.goto("/review")
    expect(tv.locator("#review-empty")).to_contain_text("The doubted cards are up")
    tv.goto("/")
    phone.locator("#reveal-card select").first.select_option("imp")  # Ben's card was an imp
    phone.screenshot(path=str(screenshot_dir / "control-impus-reveal.png"), full_page=True)
    phone.click("#reveal-submit")
    # I5: the checked player (Ben) takes the whole pile; I6: Cho starts the next pile.
    expect(tv.locator(".player[data-player=Ben] .player-count")).to_have_text("16 cards")
    expect(tv.locator(".player[data-player=Ann] .player-count")).to_have_text("12 cards")
    expect(tv.get_by_test_id("turn")).to_have_text("Cho")
    expect(tv.locator("#history .round")).to_have_count(1)
    expect(tv.get_by_test_id("verdict")).to_contain_text("Ben takes the pile")
    expect(phone.locator("#status-turn")).to_have_text("Cho's turn")
    expect(phone.locator("#impus-claim")).to_be_visible()  # a new pile names its kind again
    tv.screenshot(path=str(screenshot_dir / "board-impus-after-doubt.png"), full_page=True)


def test_the_keyboards_focus_survives_the_page_being_drawn_anew(
        phone: Any, live_server: LiveServer) -> None:
    """Each page is drawn anew when the table's state changes: a button someone had tabbed
    to must still have the focus after, not the page's start (a keyboard user lost their
    place at every camera or table change)."""
    from browser_support import SceneCamera

    phone.goto("/calibration")
    phone.locator("#upload-btn").focus()
    live_server.table.set_camera(SceneCamera(spec="scene:moved"))  # the page redraws
    try:
        expect(phone.locator(".camera-spec")).to_have_text("scene:moved")
        assert phone.evaluate("document.activeElement.id") == "upload-btn"
    finally:
        live_server.table.set_camera(SceneCamera())


def test_calibration_registers_card_art(phone: Any, live_server: LiveServer,
                                        screenshot_dir: Path) -> None:
    remember_pin(phone, live_server.pin)
    phone.goto("/calibration")
    expect(phone.locator("#card-art-summary")).to_contain_text("still missing")
    row = phone.locator(".card-kind[data-kind=orc]")
    expect(row).to_contain_text("✗")
    cards = Path(__file__).resolve().parents[1] / "data" / "cards" / "register"
    # a button (a label is never reached by Tab) that opens its file input's chooser (stopped
    # at the input: headless Chrome opens a chooser only now and then)
    phone.evaluate("""() => document.addEventListener('click', (e) => {
        if (e.target.id === 'card-upload-orc') { window.choosing = true; e.preventDefault(); }
        }, true)""")
    phone.get_by_role("button", name="Upload photo of orc").click()
    phone.wait_for_function("window.choosing === true")
    phone.set_input_files("#card-upload-orc", str(cards / "orc.jpg"))
    expect(phone.locator("#card-art-message")).to_have_text("✓ orc registered")
    expect(phone.locator("#announcer")).to_have_text("✓ orc registered")  # said once
    expect(row).to_contain_text("✓")
    phone.set_input_files("#card-upload-imp", str(cards.parents[1] / "cards" / "scenes"
                                                  / "empty_table.jpg"))
    expect(phone.locator("#card-art-error")).to_contain_text("imp")
    expect(phone.locator("#alerter")).to_contain_text("imp")
    # the boxes, drawn anew at every change, are no live regions that would say them again
    assert phone.locator("#card-art [role], #card-art [aria-live]").count() == 0
    expect(phone.locator(".card-kind[data-kind=imp]")).to_contain_text("✗")
    phone.screenshot(path=str(screenshot_dir / "calibration-card-art.png"), full_page=True)


def test_an_unsure_card_reading_is_fixed_on_the_review_page(
        phone: Any, live_server: LiveServer, tmp_path: Path, screenshot_dir: Path) -> None:
    import shutil

    from bluffcam.card_reveals import card_store
    from hardware.cameras import FileCamera
    from vision.io import load_image

    cards = Path(__file__).resolve().parents[1] / "data" / "cards"
    store = card_store(live_server.table)
    for photo in sorted((cards / "register").glob("*.jpg")):
        store.register(photo.stem, load_image(photo))
    for i in range(3):  # a still camera over two turned-up cards: orc and imp
        shutil.copy(cards / "scenes" / "reveal_orc_imp.jpg", tmp_path / f"{i:03d}.jpg")
    live_server.post("/api/game", {"game": "impus", "players": ["Ann", "Ben", "Cho", "Dan"],
                                   "starter": "Ann"})
    live_server.post("/api/action", {"player": "Ann", "play": 3, "claim": "orc"})
    live_server.post("/api/action", {"player": "Ben", "doubt": True})
    previous = live_server.table.camera
    live_server.table.set_camera(FileCamera(tmp_path))
    try:
        review = live_server.post("/api/reveal/capture", {})["review"]
    finally:
        live_server.table.set_camera(previous)
    assert review is not None and review["expected"] == {"cards": 3}  # two seen, three doubted
    remember_pin(phone, live_server.pin)
    phone.goto("/review")
    expect(phone.locator("#problems")).to_contain_text("3 cards but 2 are seen")
    expect(phone.locator("#confirm")).to_be_disabled()  # the third card is not named yet
    phone.locator("select[data-card='2']").select_option("orc")
    phone.screenshot(path=str(screenshot_dir / "review-cards.png"), full_page=True)
    phone.click("#confirm")
    phone.wait_for_url("**/control")  # back to the game
    last = live_server.table.state()["last_reveal"]
    assert last["seats"] == {"cards": ["orc", "imp", "orc"]}
    assert live_server.table.state()["history"][-1]["taker"] == "Ann"  # one imp: Ann lied


def test_a_short_scam_game_to_the_target_from_the_control_page(
        phone: Any, tv: Any, live_server: LiveServer) -> None:
    remember_pin(phone, live_server.pin)
    phone.goto("/setup")
    phone.click("[data-game=scam]")
    while phone.locator(".player-row input").count() < 3:
        phone.click("#add-player")
    while phone.locator(".player-row input").count() > 3:  # the form keeps the last game's
        phone.locator(".player-row button[aria-label^=remove]").last.click()
    for index, name in enumerate(["Ann", "Ben", "Cho"]):
        phone.locator(".player-row input").nth(index).fill(name)
    phone.select_option("#starter", "Ann")
    phone.fill("#opt-target", "3")
    phone.dispatch_event("#opt-target", "change")
    start_game(phone)
    expect(phone.locator("#status-turn")).to_have_text("Ann's turn")
    tv.goto("/")
    phone.click("button[data-face='4']")
    phone.click("#bid-submit")
    expect(tv.get_by_test_id("turn")).to_have_text("Ben")
    expect(tv.locator("#current-bid")).to_have_attribute("data-bid", "2x4")
    phone.click("#scam")  # Ben: "Scam!"
    expect(tv.locator("body")).to_have_attribute("data-phase", "reveal")
    phone.click("#hand-reveal summary")
    enter_dice(phone, {"Ann": [4, 1, 1], "Ben": [1, 4, 1], "Cho": [1, 1, 1]})
    phone.click("#reveal-submit")
    # S8: the bid held against "Scam!": Ann scores 3 and reaches the target.
    expect(tv.locator(".player[data-player=Ann] [data-testid=score]")).to_have_text("3")
    expect(tv.locator("#history .round-challenge").first).to_have_text("Ben called Scam!")
    expect(phone.locator("#status-verdict")).to_contain_text("Round 1: ")
    expect(tv.get_by_test_id("winner")).to_have_text("Ann wins!")
    expect(phone.locator("#status-turn")).to_have_text("Ann wins!")


def test_the_setup_page_offers_every_listed_option(
        phone: Any, live_server: LiveServer, screenshot_dir: Path) -> None:
    """S1's "allow 2–6 players"; I1's kinds named by the table; I2's kinds taken out; B2's
    thirty dice shared out."""
    remember_pin(phone, live_server.pin)
    phone.goto("/setup")
    phone.click("[data-game=scam]")
    while phone.locator(".player-row").count() > 2:  # the form starts from the last game's
        phone.locator(".player-row").last.get_by_role("button", name=re.compile("^remove")).click()
    for index, name in enumerate(["Ann", "Ben"]):
        phone.locator(".player-row input").nth(index).fill(name)
    start_game(phone)
    expect(phone.locator("#control-error")).to_contain_text("Scam needs 3–4 players, got 2 (S1)")
    phone.check("#opt-allow_any_players")
    start_game(phone)
    expect(phone.locator("#setup-card")).to_have_count(0)  # the server answered
    assert live_server.table.export()["options"]["allow_any_players"] is True

    phone.click("#new-game")
    phone.click("[data-game=impus]")
    phone.fill("#opt-kinds", "orc, gnome, elf, faun, skeleton, dragon, goblin, imp, Wizard, harpy")
    phone.locator("#opt-kinds").press("Tab")
    expect(phone.locator("#opt-remove_kinds [data-kind=wizard]")).to_be_visible()
    expect(phone.locator("#opt-remove_kinds [data-kind=imp]")).to_have_count(0)  # never taken out
    phone.click("#opt-remove_kinds [data-kind=harpy]")
    phone.click("#opt-remove_kinds [data-kind=dragon]")
    expect(phone.locator("#opt-remove_kinds [data-kind=dragon]")).to_have_attribute(
        "aria-pressed", "true")
    phone.screenshot(path=str(screenshot_dir / "control-setup-impus.png"), full_page=True)
    start_game(phone)
    expect(phone.locator("#setup-card")).to_have_count(0)  # the server answered
    options = live_server.table.export()["options"]
    assert options["kinds"][8] == "wizard"
    assert sorted(options["remove_kinds"]) == ["dragon", "harpy"]
    game = live_server.table.game
    assert game is not None
    in_play = ["orc", "gnome", "elf", "faun", "skeleton", "goblin", "wizard"]
    assert game.to_json()["kinds"] == in_play
    assert live_server.table.state()["house_rules"] == ["short game: no harpy, dragon"]

    phone.click("#new-game")
    phone.click("[data-game=bluff]")
    phone.select_option("#opt-dice_per_player", "split")
    start_game(phone)
    expect(phone.locator("#setup-card")).to_have_count(0)  # the server answered
    game = live_server.table.game
    assert live_server.table.export()["options"]["dice_per_player"] == "split"
    assert game is not None
    assert [p["dice"] for p in game.to_json()["players"]] == [15, 15]  # two players share 30
    # a count only the API offers is kept when the form starts from that game
    live_server.post("/api/game", {"game": "bluff", "players": ["Cy", "Di"], "starter": "Cy",
                                   "options": {"dice_per_player": 10}})
    expect(phone.locator("#status-turn")).to_have_text("Cy's turn")  # the phone has the game
    phone.click("#new-game")
    expect(phone.locator("#opt-dice_per_player")).to_have_value("10")
    # the board says which house rules are in play
    phone.goto("/")
    expect(phone.locator("#game-kind")).to_have_text(
        "Bluff · 2 players · 10 dice each · ★ = the 1s · exact bid: all but the bidder lose a die")


def test_a_late_answer_does_not_draw_over_a_newer_state(
        phone: Any, live_server: LiveServer) -> None:
    """Two phones at one table: Ann's bid is answered only after Ben's bid from another
    phone has reached this one by the live stream. The late answer (Ben to play) must not
    replace the newer state (Cho to play): nothing else would come to correct it."""
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben", "Cho"],
                                   "starter": "Ann"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    expect(phone.locator("#status-turn")).to_have_text("Ann's turn")

    def answer_late(route: Any) -> None:
        answer = route.fetch()  # the server takes Ann's bid now
        live_server.post("/api/action", {"player": "Ben", "bid": "9x6"})  # the other phone
        expect(phone.locator("#status-turn")).to_have_text("Cho's turn")  # by the stream
        route.fulfill(response=answer)

    phone.route("**/api/action", answer_late)
    phone.click("#bid-submit")
    expect(phone.locator("#status-bid")).to_contain_text("9 × 6s")
    phone.wait_for_timeout(500)  # the late answer has landed by now
    expect(phone.locator("#status-turn")).to_have_text("Cho's turn")
    expect(phone.locator("#status-bid")).to_contain_text("9 × 6s")
    assert live_server.table.game is not None and live_server.table.game.turn == "Cho"


def test_a_live_update_leaves_the_phone_where_its_reader_scrolled(phone: Any,
                                                                   live_server: LiveServer) -> None:
    """Each update redraws the bid track; the page must stay where the player put it (it
    used to jump back up to the track, away from the dice or the reveal being read)."""
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben", "Cho", "Dee"],
                                   "starter": "Ann"})
    live_server.post("/api/action", {"player": "Ann", "bid": "2x5"})
    phone.goto("/")
    expect(phone.locator(".field-current")).to_have_attribute("data-field", "2")
    phone.wait_for_timeout(800)  # longer than a smooth scroll takes
    assert phone.evaluate("window.scrollY") == 0
    bottom = phone.evaluate("document.documentElement.scrollHeight - window.innerHeight")
    assert bottom > 300, "the board should be taller than a phone's screen"
    phone.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    live_server.post("/api/action", {"player": "Ben", "bid": "3x5"})
    expect(phone.locator(".field-current")).to_have_attribute("data-field", "3")
    phone.wait_for_timeout(800)
    assert phone.evaluate("window.scrollY") == pytest.approx(bottom, abs=2)


def test_a_joker_set_aside_in_front_of_a_cup_is_marked_as_a_joker(
        tv: Any, live_server: LiveServer) -> None:
    """The last reveal marked ★ dice; the player's card drew a set-aside 1 as a plain 1."""
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                                   "options": {"dice_per_player": 3}})
    live_server.post("/api/action", {"player": "Ann", "bid": "2x4", "set_aside": [1, 4]})
    tv.goto("/")
    aside = tv.locator(".player[data-player=Ann] .player-dice .die-ivory")
    expect(aside).to_have_count(2)
    expect(aside.nth(0)).to_have_class(re.compile(r"\bdie-joker\b"))
    expect(aside.nth(1)).not_to_have_class(re.compile(r"\bdie-joker\b"))
