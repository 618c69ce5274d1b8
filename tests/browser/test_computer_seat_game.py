"""A game of Perudo against the computer on the pages, set up and played on a phone to its end.

The computer's moves come by themselves after a short pause; its die stays hidden on the board
until the reveal, where it appears beside the human's, entered by hand.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_support import LiveServer, remember_pin
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_a_perudo_game_with_a_computer_seat_to_its_end(
        phone: Any, tv: Any, live_server: LiveServer) -> None:
    remember_pin(phone, live_server.pin)
    phone.goto("/setup")
    phone.locator("[data-game=perudo]").click()
    phone.get_by_label("Player 1 name").fill("Ann")
    phone.get_by_label("Player 2 name").fill("Cho")
    phone.locator("#starter").select_option("Ann")
    phone.locator("#opt-dice_per_player").fill("1")
    phone.locator("#opt-dice_per_player").dispatch_event("change")
    phone.locator("#computer-player").select_option("Cho")
    phone.locator("#computer-level").select_option("hard")
    phone.locator("#start-game").click()
    expect(phone.locator("#status-turn")).to_have_text("Ann's turn")
    setup = live_server.table.state()["setup"]
    assert setup["computer"] == {"player": "Cho", "level": "hard"}
    assert setup["game"] == "perudo" and setup["options"]["dice_per_player"] == 1

    tv.goto("/")
    cho = tv.locator(".player[data-player=Cho]")
    expect(cho.locator(".tag-computer")).to_have_text("computer")

    phone.locator("#bid-submit").click()  # Ann opens with the lowest bid, 1 × 2s
    # the computer answers by itself: dudo (a reveal is due) or a raise (Ann's turn again)
    expect(phone.locator("#reveal-card, #dudo")).to_be_visible(timeout=15000)
    if phone.locator("#dudo").is_visible():
        expect(cho.locator(".die.die-hidden")).to_have_count(1)  # no face is drawn
        phone.locator("#dudo").click()
    expect(phone.locator("#reveal-card")).to_be_visible()
    expect(tv.locator("#turn .turn-sub")).to_contain_text("called dudo on")
    # the hand entry asks for Ann's die only: Cho's is the Pi's
    phone.locator("#hand-reveal summary").click()
    expect(phone.locator(".seat-entry")).to_have_count(1)
    phone.get_by_label("Ann: add a 5").click()
    phone.locator("#reveal-submit").click()
    # the tap only sends the reveal: the table has it once the page says who won
    expect(phone.locator("#status-turn")).to_have_text(re.compile(r"^(Ann|Cho) wins!$"))

    state = live_server.table.state()
    assert state["game"]["phase"] == "over"
    revealed = state["history"][-1]["reveal"]
    assert revealed["Ann"] == [5] and len(revealed["Cho"]) == 1
    winner = state["game"]["winner"]
    expect(phone.locator("#status-turn")).to_have_text(f"{winner} wins!")
    expect(tv.get_by_test_id("winner")).to_have_text(f"{winner} wins!")
    # the computer's die shows on the TV beside the human's, read from the round's reveal
    expect(tv.locator("#last-reveal .seat-reading[data-seat=Cho] .die")).to_have_count(1)
