"""The phone's control page as the player holding it needs it: every bid Scam allows, no game
ended by one stray tap, the verdict after a reveal, undo that says what it takes back (even
once the game is over), and the card game's deal."""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import LiveServer, redrawn_after, remember_pin
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

BLUFF = {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
         "options": {"dice_per_player": 1}}


def test_a_scam_bid_may_count_every_die_on_the_table(phone: Any,
                                                      live_server: LiveServer) -> None:
    live_server.post("/api/game", {"game": "scam", "players": ["Ann", "Ben", "Cho"],
                                   "starter": "Ann"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    plus = phone.get_by_role("button", name="more")
    expect(plus).to_be_enabled()  # three players: nine dice
    phone.click("button[data-face='4']")
    while plus.is_enabled():
        plus.click()
    expect(phone.locator("#bid-count")).to_have_text("9")
    phone.click("#bid-submit")
    expect(phone.locator("#status-bid")).to_have_text("9 × 4s")
    assert live_server.table.state()["game"]["bid"] == "9x4"


def test_a_face_tapped_opens_at_its_lowest_legal_raise_and_a_raised_count_stays(
        phone: Any, live_server: LiveServer) -> None:
    """B6: a ★ bid counts on another scale. After 7 × 6s, ★ opens at 4 ★, not 8 ★, and a
    number face again at 8; a count the player raised on purpose stays."""
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben", "Cho"],
                                   "starter": "Ann"})
    live_server.post("/api/action", {"player": "Ann", "bid": "7x6"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    count = phone.locator("#bid-count")
    expect(count).to_have_text("4")  # the lowest raise on the board: 4 ★
    phone.click("button[data-face='3']")
    expect(count).to_have_text("8")
    phone.click("button[data-face='*']")
    expect(count).to_have_text("4")
    phone.click("button[data-face='3']")
    expect(count).to_have_text("8")
    phone.get_by_role("button", name="more").click()
    phone.click("button[data-face='5']")
    expect(count).to_have_text("9")
    phone.click("#bid-submit")
    expect(phone.locator("#status-bid")).to_have_text("9 × 5s")


def test_a_game_under_way_is_ended_only_on_a_second_tap(phone: Any,
                                                         live_server: LiveServer) -> None:
    live_server.post("/api/game", BLUFF)
    live_server.post("/api/action", {"player": "Ann", "bid": "1x3"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    phone.click("#new-game")
    phone.click("#start-game")
    warning = phone.locator("#replace-warning")
    expect(warning).to_contain_text("The Bluff game in progress ends (1 action)")
    expect(phone.locator("#start-game")).to_have_text("End it and start the new game")
    assert live_server.table.state()["actions_count"] == 1  # nothing changed yet
    phone.click("#start-game")
    expect(phone.locator("#setup-card")).to_have_count(0)
    assert live_server.table.state()["actions_count"] == 0


def test_the_phone_shows_the_verdict_and_can_undo_the_reveal_that_ended_the_game(
        phone: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", BLUFF)
    live_server.post("/api/action", {"player": "Ann", "bid": "1x2"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    expect(phone.locator("#undo")).to_have_text("↶ Undo Ann's bid 1 × 2s")
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    live_server.post("/api/action", {"reveal": {"Ann": [3], "Ben": [4]}})
    expect(phone.locator("#status-turn")).to_have_text("Ben wins!")
    expect(phone.locator("#status-verdict")).to_contain_text("Round 1: ")
    expect(phone.locator("#status-verdict")).to_contain_text("Ann loses 1 die")
    phone.click("#undo")  # the reveal was typed wrong: take it back
    expect(phone.locator("#status-turn")).not_to_have_text("Ben wins!")
    assert live_server.table.state()["game"]["phase"] == "reveal"


def test_the_dealer_sees_the_deal_on_the_phone_until_the_first_play(
        phone: Any, live_server: LiveServer) -> None:
    live_server.post("/api/game", {"game": "impus", "players": ["Ann", "Ben", "Cho", "Dan"],
                                   "starter": "Ann"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    expect(phone.locator("#status-deal")).to_have_text(
        "Deal the cards: Ann and Ben 10 each; Cho and Dan 10 and a polymorph each")
    expect(phone.locator("#discard-card")).to_contain_text("right after the deal")  # why now
    live_server.post("/api/action", {"player": "Ann", "play": 2, "claim": "orc"})
    expect(phone.locator("#status-deal")).to_have_count(0)


TARGETS_TOO_SMALL = """() => [
  ...document.querySelectorAll('button, a, select, input:not([type=checkbox])')]
  .filter((node) => node.offsetParent !== null)
  .map((node) => [node.getAttribute('aria-label') || node.id || node.textContent.trim(),
                  node.getBoundingClientRect()])
  .filter(([, box]) => box.height < 44 || box.width < 44)
  .map(([name, box]) => `${name}: ${Math.round(box.width)}x${Math.round(box.height)}`)"""

OPTIONS_CUT = """() => [...document.querySelectorAll('#setup-card select')].filter((select) => {
  const style = getComputedStyle(select);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const text = select.options[select.selectedIndex].text;
  const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return context.measureText(text).width > room - 16;  // the arrow
}).map((select) => `${select.id}: ${select.options[select.selectedIndex].text}`)"""


@pytest.mark.parametrize("game", ["bluff", "impus", "perudo"])
def test_every_control_on_the_setup_form_is_finger_sized_and_readable(
        phone: Any, live_server: LiveServer, game: str) -> None:
    remember_pin(phone, live_server.pin)
    phone.goto("/setup")
    phone.click(f"[data-game={game}]")
    expect(phone.locator("#start-game")).to_be_visible()
    assert phone.evaluate(TARGETS_TOO_SMALL) == []
    assert phone.evaluate(OPTIONS_CUT) == []


def test_a_second_tap_where_the_screen_just_changed_does_nothing(
        phone: Any, live_server: LiveServer) -> None:
    """A double tap on Bid: the first bids for Ann; the second lands on the redrawn page,
    where the button under the finger is now Ben's (a bid, or "Doubt it!"). It must not act."""
    live_server.post("/api/game", BLUFF)
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    bid = phone.locator("#bid-submit")
    expect(bid).to_be_enabled()
    bid.click()
    expect(phone.locator("#status-turn")).to_have_text("Ben's turn")
    bid.click(force=True)  # at once on the redrawn button, now Ben's (no wait for it)
    phone.wait_for_timeout(1200)  # the redrawn buttons wake; a late request would be in
    assert live_server.table.state()["actions_count"] == 1
    assert live_server.table.state()["game"]["turn"] == "Ben"
    expect(phone.locator("#challenge")).to_be_enabled()  # and then they work


def test_an_undo_from_a_screen_that_missed_a_move_is_refused_and_the_screen_catches_up(
        phone: Any, live_server: LiveServer) -> None:
    """A phone whose live stream dropped still offers to undo Ann's bid. Meanwhile Ben
    challenged at the table: its undo would take back Ben's challenge instead."""
    live_server.post("/api/game", BLUFF)
    live_server.post("/api/action", {"player": "Ann", "bid": "1x2"})
    remember_pin(phone, live_server.pin)
    phone.route("**/api/events", lambda route: route.abort())  # no live news on this phone
    phone.goto("/control")
    expect(phone.locator("#undo")).to_have_text("↶ Undo Ann's bid 1 × 2s")
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    phone.click("#undo")
    expect(phone.locator("#control-error")).to_contain_text(
        "the table moved on while you chose (the cups are to be lifted now): nothing was done")
    # the server's kind of refusal is not a rule of the game: not cited to the player
    expect(phone.locator("#control-error")).not_to_contain_text("(stale)")
    assert live_server.table.state()["game"]["phase"] == "reveal"
    assert live_server.table.state()["actions_count"] == 2
    # the refusal made the phone ask for the table's state: it shows the reveal now
    expect(phone.locator("#capture")).to_be_visible()


class _UnpluggedCamera:
    spec = "opencv:0"
    status = "camera offline: unplugged (retrying in 1 s)"

    def read(self) -> Any:
        return None

    def frames(self) -> Any:
        return iter(())


def test_a_capture_that_reads_nothing_says_why_and_not_that_it_was_taken(
        phone: Any, live_server: LiveServer) -> None:
    from browser_support import SceneCamera

    live_server.post("/api/game", BLUFF)
    live_server.post("/api/action", {"player": "Ann", "bid": "1x2"})
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    live_server.table.set_camera(_UnpluggedCamera())
    try:
        remember_pin(phone, live_server.pin)
        phone.goto("/control")
        phone.click("#capture")
        # (this table's stand-in reader fails on no frames, where the real one says the scene
        # never came to rest: either way the phone says so)
        expect(phone.locator("#control-error")).to_contain_text(
            "the camera's reading failed (StopIteration) — capture again, or enter the reveal "
            "by hand")
        expect(phone.locator(".ok-note")).to_have_count(0)
        assert live_server.table.state()["game"]["phase"] == "reveal"
    finally:
        live_server.table.set_camera(SceneCamera())


def test_the_last_die_is_protected_only_under_the_default_exact_hit_rule(
        phone: Any, live_server: LiveServer) -> None:
    """B13: the form offered both, and the refusal then named API identifiers."""
    remember_pin(phone, live_server.pin)
    phone.goto("/setup")
    phone.click("[data-game=bluff]")
    protect = phone.locator("#opt-protect_last_die")
    protect.check()
    phone.select_option("#opt-exact", "challenger_pays_bidder")
    expect(protect).to_be_disabled()
    expect(protect).not_to_be_checked()
    phone.select_option("#opt-exact", "all_others_lose_one")
    expect(protect).to_be_enabled()


def test_a_name_being_typed_keeps_its_field_when_the_table_changes(
        phone: Any, live_server: LiveServer) -> None:
    """Someone at the table acts while a player types their name on the setup form: the
    status card above is drawn anew, and the field keeps the focus (on a phone, the keyboard)
    and every letter typed. Moved into a new page, it lost the focus, the keyboard closed and
    the next letters went nowhere (a target typed then was lost too: a game to 10 points, not
    3)."""
    live_server.post("/api/game", BLUFF)
    remember_pin(phone, live_server.pin)
    phone.goto("/setup")
    name = phone.get_by_label("Player 2 name")
    name.fill("")
    name.press_sequentially("Da")
    # another phone bids
    redrawn_after(phone, lambda: live_server.post("/api/action", {"player": "Ann", "bid": "1x4"}))
    expect(phone.locator("#status-bid")).to_have_text("1 × 4s")  # the status card caught up
    phone.keyboard.type("n")
    expect(name).to_have_value("Dan")
    expect(name).to_be_focused()


def test_a_wrong_pin_stays_said_and_the_pin_field_typed_in_when_the_table_changes(
        phone: Any, live_server: LiveServer) -> None:
    """The PIN gate was shown afresh at every change of the table: what it said about a
    wrong PIN vanished as soon as someone bid. The digits being typed stay too."""
    live_server.post("/api/game", BLUFF)
    phone.goto("/control")  # no PIN remembered on this phone
    phone.fill("#pin-input", "0000")
    phone.click("#pin-gate button[type=submit]")
    expect(phone.locator("#pin-error")).to_contain_text("not right")
    phone.locator("#pin-input").fill("")
    phone.locator("#pin-input").press_sequentially("24")
    redrawn_after(phone, lambda: live_server.post("/api/action", {"player": "Ann", "bid": "1x4"}))
    expect(phone.locator("#pin-error")).to_contain_text("not right")
    phone.keyboard.type("68")
    expect(phone.locator("#pin-input")).to_have_value("2468")


def test_a_count_being_typed_keeps_its_caret_when_the_table_changes(
        phone: Any, live_server: LiveServer) -> None:
    """The play card is drawn anew at each change of the table. The count field got the focus
    back but with the caret at its start: "1", a change, then "2" read 21 cards, not 12."""
    live_server.post("/api/game", {"game": "impus", "players": ["Ann", "Ben", "Cho"],
                                   "starter": "Ann"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    count = phone.locator("#impus-count")
    count.fill("")
    count.press_sequentially("1")
    # any change redraws the page
    redrawn_after(phone, lambda: live_server.table.note("the camera is back"))
    expect(count).to_be_focused()
    phone.keyboard.type("2")
    expect(count).to_have_value("12")


def test_the_focus_stays_on_play_again_when_the_table_changes(
        phone: Any, live_server: LiveServer) -> None:
    """A control with neither id nor label is found again by its words. "Play again" lost
    the focus to the next control, "Undo the reveal", and an Enter meant for a new game took
    back the reveal that had ended this one."""
    live_server.post("/api/game", BLUFF)
    for action in ({"player": "Ann", "bid": "1x2"}, {"player": "Ben", "challenge": True},
                   {"reveal": {"Ann": [3], "Ben": [4]}}):
        live_server.post("/api/action", action)
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    again = phone.get_by_role("button", name="Play again")
    again.focus()
    redrawn_after(phone, lambda: live_server.table.note("the camera is back"))
    expect(again).to_be_focused()
    phone.keyboard.press("Enter")
    expect(phone.locator("#setup-card")).to_be_visible()
    assert live_server.table.state()["game"]["phase"] == "over"


def test_two_alike_controls_keep_the_focus_on_the_one_it_was_on(
        phone: Any, live_server: LiveServer) -> None:
    """Two "take back 4" buttons in the set-aside list: the second keeps the focus, not the
    first."""
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"],
                                   "starter": "Ann"})
    live_server.post("/api/action", {"player": "Ann", "bid": "1x2"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    phone.check("#reroll-toggle")
    phone.click("button[aria-label='put aside 4']")
    phone.click("button[aria-label='put aside 4']")
    takers = phone.locator("button[aria-label='take back 4']")
    expect(takers).to_have_count(2)
    takers.nth(1).focus()
    redrawn_after(phone, lambda: live_server.table.note("the camera is back"))
    expect(takers.nth(1)).to_be_focused()


def test_the_four_of_a_kind_pickers_keep_what_was_picked_when_the_table_changes(
        phone: Any, live_server: LiveServer) -> None:
    """Drawn anew at a change at the table, "who discards" and the kind went back to the first
    player and kind, and Discard sent those: the wrong player's cards laid down."""
    live_server.post("/api/game", {"game": "impus", "players": ["Ann", "Ben", "Cho"],
                                   "starter": "Ann"})
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    expect(phone.locator("#status-phase")).to_have_text("Impus Bluff · starting a pile")
    expect(phone.locator("#discarder")).to_be_hidden()  # folded until someone holds four
    phone.click("#four-of-a-kind")
    phone.select_option("#discarder", "Cho")
    phone.select_option("#discard-kind", "elf")
    redrawn_after(phone, lambda: live_server.table.note("the camera is back"))
    expect(phone.locator("#discarder")).to_have_value("Cho")
    expect(phone.locator("#discard-kind")).to_have_value("elf")
    phone.click("#discard")
    expect(phone.locator("#undo")).to_have_text("↶ Undo Cho's discard")
    assert live_server.table.state()["undo"] == {"player": "Cho", "discard": "elf"}
