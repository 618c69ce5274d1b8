"""The control page and the board without a pointer or without sight: the keyboard's focus
survives the page drawing itself anew, and changes are said in the page's live region.

An accessibility audit found the focus falling to the page's start after every bid, every
move from another phone and a seat's last die, and no word said of another phone's move:
a live region drawn anew, already filled, is not read out.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_support import LiveServer, redrawn_after, remember_pin
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

THREE = {"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann",
         "options": {"dice_per_player": 2}}


def test_a_bid_made_with_the_keyboard_leaves_the_focus_on_the_bid_button(
        phone: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", THREE)
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    expect(phone.locator("#bid-submit")).to_be_enabled()  # once the first state has settled
    phone.locator("#bid-submit").focus()
    phone.keyboard.press("Enter")
    expect(phone.locator("#status-turn")).to_have_text("Ben's turn")
    expect(phone.locator("#bid-submit")).to_be_focused()  # Ben's, once the page settled
    assert phone.evaluate("document.activeElement !== document.body")
    # pressed while greyed (the page settling after the move), it does nothing
    phone.keyboard.press("Enter")
    expect(phone.locator("#bid-submit")).to_be_enabled()
    assert live_server.table.state()["actions_count"] == 1


def test_another_phones_move_is_said_and_does_not_take_the_focus(
        phone: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", THREE)
    live_server.post("/api/action", {"player": "Ann", "bid": "1x4"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    doubt = phone.locator("#challenge")
    expect(doubt).to_be_enabled()
    doubt.focus()
    live_server.post("/api/action", {"player": "Ben", "bid": "2x4"})  # another phone
    expect(phone.locator("#announcer")).to_have_text("Cho's turn. bid 2 × 4s by Ben")
    expect(doubt).to_be_focused()
    expect(doubt).to_be_enabled()  # and usable again once the page has settled
    # the page is drawn anew once the challenge has landed: the table's version was read
    # before it, so waiting on that number raced the key press
    redrawn_after(phone, lambda: phone.keyboard.press("Enter"))
    assert live_server.table.state()["game"]["phase"] == "reveal"
    # this phone's own move is said too: what it did, or (the live stream quicker) the table
    expect(phone.locator("#announcer")).to_have_text(
        re.compile(r"^(Cho doubts Ben|(Cho doubts Ben\. )?Lift the cups!.*)$"))


def test_a_seats_last_die_entered_moves_the_focus_to_the_next_seats_pad(
        phone: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", THREE)
    live_server.post("/api/action", {"player": "Ann", "bid": "1x4"})
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    phone.click("#hand-reveal summary")
    phone.locator("button[aria-label='Ann: add a 4']").focus()
    phone.keyboard.press("Enter")
    expect(phone.locator("#announcer")).to_have_text("Ann: 1 of 2")
    phone.keyboard.press("Enter")
    expect(phone.locator("#announcer")).to_have_text("Ann: 2 of 2")
    # Ann's pad is greyed now: the focus goes on to Ben's
    expect(phone.locator("button[aria-label='Ben: add a 1']")).to_be_focused()


def test_the_control_page_with_large_text_on_a_phone_does_not_scroll_sideways(
        browser: Any, live_server: LiveServer) -> None:
    """Text at twice its size (a phone's large-text setting): the stepper, the face buttons
    and the tools ran past their card, and the page scrolled sideways (WCAG 1.4.4, 1.4.10)."""
    from browser_support import open_page

    live_server.post("/api/game", THREE)
    live_server.post("/api/action", {"player": "Ann", "bid": "1x4"})
    for page in open_page(browser, live_server, {"viewport": {"width": 390, "height": 844}},
                          "phone with large text"):
        remember_pin(page, live_server.pin)
        page.goto("/control")
        expect(page.locator("#bid-submit")).to_be_visible()
        page.add_style_tag(content="html { font-size: 200% !important; }")
        width = "[document.documentElement.scrollWidth, window.innerWidth]"
        assert page.evaluate(width) == [390, 390]
        live_server.post("/api/action", {"player": "Ben", "challenge": True})
        page.click("#hand-reveal summary")
        expect(page.locator(".seat-entry")).to_have_count(3)
        assert page.evaluate(width) == [390, 390]


def test_a_refusal_is_said_once_at_once(phone: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", THREE)
    live_server.post("/api/action", {"player": "Ann", "bid": "2x4"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    phone.click("button[data-face='3']")  # 2 × 3s, below the bid
    while phone.inner_text("#bid-count") != "2":
        phone.click("button[aria-label=fewer]")
    phone.click("#bid-submit")
    expect(phone.locator("#alerter")).to_contain_text("B6")
    expect(phone.locator("#control-error")).to_contain_text("B6")
    # the refusal on the page is no live region: redrawn at each change, it is not said again
    assert phone.locator("#control-error").get_attribute("role") is None


def test_the_setup_form_keeps_the_focus_as_it_changes(phone: Any,
                                                      live_server: LiveServer) -> None:
    remember_pin(phone, live_server.pin)
    phone.goto("/setup")
    add = phone.locator("#add-player")
    add.focus()
    rows = phone.locator(".player-row").count()
    phone.keyboard.press("Enter")
    expect(phone.locator(".player-row")).to_have_count(rows + 1)
    expect(add).to_be_focused()
    down = phone.locator(".player-row button[aria-label^='move']").first
    label = down.get_attribute("aria-label")
    down.focus()
    phone.keyboard.press("Enter")
    assert phone.evaluate("document.activeElement !== document.body"), label


def test_the_board_says_each_move_and_message_once(tv: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", THREE)
    tv.goto("/")
    expect(tv.get_by_test_id("turn")).to_have_text("Ann")
    # the boxes drawn anew at every update are no live regions (they would be read again,
    # standings and all, at each change); the page's announcer says what changed
    assert tv.locator("#turn[aria-live], #messages[aria-live]").count() == 0
    live_server.post("/api/action", {"player": "Ann", "bid": "1x4"})
    expect(tv.locator("#announcer")).to_have_text("Ben's turn: raise or doubt. bid 1 × 4s by Ann")
    live_server.table.note("the camera is back")
    # the turn, unchanged, is not said again
    expect(tv.locator("#announcer")).to_have_text("the camera is back")
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    expect(tv.locator("#announcer")).to_have_text(re.compile(r"^Ben doubted Ann's 1 × 4s\. "))


def test_a_fault_found_at_start_stays_on_the_board_until_the_next_game(
        tv: Any, live_server: LiveServer) -> None:
    """A start no one watched (at boot): its message outlives a glance's two minutes."""
    live_server.post("/api/game", THREE)
    table = live_server.table
    table.note("journal.sqlite was set aside", "error", lasting=True)
    table.note("the camera is back")
    tv.add_init_script("const realNow = Date.now; Date.now = () => realNow() + 10 * 60 * 1000;")
    tv.goto("/")  # ten minutes on
    expect(tv.locator("#messages .message")).to_have_text(["journal.sqlite was set aside"])
    live_server.post("/api/game", THREE)
    expect(tv.locator("#messages .message")).to_have_count(0)


def test_a_fault_found_at_start_is_not_pushed_off_the_board_by_newer_news(
        tv: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", THREE)
    table = live_server.table
    table.note("journal.sqlite was set aside", "error", lasting=True)
    for n in range(7):  # more than the table keeps: a camera coming and going at boot
        table.note(f"camera news {n}")
    tv.goto("/")
    expect(tv.locator("#messages .message")).to_have_text(
        ["camera news 6", "camera news 5", "journal.sqlite was set aside"])


def test_while_the_camera_reads_the_board_and_the_phones_say_so(
        tv: Any, phone: Any, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reading takes a second or two (more on a Pi): a press that shows nothing for that
    long looks lost, and is pressed again."""
    import threading

    table = live_server.table
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                                   "options": {"dice_per_player": 3}})
    live_server.post("/api/action", {"player": "Ann", "bid": "2x4", "set_aside": [4]})
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    go_on = threading.Event()
    read = table._reveal_reader

    def slow_reader(frames: Any, expected: Any) -> Any:
        go_on.wait(10)
        return read(frames, expected)

    monkeypatch.setattr(table, "_reveal_reader", slow_reader)
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    tv.goto("/")
    capture = threading.Thread(target=lambda: live_server.post("/api/reveal/capture", {}))
    capture.start()  # the panel's OK button, say
    try:
        expect(tv.get_by_test_id("camera-reading")).to_have_text("Reading the dice…")
        expect(phone.locator("#capture")).to_have_text("Reading the dice…")
    finally:
        go_on.set()
        capture.join(10)
    expect(tv.get_by_test_id("camera-reading")).to_have_count(0)
    expect(phone.locator("#capture")).to_have_text("Capture with the camera")
