"""How a phone joins the table: the control page's address on the local network, and a QR code
of it that the board shows on the TV.

The board usually runs in a browser on the table's own machine, where the page's address is
``localhost``: no use to a phone. So the address a phone opens is this machine's address on
the local network, at the port the board was served on. The QR code carries the table PIN
too (in the address's fragment, which browsers never send to a server), so a phone that
scans it is unlocked at once; like the PIN, it is told only to the table's own screen.
"""

from __future__ import annotations

import io
import socket
from urllib.parse import urlsplit

import segno


def lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent), or None."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


def phones_can_reach(listen_host: str) -> bool:
    """Whether a server listening on ``listen_host`` can be reached from a phone: not where
    it listens on this machine's loopback only (the demo's default)."""
    return listen_host not in LOCAL_NAMES and not listen_host.startswith("127.")


def control_url(host_url: str, lan: str | None) -> str:
    """The control page's address for a phone, from the address the board was served at
    (``host_url``, e.g. ``http://localhost:8080/``) and the machine's LAN address: a board
    opened at a local name gets the LAN address at the same port; one opened at an address
    the network knows keeps it."""
    parts = urlsplit(host_url)
    host = parts.hostname or "localhost"
    if host in LOCAL_NAMES and lan:
        host = lan
    elif ":" in host:  # an IPv6 address
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme or 'http'}://{host}{port}/control"


def join_qr_svg(url: str, pin: str) -> bytes:
    """An SVG document of a QR code of ``url`` with the PIN in its fragment: scanned, the
    control page opens unlocked. Dark modules on white with the standard quiet zone, so any
    phone camera reads it off a dark board; sized by its viewBox, so it scales sharp."""
    code = segno.make(f"{url}#pin={pin}", error="m")
    out = io.BytesIO()
    code.save(out, kind="svg", xmldecl=False, svgns=True, omitsize=True, border=4,
              dark="#000", light="#fff", svgclass=None, lineclass=None)
    return out.getvalue()
