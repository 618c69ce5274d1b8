"""Every route that changes anything (each POST and DELETE of the OpenAPI document, which
tests/reliability/test_openapi.py holds to the app's routes) refuses a cross-site request:
a foreign Origin, a form post without the session's CSRF token, a form post with a wrong one.
Each is a 403 of rule "csrf" and changes nothing; the PIN is right throughout, so only the
cross-site guard can refuse them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from web_api_helpers import PIN, SETUP, post

from web.openapi import describe

#: a value for each path parameter the document names
PATH_VALUES = {"reveal_id": "r1", "kind": "orc"}
CHANGING_ROUTES = sorted(
    (method.upper(), path)
    for path, operations in describe()["paths"].items()
    for method in operations
    if method in ("post", "delete")
)


def concrete(path: str) -> str:
    return re.sub(r"\{([a-z_]+)\}", lambda m: PATH_VALUES[m.group(1)], path)


def test_the_document_lists_the_routes_that_change_the_table() -> None:
    """The parametrisation below is not empty or partial by accident."""
    paths = {path for _, path in CHANGING_ROUTES}
    assert {"/api/action", "/api/game", "/api/undo", "/api/calibration/read",
            "/api/pin/check"} <= paths
    assert ("DELETE", "/api/cards/{kind}") in CHANGING_ROUTES


@pytest.fixture
def playing(client: FlaskClient) -> FlaskClient:
    assert post(client, "/api/game", SETUP).status_code == 200
    assert post(client, "/api/action", {"player": "Ann", "bid": "3x4"}).status_code == 200
    return client


def send(client: FlaskClient, method: str, path: str, **kwargs: Any) -> Any:
    return client.open(concrete(path), method=method,
                       environ_base={"REMOTE_ADDR": "10.0.0.5"}, **kwargs)


def assert_csrf_refusal(client: FlaskClient, response: Any, version: int) -> None:
    assert response.status_code == 403, response.data[:300]
    assert response.json["error"]["rule"] == "csrf", response.json
    assert client.get("/api/state").json["version"] == version


@pytest.mark.parametrize(("method", "path"), CHANGING_ROUTES)
def test_a_foreign_origin_is_refused(playing: FlaskClient, method: str, path: str) -> None:
    version = playing.get("/api/state").json["version"]
    response = send(playing, method, path, json={},
                    headers={"Origin": "http://evil.example", "X-Table-PIN": PIN})
    assert_csrf_refusal(playing, response, version)


@pytest.mark.parametrize(("method", "path"), CHANGING_ROUTES)
def test_a_form_post_without_the_token_is_refused(playing: FlaskClient, method: str,
                                                  path: str) -> None:
    playing.get("/api/csrf")  # the session has a token; the form does not carry it
    version = playing.get("/api/state").json["version"]
    response = send(playing, method, path, data={"pin": PIN})
    assert_csrf_refusal(playing, response, version)


@pytest.mark.parametrize("carried", ["field", "header"])
@pytest.mark.parametrize(("method", "path"), CHANGING_ROUTES)
def test_a_form_post_with_a_wrong_token_is_refused(playing: FlaskClient, method: str,
                                                   path: str, carried: str) -> None:
    token = playing.get("/api/csrf").json["csrf_token"]
    wrong = token[:-1] + ("A" if token[-1] != "A" else "B")  # one character off
    version = playing.get("/api/state").json["version"]
    if carried == "field":
        response = send(playing, method, path, data={"pin": PIN, "csrf_token": wrong})
    else:
        response = send(playing, method, path, data={"pin": PIN},
                        headers={"X-CSRF-Token": wrong})
    assert_csrf_refusal(playing, response, version)


@pytest.mark.parametrize(("method", "path"), CHANGING_ROUTES)
def test_the_right_token_passes_the_cross_site_guard(playing: FlaskClient, method: str,
                                                     path: str) -> None:
    """The refusals above are the token's doing: the same form with the session's token is
    not refused as cross-site (it may be refused for what it asks)."""
    token = playing.get("/api/csrf").json["csrf_token"]
    response = send(playing, method, path, data={"pin": PIN, "csrf_token": token})
    assert response.status_code < 500, response.data[:300]
    if response.status_code == 403:
        assert response.json["error"]["rule"] != "csrf", response.json
