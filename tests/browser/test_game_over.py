"""The end of a game on the pages: who won (or, at Impus Bluff, lost), and tonight's standings.

A module of its own: its server starts with no finished game, so the evening's count is
this module's alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from browser_support import LiveServer, remember_pin
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

#: the shortest Impus Bluff game that ends: Ben loses (tests/known_games)
SHORT_IMPUS = json.loads((Path(__file__).parents[1] / "known_games"
                          / "impus_two_kinds_to_the_end.json").read_text(encoding="utf-8"))


def test_each_end_names_its_winner_or_loser_and_tonights_standings_follow(
        phone: Any, tv: Any, live_server: LiveServer) -> None:
    tv.goto("/")
    expect(tv.get_by_test_id("evening")).to_be_hidden()  # no game has ended yet
    live_server.post("/api/game", {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
                                   "options": {"dice_per_player": 1}})
    live_server.post("/api/action", {"player": "Ann", "bid": "1x2"})
    live_server.post("/api/action", {"player": "Ben", "challenge": True})
    expect(tv.locator("#turn .turn-sub")).to_have_text("Ben doubted Ann's 1 × 2s")
    live_server.post("/api/action", {"reveal": {"Ann": [3], "Ben": [4]}})
    expect(tv.get_by_test_id("winner")).to_have_text("Ben wins!")
    expect(tv.locator("#track")).to_be_hidden()  # nothing is bid any more
    expect(tv.locator("#turn .turn-sub")).to_have_text("Tonight, 1 game: Ben 1 win")
    expect(tv.get_by_test_id("evening")).to_be_hidden()  # the game-over card says it

    script = dict(SHORT_IMPUS["script"])
    actions = script.pop("actions")
    live_server.post("/api/game", script)
    # the next game on: the footer keeps the evening's standings in sight
    expect(tv.get_by_test_id("evening")).to_have_text("Tonight, 1 game: Ben 1 win")
    for action in actions:
        live_server.post("/api/action", action)
    # Impus Bluff has no winner but one loser (I9): the pages said "Nobody wins!"
    assert live_server.table.state()["game"]["loser"] == "Ben"
    expect(tv.get_by_test_id("winner")).to_have_text("Ben loses!")
    # Ann emptied her hand: safe, the good end, not drawn as knocked out
    ann = tv.locator(".player[data-player=Ann]")
    expect(ann).to_have_class(re.compile(r"\bplayer-safe\b"))
    expect(ann).not_to_have_class(re.compile(r"\bplayer-out\b"))
    expect(ann.locator(".tag")).to_have_text(["safe"])
    expect(tv.locator(".player[data-player=Ben] .tag")).to_have_text(["lost"])
    expect(tv.locator("#current-bid")).to_be_hidden()  # no pile is played on any more
    expect(tv.locator("#turn .turn-sub")).to_have_text("Tonight, 2 games: Ben 1 win, 1 loss")
    remember_pin(phone, live_server.pin)
    phone.goto("/control")
    expect(phone.locator("#status-turn")).to_have_text("Ben loses!")
    expect(phone.locator("#status-pile")).to_have_count(0)  # "the next player starts one"
    expect(phone.locator("#status-evening")).to_have_text("Tonight, 2 games: Ben 1 win, 1 loss")
    # tonight's table: Ann too, who has no win
    expect(phone.locator("#control-standings tr[data-player=Ann]")).to_be_visible()

    live_server.post("/api/undo", {})  # the last play taken back: its result too
    expect(tv.get_by_test_id("evening")).to_have_text("Tonight, 1 game: Ben 1 win")
    live_server.post("/api/action", actions[-1])

    # another group sits down: the phone starts the standings afresh, asked twice
    phone.get_by_role("button", name="New evening: clear the standings").click()
    assert live_server.table.state()["evening"] is not None  # one tap clears nothing
    phone.get_by_role("button", name="Tap again to clear tonight's standings").click()
    expect(phone.locator(".ok-note")).to_have_text("Tonight's standings start afresh")
    expect(phone.locator("#status-evening")).to_have_count(0)
    expect(phone.locator("#new-evening")).to_have_count(0)
    expect(tv.locator("#turn .turn-sub")).to_have_count(0)
    assert live_server.table.state()["evening"] is None
    # ...and a mistaken one can be undone until the next game starts
    phone.click("#undo-new-evening")
    expect(phone.locator("#status-evening")).to_have_text("Tonight, 2 games: Ben 1 win, 1 loss")
    phone.get_by_role("button", name="New evening: clear the standings").click()
    phone.get_by_role("button", name="Tap again to clear tonight's standings").click()
    expect(phone.locator("#status-evening")).to_have_count(0)

    # Scam to one point (S9): the winner's card is not tagged "first bidder" of a next round
    live_server.post("/api/game", {"game": "scam", "players": ["Ann", "Ben", "Cho"],
                                   "starter": "Ann", "options": {"target": 1}})
    for action in ({"player": "Ann", "bid": "2x3"}, {"player": "Ben", "pass": True},
                   {"player": "Cho", "pass": True},
                   {"reveal": {"Ann": [3, 3, 1], "Ben": [2, 4, 5], "Cho": [6, 6, 1]}}):
        live_server.post("/api/action", action)
    expect(tv.get_by_test_id("winner")).to_have_text("Ann wins!")
    expect(tv.locator("#turn .turn-sub")).to_have_text("Tonight, 1 game: Ann 1 win")
    expect(tv.locator(".tag-first")).to_have_count(0)
    expect(tv.locator("#game-kind")).to_have_text("Scam · 3 players · first to 1 point")
