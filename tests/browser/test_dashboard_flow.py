"""A whole Bluff round through the pages, as players would do it.

Set up a game and bid from the phone, watch the board follow live, challenge, correct the
camera's misread on the review page, and see the verdict. Screenshots of every page go to
test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from browser_support import MISREAD_INDEX, MISREAD_VALUE, SCENE, LiveServer, start_game
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def unlock(phone: Any, pin: str) -> None:
    phone.goto("/control")
    expect(phone.locator("#pin-gate")).to_be_visible()
    phone.fill("#pin-input", "0000")
    phone.click("#pin-gate button[type=submit]")
    expect(phone.locator("#pin-error")).to_contain_text("not right")
    phone.fill("#pin-input", pin)
    phone.click("#pin-gate button[type=submit]")
    expect(phone.locator("#pin-gate")).to_be_hidden()


def start_bluff(phone: Any, players: list[str], dice_each: int, shots: Path | None = None) -> None:
    phone.click("#new-game") if phone.locator("#new-game").count() else None
    expect(phone.locator("#setup-card")).to_be_visible()
    phone.click("[data-game=bluff]")
    rows = phone.locator(".player-row input")
    while rows.count() < len(players):
        phone.click("#add-player")
    while rows.count() > len(players):
        phone.locator(".player-row button[aria-label^=remove]").last.click()
    for index, name in enumerate(players):
        rows.nth(index).fill(name)
    phone.select_option("#starter", players[0])
    phone.select_option("#opt-dice_per_player", str(dice_each))
    if shots is not None:
        phone.screenshot(path=str(shots / "control-setup.png"), full_page=True)
    start_game(phone)
    expect(phone.locator("#status-turn")).to_have_text(f"{players[0]}'s turn")


def bid(phone: Any, count: int, face: int | str) -> None:
    """The face first (it opens at its lowest legal raise), then the count."""
    phone.click(f"button[data-face='{face}']")
    while int(phone.inner_text("#bid-count")) < count:
        phone.click("button[aria-label=more]")
    while int(phone.inner_text("#bid-count")) > count:
        phone.click("button[aria-label=fewer]")
    phone.click("#bid-submit")


def tap_photo(page: Any, x: float, y: float) -> None:
    """Tap the review photo at a point given in the image's own pixels."""
    photo = page.locator("#review-photo")
    box = photo.bounding_box()
    width = page.evaluate("document.querySelector('#review-photo').naturalWidth")
    height = page.evaluate("document.querySelector('#review-photo').naturalHeight")
    page.mouse.click(box["x"] + x * box["width"] / width, box["y"] + y * box["height"] / height)


def die_fills_the_middle(png: bytes) -> bool:
    """Whether the middle third of a close-up is mostly the scene's white die body."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    height, width = image.shape
    middle = image[height // 3:2 * height // 3, width // 3:2 * width // 3]
    return bool((middle > 170).mean() > 0.5)


def test_a_round_from_setup_to_verdict(phone: Any, tv: Any, live_server: LiveServer,
                                       screenshot_dir: Path) -> None:
    unlock(phone, live_server.pin)
    start_bluff(phone, ["Ann", "Ben"], 3, screenshot_dir)

    tv.goto("/")
    expect(tv.locator("#live")).to_have_attribute("data-status", "live")
    expect(tv.get_by_test_id("turn")).to_have_text("Ann")
    expect(tv.get_by_test_id("pin")).to_have_text(live_server.pin)  # the TV is the table's machine
    expect(tv.locator(".player")).to_have_count(2)

    # The picker opens on the lowest legal bid; Ann raises it to 2 × 4s and re-rolls,
    # showing one 4 in front of her cup.
    expect(phone.locator("#bid-count")).to_have_text("1")
    phone.check("#reroll-toggle")
    expect(phone.locator("#bid-submit")).to_be_disabled()  # nothing put aside yet
    phone.click("button[aria-label='put aside 4']")
    expect(phone.locator("#bid-submit")).to_be_enabled()
    bid(phone, 2, 4)
    expect(tv.locator(".player[data-player=Ann] .player-count")).to_have_text("3 dice · 1 shown")
    expect(tv.locator(".player[data-player=Ann] .die-ivory")).to_have_count(1)
    expect(phone.locator("#status-bid")).to_have_text("2 × 4s")
    # ...and the board follows without a reload.
    expect(tv.get_by_test_id("current-bid")).to_contain_text("2")
    expect(tv.locator("#current-bid")).to_have_attribute("data-bid", "2x4")
    expect(tv.get_by_test_id("turn")).to_have_text("Ben")
    expect(tv.locator(".field-current")).to_have_attribute("data-field", "2")
    expect(tv.get_by_test_id("odds")).to_have_text(re.compile(r"^(\d+%|>99%|<1%)$"))

    # A bid that does not beat 2 × 4s is refused next to the picker, and nothing changes.
    bid(phone, 2, 3)
    expect(phone.locator("#control-error")).to_contain_text("B6")
    phone.locator("#control-error").scroll_into_view_if_needed()
    phone.screenshot(path=str(screenshot_dir / "control-refusal.png"))
    expect(tv.locator("#current-bid")).to_have_attribute("data-bid", "2x4")

    bid(phone, 3, 4)
    expect(tv.locator("#current-bid")).to_have_attribute("data-bid", "3x4")
    expect(tv.locator(".player[data-player=Ben] .tag-bidder")).to_have_text("bid 3 × 4s")
    expect(tv.get_by_test_id("turn")).to_have_text("Ann")
    tv.screenshot(path=str(screenshot_dir / "board-bidding.png"), full_page=True)
    phone.screenshot(path=str(screenshot_dir / "control-bidding.png"), full_page=True)

    # Ann doubts; the board asks for the cups to be lifted.
    phone.click("#challenge")
    expect(tv.locator("body")).to_have_attribute("data-phase", "reveal")
    expect(tv.locator("#turn")).to_contain_text("Lift the cups")

    # The camera reads the reveal, unsure about one die: the reading waits for a person.
    phone.click("#capture")
    phone.wait_for_url(re.compile(r"/review/r\d+$"))
    expect(tv.locator(".message-review")).to_be_visible()
    # ...said once: the table's "needs a look" warning is for screens without that card
    sent = tv.evaluate("fetch('/api/state').then((r) => r.json()).then((s) => s.messages)")
    assert any("needs a look before its verdict" in m["text"] for m in sent), sent
    expect(tv.locator("#messages")).not_to_contain_text("needs a look before its verdict")
    misread = SCENE[MISREAD_INDEX]
    marks = phone.locator(f".mark[data-seat={misread.seat}]")
    expect(marks).to_have_count(3)
    expect(phone.locator("#problems li")).to_have_count(1)
    # how the camera read it, from the press: this stand-in reader reads one frame
    expect(phone.locator("#read-timing")).to_have_text(
        re.compile(r"^Read from 1 frame in \d+\.\d s\.$"))
    wrong = phone.locator(f".mark[data-seat={misread.seat}][data-value='{MISREAD_VALUE}']")
    expect(wrong).to_have_count(1)
    phone.screenshot(path=str(screenshot_dir / "review-before.png"), full_page=True)
    # A die the camera missed is added by tapping the photo where it lies.
    missed = SCENE[-1]
    phone.locator(f".mark[data-seat={missed.seat}][data-value='{missed.value}']").click()
    phone.click("button[aria-label='remove this die']")
    expect(phone.locator(f".seat-row[data-seat={missed.seat}] .count-bad")).to_have_text("⚠ 2 of 3")
    tap_photo(phone, missed.x, missed.y)
    phone.select_option("select[aria-label='seat of the new die']", missed.seat)
    phone.click(f"button[aria-label='new die shows {missed.value}']")
    expect(phone.locator(f".seat-row[data-seat={missed.seat}] .count-ok")).to_have_text("✓ 3 of 3")
    # The problem's line opens the unsure die's picker: a bigger target than the die.
    phone.click("#problems .problem-fix")
    expect(phone.locator(".picker h3")).to_have_text(
        f"{misread.seat}'s die — read as {MISREAD_VALUE} (unsure, 41%)")
    phone.screenshot(path=str(screenshot_dir / "review-picker.png"))
    # ...with the photo round that die enlarged: on the phone the photo shows it a few pixels
    # across; in the close-up the die (white, on green felt) fills the middle, cut from the
    # frame unmarked (the stand-in reader's marked photo covers every die in red)
    close_up = phone.locator(".picker .close-up")
    expect(close_up).to_be_visible()
    assert die_fills_the_middle(close_up.screenshot())
    phone.click(f"button[aria-label='set to {misread.value}']")
    expect(phone.locator(".mark.edited")).to_have_count(2)
    # the die removed counts too: a confirm that says "this reading" after a removal would
    # hide it (with the die added back and the misread set right: three)
    expect(phone.locator("#confirm")).to_have_text("Confirm with 3 changes")
    # The verdict waits for the confirmation.
    expect(tv.locator("body")).to_have_attribute("data-phase", "reveal")
    phone.click("#confirm")

    # Actual 4s and ★ (1s): Ann 4,1 + Ben 4,4 = 4 > 3, so Ann, the challenger, loses 1 die.
    # The phone goes back to the control page, which says the verdict.
    phone.wait_for_url("**/control")
    expect(phone.locator("#status-verdict")).to_contain_text("Ann loses 1")
    expect(tv.get_by_test_id("verdict")).to_contain_text("Ann loses 1")
    expect(tv.locator(".reveal-count")).to_contain_text("Counted 4")
    expect(tv.locator(".player[data-player=Ann] .lost")).to_have_text("−1 this game")
    expect(tv.locator("#history .round")).to_have_count(1)
    expect(tv.locator(".reveal-photo img")).to_have_js_property("complete", True)
    # each round keeps a link to the photo it was read from, not only the last one
    round_photo = tv.locator("#history .round .round-photo")
    expect(round_photo).to_have_attribute("href", tv.locator(".reveal-photo").get_attribute("href"))
    assert tv.request.get(round_photo.get_attribute("href")).headers["content-type"] == "image/jpeg"
    tv.screenshot(path=str(screenshot_dir / "board-after-reveal.png"), full_page=True)
    tv.set_viewport_size({"width": 412, "height": 915})
    tv.screenshot(path=str(screenshot_dir / "board-phone.png"), full_page=True)
    phone.screenshot(path=str(screenshot_dir / "review-confirmed.png"), full_page=True)

    # The correction is journalled with the reveal: the table's state agrees with the page.
    state = live_server.table.state()
    assert state["last_reveal"]["seats"]["Ben"] == [4, 4, 2]
    assert state["game"]["players"][0]["dice"] == 2
    # ...and the record keeps where each confirmed die lies, the one added by a tap and the
    # one corrected included: the photo becomes a labelled one (bluffcam export-reveals)
    placed = live_server.table.reveals.load(state["last_reveal"]["id"])["confirmed_dice"]
    for d in (missed, misread):
        assert any(p["value"] == d.value and abs(p["x"] - d.x) <= 3 and abs(p["y"] - d.y) <= 3
                   for p in placed[d.seat]), (d, placed)
    assert sum(len(dice) for dice in placed.values()) == len(SCENE)

    # The calibration page keeps the camera's record at this table: this one reveal, settled
    # after a look, with the one die whose value a person changed
    record = live_server.table.reveals.load(state["last_reveal"]["id"])
    read = sum(len(dice) for dice in record["read"].values())
    phone.goto("/calibration")
    expect(phone.locator("#record-reveals")).to_contain_text(
        re.compile(r"^1 reveal read since .+: 0 applied at once, 1 after a look at the review "
                   r"page\.$"))
    expect(phone.locator("#record-corrected")).to_have_text(
        f"1 die changed, added or removed at review, of {read} read.")
    expect(phone.locator("#record-reopened")).to_contain_text("No verdict the camera gave")
    expect(phone.locator("#record-photos")).to_have_text(  # this test's server keeps no budget
        re.compile(r"^Photos of 1 reveal: (under 1|\d+) MB; [\d,.\s]+ MB free on the disk\.$"))
    phone.locator("#camera-record").scroll_into_view_if_needed()
    phone.screenshot(path=str(screenshot_dir / "calibration-record.png"), full_page=True)
