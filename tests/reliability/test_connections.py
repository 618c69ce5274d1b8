"""Connections that never finish: a phone that leaves the Wi-Fi halfway through a request, or a
board that stops reading its live stream, must not hold a server thread for the rest of the
evening (the dashboard server's socket timeout, `web.server.SOCKET_TIMEOUT_S`)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from web import server as webserver
from web.server import make_dashboard_server

TIMEOUT_S = 0.5


class ConnectionThreads:
    """Tells when the server's connection threads start and end (events, not thread counts
    after a sleep): it wraps the server's per-connection hook, the limit's included."""

    def __init__(self, server: Any) -> None:
        self._serve = server.process_request_thread
        self._changed = threading.Condition()
        self.started = 0
        self.ended = 0
        setattr(server, "process_request_thread", self._serve_one)  # noqa: B010

    def _serve_one(self, request: Any, client_address: Any) -> None:
        with self._changed:
            self.started += 1
            self._changed.notify_all()
        try:
            self._serve(request, client_address)
        finally:
            with self._changed:
                self.ended += 1
                self._changed.notify_all()

    @property
    def serving(self) -> int:
        return self.started - self.ended

    def wait_for(self, *, started: int | None = None, ended: int | None = None,
                 within_s: float = 30.0) -> bool:
        """Whether at least ``started`` threads have started and ``ended`` ended (a generous
        bound: a guard against a hang, not a measure of speed)."""
        with self._changed:
            return self._changed.wait_for(
                lambda: self.started >= (started or 0) and self.ended >= (ended or 0),
                timeout=within_s)


@pytest.fixture
def server(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, ConnectionThreads]]:
    monkeypatch.setattr(webserver._TimedRequestHandler, "timeout", TIMEOUT_S)
    served = make_dashboard_server(app, "127.0.0.1", 0, log_requests=False)
    threads = ConnectionThreads(served)
    runner = threading.Thread(target=served.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    runner.start()
    yield served.server_port, threads
    served.shutdown()
    served.server_close()


def _closed_by_server(sock: socket.socket, within_s: float) -> bool:
    """Whether the server closes the connection (recv gives EOF, or a reset) in time."""
    sock.settimeout(within_s)
    try:
        while sock.recv(65536):  # a 408 or an SSE event may come before the close
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def test_a_request_never_finished_is_dropped_after_the_timeout(
        server: tuple[int, ConnectionThreads], caplog: pytest.LogCaptureFixture) -> None:
    port, threads = server
    half_sent = socket.create_connection(("127.0.0.1", port))
    half_sent.sendall(b"GET /api/state HTTP/1.1\r\nHost: localhost\r\n")  # and nothing more
    assert threads.wait_for(started=1), "the request got no thread"
    assert _closed_by_server(half_sent, within_s=TIMEOUT_S * 8)
    half_sent.close()
    assert threads.wait_for(ended=1), "the thread is given back"
    assert threads.serving == 0
    assert "timed out" not in caplog.text  # the timeout's job, not news in the log


def test_a_board_that_reads_keeps_its_stream_past_the_timeout(
        server: tuple[int, ConnectionThreads]) -> None:
    """The timeout is per read or write, not per connection: a live stream whose board keeps
    reading (heartbeats every 0.05 s here) lives on for many timeouts."""
    port, _ = server
    board = socket.create_connection(("127.0.0.1", port))
    board.sendall(b"GET /api/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
    board.settimeout(TIMEOUT_S)
    received = b""
    until = time.monotonic() + TIMEOUT_S * 5
    while time.monotonic() < until:
        chunk = board.recv(65536)
        assert chunk, "the stream was closed while its board was reading"
        received += chunk
    board.close()
    assert b"200 OK" in received and received.count(b"\n\n") > 10


def test_connections_past_the_limit_are_told_503_and_the_threads_stay_few(
        app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hundreds of held connections (live streams, requests sent a line at a time) each
    took a thread: a 32-bit Pi ran out of them and then failed every request."""
    monkeypatch.setattr(webserver, "MAX_CONNECTIONS", 3)
    served = make_dashboard_server(app, "127.0.0.1", 0, log_requests=False)
    threads = ConnectionThreads(served)
    threading.Thread(target=served.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    held = []

    def ask() -> bytes:
        sock = socket.create_connection(("127.0.0.1", served.server_port))
        sock.settimeout(30)
        sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: localhost\r\n\r\n")
        answer = sock.recv(4096)
        sock.close()
        return answer

    try:
        for _ in range(3):
            sock = socket.create_connection(("127.0.0.1", served.server_port))
            sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: localhost\r\n")  # never ended
            held.append(sock)
        assert threads.wait_for(started=3), "the held connections got no threads"
        answer = ask()
        assert answer.startswith(b"HTTP/1.1 503") and b"too many connections" in answer
        assert (threads.started, threads.serving) == (3, 3)  # refused without a thread
        held.pop().close()  # one gives its place back
        assert threads.wait_for(ended=1), "the closed connection's thread never ended"
        assert ask().startswith(b"HTTP/1.1 200")
        assert threads.wait_for(started=4, ended=2)
    finally:
        for sock in held:
            sock.close()
        served.shutdown()
        served.server_close()


class _Request:
    """A connection as the limit sees it: what it was sent."""

    def __init__(self) -> None:
        self.sent = b""

    def settimeout(self, seconds: float) -> None:
        pass

    def sendall(self, data: bytes) -> None:
        self.sent += data


class _Server:
    """socketserver's two hooks the limit wraps; ``interrupt`` makes the spawn raise
    KeyboardInterrupt (Ctrl+C) after its thread ran ("after") or before it ran ("before")."""

    def __init__(self) -> None:
        self.served: list[_Request] = []
        self.closed: list[_Request] = []
        self.interrupt: str | None = None
        self.late: list[_Request] = []

    def process_request(self, request: _Request, client_address: object) -> None:
        if self.interrupt == "before":
            self.late.append(request)  # its thread runs after the interrupt
            raise KeyboardInterrupt
        self.process_request_thread(request, client_address)
        if self.interrupt == "after":
            raise KeyboardInterrupt

    def process_request_thread(self, request: _Request, client_address: object) -> None:
        self.served.append(request)

    def shutdown_request(self, request: _Request) -> None:
        self.closed.append(request)


@pytest.mark.parametrize("when", ["after", "before"])
def test_a_ctrl_c_while_a_request_starts_gives_its_place_back_once(when: str) -> None:
    """A place given back twice raised ValueError from a BoundedSemaphore (or, unbounded,
    let one more connection in than the limit)."""
    fake = _Server()
    webserver._limit_connections(fake, 1)  # type: ignore[arg-type]
    fake.interrupt = when
    first = _Request()
    with pytest.raises(KeyboardInterrupt):
        fake.process_request(first, None)
    for request in fake.late:  # the thread started before the interrupt runs now
        fake.process_request_thread(request, None)
    assert fake.served == ([first] if when == "after" else [])
    assert fake.closed == ([] if when == "after" else [first])
    fake.interrupt = None
    second = _Request()
    fake.process_request(second, None)  # the one place is free again
    assert fake.served[-1] is second and second.sent == b""


class _HoldingServer(_Server):
    """A spawn that starts nothing yet: each connection holds its place until `finish`."""

    def __init__(self) -> None:
        super().__init__()
        self.running: list[tuple[_Request, object]] = []

    def process_request(self, request: _Request, client_address: object) -> None:
        self.running.append((request, client_address))

    def finish(self, request: _Request) -> None:
        for held in self.running:
            if held[0] is request:
                self.running.remove(held)
                self.process_request_thread(*held)
                return


def test_one_device_may_hold_only_its_share_of_the_connections() -> None:
    """A phone stuck reconnecting, or a device that holds connections open on purpose, must
    leave the other screens their places; this machine's own (a kiosk board, a proxy in
    front) is not limited by address."""
    fake = _HoldingServer()
    webserver._limit_connections(fake, 6, per_address=2)  # type: ignore[arg-type]
    phone = ("192.168.1.5", 50000)
    first, second, third = _Request(), _Request(), _Request()
    for request in (first, second, third):
        fake.process_request(request, phone)
    assert [r for r, _ in fake.running] == [first, second]
    assert third.sent.startswith(b"HTTP/1.1 503") and b"from this device" in third.sent
    assert fake.closed == [third]
    other = _Request()
    fake.process_request(other, ("192.168.1.6", 50001))  # another screen still gets in
    local = [_Request() for _ in range(3)]
    for request in local:
        fake.process_request(request, ("::ffff:127.0.0.1", 50002))
    assert all(r.sent == b"" for r in (other, *local))
    late = _Request()  # six held: the table-wide limit now, whoever asks
    fake.process_request(late, ("192.168.1.7", 50003))
    assert late.sent.startswith(b"HTTP/1.1 503") and b"at once" in late.sent
    assert b"from this device" not in late.sent
    fake.finish(first)  # the phone's connection ends: its place is the phone's again
    again = _Request()
    fake.process_request(again, phone)
    assert again.sent == b"" and fake.served == [first]
