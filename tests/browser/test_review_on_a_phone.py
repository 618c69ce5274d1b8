"""The review page on a small phone (390×844 at 3 device pixels a CSS pixel).

Every die on the photo is a finger-sized target, centred on its die, and the dice of one cup
(a finger's width apart on a phone's photo) are each reachable; a correction overtaken by a
confirm from another screen is not dropped without a word.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    MISREAD_INDEX,
    MISREAD_VALUE,
    SCENE,
    LiveServer,
    misreading_reader,
    open_page,
    redrawn_after,
)
from playwright.sync_api import expect
from test_other_games_and_pages import remember_pin

pytestmark = pytest.mark.browser

SMALL_PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3,
               "is_mobile": True, "has_touch": True}
#: WCAG 2.5.5: a touch target at least this many CSS pixels square
TARGET = 44


@pytest.fixture()
def small_phone(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    yield from open_page(browser, live_server, SMALL_PHONE, "small phone")


def review_waiting(live_server: LiveServer) -> dict[str, Any]:
    """A camera reveal of the browser tests' scene left waiting for a person: its review."""
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                                   "options": {"dice_per_player": 3}})
    live_server.post("/api/action", {"player": "Ann", "bid": "2x4"})
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    review: dict[str, Any] = live_server.post("/api/reveal/capture", {})["review"]
    return review


def open_review(page: Any, live_server: LiveServer) -> None:
    remember_pin(page, live_server.pin)
    page.goto("/review")
    expect(page.locator(".mark")).to_have_count(len(SCENE))
    expect(page.locator("#review-photo")).to_have_js_property("complete", True)
    # the marks are sized once the photo is laid out
    page.wait_for_function("document.querySelector('#overlay').getAttribute('viewBox') "
                           "!== '0 0 100 100'")


def on_screen(page: Any, x: float, y: float) -> tuple[float, float]:
    """Where a point of the photo (in the image's pixels) is on the page, in CSS pixels."""
    box = page.locator("#review-photo").bounding_box()
    width = page.evaluate("document.querySelector('#review-photo').naturalWidth")
    height = page.evaluate("document.querySelector('#review-photo').naturalHeight")
    return box["x"] + x * box["width"] / width, box["y"] + y * box["height"] / height


def picker_title(seat: str, value: int) -> str:
    return f"{seat}'s die — read as {value}"


def scene_value(index: int) -> int:
    """The value the stand-in camera reads for the scene's die ``index``."""
    return MISREAD_VALUE if index == MISREAD_INDEX else SCENE[index].value


def close_picker(page: Any) -> None:
    page.get_by_role("button", name="Done", exact=True).click()
    expect(page.locator(".picker")).to_have_count(0)


def test_every_die_on_a_phone_is_a_finger_sized_target(
        small_phone: Any, live_server: LiveServer, screenshot_dir: Path) -> None:
    page = small_phone
    review_waiting(live_server)
    open_review(page, live_server)

    # Each mark's touch target is at least 44 CSS pixels square, centred on its die, as the
    # visible ring is: the marks stay where the dice are.
    marks = page.locator(".mark")
    for index, d in enumerate(SCENE):
        mark = marks.nth(index)
        expect(mark).to_have_attribute("data-seat", d.seat)
        hit = mark.locator("circle.hit").bounding_box()
        ring = mark.locator("circle.ring").bounding_box()
        assert hit["width"] >= TARGET and hit["height"] >= TARGET, (d, hit)
        x, y = on_screen(page, d.x, d.y)
        for box in (hit, ring):
            assert box["x"] + box["width"] / 2 == pytest.approx(x, abs=1), (d, box)
            assert box["y"] + box["height"] / 2 == pytest.approx(y, abs=1), (d, box)
        assert ring["width"] < hit["width"]  # the mark itself is no bigger than before

    # A finger 20 CSS pixels to the left of Ann's first die (nothing else lies there) still
    # opens that die, not "add a die here".
    first = SCENE[0]
    x, y = on_screen(page, first.x, first.y)
    page.touchscreen.tap(x - 20, y)
    expect(page.locator(".picker h3")).to_have_text(picker_title(first.seat, first.value))
    close_picker(page)

    # On this phone the dice of one cup are closer than a target is wide: the targets
    # overlap, and a tap between two dice opens the nearer one, not the one drawn on top.
    a, b = SCENE[0], SCENE[1]  # Ann's 4, then her 1, drawn after it
    ax, ay = on_screen(page, a.x, a.y)
    bx, by = on_screen(page, b.x, b.y)
    assert ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 < TARGET
    page.touchscreen.tap(ax + 0.4 * (bx - ax), ay + 0.4 * (by - ay))
    expect(page.locator(".picker h3")).to_have_text(picker_title(a.seat, a.value))
    close_picker(page)
    page.touchscreen.tap(ax + 0.6 * (bx - ax), ay + 0.6 * (by - ay))
    expect(page.locator(".picker h3")).to_have_text(picker_title(b.seat, b.value))
    close_picker(page)

    # Every die, the camera sure of it or not, is also a button of its own under "Per seat",
    # in the photo's order: tapping it opens that die, marked on the photo.
    buttons = page.locator("#per-seat .seat-die")
    expect(buttons).to_have_count(len(SCENE))
    expect(page.locator("#crowded-hint")).to_be_visible()
    for index, d in enumerate(SCENE):
        button = buttons.nth(index)
        box = button.bounding_box()
        assert box["width"] >= TARGET and box["height"] >= TARGET, (d, box)
        value = scene_value(index)
        button.tap()
        expect(page.locator(".picker h3")).to_contain_text(picker_title(d.seat, value))
        expect(page.locator(".mark.selected")).to_have_attribute("data-seat", d.seat)
        expect(page.locator(".mark.selected")).to_have_attribute("data-value", str(value))
        if index < len(SCENE) - 1:
            close_picker(page)
    page.screenshot(path=str(screenshot_dir / "review-phone-picker-from-list.png"))
    # Ben's 2, read with confidence and in no problem's line, is fixed from the list.
    page.click("button[aria-label='set to 3']")
    expect(page.locator(".mark.edited")).to_have_attribute("data-value", "3")
    expect(buttons.nth(len(SCENE) - 1)).to_have_attribute("data-state", "edited")
    expect(page.locator("#confirm")).to_have_text("Confirm with 1 change")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(screenshot_dir / "review-phone-targets.png"), full_page=True)


def change_the_unsure_die(page: Any) -> None:
    page.click("#problems .problem-fix")
    page.click("button[aria-label='set to 6']")
    expect(page.locator("#confirm")).to_have_text("Confirm with 1 change")


def confirm_as_read(live_server: LiveServer, review: dict[str, Any]) -> None:
    """Another screen (another phone, or the demo) confirms the reading as the camera read it."""
    as_read = {seat: [d["value"] for d in dice] for seat, dice in review["seats"].items()}
    live_server.post(f"/api/reveals/{review['id']}/confirm", {"seats": as_read})


def a_change_under_way(page: Any, live_server: LiveServer) -> dict[str, Any]:
    """A review waiting, open on this phone with its unsure die changed and not yet sent."""
    review = review_waiting(live_server)
    open_review(page, live_server)
    change_the_unsure_die(page)
    return review


def test_a_change_overtaken_by_a_confirm_elsewhere_is_not_dropped_silently(
        small_phone: Any, live_server: LiveServer, screenshot_dir: Path) -> None:
    page = small_phone
    review = a_change_under_way(page, live_server)

    confirm_as_read(live_server, review)
    expect(page.locator("#review-empty")).to_be_visible()
    notice = page.locator("#settled-elsewhere")
    expect(notice).to_contain_text(
        "This reveal was confirmed on another screen before your change was sent; "
        "your change was not applied. The verdict is on the board.")
    expect(notice).to_contain_text("Check this reading again")
    page.screenshot(path=str(screenshot_dir / "review-phone-confirmed-elsewhere.png"),
                    full_page=True)

    # The message stays through later updates (the next bid: the reading can no longer come
    # back here, and the message says where to go instead) until the player dismisses it.
    turn = live_server.table.state()["game"]["turn"]
    live_server.post("/api/action", {"player": turn, "bid": "1x2"})
    expect(page.locator("#reopen")).to_have_count(0)
    expect(notice).to_contain_text("your change was not applied")
    expect(notice).to_contain_text("Undo on the control page")
    page.click("#dismiss-notice")
    expect(notice).to_have_count(0)
    expect(page.locator("#review-empty")).to_be_visible()


def test_a_notice_about_an_earlier_reading_goes_when_the_next_one_waits(
        small_phone: Any, live_server: LiveServer) -> None:
    """A tablet left on the review page kept "confirmed on another screen" above the next
    round's reading, which was not confirmed at all."""
    page = small_phone
    review = a_change_under_way(page, live_server)
    confirm_as_read(live_server, review)
    notice = page.locator("#settled-elsewhere")
    expect(notice).to_be_visible()
    game = live_server.table.state()["game"]
    players = [p["name"] for p in game["players"] if p["dice"]]
    turn = game["turn"]
    live_server.post("/api/action", {"player": turn, "bid": "1x2"})
    other = next(name for name in players if name != turn)
    live_server.post("/api/action", {"player": other, "challenge": True})
    live_server.post("/api/reveal/capture", {})
    expect(page.locator("#confirm")).to_be_visible()  # the next reading waits here
    expect(notice).to_have_count(0)


def test_a_confirm_sent_after_another_screens_says_the_change_was_not_applied(
        small_phone: Any, live_server: LiveServer) -> None:
    page = small_phone
    review = a_change_under_way(page, live_server)

    def confirmed_first_elsewhere(route: Any) -> None:
        confirm_as_read(live_server, review)  # reaches the table just before this phone's
        route.continue_()

    page.route("**/api/reveals/*/confirm", confirmed_first_elsewhere)
    page.click("#confirm")
    expect(page.locator("#settled-elsewhere")).to_contain_text(
        "confirmed on another screen before your change was sent; your change was not applied")
    expect(page.locator("#review-done")).to_have_count(0)  # not "Reading confirmed" by this phone
    expect(page.locator("main")).not_to_contain_text("no pending review")
    assert live_server.table.state()["last_reveal"]["seats"]["Ben"] == [4, MISREAD_VALUE, 2]


def test_a_change_to_a_reading_taken_again_elsewhere_is_not_dropped_silently(
        small_phone: Any, live_server: LiveServer) -> None:
    page = small_phone
    review = a_change_under_way(page, live_server)

    # another screen's "Take the photo again" on this review
    again = live_server.post(f"/api/reveals/{review['id']}/recapture", {})["review"]
    assert again["id"] != review["id"]
    expect(page.locator("#settled-elsewhere")).to_contain_text(
        "The photo was taken again on another screen before your change was sent; "
        "your change was not applied. Check the new reading and make the change again.")
    expect(page.locator("#confirm")).to_have_text("Confirm this reading")  # the new reading
    # taken again from this phone, nothing is said: the player asked for it
    page.click("#dismiss-notice")
    change_the_unsure_die(page)
    page.click("#recapture")  # this review's own "take again" (a plain capture is refused)
    expect(page.locator("#confirm")).to_have_text("Confirm this reading")
    deadline = time.monotonic() + 5
    while live_server.table.state()["review"]["id"] == again["id"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_server.table.state()["review"]["id"] not in (review["id"], again["id"])
    page.wait_for_timeout(500)
    expect(page.locator("#settled-elsewhere")).to_have_count(0)


def test_a_die_something_lies_over_shows_as_unsure_and_says_why(
        small_phone: Any, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cover check (vision.cover_check) doubts a die read at 97%: the page must not show
    it as a sure reading, and its picker says what the camera saw."""
    page = small_phone
    covered = SCENE[0]

    def covering_reader(frames: Any, expected: Any) -> Any:
        reading = misreading_reader(frames, expected)
        reading.problems.append({
            "kind": "covered", "seat": covered.seat, "x": float(covered.x),
            "y": float(covered.y),
            "message": f"{covered.seat}: something lies over part of a die read as "
                       f"{covered.value} (a finger? a sleeve?); clear it and read again, or "
                       "check the die"})
        return reading

    monkeypatch.setattr(live_server.table, "_reveal_reader", covering_reader)
    review_waiting(live_server)
    open_review(page, live_server)
    buttons = page.locator(".seat-die")
    expect(buttons.nth(0)).to_have_attribute("data-state", "low")
    expect(buttons.nth(0)).to_have_attribute("aria-label", re.compile(", unsure$"))
    expect(page.locator(".seat-die[data-state='low']")).to_have_count(2)
    expect(page.locator("#problems li")).to_have_count(2)
    page.locator("#problems .problem-fix", has_text="something lies over part of").click()
    expect(page.locator(".picker h3")).to_contain_text(
        f"{picker_title(covered.seat, covered.value)} (partly covered: check it)")


def test_a_removed_die_is_a_change_and_a_refused_confirm_is_seen(
        small_phone: Any, live_server: LiveServer) -> None:
    page = small_phone
    review_waiting(live_server)
    open_review(page, live_server)
    expect(page.locator("#confirm")).to_have_text("Confirm this reading")
    page.locator(".seat-row[data-seat='Ann'] .seat-die").first.click()
    page.click("button[aria-label='remove this die']")
    # a confirm saying "this reading" would hide that a die was taken out
    expect(page.locator("#confirm")).to_have_text("Confirm with 1 change")
    page.click("#confirm")  # Ann now shows 2 dice of her 3: the rules refuse it
    error = page.locator("#review-error")
    expect(error).to_contain_text("Ann")
    page.wait_for_timeout(600)  # the scroll to it is smooth
    box = error.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, box
    assert live_server.table.state()["review"] is not None  # nothing was applied


def test_a_die_is_fixed_from_the_keyboard(small_phone: Any, live_server: LiveServer) -> None:
    """The page is drawn anew at each change: the focus must follow the picker, not fall back
    to the top of the page."""
    page = small_phone
    review_waiting(live_server)
    open_review(page, live_server)
    first = page.locator(".seat-row[data-seat='Ann'] .seat-die").first
    first.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".picker")).to_have_count(1)
    assert page.evaluate("document.querySelector('.picker').contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(page.locator(".picker")).to_have_count(0)
    # back on the die it was about, so Enter opens it again
    assert page.evaluate("document.activeElement.classList.contains('seat-die')")
    page.keyboard.press("Enter")
    expect(page.locator(".picker h3")).to_have_text(re.compile(r"^Ann's die — read as "))
    page.keyboard.press("Tab")  # within the picker: the next face
    assert page.evaluate("document.querySelector('.picker').contains(document.activeElement)")


def test_the_picker_keeps_the_keyboard_inside_and_a_missed_die_is_added_without_a_pointer(
        small_phone: Any, live_server: LiveServer) -> None:
    """The picker covers half a phone's screen: Tab went on to the controls under it (the
    confirm button among them), unseen. A die the camera missed could be added only by
    tapping the photo."""
    page = small_phone
    review_waiting(live_server)
    open_review(page, live_server)
    page.locator(".seat-row[data-seat='Ann'] .seat-die").first.focus()
    page.keyboard.press("Enter")
    inside = "document.querySelector('.picker').contains(document.activeElement)"
    for _ in range(12):  # round the picker's controls, both ways, more than once
        page.keyboard.press("Tab")
        assert page.evaluate(inside)
    for _ in range(12):
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(inside)
    page.keyboard.press("Escape")
    # Ben's cup: one more die than the camera read, added from the keyboard
    before = page.locator(".seat-row[data-seat='Ben'] .seat-die").count()
    page.get_by_role("button", name="add a die to Ben").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".picker h3")).to_have_text("Add a die here: which face is up?")
    assert page.evaluate(inside)
    page.get_by_role("button", name="new die shows 5").click()
    expect(page.locator(".seat-row[data-seat='Ben'] .seat-die")).to_have_count(before + 1)
    expect(page.locator("#confirm")).to_have_text("Confirm with 1 change")
    added = page.locator(".seat-row[data-seat='Ben'] .seat-die").last
    expect(added).to_have_attribute("aria-label", re.compile(r"^fix Ben's die \d+: 5, changed"))
    expect(added).to_be_focused()  # on to the die just added, not some other control
    plus = page.get_by_role("button", name="add a die to Ben")
    plus.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    expect(page.locator(".picker")).to_have_count(0)
    expect(plus).to_be_focused()  # back where it was opened


def test_the_page_stays_where_it_was_scrolled_when_the_table_changes(
        small_phone: Any, live_server: LiveServer) -> None:
    """The hint about dice close together was drawn hidden and shown a moment later: each
    change at the table shrank the page under a phone scrolled to its end, and the buttons
    there moved under the finger (71 px, from Confirm onto another)."""
    page = small_phone
    review_waiting(live_server)
    open_review(page, live_server)
    expect(page.locator("#crowded-hint")).to_be_visible()  # this scene's dice lie close
    page.locator("#confirm").focus()
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    scrolled = page.evaluate("window.scrollY")
    assert scrolled > 0
    redrawn_after(page, lambda: live_server.table.note("the camera is back"))
    page.wait_for_timeout(300)  # past the redraw's layout
    assert page.evaluate("window.scrollY") == scrolled


def test_the_pickers_done_keeps_the_focus_when_the_table_changes(
        small_phone: Any, live_server: LiveServer) -> None:
    """"Done" has neither id nor label: at a change at the table the focus went to the next
    control, "Remove", and an Enter meant to close the picker took the die away."""
    page = small_phone
    review_waiting(live_server)
    open_review(page, live_server)
    page.locator(".seat-row[data-seat='Ann'] .seat-die").first.click()
    done = page.get_by_role("button", name="Done", exact=True)
    done.focus()
    redrawn_after(page, lambda: live_server.table.note("the camera is back"))
    expect(done).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".picker")).to_have_count(0)
    expect(page.locator(".seat-row[data-seat='Ann'] .seat-die")).to_have_count(
        sum(1 for d in SCENE if d.seat == "Ann"))
