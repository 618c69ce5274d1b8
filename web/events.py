"""Live updates: ``GET /api/events``, a Server-Sent Events stream of the whole state.

One queue per client (``Table.subscribe``), whose first item is the current state, so a
reconnecting browser is up to date at once. ``retry:`` tells EventSource how soon to
reconnect; a heartbeat comment every ``SSE_HEARTBEAT_S`` keeps proxies and dead-peer
detection honest. The generator never touches ``session`` or ``request`` (they are gone
once streaming starts) and always unsubscribes in ``finally``, or when the response
closes for a stream that never began. At most `MAX_STREAMS` boards are subscribed (counted
and added under the table's lock); one more is refused with 503.
"""

from __future__ import annotations

import queue
import re
from collections.abc import Iterator

from flask import Blueprint, Response, current_app

from bluffcam.table import Table
from web.security import Refused

bp = Blueprint("events", __name__, url_prefix="/api")
#: live streams open at once: each holds a connection (`web.server.MAX_CONNECTIONS`),
#: and some must stay for the requests that change the game
MAX_STREAMS = 64
#: the state JSON starts with its version (build_state puts it first)
_VERSION = re.compile(r'^\{"version":(\d+)')


def sse_event(data: str, *, event: str = "state", event_id: int | None = None) -> str:
    """One SSE frame; ``data`` must be a single line (compact JSON is)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n"


def stream(table: Table, q: queue.Queue[str], *, heartbeat_s: float,
           retry_ms: int) -> Iterator[str]:
    """The events of ``q`` (the table's queue for this board), then unsubscribing."""
    try:
        yield f"retry: {retry_ms}\n\n"
        while True:
            try:
                data = q.get(timeout=heartbeat_s)
            except queue.Empty:
                yield ": heartbeat\n\n"
                continue
            match = _VERSION.match(data)
            yield sse_event(data, event_id=int(match.group(1)) if match else None)
    finally:
        table.unsubscribe(q)


@bp.get("/events")
def events() -> Response:
    table: Table = current_app.extensions["bluffcam.table"]
    q = table.subscribe(limit=MAX_STREAMS)
    if q is None:
        raise Refused(503, f"{MAX_STREAMS} live screens are open already: close some tabs; "
                           "this one tries again by itself", rule="busy",
                      headers={"Retry-After": "10"})
    body = stream(
        table, q,
        heartbeat_s=float(current_app.config["SSE_HEARTBEAT_S"]),
        retry_ms=int(current_app.config["SSE_RETRY_MS"]),
    )
    response = Response(
        body,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    # a stream closed before its first event never runs the generator's own clean-up
    response.call_on_close(lambda: table.unsubscribe(q))
    return response
