"""A page that is not there, or one that fails, is shown in the dashboard's look with the way
back to the board; the API answers the same faults as JSON, like its every other refusal."""

from __future__ import annotations

import io
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from web_api_helpers import PIN, SETUP, post

from bluffcam.table import Table


def test_an_unknown_page_says_so_with_links_to_the_board_and_controls(
        client: FlaskClient) -> None:
    answer = client.get("/bord?x=1")
    page = answer.get_data(as_text=True)
    assert answer.status_code == 404 and answer.mimetype == "text/html"
    assert "<h1 id=\"error-title\">Page not found</h1>" in page
    assert "There is no page at /bord: open one of the table&#39;s pages instead." in page
    assert 'href="/"' in page and 'href="/control"' in page
    assert 'id="live"' not in page  # no live stream on this page: no badge waiting for one


def test_a_page_opened_with_the_wrong_method_says_how(client: FlaskClient) -> None:
    answer = client.post("/calibration")
    assert answer.status_code == 405
    assert set(answer.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}
    assert "/calibration is not opened with POST" in answer.get_data(as_text=True)


def test_an_unknown_api_route_stays_json(client: FlaskClient) -> None:
    answer = client.get("/api/nothing-here")
    assert answer.status_code == 404 and answer.json is not None
    assert answer.json["error"]["rule"] == "http"


def test_the_path_asked_for_is_shown_as_text_never_as_html(client: FlaskClient) -> None:
    page = client.get("/<script>alert(1)</script>").get_data(as_text=True)
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


@pytest.fixture
def failing(app: Flask, table: Table, monkeypatch: pytest.MonkeyPatch) -> FlaskClient:
    """The app as served (faults not raised into the test) with a table whose state fails."""
    app.config["PROPAGATE_EXCEPTIONS"] = False

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(table, "state", broken)
    return app.test_client()


def test_an_unexpected_fault_in_the_api_is_a_json_500_that_names_the_log(
        failing: FlaskClient, caplog: pytest.LogCaptureFixture) -> None:
    answer = failing.get("/api/state")
    assert answer.status_code == 500 and answer.json is not None
    assert answer.json["error"]["rule"] == "internal"
    assert "server's log" in answer.json["error"]["message"]
    assert "RuntimeError: a bug" in caplog.text  # the traceback is logged for the host


def test_an_unexpected_fault_on_a_page_is_shown_in_the_pages_look(
        app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    import web.pages

    app.config["PROPAGATE_EXCEPTIONS"] = False

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a template bug")

    monkeypatch.setattr(web.pages, "render_template", broken)
    answer = app.test_client().get("/control")
    page = answer.get_data(as_text=True)
    assert answer.status_code == 500 and "Something went wrong" in page
    assert "The game is kept in the journal" in page and 'href="/"' in page


# what an API body must be, word for word (docs/api.md, Refusals)


def test_an_empty_body_where_one_is_needed_says_so(client: FlaskClient) -> None:
    response = post(client, "/api/game", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json["error"] == {"rule": "format",
                                      "message": "empty body: send a JSON object"}


def test_a_text_post_with_its_token_is_told_to_send_json(client: FlaskClient) -> None:
    """text/plain (which a cross-site form can send) passes the cross-site guard with the
    session's token, and then is told to send JSON: an action is read from JSON only."""
    token = client.get("/api/csrf").json["csrf_token"]
    response = client.post("/api/game", data=b'{"game": "bluff"}', headers={
        "Content-Type": "text/plain", "X-CSRF-Token": token, "X-Table-PIN": PIN})
    assert response.status_code == 415
    assert response.json["error"] == {
        "rule": "format",
        "message": "send JSON with Content-Type: application/json (got 'text/plain')"}
    assert client.get("/api/state").json["game"] is None


def test_a_chunked_body_past_the_limit_is_too_large(client: FlaskClient) -> None:
    limit = client.application.config["MAX_CONTENT_LENGTH"]
    body = b'{"game": "' + b"x" * limit + b'"}'
    response = client.post("/api/game", input_stream=io.BytesIO(body),
                           environ_overrides={"wsgi.input_terminated": True},
                           headers={"Transfer-Encoding": "chunked", "X-Table-PIN": PIN,
                                    "Content-Type": "application/json"})
    assert response.status_code == 413
    assert response.json["error"] == {
        "rule": "format", "message": f"the body is too large (limit {limit // 1024} KiB)"}


def test_a_405_under_api_is_json_and_names_the_methods_it_takes(client: FlaskClient) -> None:
    response = client.get("/api/action")
    assert response.status_code == 405
    assert response.json["error"]["rule"] == "http"
    assert response.headers["Allow"].replace(" ", "").split(",").count("POST") == 1


def test_the_pin_header_counts_over_a_form_field(client: FlaskClient) -> None:
    """A form post carrying the PIN header is judged by it (a stale ``pin`` field aside)."""
    token = client.get("/api/csrf").json["csrf_token"]
    assert post(client, "/api/game", SETUP).status_code == 200
    assert post(client, "/api/action", {"player": "Ann", "bid": "3x4"}).status_code == 200
    response = client.post("/api/undo", data={"pin": "0000", "csrf_token": token},
                           headers={"X-Table-PIN": PIN})
    assert response.status_code == 200, response.json


@pytest.mark.parametrize(("body", "message"), [
    (b'{"game": "bluff",', "body is not valid JSON: Expecting property name enclosed in double "
                          "quotes at line 1 column 18"),
    (b'{"game": "\\ud800"}', "body holds '\\ud800', half of a UTF-16 pair, which is not text"),
    (b"[" * 5000 + b"]" * 5000, "body is nested too deeply to be an action"),
    (b'{"game": "\xff"}', "body is not UTF-8 text: byte 0xff at offset 10"),
])
def test_an_unreadable_json_body_is_refused_by_what_is_wrong(client: FlaskClient, body: bytes,
                                                             message: str) -> None:
    response = post(client, "/api/game", data=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json["error"]["rule"] == "format"
    assert response.json["error"]["message"].startswith(message)  # Python's own words follow
    assert client.get("/api/state").json["game"] is None


def test_an_action_that_is_no_object_or_seen_no_count_is_refused_by_name(
        client: FlaskClient) -> None:
    assert post(client, "/api/game", SETUP).status_code == 200
    response = post(client, "/api/action", [1, 2])
    assert response.status_code == 400
    assert response.json["error"] == {"rule": "format",
                                      "message": "an action must be a JSON object, not list"}
    response = post(client, "/api/action", {"player": "Ann", "bid": "3x4", "seen": -1})
    assert response.status_code == 400
    assert response.json["error"] == {
        "rule": "format",
        "message": '"seen" must be the actions_count the screen showed (0, 1, ...), got -1'}


def test_json_that_python_refuses_is_refused_in_pythons_words(client: FlaskClient) -> None:
    """An integer of 5000 digits is JSON that Python will not read (not a JSONDecodeError,
    so there is no line and column to name)."""
    import json

    with pytest.raises(ValueError) as python:
        json.loads("1" * 5000)
    response = post(client, "/api/game", data=b"1" * 5000,
                    headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json["error"] == {"rule": "format",
                                      "message": f"body is not valid JSON: {python.value}"}
