"""Every action kind through POST /api/action, refusals with clear 4xx messages, undo, export."""

from __future__ import annotations

import io
from typing import Any

import pytest
from flask.testing import FlaskClient
from web_api_helpers import HANDS, PIN, SETUP, StubReader, play_to_reveal, post

from bluffcam.table import Table


def state(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/api/state")
    assert response.status_code == 200
    body: dict[str, Any] = response.json
    return body


def test_state_is_open_and_empty_before_a_game(client: FlaskClient) -> None:
    body = state(client)
    assert body["game"] is None
    assert body["setup"] is None
    assert body["pin_required"] is True
    assert isinstance(body["version"], int)


def test_bluff_bid_reroll_challenge_and_manual_reveal(client: FlaskClient) -> None:
    after_challenge = play_to_reveal(client)
    assert after_challenge["game"]["phase"] == "reveal"
    assert after_challenge["bidder"] == "Ben"
    assert after_challenge["set_aside"] == {"Ben": [4, 4]}
    assert after_challenge["legal"]["kinds"] == ["reveal"]
    assert after_challenge["odds"]["bid"] == "4x4"
    assert 0.0 < after_challenge["odds"]["probability"] <= 1.0

    response = post(client, "/api/action", {"reveal": HANDS})
    assert response.status_code == 200, response.json
    body = response.json
    [round_one] = body["history"]
    assert round_one["actual"] == 6 and round_one["bid"] == "4x4"
    assert "Cho loses 2 dice" in round_one["verdict"]
    cho = next(p for p in body["game"]["players"] if p["name"] == "Cho")
    assert cho["dice"] == 3 and cho["lost"] == 2
    assert body["game"]["phase"] == "bidding"
    assert body["set_aside"] == {}


def test_scam_bid_pass_scam_call_and_reveal(client: FlaskClient) -> None:
    setup = {"game": "scam", "players": ["Ann", "Ben", "Cho"], "starter": "Ann"}
    assert post(client, "/api/game", setup).status_code == 200
    assert post(client, "/api/action", {"player": "Ann", "bid": "2x3"}).status_code == 200
    assert post(client, "/api/action", {"player": "Ben", "pass": True}).status_code == 200
    response = post(client, "/api/action", {"player": "Cho", "scam": True})
    assert response.status_code == 200
    assert response.json["game"]["phase"] == "reveal"
    hands = {"Ann": [3, 3, 1], "Ben": [2, 5, 6], "Cho": [3, 4, 4]}
    response = post(client, "/api/action", {"reveal": hands})
    assert response.status_code == 200
    scores = {p["name"]: p["score"] for p in response.json["game"]["players"]}
    assert scores == {"Ann": 3, "Ben": 0, "Cho": 0}  # S8: the bid held after "Scam!"


def test_illegal_action_is_refused_with_rule_and_nothing_changes(client: FlaskClient) -> None:
    post(client, "/api/game", SETUP)
    post(client, "/api/action", {"player": "Ann", "bid": "3x4"})
    before = state(client)
    response = post(client, "/api/action", {"player": "Ben", "bid": "3x3"})
    assert response.status_code == 409
    assert response.json["error"]["rule"] == "B6"
    assert "3×4" in response.json["error"]["message"]
    after = state(client)
    assert after["version"] == before["version"]
    assert after["game"] == before["game"]


def test_out_of_turn_and_unknown_player_are_refused(client: FlaskClient) -> None:
    post(client, "/api/game", SETUP)
    response = post(client, "/api/action", {"player": "Cho", "bid": "2x2"})
    assert response.status_code == 409 and "Ann's turn" in response.json["error"]["message"]
    response = post(client, "/api/action", {"player": "Zed", "bid": "2x2"})
    assert response.status_code == 409 and "Zed" in response.json["error"]["message"]


def test_bad_json_and_wrong_shapes_are_400_and_change_nothing(client: FlaskClient) -> None:
    post(client, "/api/game", SETUP)
    before = state(client)
    bad = post(client, "/api/action", data="{\"player\": ", content_type="application/json")
    assert bad.status_code == 400
    assert "not valid JSON" in bad.json["error"]["message"]
    not_object = post(client, "/api/action", ["bid", "3x4"])
    assert not_object.status_code == 400 and "JSON object" in not_object.json["error"]["message"]
    typo = post(client, "/api/action", {"player": "Ann", "bid": "3x4", "sett_aside": [4]})
    assert typo.status_code == 400 and "sett_aside" in typo.json["error"]["message"]
    bad_bid = post(client, "/api/action", {"player": "Ann", "bid": "three fours"})
    assert bad_bid.status_code == 400 and "not a bid" in bad_bid.json["error"]["message"]
    text = post(client, "/api/action", data="player=Ann", content_type="text/plain")
    assert text.status_code in (403, 415)
    assert state(client)["version"] == before["version"]


def test_bad_setup_is_400_and_keeps_the_current_game(client: FlaskClient) -> None:
    post(client, "/api/game", SETUP)
    before = state(client)
    response = post(client, "/api/game", {"game": "bluff", "players": ["Solo"]})
    assert response.status_code == 400
    assert "players" in response.json["error"]["message"]
    response = post(client, "/api/game", {"game": "chess", "players": ["A", "B"]})
    assert response.status_code == 400
    assert state(client)["setup"] == before["setup"]


def test_undo_takes_back_the_last_action(client: FlaskClient) -> None:
    post(client, "/api/game", SETUP)
    post(client, "/api/action", {"player": "Ann", "bid": "3x4"})
    post(client, "/api/action", {"player": "Ben", "bid": "5x4"})
    response = post(client, "/api/undo")
    assert response.status_code == 200
    assert response.json["game"]["bid"] == "3x4" and response.json["game"]["turn"] == "Ben"
    assert response.json["messages"][-1]["text"] == "undone: Ben bid 5×4"
    # a reveal typed in by hand too, until the next action (test_reopen_reveal.py: a camera
    # reveal is reopened instead)
    post(client, "/api/action", {"player": "Ben", "challenge": True})
    post(client, "/api/action", {"reveal": {"Ann": [4, 4, 4, 2, 2], "Ben": [2, 2, 2, 2, 2],
                                            "Cho": [3, 3, 3, 3, 3]}})
    response = post(client, "/api/undo")
    assert response.status_code == 200 and response.json["game"]["phase"] == "reveal"


def test_undo_with_nothing_to_undo_is_refused(client: FlaskClient) -> None:
    post(client, "/api/game", SETUP)
    response = post(client, "/api/undo")
    assert response.status_code == 409 and "nothing to undo" in response.json["error"]["message"]


def test_actions_before_any_game_are_refused(client: FlaskClient) -> None:
    response = post(client, "/api/action", {"player": "Ann", "bid": "3x4"})
    assert response.status_code == 409 and "no game" in response.json["error"]["message"]


def test_export_round_trips_into_a_new_table(client: FlaskClient, tmp_path: Any) -> None:
    play_to_reveal(client)
    post(client, "/api/action", {"reveal": HANDS})
    assert post(client, "/api/action", {"player": "Ben", "bid": "2x5"}).status_code == 200  # B15
    exported = client.get("/api/game/export").json
    assert exported["game"] == "bluff" and len(exported["actions"]) == 5

    other = Table(tmp_path / "other" / "journal.sqlite")
    try:
        other.new_game(exported)
        assert other.state()["game"] == state(client)["game"]
        assert other.export() == exported
    finally:
        other.close()


def test_restart_resumes_exactly_from_the_journal(client: FlaskClient, table: Table) -> None:
    play_to_reveal(client)
    post(client, "/api/action", {"reveal": HANDS})
    assert post(client, "/api/action", {"player": "Ben", "bid": "2x5"}).status_code == 200
    assert post(client, "/api/action", {"player": "Cho", "bid": "3x5"}).status_code == 200
    assert post(client, "/api/undo").status_code == 200
    before = state(client)

    resumed = Table(table.journal_path)
    try:
        after = resumed.state()
        assert after["game"] == before["game"]
        assert after["history"] == before["history"]
        assert after["version"] > 0
        assert resumed.export() == client.get("/api/game/export").json
    finally:
        resumed.close()


def test_reroll_from_the_panel_reads_the_set_aside_dice(client: FlaskClient) -> None:
    post(client, "/api/game", SETUP)
    post(client, "/api/action", {"player": "Ann", "bid": "3x4"})
    response = post(client, "/api/action", {"player": "Ben", "bid": "4x4", "reroll": True})
    assert response.status_code == 200, response.json
    assert response.json["set_aside"] == {"Ben": [4, 4]}
    exported = client.get("/api/game/export").json
    assert exported["actions"][-1] == {"player": "Ben", "bid": "4x4", "set_aside": [4, 4]}


def test_a_reroll_the_rules_refuse_is_refused_by_the_rule_before_the_camera_looks(
        client: FlaskClient, table: Table, reader: StubReader) -> None:
    """The panel's REROLL at a table that switched re-rolling off (B8), with no camera: the
    refusal named the missing camera, and told a panel player to write JSON."""
    post(client, "/api/game", {**SETUP, "options": {"reroll": False}})
    post(client, "/api/action", {"player": "Ann", "bid": "3x4"})
    for camera in (table.camera, None):
        table.set_camera(camera)
        refused = post(client, "/api/action", {"player": "Ben", "bid": "4x4", "reroll": True})
        assert refused.status_code == 409 and refused.json["error"]["rule"] == "B8"
        assert "re-rolling is switched off" in refused.json["error"]["message"]
    assert client.get("/api/state").json["actions_count"] == 1


def test_a_reroll_that_gives_its_faces_needs_no_camera(client: FlaskClient,
                                                       table: Table) -> None:
    post(client, "/api/game", SETUP)
    post(client, "/api/action", {"player": "Ann", "bid": "3x4"})
    table.set_camera(None)
    taken = post(client, "/api/action",
                 {"player": "Ben", "bid": "4x4", "reroll": True, "set_aside": [4]})
    assert taken.status_code == 200, taken.json
    assert taken.json["set_aside"] == {"Ben": [4]}
    plain = post(client, "/api/action", {"player": "Cho", "bid": "5x4", "reroll": False})
    assert plain.status_code == 200, plain.json  # no re-roll, said so: a plain raise


def test_news_of_one_game_is_not_shown_in_the_next(client: FlaskClient, table: Table) -> None:
    """An undo is news in its own game only; a message about the table (a camera fault, say)
    outlasts the game it came up in."""
    post(client, "/api/game", SETUP)
    post(client, "/api/action", {"player": "Ann", "bid": "3x4"})
    table.note("camera offline: check the cable", "warning")
    texts = [m["text"] for m in post(client, "/api/undo").json["messages"]]
    assert texts[-2:] == ["camera offline: check the cable", "undone: Ann bid 3×4"]
    texts = [m["text"] for m in post(client, "/api/game", SETUP).json["messages"]]
    assert "undone: Ann bid 3×4" not in texts
    assert "camera offline: check the cable" in texts


def test_bodies_that_are_not_text_are_refused_and_change_nothing(client: FlaskClient) -> None:
    post(client, "/api/game", SETUP)
    before = state(client)
    latin1 = post(client, "/api/game", data='{"game": "bluff", "players": ["Renée", "Ben"]}'
                  .encode("latin-1"), content_type="application/json")
    assert latin1.status_code == 400
    assert "not UTF-8" in latin1.json["error"]["message"]
    assert "0xe9" in latin1.json["error"]["message"]
    # valid JSON, but half of a UTF-16 pair is no text: it could not be journaled
    half = post(client, "/api/game", data='{"game": "bluff", "players": ["Ann\\ud800", "Ben"]}',
                content_type="application/json")
    assert half.status_code == 400 and "\\ud800" in half.json["error"]["message"]
    assert state(client)["setup"] == before["setup"]
    assert state(client)["version"] == before["version"]


def test_a_chunked_body_over_the_limit_is_refused_not_cut(client: FlaskClient) -> None:
    """A body without Content-Length is read up to the limit (64 KiB here): a valid bid
    padded past it must not be taken from its first 64 KiB."""
    post(client, "/api/game", SETUP)
    before = state(client)
    bid = b'{"player": "Ann", "bid": "3x4"}'
    body = bid + b" " * (64 * 1024) + b"not JSON"
    response = client.post("/api/action", input_stream=io.BytesIO(body),
                           headers={"X-Table-PIN": PIN, "Content-Type": "application/json",
                                    "Transfer-Encoding": "chunked"},
                           environ_base={"REMOTE_ADDR": "10.0.0.5",
                                         "wsgi.input_terminated": True})
    assert response.status_code == 413 and "too large" in response.json["error"]["message"]
    assert state(client)["version"] == before["version"]
    small = client.post("/api/action", input_stream=io.BytesIO(bid),
                        headers={"X-Table-PIN": PIN, "Content-Type": "application/json",
                                 "Transfer-Encoding": "chunked"},
                        environ_base={"REMOTE_ADDR": "10.0.0.5", "wsgi.input_terminated": True})
    assert small.status_code == 200 and small.json["game"]["bid"] == "3x4"


@pytest.mark.parametrize(("players", "says"), [
    (["Ann", "x" * 25], "at most 24"),
    (["Ann ", "Ben"], "space at its start or end"),
    (["Ann", "Ben\n"], "space at its start or end"),
    (["Ann", "B\x00en"], "U+0000"),
    (["Ann", "Ann\u200b"], "U+200B"),
    (["Ann", "ann"], "look the same"),
    (["Ａｎｎ", "Ann"], "look the same"),
])
def test_names_a_board_could_not_show_apart_are_refused(
        client: FlaskClient, players: list[str], says: str) -> None:
    post(client, "/api/game", SETUP)
    before = state(client)
    response = post(client, "/api/game", {"game": "bluff", "players": players})
    assert response.status_code == 400, response.json
    assert says in response.json["error"]["message"]
    assert state(client)["setup"] == before["setup"]


def test_names_of_any_script_are_welcome(client: FlaskClient) -> None:
    players = ["Zoë", "Łukasz", "小明", "👨\u200d👩\u200d👧", "x" * 24]
    response = post(client, "/api/game", {"game": "bluff", "players": players})
    assert response.status_code == 200, response.json
    assert [p["name"] for p in response.json["game"]["players"]] == players


def test_a_card_game_says_how_to_deal_when_it_starts(client: FlaskClient) -> None:
    post(client, "/api/game", SETUP)
    assert not any("Deal" in m["text"] for m in state(client)["messages"])
    response = post(client, "/api/game", {"game": "impus", "players": ["Ann", "Ben", "Cho",
                                                                        "Dan"]})
    assert response.status_code == 200, response.json
    texts = [m["text"] for m in state(client)["messages"]]
    assert "Deal the cards: Ann and Ben 10 each; Cho and Dan 10 and a polymorph each" in texts
    post(client, "/api/action", {"player": "Ann", "play": 2, "claim": "orc"})
    assert not any("Deal" in m["text"] for m in state(client)["messages"])  # play is on


def test_an_action_chosen_on_an_older_screen_is_refused_and_changes_nothing(
        client: FlaskClient) -> None:
    """Two phones show Ann's turn; one bids for her. The other's tap, chosen on the screen
    before that bid, must not land as Ben's move (nor a second bid)."""
    assert post(client, "/api/game", SETUP).status_code == 200
    screen = state(client)
    assert screen["actions_count"] == 0
    first = post(client, "/api/action", {"player": "Ann", "bid": "2x3", "seen": 0})
    assert first.status_code == 200, first.json
    before = state(client)
    late = post(client, "/api/action", {"player": "Ben", "challenge": True, "seen": 0})
    assert late.status_code == 409
    assert late.json["error"]["rule"] == "stale"
    assert late.json["error"]["message"] == (
        "the table moved on while you chose (it is Ben's turn now): nothing was done; "
        "look again and choose again")
    undo = post(client, "/api/undo", {"seen": 0})
    assert undo.status_code == 409 and undo.json["error"]["rule"] == "stale"
    after = state(client)
    assert after["version"] == before["version"] and after["actions_count"] == 1
    assert after["game"]["bid"] == "2x3"
    # chosen on the screen as it is now, it goes through; without "seen" too (the buttons)
    assert post(client, "/api/action", {"player": "Ben", "bid": "2x4", "seen": 1}).status_code \
        == 200
    assert post(client, "/api/undo", {"seen": 2}).status_code == 200
    assert post(client, "/api/undo").status_code == 200
    assert state(client)["actions_count"] == 0


@pytest.mark.parametrize("seen", [-1, 1.5, "2", True, [0]])
def test_a_seen_that_is_no_count_of_actions_is_refused(client: FlaskClient, seen: Any) -> None:
    assert post(client, "/api/game", SETUP).status_code == 200
    version = state(client)["version"]
    for path, body in [("/api/action", {"player": "Ann", "bid": "2x3", "seen": seen}),
                       ("/api/undo", {"seen": seen})]:
        refused = post(client, path, body)
        assert refused.status_code == 400, (path, refused.json)
        assert refused.json["error"]["message"].startswith('"seen" must be the actions_count ')
    assert state(client)["version"] == version
