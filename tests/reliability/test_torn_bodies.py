"""A request whose body never fully arrives, over raw sockets against a real server, and every
HTTP error the app can raise under /api/: each answers in the API's form (docs/api.md,
Refusals) and changes nothing."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask, abort
from reliability_helpers import PIN, SETUP, Server
from werkzeug.exceptions import default_exceptions

SEND_TIMEOUT_S = 10.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("torn")).start()
    try:
        status, body = running.call("POST", "/api/game", SETUP)
        assert status == 200, body
        yield running
    finally:
        running.kill()


def send_raw(port: int, head: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``head`` and ``body``, then go (no more is written), and read the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=SEND_TIMEOUT_S) as conn:
        conn.sendall(head.encode("latin-1") + body)
        conn.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    header_block, _, payload = answer.partition(b"\r\n\r\n")
    lines = header_block.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip()
               for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, payload


def head_for(port: int, path: str, framing: str) -> str:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Table-PIN: {PIN}\r\n"
            f"Content-Type: application/json\r\n{framing}\r\n")


ACTION = json.dumps({"player": "Ann", "bid": "1x2"}).encode()
#: (framing header, body as sent before the client goes)
TORN = {
    "content-length-longer-than-sent": (f"Content-Length: {len(ACTION) + 50}\r\n", ACTION),
    "content-length-nothing-sent": ("Content-Length: 40\r\n", b""),
    "chunk-size-not-hex": ("Transfer-Encoding: chunked\r\n", b"zz\r\n" + ACTION + b"\r\n0\r\n\r\n"),
    "chunk-cut-short": ("Transfer-Encoding: chunked\r\n",
                        f"{len(ACTION) + 30:x}\r\n".encode() + ACTION),
    "negative-chunk-size": ("Transfer-Encoding: chunked\r\n", b"-5\r\nabcde\r\n0\r\n\r\n"),
    "no-last-chunk": ("Transfer-Encoding: chunked\r\n", f"{len(ACTION):x}\r\n".encode() + ACTION
                      + b"\r\n"),
}


@pytest.mark.parametrize("path", ["/api/action", "/api/game", "/api/undo", "/api/pin/check"])
@pytest.mark.parametrize("case", sorted(TORN))
def test_a_torn_body_is_a_json_refusal_and_changes_nothing(server: Server, path: str,
                                                           case: str) -> None:
    before = server.state()
    framing, body = TORN[case]
    status, headers, payload = send_raw(server.port, head_for(server.port, path, framing), body)
    assert status == 400, payload
    assert headers["content-type"].startswith("application/json"), payload
    error = json.loads(payload)["error"]
    assert error["rule"] == "format"
    assert "did not arrive whole" in error["message"]
    after = server.state()
    assert after["version"] == before["version"]
    assert after["actions_count"] == before["actions_count"]


def test_the_same_request_whole_is_applied(server: Server) -> None:
    """The torn cases above fail for their framing alone: sent whole, the action is taken."""
    before = server.state()
    turn = before["game"]["turn"]
    body = json.dumps({"player": turn, "bid": before["legal"]["lowest_raises"][0]}).encode()
    status, _, payload = send_raw(server.port, head_for(
        server.port, "/api/action", f"Content-Length: {len(body)}\r\n"), body)
    assert status == 200, payload
    assert server.state()["actions_count"] == before["actions_count"] + 1
    chunked = json.dumps({"player": server.state()["game"]["turn"], "challenge": True}).encode()
    status, _, payload = send_raw(server.port, head_for(
        server.port, "/api/action", "Transfer-Encoding: chunked\r\n"),
        f"{len(chunked):x}\r\n".encode() + chunked + b"\r\n0\r\n\r\n")
    assert status == 200, payload
    assert server.state()["actions_count"] == before["actions_count"] + 2


#: every HTTP error werkzeug knows, as an app under /api/ could raise it
ERROR_CODES = sorted(code for code in default_exceptions if code >= 400)


@pytest.fixture
def aborting_app(app: Flask) -> Flask:
    """The real app with one extra route that raises the HTTP error it is asked for."""

    def fail(code: int) -> Any:
        abort(code)

    app.add_url_rule("/api/test-abort/<int:code>", "test_abort", fail, methods=["GET"])
    return app


@pytest.mark.parametrize("code", ERROR_CODES)
def test_every_http_error_under_api_answers_in_the_api_form(aborting_app: Flask,
                                                            code: int) -> None:
    response = aborting_app.test_client().get(f"/api/test-abort/{code}")
    assert response.status_code == code
    assert response.mimetype == "application/json", response.data[:200]
    error = response.get_json()["error"]
    assert isinstance(error["rule"], str) and error["rule"]
    assert isinstance(error["message"], str) and error["message"]


def test_a_page_keeps_its_own_error_pages(aborting_app: Flask) -> None:
    """Only /api/ answers JSON: a page that is not there is a page (web/templates/error.html)."""
    response = aborting_app.test_client().get("/no-such-page")
    assert response.status_code == 404
    assert response.mimetype == "text/html"


def test_a_body_cut_off_with_the_connection_leaves_the_server_serving(
        server: Server) -> None:
    """A client that goes for good (no half-close) gets no answer, and the next one is served."""
    before = server.state()
    framing, body = TORN["content-length-longer-than-sent"]
    with socket.create_connection(("127.0.0.1", server.port), timeout=SEND_TIMEOUT_S) as conn:
        conn.sendall(head_for(server.port, "/api/action", framing).encode() + body)
    assert server.state()["actions_count"] == before["actions_count"]
