"""GET /api/events: the current state at once, every change after it, heartbeats, cleanup."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from web_api_helpers import SETUP

from bluffcam.table import Table


def frames(chunks: Iterator[bytes]) -> Iterator[str]:
    """Complete SSE frames (blank-line separated) from a streamed body."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode()
        while "\n\n" in buffer:
            frame, buffer = buffer.split("\n\n", 1)
            yield frame


def parse(frame: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for line in frame.splitlines():
        key, _, value = line.partition(": ")
        fields[key] = value
    return fields


def test_stream_sends_state_then_each_change_then_cleans_up(client: FlaskClient,
                                                             table: Table) -> None:
    response = client.get("/api/events", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    stream = frames(iter(response.response))
    assert next(stream).startswith("retry: ")
    first = parse(next(stream))
    assert first["event"] == "state"
    initial = json.loads(first["data"])
    assert initial["game"] is None and int(first["id"]) == initial["version"]
    assert table.subscriber_count == 1

    table.new_game(SETUP)
    table.submit({"player": "Ann", "bid": "3x4"}, source="panel")
    seen = []
    while len(seen) < 2:
        frame = next(stream)
        if frame.startswith(":"):
            continue  # heartbeat
        seen.append(json.loads(parse(frame)["data"]))
    assert seen[0]["game"]["bid"] is None and seen[1]["game"]["bid"] == "3x4"
    assert initial["version"] < seen[0]["version"] < seen[1]["version"]

    response.close()
    assert table.subscriber_count == 0


def test_idle_stream_sends_heartbeat_comments(client: FlaskClient, table: Table) -> None:
    response = client.get("/api/events", buffered=False)
    stream = frames(iter(response.response))
    next(stream), next(stream)  # retry, current state
    assert next(stream) == ": heartbeat"
    response.close()
    assert table.subscriber_count == 0


def test_a_stalled_client_keeps_only_the_newest_events(table: Table) -> None:
    q = table.subscribe()
    table.new_game(SETUP)
    for _ in range(60):
        table.note("tick")
    drained = []
    while not q.empty():
        drained.append(json.loads(q.get_nowait())["version"])
    assert drained == sorted(drained)
    assert drained[-1] == table.version
    table.unsubscribe(q)


def test_live_streams_past_the_limit_are_refused_for_a_while(
        client: FlaskClient, table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    from web import events

    monkeypatch.setattr(events, "MAX_STREAMS", 2)
    open_ones = [client.get("/api/events", buffered=False) for _ in range(2)]
    for response in open_ones:
        next(iter(response.response))  # the stream has begun: subscribed
    refused = client.get("/api/events")
    assert refused.status_code == 503 and refused.json["error"]["rule"] == "busy"
    assert "2 live screens are open already" in refused.json["error"]["message"]
    assert refused.headers["Retry-After"]
    open_ones.pop().close()
    again = client.get("/api/events", buffered=False)
    assert again.status_code == 200
    for response in [*open_ones, again]:
        response.close()


def test_a_stream_closed_before_its_first_event_gives_its_place_back(
        client: FlaskClient, table: Table) -> None:
    response = client.get("/api/events", buffered=False)
    assert table.subscriber_count == 1  # subscribed before the answer: counted at once
    response.close()  # never read
    assert table.subscriber_count == 0
