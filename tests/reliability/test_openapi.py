"""The OpenAPI description matches the app: every route, and every answer a fuzzed request
gets is one the description lists (a small schemathesis of our own, on hypothesis)."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_helpers import PIN, SETUP

from web.openapi import describe

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
bodies = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=12),
              st.sampled_from(["Ann", "Ben", "3x4", "2*", "r1"])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["player", "bid", "challenge", "reveal", "seats",
                                         "game", "players", "starter", "Ann", "x"]),
                        inner, max_size=4)),
    max_leaves=12,
)


def api_routes(app: Flask) -> set[tuple[str, str]]:
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
            routes |= {(path, m.lower()) for m in rule.methods - {"HEAD", "OPTIONS"}}
    return routes


def documented(spec: dict[str, Any]) -> set[tuple[str, str]]:
    return {(path, method) for path, item in spec["paths"].items() for method in item}


def test_the_description_is_served_and_lists_exactly_the_apps_routes(
    app: Flask, client: FlaskClient
) -> None:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200 and response.json["openapi"].startswith("3.1")
    assert documented(response.json) == api_routes(app)


def test_the_state_has_every_key_the_description_requires(client: FlaskClient) -> None:
    required = describe()["components"]["schemas"]["State"]["required"]
    empty = client.get("/api/state").json
    client.post("/api/game", json=SETUP, headers={"X-Table-PIN": PIN})
    playing = client.get("/api/state").json
    for state in (empty, playing):
        assert set(required) <= set(state)


@FUZZ
@given(data=st.data())
def test_every_answer_to_a_fuzzed_change_is_a_documented_one(
    client: FlaskClient, data: st.DataObject
) -> None:
    spec = describe()
    client.post("/api/game", json=SETUP, headers={"X-Table-PIN": PIN})
    operations = [(p, item["post"]) for p, item in spec["paths"].items()
                  if "post" in item and "requestBody" in item["post"]
                  and "application/json" in item["post"]["requestBody"]["content"]]
    path, operation = data.draw(st.sampled_from(operations))
    url = path.replace("{reveal_id}", data.draw(st.sampled_from(["r1", "r99", "x"])))
    body = data.draw(bodies)
    pin = data.draw(st.sampled_from([PIN, PIN, PIN, None]))
    headers = {"X-Table-PIN": pin} if pin else {}
    response = client.post(url, data=json.dumps(body), content_type="application/json",
                           headers=headers)
    codes = set(operation["responses"])
    assert str(response.status_code) in codes, (url, body, response.status_code)
    if response.status_code == 200:
        assert isinstance(response.json, dict)
    else:
        error = response.json["error"]
        assert isinstance(error["rule"], str) and isinstance(error["message"], str)


def test_the_refusals_of_the_host_check_and_the_limits_are_described(
    app: Flask, client: FlaskClient
) -> None:
    """Each route answers 421 to another site's name, the live stream 503 when too many are
    open, the test read 429 while another runs: each is an answer the description lists."""
    spec = describe()
    for path, method in api_routes(app):
        assert "421" in spec["paths"][path][method]["responses"], (path, method)
    refused = client.get("/api/state", headers={"Host": "evil.example"})
    assert refused.status_code == 421 and set(refused.json["error"]) == {"rule", "message"}
    assert "503" in spec["paths"]["/api/events"]["get"]["responses"]
    assert "429" in spec["paths"]["/api/calibration/read"]["post"]["responses"]
    applied = spec["paths"]["/api/calibration/zones/apply"]["post"]["responses"]["200"]
    assert {"backup", "restart_for"} <= set(
        applied["content"]["application/json"]["schema"]["properties"])
