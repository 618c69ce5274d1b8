"""Where a phone joins the table (web.join): the control page's address, and its QR code."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from web import create_app
from web.join import control_url, join_qr_svg, lan_address, phones_can_reach


@pytest.mark.parametrize(("served_at", "lan", "expected"), [
    # the board on the table's own screen: the phone needs the LAN address, same port
    ("http://localhost:8080/", "192.168.1.20", "http://192.168.1.20:8080/control"),
    ("http://127.0.0.1:8080/", "192.168.1.20", "http://192.168.1.20:8080/control"),
    ("http://[::1]:8080/", "192.168.1.20", "http://192.168.1.20:8080/control"),
    # a board opened at an address the network knows keeps it
    ("http://192.168.1.20:8080/", "10.0.0.7", "http://192.168.1.20:8080/control"),
    ("http://raspberrypi.local/", "10.0.0.7", "http://raspberrypi.local/control"),
    ("http://[fd00::5]:8080/", None, "http://[fd00::5]:8080/control"),
    # no network at all: the local address is all there is
    ("http://localhost:8080/", None, "http://localhost:8080/control"),
])
def test_control_url(served_at: str, lan: str | None, expected: str) -> None:
    assert control_url(served_at, lan) == expected


@pytest.mark.parametrize(("host", "reachable"), [
    ("0.0.0.0", True), ("::", True), ("192.168.1.20", True),
    ("127.0.0.1", False), ("127.0.1.1", False), ("localhost", False), ("::1", False),
])
def test_phones_reach_a_server_not_listening_on_loopback_only(host: str, reachable: bool) -> None:
    assert phones_can_reach(host) is reachable


def test_a_board_phones_cannot_reach_says_so(tmp_path: Path) -> None:
    """The demo listens on this machine only by default: its board must not offer phones an
    address nothing answers at."""
    app = create_app({"TABLE_PIN": "2468", "DATA_DIR": str(tmp_path), "TESTING": True,
                      "PHONES_CAN_JOIN": False})
    try:
        answer = app.test_client().get("/api/pin",
                                       environ_base={"REMOTE_ADDR": "127.0.0.1"}).json
    finally:
        app.extensions["bluffcam.table"].close()
    assert answer["phones_can_join"] is False
    assert answer["control_url"] == "http://localhost/control"  # not a LAN address


def test_lan_address_is_never_a_loopback_one() -> None:
    address = lan_address()
    assert address is None or not address.startswith("127.")


def rasterise(svg: str) -> np.ndarray:
    """The QR code's modules from segno's SVG: one path of horizontal runs ("M x y" to move,
    "m dx dy" to move by, "h n" for a run of n dark modules along the row at y)."""
    side = int(re.search(r'viewBox="0 0 (\d+) ', svg).group(1))  # type: ignore[union-attr]
    path = re.search(r'stroke="#000" d="([^"]+)"', svg).group(1)  # type: ignore[union-attr]
    image = np.full((side, side), 255, np.uint8)
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:\s(-?[\d.]+))?", path):
        if op == "h":
            image[int(y), int(x):int(x + float(a))] = 0
            x += float(a)
        elif op == "M":
            x, y = float(a), float(b)
        else:
            x, y = x + float(a), y + float(b)
    return image


def test_the_qr_code_reads_back_as_the_control_page_with_the_pin() -> None:
    image = rasterise(join_qr_svg("http://192.168.1.20:8080/control", "4821").decode())
    # read as a phone's camera would, by OpenCV's QR detector
    big = cv2.resize(image, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(big)
    assert text == "http://192.168.1.20:8080/control#pin=4821"
