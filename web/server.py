"""Run the dashboard on werkzeug's threaded server (one thread per request: SSE streams
hold a thread each, which suits a table's handful of screens), and say where to find it."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import logging
import signal
import socket
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from werkzeug.serving import (
    BaseWSGIServer,
    WSGIRequestHandler,
    get_sockaddr,
    make_server,
    select_address_family,
)

from web.join import lan_address

#: the largest TCP port number
MAX_PORT = 65535
#: connections the listening socket queues (werkzeug's own default)
LISTEN_BACKLOG = 128
#: seconds one read or write on a connection may wait: a phone that left the Wi-Fi halfway
#: through a request, or a board that stopped reading its live stream, would otherwise hold
#: its server thread for good (werkzeug waits without limit). Live streams send a heartbeat
#: every 15 s, so a board that is reading never comes near it.
SOCKET_TIMEOUT_S = 30.0
#: connections served at once, each on a thread of its own: past it a new one is answered
#: 503 at once (a table has a dozen screens; hundreds of held connections took a 32-bit Pi's
#: threads, and every request then failed)
MAX_CONNECTIONS = 96
#: of those, the most one address may hold (this machine's own, a kiosk board or a proxy in
#: front, may hold them all): a phone stuck reconnecting, or one device that holds
#: connections open on purpose, leaves the rest of the table its places. A screen holds one
#: live stream and, for a moment, a few requests; a browser of many tabs a dozen or two.
MAX_PER_ADDRESS = 32


def _busy(text: bytes) -> bytes:
    """A plain-text 503 for a connection refused before any route is reached."""
    return (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\n"
            b"Content-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(text), text))


#: what a connection past `MAX_CONNECTIONS` is told before it is closed
_BUSY = _busy(b"bluffcam: too many connections at once; try again in a moment")
#: what a connection past `MAX_PER_ADDRESS` is told
_BUSY_ADDRESS = _busy(b"bluffcam: too many connections from this device at once; close some "
                      b"of its tabs, or try again in a moment")


class _TimedRequestHandler(WSGIRequestHandler):
    """werkzeug's handler with `SOCKET_TIMEOUT_S` on its socket (socketserver applies a
    handler's ``timeout`` to the connection; werkzeug closes a connection that times out)."""

    timeout = SOCKET_TIMEOUT_S

    def log_error(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
        """Not for a connection that sent nothing in time (a browser's preconnect, a phone
        gone): closing it is the timeout's job, not news in the server's log."""
        if not format.startswith("Request timed out"):
            super().log_error(format, *args)


def port(text: str) -> int:
    """argparse's ``type`` for ``--port`` (`serve` and `demo`): 0..65535, 0 picking a free
    one. Checked here because the socket layer takes 99999 as another port and fails on -5."""
    problem = f"must be a port number 0..{MAX_PORT} (0 picks a free one), got {text!r}"
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(problem) from None
    if not 0 <= number <= MAX_PORT:
        raise argparse.ArgumentTypeError(problem)
    return number


def urls(host: str, port: int) -> list[str]:
    """The URLs people can open: localhost first, then the LAN address when listening on all."""
    if host in ("0.0.0.0", "::", ""):
        found = [f"http://localhost:{port}/"]
        lan = lan_address()
        if lan:
            found.append(f"http://{lan}:{port}/")
        return found
    # an IPv6 address is bracketed in a URL: http://::1:8080/ opens nowhere
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return [f"http://{shown}:{port}/"]


def make_dashboard_server(app: Any, host: str, port: int, *,
                          log_requests: bool = True) -> BaseWSGIServer:
    """A threaded server bound now (port 0 picks a free one: read ``server.server_port``)."""
    if not log_requests:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    # bound here, not by werkzeug: it prints its own words for a port in use and exits the
    # process, where the commands name the host and port and close the table first
    family = select_address_family(host, port)
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(get_sockaddr(host, port, family))
        listener.listen(LISTEN_BACKLOG)
        server = make_server(host, port, app, threaded=True, fd=listener.fileno(),
                             request_handler=_TimedRequestHandler)
    finally:
        listener.close()  # the server holds its own copy of the socket
    # an open SSE stream must not keep the process alive
    setattr(server, "daemon_threads", True)  # noqa: B010 (not in the type stubs)
    _limit_connections(server, MAX_CONNECTIONS)
    # a server given a bound socket skips the bind that names its port: port 0's pick
    server.server_port = int(server.server_address[1])
    return server


def _limit_connections(server: BaseWSGIServer, limit: int,
                       per_address: int | None = None) -> None:
    """Serve at most ``limit`` connections at once, and at most ``per_address`` of them from
    one address other than this machine's; one more is told 503 and closed without a thread
    of its own."""
    per_address = MAX_PER_ADDRESS if per_address is None else per_address
    slots = threading.BoundedSemaphore(limit)
    held: Counter[str] = Counter()
    held_lock = threading.Lock()
    # each taken place is owed back exactly once: by the request's thread, which claims it
    # on starting, or by a spawn that failed before that thread claimed it (e.g. Ctrl+C
    # while the thread was being started); dict.pop decides which, atomically
    owed: dict[int, str] = {}
    spawn = server.process_request
    serve_one = server.process_request_thread  # type: ignore[attr-defined]

    def refuse(request: Any, answer: bytes) -> None:
        with contextlib.suppress(OSError):
            request.settimeout(1.0)
            request.sendall(answer)
        server.shutdown_request(request)

    def take(address: str) -> bytes | None:
        """A place for a connection from ``address``, or what to refuse it with."""
        with held_lock:
            if held[address] >= per_address and not _is_this_machine(address):
                return _BUSY_ADDRESS
            if not slots.acquire(blocking=False):
                return _BUSY
            held[address] += 1
            return None

    def give_back(address: str) -> None:
        with held_lock:
            held[address] -= 1
            if held[address] <= 0:
                del held[address]
            slots.release()

    def process_request(request: Any, client_address: Any) -> None:
        address = str(client_address[0]) if client_address else ""
        refused = take(address)
        if refused is not None:
            refuse(request, refused)
            return
        owed[id(request)] = address
        try:
            spawn(request, client_address)
        except BaseException:
            if owed.pop(id(request), None) is not None:  # its thread never claimed the place
                give_back(address)
            raise

    def process_request_thread(request: Any, client_address: Any) -> None:
        address = owed.pop(id(request), None)
        if address is None:  # the failed spawn gave the place back already
            server.shutdown_request(request)
            return
        try:
            serve_one(request, client_address)
        finally:
            give_back(address)

    setattr(server, "process_request", process_request)  # noqa: B010
    setattr(server, "process_request_thread", process_request_thread)  # noqa: B010


def _is_this_machine(address: str) -> bool:
    """Whether a peer address is this machine's own (a kiosk board, or a proxy in front)."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1 on a dual-stack socket
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


def serve_until_interrupted(server: BaseWSGIServer, *, on_stop: Callable[[], None]) -> int:
    """Serve until Ctrl+C (or SIGTERM, turned into KeyboardInterrupt), then clean up."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.serve_forever(poll_interval=0.2)  # werkzeug's returns on KeyboardInterrupt
    except KeyboardInterrupt:  # one that came after werkzeug's own handler
        pass
    finally:
        print("\nstopping…", flush=True)
        server.server_close()
        on_stop()
    return 0


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
