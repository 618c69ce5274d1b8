"""Who may change the game: the table PIN, wrong-PIN throttling, cross-site and upload guards.

Viewing is open on the local network; every request that changes anything must

* carry the table PIN (header ``X-Table-PIN``, or a ``pin`` form field);
* come from this site: an ``Origin`` (or, without one, a ``Referer``) naming another host is
  refused, and a form post must also carry the session's CSRF token (``csrf_token`` field or
  ``X-CSRF-Token`` header). JSON bodies must be sent as ``application/json``, which a
  cross-site form cannot do without a CORS preflight this app never grants.

Wrong PINs are throttled per client IP: ``PIN_FREE_TRIES`` free tries, then the client waits
1, 2, 4 … up to ``PIN_MAX_LOCK_S`` seconds before the next try is even looked at. A machine
that takes many addresses on the network would get free tries from each, so the table as a
whole also takes at most `TABLE_WRONG_PINS` wrong PINs in `TABLE_WINDOW_S`: past that, a
device that has not yet given the right PIN (its session says so) waits; phones already
joined play on.

The PIN is configured (``--pin``, ``BLUFFCAM_PIN``) or generated at start; it is printed on
the console and ``GET /api/pin`` tells it only to a browser on the table's own machine
(loopback), which is where the board runs on the TV.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, request, session

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
#: the domains a home router or mDNS adds to a machine's name
HOME_DOMAINS = ("local", "lan", "home", "home.arpa", "localdomain", "internal")
PIN_HEADER = "X-Table-PIN"
CSRF_HEADER = "X-CSRF-Token"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")


class Refused(Exception):
    """A request refused before it reached the table: status, rule and a clear message."""

    def __init__(self, status: int, message: str, *, rule: str = "access",
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.rule = rule
        self.headers = headers or {}

    def to_json(self) -> dict[str, Any]:
        return {"error": {"rule": self.rule, "message": self.message}}


def generate_pin() -> str:
    """Four digits: easy to read off the board and type on a phone."""
    return f"{secrets.randbelow(10_000):04d}"


#: wrong PINs the whole table takes from every device together within `TABLE_WINDOW_S`
TABLE_WRONG_PINS = 20
TABLE_WINDOW_S = 600.0
#: devices whose wrong tries are remembered; past it, those quiet for an hour are forgotten
STRIKES_KEPT = 1024
#: the session's mark of a device that has given the right PIN
PIN_PROVEN = "pin_proven"


@dataclass
class _Strikes:
    count: int = 0
    locked_until: float = 0.0
    last: float = 0.0


class PinGuard:
    """Checks the table PIN with per-IP exponential backoff after a few wrong tries."""

    def __init__(self, pin: str, *, free_tries: int = 3, max_lock_s: float = 60.0,
                 table_wrong_pins: int = TABLE_WRONG_PINS,
                 table_window_s: float = TABLE_WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not pin:
            raise ValueError("the table PIN must not be empty")
        self.pin = pin
        self.free_tries = free_tries
        self.max_lock_s = max_lock_s
        self.table_wrong_pins = table_wrong_pins
        self.table_window_s = table_window_s
        self._clock = clock
        self._strikes: dict[str, _Strikes] = {}
        #: when the table's recent wrong PINs came, oldest first
        self._wrong: deque[float] = deque()
        self._lock = threading.Lock()

    def check(self, client: str, offered: str | None, *, proven: bool = False) -> None:
        """Pass quietly, or raise `Refused` (401 missing, 403 wrong, 429 wait). A ``proven``
        device (one that gave the right PIN before) is not held by the table-wide limit."""
        with self._lock:
            strikes = self._strikes.get(client)
            now = self._clock()
            if strikes is not None and now < strikes.locked_until:
                wait = max(1, int(strikes.locked_until - now + 0.999))
                raise Refused(429, f"too many wrong PINs from this device ({client}): try "
                                   f"again in {wait} s",
                              rule="pin", headers={"Retry-After": str(wait)})
            while self._wrong and self._wrong[0] <= now - self.table_window_s:
                self._wrong.popleft()
            if not proven and len(self._wrong) >= self.table_wrong_pins:
                wait = max(1, int(self._wrong[0] + self.table_window_s - now + 0.999))
                raise Refused(429, "too many wrong PINs at this table lately, from several "
                                   f"devices: a device new to the table waits {wait} s (phones "
                                   "already joined play on)",
                              rule="pin", headers={"Retry-After": str(wait)})
            if not offered:
                raise Refused(401, f"this changes the game: send the table PIN ({PIN_HEADER} "
                                   "header), shown on the board", rule="pin")
            if hmac.compare_digest(offered.strip().encode(), self.pin.encode()):
                self._strikes.pop(client, None)
                return
            self._wrong.append(now)
            self._forget_quiet_devices(now)
            strikes = self._strikes.setdefault(client, _Strikes())
            strikes.count += 1
            strikes.last = now
            if strikes.count >= self.free_tries:
                doublings = min(strikes.count - self.free_tries, 32)  # 2.0**1024 overflows
                lock_s = min(2.0 ** doublings, self.max_lock_s)
                strikes.locked_until = now + lock_s
            raise Refused(403, "wrong table PIN", rule="pin")

    def _forget_quiet_devices(self, now: float) -> None:
        """Keep the wrong tries of at most `STRIKES_KEPT` devices: one that takes a new
        address for every guess must not fill the memory of a table left on for months."""
        if len(self._strikes) < STRIKES_KEPT:
            return
        for client, strikes in list(self._strikes.items()):
            if strikes.last < now - 3600 and strikes.locked_until < now:
                del self._strikes[client]
        while len(self._strikes) >= STRIKES_KEPT:  # all recent: the oldest go
            del self._strikes[min(self._strikes, key=lambda c: self._strikes[c].last)]


# ---------------------------------------------------------------------- request guards


def client_ip() -> str:
    return request.remote_addr or "unknown"


def is_loopback() -> bool:
    return client_ip() in LOOPBACK


def csrf_token() -> str:
    """The session's CSRF token (made on first use); templates call it for form posts."""
    token = session.get("csrf_token")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf_token"] = token
    return token


def check_same_origin() -> None:
    """Refuse a state-changing request whose Origin/Referer names another site."""
    source = request.headers.get("Origin") or request.headers.get("Referer")
    if not source or source == "null":
        if request.headers.get("Origin") == "null":
            raise Refused(403, "cross-site request refused (Origin: null)", rule="csrf")
        return
    try:
        host = urlsplit(source).netloc
    except ValueError:  # e.g. "http://[::1": an unclosed IPv6 bracket
        raise Refused(403, f"cross-site request refused: {source!r} is not a readable "
                           "address", rule="csrf") from None
    if host.lower() != request.host.lower():
        raise Refused(403, f"cross-site request refused: {source} is not {request.host}",
                      rule="csrf")


def check_body_type() -> None:
    """JSON as application/json; form posts only with the session's CSRF token."""
    if not request.content_length and not request.data and not request.form:
        return  # no body at all (e.g. undo): the PIN header already needs a preflight
    mimetype = request.mimetype
    if mimetype == "application/json":
        return
    if mimetype in FORM_TYPES:
        offered = request.headers.get(CSRF_HEADER) or request.form.get("csrf_token", "")
        expected = session.get("csrf_token")
        if not expected or not hmac.compare_digest(str(offered), str(expected)):
            raise Refused(403, "form post without a valid CSRF token (reload the page)",
                          rule="csrf")
        return
    raise Refused(415, f"send JSON with Content-Type: application/json (got {mimetype!r})",
                  rule="format")


def require_pin() -> None:
    """The table PIN from the header or a form field, checked with throttling."""
    guard: PinGuard = current_app.extensions["bluffcam.pin"]
    offered = request.headers.get(PIN_HEADER)
    if offered is None and request.mimetype in FORM_TYPES[:2]:
        offered = request.form.get("pin")
    guard.check(client_ip(), offered, proven=session.get(PIN_PROVEN) is True)
    if session.get(PIN_PROVEN) is not True:
        session[PIN_PROVEN] = True  # signed: no other device can claim it


def guard_change(*, pin: bool = True) -> None:
    """Everything a state-changing request must pass, in order."""
    check_same_origin()
    check_body_type()
    if pin:
        require_pin()


def host_allowed(host: str, extra: Iterable[str] = ()) -> bool:
    """Whether a request's Host names this table: an address (any: a rebinding attack needs
    a name it controls), ``localhost``, this machine's name as a home network or mDNS
    gives it (``raspberrypi``, ``raspberrypi.local``, ``.lan`` …), or a name the owner
    allowed (``serve --allow-host``, which may be given as the whole address)."""
    name = host_name(host)
    if not name:
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    if name == "localhost" or name.endswith(".localhost"):
        return True
    machine = socket.gethostname().lower().rstrip(".")
    own = set()
    for base in {machine, machine.split(".", 1)[0]}:  # a name set in full: its first label too
        own |= {base, *(f"{base}.{domain}" for domain in HOME_DOMAINS)}
    return name in own or name in {host_name(e) for e in extra}


def host_name(host: str) -> str:
    """The name or address in a Host header, or in an address given whole
    (``http://dice.example:8080/``): lower case, without scheme, port, path, IPv6 brackets
    or zone, or a final dot."""
    host = host.strip().lower()
    if "://" in host:
        host = host.split("://", 1)[1]
    host = host.split("/", 1)[0]
    if host.startswith("["):  # [v6] or [v6%zone], then maybe :port
        host = host[1:host.find("]")] if "]" in host else ""
    elif host.count(":") == 1:  # name:port or v4:port (a bare v6 address has more)
        host = host.split(":", 1)[0]
    return host.split("%", 1)[0].rstrip(".")


def check_host() -> None:
    """Refuse a request whose Host is a name this table does not answer to: a web page on
    another site can point its own name at the table's address (DNS rebinding), and the
    browser then lets that page read the table and send it requests as its own. The header
    as sent is read (werkzeug blanks names it finds odd, such as ``my_pi.local``); a request
    with none (HTTP/1.0) names nothing, and passes."""
    host = request.environ.get("HTTP_HOST")
    if host is None:
        return
    if not host_allowed(host, current_app.config.get("ALLOWED_HOSTS") or ()):
        name = host_name(host) or host
        raise Refused(421, f"this table does not answer to the name {name!r}: open it by its "
                           "address, or start bluffcam serve with --allow-host "
                           f"{name or 'NAME'} to add the name", rule="host")


def init_app(app: Flask, pin: str) -> PinGuard:
    guard = PinGuard(pin, free_tries=int(app.config["PIN_FREE_TRIES"]),
                     max_lock_s=float(app.config["PIN_MAX_LOCK_S"]))
    app.extensions["bluffcam.pin"] = guard
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.before_request(check_host)

    @app.after_request
    def _no_framing(response: Response) -> Response:
        # no other site may show the control page in a frame of its own (clickjacking), nor
        # a browser guess a file's type from its bytes
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Content-Security-Policy", "frame-ancestors 'none'")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    return guard
