"""A die the camera was sure of and got wrong, seen on the board after the verdict: the last
round's camera reveal goes back to review, its verdict taken back, until the next action."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from web_api_helpers import HANDS, StubReader, play_to_reveal, post

from bluffcam.table import Table

#: HANDS with three dice misread (Ann's 1 and 4, Cho's 1): 4s and ★ count 3, not 6, so the
#: bid of 4 × 4s fails on the camera's word and Ben loses a die (B11) instead of Cho two
MISREAD = {"Ann": [2, 5, 2, 3, 6], "Ben": HANDS["Ben"], "Cho": [2, 3, 5, 6, 2]}


def _dice(state: dict[str, Any]) -> dict[str, int]:
    return {p["name"]: p["dice"] for p in state["game"]["players"]}


def _misread_and_applied(client: FlaskClient, reader: StubReader) -> dict[str, Any]:
    play_to_reveal(client)
    reader.hands = MISREAD
    state: dict[str, Any] = post(client, "/api/reveal/capture").json
    assert state["review"] is None and _dice(state)["Ben"] == 4  # applied, wrongly
    assert state["reopen"] == state["last_reveal"]["id"]
    return state


def test_a_wrong_verdict_goes_back_to_review_and_is_settled_right(
        client: FlaskClient, reader: StubReader, table: Table) -> None:
    applied = _misread_and_applied(client, reader)
    reveal_id = applied["reopen"]
    response = post(client, f"/api/reveals/{reveal_id}/reopen")
    assert response.status_code == 200, response.json
    state = response.json
    assert state["game"]["phase"] == "reveal" and _dice(state)["Ben"] == 5  # taken back
    assert state["history"] == [] and state["last_reveal"] is None and state["reopen"] is None
    review = state["review"]
    assert review["id"] == reveal_id and review["problems"][0]["kind"] == "reopened"
    assert {s: [d["value"] for d in dice] for s, dice in review["seats"].items()} == MISREAD
    assert any("reopened" in m["text"] for m in state["messages"])

    # the pending review is in the journal's keeping: a restart finds it
    resumed = Table(table.journal_path)
    try:
        assert resumed.state()["review"]["id"] == reveal_id
        assert resumed.state()["game"]["phase"] == "reveal"
    finally:
        resumed.close()

    done = post(client, f"/api/reveals/{reveal_id}/confirm", {"seats": HANDS}).json
    assert _dice(done) == {"Ann": 5, "Ben": 5, "Cho": 3}  # 6 against 4: Cho loses 2 (B12)
    assert done["last_reveal"]["how"] == "confirmed"
    assert done["last_reveal"]["corrections"]["Ann"] == {"removed": [2, 5], "added": [1, 4]}
    record = table.reveals.load(reveal_id)
    assert [entry["was"]["how"] for entry in record["reopened"]] == ["camera"]
    assert table.export()["actions"][-1] == {"reveal": HANDS}


def test_only_the_last_rounds_camera_reveal_reopens(client: FlaskClient,
                                                    reader: StubReader) -> None:
    applied = _misread_and_applied(client, reader)
    reveal_id = applied["reopen"]
    unknown = post(client, "/api/reveals/r99/reopen")
    assert unknown.status_code == 409 and "r99" in unknown.json["error"]["message"]
    # once the next round has begun, the verdict stands
    turn = applied["game"]["turn"]
    assert post(client, "/api/action", {"player": turn, "bid": "2x3"}).status_code == 200
    later = post(client, f"/api/reveals/{reveal_id}/reopen")
    assert later.status_code == 409 and "before the next action" in later.json["error"]["message"]
    assert later.json["error"]["message"].startswith(f"reveal '{reveal_id}' cannot be reopened")
    assert client.get("/api/state").json["reopen"] is None


def test_a_reveal_entered_by_hand_has_nothing_to_reopen_and_is_undone_instead(
        client: FlaskClient, table: Table) -> None:
    play_to_reveal(client)
    typed = MISREAD  # three dice typed wrongly
    state = post(client, "/api/action", {"reveal": typed}).json
    assert state["reopen"] is None and state["undo"] == {"reveal": typed}
    assert _dice(state)["Ben"] == 4  # the wrong verdict, for now
    undone = post(client, "/api/undo")
    assert undone.status_code == 200, undone.json
    state = undone.json
    assert state["game"]["phase"] == "reveal" and _dice(state)["Ben"] == 5
    assert state["history"] == [] and state["undo"]["challenge"] is True
    assert any(m["text"].startswith("undone: the reveal") for m in state["messages"])
    # the journal dropped it too: a restart resumes the reveal phase
    resumed = Table(table.journal_path)
    try:
        assert resumed.state()["game"]["phase"] == "reveal"
    finally:
        resumed.close()
    done = post(client, "/api/action", {"reveal": HANDS}).json
    assert _dice(done) == {"Ann": 5, "Ben": 5, "Cho": 3}
    assert table.export()["actions"][-1] == {"reveal": HANDS}


def test_a_camera_reveal_is_not_undone_but_reopened(client: FlaskClient,
                                                    reader: StubReader) -> None:
    applied = _misread_and_applied(client, reader)
    assert applied["undo"] is None
    refused = post(client, "/api/undo")
    assert refused.status_code == 409
    message = refused.json["error"]["message"]
    assert applied["reopen"] in message and "Check this reading again" in message
    after = client.get("/api/state").json
    assert after["game"] == applied["game"] and after["reopen"] == applied["reopen"]


def test_reopening_needs_the_table_pin(client: FlaskClient, reader: StubReader) -> None:
    applied = _misread_and_applied(client, reader)
    refused = post(client, f"/api/reveals/{applied['reopen']}/reopen", pin=None)
    assert refused.status_code in (401, 403)
    assert client.get("/api/state").json["game"]["phase"] == "bidding"  # nothing changed


def test_a_record_the_disk_refuses_still_comes_back_after_a_restart(
        client: FlaskClient, reader: StubReader, table: Table,
        monkeypatch: pytest.MonkeyPatch) -> None:
    applied = _misread_and_applied(client, reader)
    reveal_id = applied["reopen"]

    def full_disk(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(table.reveals, "save", full_disk)
    state = post(client, f"/api/reveals/{reveal_id}/reopen").json
    assert state["review"]["id"] == reveal_id
    assert any("could not be updated" in m["text"] for m in state["messages"])
    monkeypatch.undo()
    # the record still says "applied", but the journal no longer holds the reveal
    resumed = Table(table.journal_path)
    try:
        assert resumed.state()["review"]["id"] == reveal_id
    finally:
        resumed.close()


@pytest.mark.parametrize("damage", [{}, {"id": "r1"}, {"id": "r1", "read": []},
                                    {"id": "r1", "read": {"Ann": 5}}])
def test_a_record_damaged_on_disk_is_refused_before_the_verdict_is_touched(
        client: FlaskClient, reader: StubReader, table: Table, damage: dict[str, Any]) -> None:
    applied = _misread_and_applied(client, reader)
    reveal_id = applied["reopen"]
    (table.reveals.folder / f"{reveal_id}.json").write_text(json.dumps(damage))
    response = post(client, f"/api/reveals/{reveal_id}/reopen")
    assert response.status_code == 409
    assert "cannot be read" in response.json["error"]["message"]
    after = client.get("/api/state").json
    assert after["version"] == applied["version"] and after["history"] == applied["history"]
    assert _dice(after) == _dice(applied) and after["review"] is None


@pytest.mark.parametrize("damage", [{}, {"id": "r1", "read": {"Ann": 5}}])
def test_confirming_a_review_whose_record_was_damaged_is_refused(
        client: FlaskClient, reader: StubReader, table: Table, damage: dict[str, Any]) -> None:
    play_to_reveal(client)
    reader.hands, reader.uncertain = MISREAD, {("Ann", 0)}
    review = post(client, "/api/reveal/capture").json["review"]
    (table.reveals.folder / f"{review['id']}.json").write_text(json.dumps(damage))
    response = post(client, f"/api/reveals/{review['id']}/confirm", {"seats": HANDS})
    assert response.status_code == 409 and response.json["error"]["rule"] == "reveal"
    after = client.get("/api/state").json
    assert after["review"]["id"] == review["id"] and after["history"] == []


def test_a_reveal_typed_over_a_waiting_review_is_reopened_back_to_it_not_undone(
        client: FlaskClient, reader: StubReader) -> None:
    play_to_reveal(client)
    reader.hands, reader.uncertain = MISREAD, {("Ann", 0)}
    review = post(client, "/api/reveal/capture").json["review"]
    typed = post(client, "/api/action", {"reveal": HANDS}).json
    assert typed["review"] is None and typed["reopen"] == review["id"]
    refused = post(client, "/api/undo")
    assert refused.status_code == 409 and review["id"] in refused.json["error"]["message"]
    back = post(client, f"/api/reveals/{review['id']}/reopen").json
    assert back["review"]["id"] == review["id"] and back["history"] == []
