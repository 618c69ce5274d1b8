"""A pending review's draft kept on the server (`bluffcam.review_drafts`, web/drafts.py): the
corrections survive a reload and reach a second phone; a bad draft is refused and changes
nothing; a draft is only ever for the review that waits now."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from web_api_helpers import HANDS, play_to_reveal, post

from bluffcam.review_drafts import check_draft
from bluffcam.table import TableError

DRAFT = {"dice": [{"seat": "Cho", "value": 1, "x": 40.0, "y": 5.0, "edited": True}],
         "removed": 2}


def pending(client: FlaskClient, reader: Any) -> str:
    play_to_reveal(client)
    reader.hands = HANDS
    reader.uncertain = {("Cho", 4)}
    review = post(client, "/api/reveal/capture").json["review"]
    assert review is not None
    return str(review["id"])


def test_a_draft_is_kept_for_the_next_look_from_any_phone(client: FlaskClient,
                                                          reader: Any) -> None:
    review = pending(client, reader)
    assert client.get(f"/api/reveals/{review}/draft").json == {"id": review, "draft": None}
    saved = post(client, f"/api/reveals/{review}/draft", DRAFT, ip="10.0.0.6")
    assert saved.status_code == 200, saved.json
    seen = client.get(f"/api/reveals/{review}/draft",
                      environ_base={"REMOTE_ADDR": "10.0.0.7"}).json["draft"]
    assert seen["dice"] == DRAFT["dice"] and seen["removed"] == 2 and seen["id"] == review


def test_a_draft_needs_the_pin(client: FlaskClient, reader: Any) -> None:
    review = pending(client, reader)
    assert post(client, f"/api/reveals/{review}/draft", DRAFT, pin=None).status_code == 401
    assert client.get(f"/api/reveals/{review}/draft").json["draft"] is None


def test_a_draft_goes_with_its_review(client: FlaskClient, reader: Any) -> None:
    review = pending(client, reader)
    post(client, f"/api/reveals/{review}/draft", DRAFT)
    assert post(client, f"/api/reveals/{review}/confirm", {"seats": HANDS}).status_code == 200
    gone = client.get(f"/api/reveals/{review}/draft")
    assert gone.status_code == 404 and "no pending review" in gone.json["error"]["message"]
    assert post(client, f"/api/reveals/{review}/draft", DRAFT).status_code == 404


@pytest.mark.parametrize(("body", "words"), [
    ([], '{"dice"'),
    ({"dice": "1,2"}, '"dice" must be a list'),
    ({"dice": [{"seat": "Zed", "value": 1, "x": 0, "y": 0}]}, "unknown seat 'Zed'"),
    ({"dice": [{"seat": "Ann", "value": 7, "x": 0, "y": 0}]}, "7 is not a die value"),
    ({"dice": [{"seat": "Ann", "value": True, "x": 0, "y": 0}]}, "True is not a die value"),
    ({"dice": [{"seat": "Ann", "value": 2, "x": "left", "y": 0}]}, '"x" and "y" must be'),
    ({"dice": [], "removed": -1}, '"removed" must be a count'),
    ({"dice": [{"seat": "Ann", "value": 2, "x": 0, "y": 0}] * 65}, "more than a table holds"),
])
def test_a_bad_draft_is_refused_naming_what_is_wrong(body: Any, words: str) -> None:
    with pytest.raises(TableError) as refused:
        check_draft(body, ["Ann", "Ben"])
    assert words in str(refused.value) and refused.value.status == 400


def test_a_bad_draft_changes_nothing(client: FlaskClient, reader: Any) -> None:
    review = pending(client, reader)
    post(client, f"/api/reveals/{review}/draft", DRAFT)
    bad = post(client, f"/api/reveals/{review}/draft", {"dice": [{"seat": "Cho", "value": 9,
                                                                   "x": 0, "y": 0}]})
    assert bad.status_code == 400 and bad.json["error"]["rule"] == "format"
    assert client.get(f"/api/reveals/{review}/draft").json["draft"]["dice"] == DRAFT["dice"]
