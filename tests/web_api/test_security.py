"""The table PIN (refused, accepted, throttled), cross-site guards, upload limits, the data dir."""

from __future__ import annotations

import io
from typing import Any

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient
from web_api_helpers import PIN, SETUP, post

from web.security import PinGuard


def test_changes_without_pin_are_refused_and_change_nothing(client: FlaskClient) -> None:
    version = client.get("/api/state").json["version"]
    missing = post(client, "/api/game", SETUP, pin=None)
    assert missing.status_code == 401 and "PIN" in missing.json["error"]["message"]
    wrong = post(client, "/api/game", SETUP, pin="0000")
    assert wrong.status_code == 403 and wrong.json["error"]["message"] == "wrong table PIN"
    state = client.get("/api/state").json
    assert state["version"] == version and state["game"] is None


def test_right_pin_is_accepted(client: FlaskClient) -> None:
    assert post(client, "/api/pin/check", {}).status_code == 200
    assert post(client, "/api/game", SETUP).status_code == 200


def test_wrong_pins_are_throttled_per_client(client: FlaskClient) -> None:
    for _ in range(3):
        assert post(client, "/api/pin/check", {}, pin="1111", ip="10.0.0.9").status_code == 403
    locked = post(client, "/api/pin/check", {}, pin=PIN, ip="10.0.0.9")
    assert locked.status_code == 429
    assert int(locked.headers["Retry-After"]) >= 1
    assert locked.json["error"]["message"].startswith("too many wrong PINs from this device (")
    assert "try again in " in locked.json["error"]["message"]
    # another phone is not punished for it
    assert post(client, "/api/pin/check", {}, pin=PIN, ip="10.0.0.10").status_code == 200


def test_wrong_pins_from_many_addresses_hold_new_devices_but_not_joined_phones(
    client: FlaskClient,
) -> None:
    """Each address had its own free tries: a machine taking 250 addresses on the network
    guessed 750 PINs at once (the audit found the PIN in 122 guesses, never refused)."""
    from web.security import TABLE_WRONG_PINS

    joined = client.application.test_client()  # a phone that gave the PIN before
    assert post(joined, "/api/pin/check", {}, ip="10.0.0.20").status_code == 200
    for n in range(TABLE_WRONG_PINS):
        wrong = post(client.application.test_client(), "/api/pin/check", {}, pin="0000",
                     ip=f"10.0.1.{n + 1}")
        assert wrong.status_code == 403
    new_device = client.application.test_client()
    held = post(new_device, "/api/pin/check", {}, pin=PIN, ip="10.0.2.1")  # even the right PIN
    assert held.status_code == 429 and "at this table lately" in held.json["error"]["message"]
    assert int(held.headers["Retry-After"]) > 0
    assert post(joined, "/api/game", SETUP, ip="10.0.0.20").status_code == 200  # plays on
    wrong = post(joined, "/api/pin/check", {}, pin="0000", ip="10.0.0.20")
    assert wrong.status_code == 403  # still checked: a joined phone's session is no PIN


def test_guessing_from_ever_new_addresses_takes_days_not_minutes() -> None:
    now = [0.0]
    guard = PinGuard("9999", free_tries=3, max_lock_s=60.0, clock=lambda: now[0])
    for guess in range(10_000):
        while True:
            try:
                guard.check(f"10.0.{guess // 250}.{guess % 250}", f"{guess:04d}")
                break
            except Exception as refused:
                status = getattr(refused, "status", None)
                if status != 429:
                    assert status == 403
                    break
                now[0] += float(refused.headers["Retry-After"])  # type: ignore[attr-defined]
    assert now[0] > 3 * 24 * 3600, f"all PINs tried in {now[0] / 3600:.1f} h"
    assert len(guard._strikes) <= 1024  # the addresses used are not all remembered


def test_backoff_grows_then_a_right_pin_clears_it() -> None:
    now = [0.0]
    guard = PinGuard("1234", free_tries=2, max_lock_s=8, clock=lambda: now[0])
    waits = []
    for _ in range(5):
        try:
            guard.check("ip", "0000")
        except Exception as refused:
            assert getattr(refused, "status", None) == 403
        lock = guard._strikes["ip"].locked_until - now[0]
        waits.append(lock)
        now[0] += lock
    assert waits == [0.0, 1.0, 2.0, 4.0, 8.0]
    guard.check("ip", "1234")
    assert "ip" not in guard._strikes


def test_cross_site_origin_is_refused(client: FlaskClient) -> None:
    response = post(client, "/api/game", SETUP, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403 and "cross-site" in response.json["error"]["message"]
    same = post(client, "/api/game", SETUP, headers={"Origin": "http://localhost"})
    assert same.status_code == 200


def test_an_unreadable_origin_is_refused_not_a_crash(client: FlaskClient) -> None:
    for headers in ({"Origin": "http://[::1"}, {"Referer": "http://[evil/x"}):
        response = post(client, "/api/undo", headers=headers)
        assert response.status_code == 403, response.data[:200]
        assert "not a readable address" in response.json["error"]["message"]
        assert response.json["error"]["rule"] == "csrf"


def test_form_post_needs_the_csrf_token(client: FlaskClient) -> None:
    form = {"pin": PIN}
    refused = client.post("/api/undo", data=form)
    assert refused.status_code == 403 and "CSRF" in refused.json["error"]["message"]
    token = client.get("/api/csrf").json["csrf_token"]
    post(client, "/api/game", SETUP)
    post(client, "/api/action", {"player": "Ann", "bid": "3x4"})
    accepted = client.post("/api/undo", data={"pin": PIN, "csrf_token": token})
    assert accepted.status_code == 200 and accepted.json["game"]["bid"] is None


def _png(width: int = 32, height: int = 24) -> bytes:
    ok, buffer = cv2.imencode(".png", np.full((height, width, 3), 200, dtype=np.uint8))
    assert ok
    return bytes(buffer.tobytes())


def test_upload_must_decode_as_an_image(client: FlaskClient) -> None:
    token = client.get("/api/csrf").json["csrf_token"]
    not_image = client.post("/api/calibration/read", data={
        "csrf_token": token, "image": (io.BytesIO(b"MZ not a photo"), "dice.jpg")})
    assert not_image.status_code == 400 and "not an image" in not_image.json["error"]["message"]
    image = client.post("/api/calibration/read", data={
        "csrf_token": token, "image": (io.BytesIO(_png()), "dice.png")})
    assert image.status_code == 200, image.json
    assert image.json["width"] == 32 and image.json["image"].startswith("data:image/jpeg")
    assert image.json["advice"] == []  # an even, well-lit grey picture


def test_an_upload_without_its_image_part_does_not_read_the_camera(client: FlaskClient) -> None:
    token = client.get("/api/csrf").json["csrf_token"]
    misnamed = client.post("/api/calibration/read", data={
        "csrf_token": token, "photo": (io.BytesIO(_png()), "dice.png")})
    assert misnamed.status_code == 400
    assert '"image" part' in misnamed.json["error"]["message"]


def test_a_test_read_says_what_to_fix_about_the_picture(client: FlaskClient) -> None:
    token = client.get("/api/csrf").json["csrf_token"]
    ok, dark = cv2.imencode(".png", np.full((120, 160, 3), 25, dtype=np.uint8))
    assert ok
    response = client.post("/api/calibration/read", data={
        "csrf_token": token, "image": (io.BytesIO(bytes(dark.tobytes())), "dark.png")})
    assert response.status_code == 200, response.json
    assert [a["kind"] for a in response.json["advice"]] == ["dark"]
    assert "median brightness 25" in response.json["advice"][0]["message"]


def test_a_transparent_upload_is_read_as_a_viewer_shows_it(client: FlaskClient) -> None:
    """Clear pixels hide black here: read by colour alone the picture would be 'too dark'."""
    token = client.get("/api/csrf").json["csrf_token"]
    ok, clear = cv2.imencode(".png", np.zeros((120, 160, 4), dtype=np.uint8))
    assert ok
    response = client.post("/api/calibration/read", data={
        "csrf_token": token, "image": (io.BytesIO(bytes(clear.tobytes())), "cut-out.png")})
    assert response.status_code == 200, response.json
    assert response.json["advice"] == [] and response.json["dice"] == []


def test_upload_size_is_limited(client: FlaskClient) -> None:
    token = client.get("/api/csrf").json["csrf_token"]
    big = client.post("/api/calibration/read", data={
        "csrf_token": token, "image": (io.BytesIO(b"\0" * 100_000), "huge.png")})
    assert big.status_code == 413 and "too large" in big.json["error"]["message"]


def test_reveal_ids_cannot_reach_outside_the_data_dir(client: FlaskClient) -> None:
    for reveal_id in ("..%2F..%2Fetc%2Fpasswd", "r1.json", "journal.sqlite", "r99"):
        response = client.get(f"/api/reveals/{reveal_id}/image")
        assert response.status_code == 404


def test_pin_is_told_only_to_this_machine(client: FlaskClient) -> None:
    local = client.get("/api/pin", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert local.status_code == 200 and local.json["pin"] == PIN
    # with where a phone opens the control page (the test client's host is "localhost")
    assert local.json["control_url"].endswith("/control")
    remote = client.get("/api/pin", environ_base={"REMOTE_ADDR": "10.0.0.5"})
    assert remote.status_code == 403 and "pin" not in remote.json


def test_the_join_qr_code_carries_the_pin_to_this_machine_only(client: FlaskClient) -> None:
    local = client.get("/api/join.svg", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert local.status_code == 200 and local.mimetype == "image/svg+xml"
    assert local.get_data(as_text=True).startswith("<svg xmlns=")
    remote = client.get("/api/join.svg", environ_base={"REMOTE_ADDR": "10.0.0.5"})
    assert remote.status_code == 403 and remote.mimetype == "application/json"


def test_test_reads_of_uploaded_photos_run_one_at_a_time(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """They need no PIN, and a dozen 24-megapixel photos at once took 1.7 GB."""
    import threading

    import vision

    reading, finish = threading.Event(), threading.Event()
    read = vision.read_dice

    def slow_read(frame: Any, params: Any) -> Any:
        reading.set()
        finish.wait(10)
        return read(frame, params)

    monkeypatch.setattr(vision, "read_dice", slow_read)

    def test_read() -> Any:
        phone = client.application.test_client()
        token = phone.get("/api/csrf").json["csrf_token"]
        return phone.post("/api/calibration/read", data={
            "csrf_token": token, "image": (io.BytesIO(_png()), "dice.png")})

    first: list[Any] = []
    worker = threading.Thread(target=lambda: first.append(test_read()))
    worker.start()
    try:
        assert reading.wait(10)
        busy = test_read()
        assert busy.status_code == 429
        assert "busy with another photo" in busy.json["error"]["message"]
    finally:
        finish.set()
        worker.join(10)
    assert first[0].status_code == 200
    assert test_read().status_code == 200  # and the next one after it


def test_a_test_read_waits_while_the_camera_reads_a_reveal(client: FlaskClient) -> None:
    """The reveal's reading has the board's CPU: a test read beside it would slow the
    verdict the table waits for."""
    import threading

    from bluffcam.table import Table

    table: Table = client.application.extensions["bluffcam.table"]
    reading, finish = threading.Event(), threading.Event()

    def reveal_read() -> None:
        reading.set()
        finish.wait(10)

    worker = threading.Thread(target=table.on_reading_thread, args=(reveal_read,))
    worker.start()
    token = client.get("/api/csrf").json["csrf_token"]
    try:
        assert reading.wait(10)
        busy = client.post("/api/calibration/read", data={
            "csrf_token": token, "image": (io.BytesIO(_png()), "dice.png")})
        assert busy.status_code == 429 and busy.headers["Retry-After"] == "2"
        assert busy.json["error"] == {
            "rule": "busy",
            "message": "the camera is reading the table's dice: test again in a moment"}
    finally:
        finish.set()
        worker.join(10)
    after = client.post("/api/calibration/read", data={
        "csrf_token": token, "image": (io.BytesIO(_png()), "dice.png")})
    assert after.status_code == 200


@pytest.mark.parametrize(("host", "allowed"), [
    ("192.168.1.20:8080", True), ("[fe80::1]:8080", True), ("10.0.0.5", True),
    ("localhost:8080", True), ("LOCALHOST", True), ("table.localhost", True),
    ("{machine}:8080", True), ("{machine}.local:8080", True), ("{machine}.lan", True),
    ("{machine}.local.", True), ("dice.example", True),  # the owner allowed it
    ("[fe80::1%25eth0]:8080", True), ("fe80::1", True),  # an IPv6 zone, a bare address
    ("evil.example:8080", False), ("{machine}.evil.example", False),
    ("192.168.1.20.evil.example", False), ("", False),
])
def test_the_table_answers_only_to_its_addresses_and_names(host: str, allowed: bool) -> None:
    import socket

    from web.security import host_allowed

    named = host.format(machine=socket.gethostname().upper())
    assert host_allowed(named, ["Dice.Example"]) is allowed


def test_a_page_reached_by_another_sites_name_is_refused(client: FlaskClient) -> None:
    """DNS rebinding: a page on evil.example points its name at the table, and the browser
    lets it read the table (its photos) and, from the table's own screen, the PIN."""
    for path in ("/api/state", "/api/pin", "/control"):
        refused = client.get(path, headers={"Host": "evil.example:8080"})
        assert refused.status_code == 421, path
        assert "--allow-host evil.example" in refused.json["error"]["message"]
    changed = post(client, "/api/game", SETUP, headers={
        "Host": "evil.example", "Origin": "http://evil.example"})
    assert changed.status_code == 421 and client.get("/api/state").json["game"] is None
    client.application.config["ALLOWED_HOSTS"] = ["evil.example"]  # the owner's own name
    assert client.get("/api/state", headers={"Host": "evil.example:8080"}).status_code == 200


def test_no_other_site_may_frame_the_control_page(client: FlaskClient) -> None:
    page = client.get("/control")
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["X-Content-Type-Options"] == "nosniff"


def test_a_machine_named_in_full_answers_to_its_short_names_too(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from web.security import host_allowed

    monkeypatch.setattr(socket, "gethostname", lambda: "raspberrypi.home.arpa")
    assert host_allowed("raspberrypi.local:8080") and host_allowed("RaspberryPi")
    assert host_allowed("raspberrypi.home.arpa") and not host_allowed("raspberrypi.evil")


def test_names_are_allowed_as_given_whole_and_the_name_serve_listens_on(
        client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve --host dice.example` printed http://dice.example:8080/ and refused it; an
    --allow-host given as the whole address never matched; werkzeug blanked a name with an
    underscore, which no --allow-host could then match."""
    import argparse

    from bluffcam.commands.serve import add_arguments
    from web import allowed_hosts

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--host", "dice.example", "--allow-host",
                              "http://Den-Table.Lan:8080/", "--allow-host", "my_pi.local"])
    client.application.config["ALLOWED_HOSTS"] = allowed_hosts(args.host, args.allow_host)
    for host in ("dice.example:8080", "den-table.lan", "my_pi.local:8080"):
        assert client.get("/api/state", headers={"Host": host}).status_code == 200, host
    refused = client.get("/api/state", headers={"Host": "evil_site.example"})
    assert refused.status_code == 421
    assert "'evil_site.example'" in refused.json["error"]["message"]


#: near misses of PIN ("2468"): each must be refused, however close
NEAR_MISSES = {
    "prefix": PIN[:-1],
    "first digit": PIN[:1],
    "pin plus a digit": PIN + "0",
    "pin plus a letter": PIN + "x",
    "spaces only": "   ",
    "spaces between the digits": " ".join(PIN),
    "another pin of the same length": PIN[:-1] + str((int(PIN[-1]) + 1) % 10),
    "the digits reversed": PIN[::-1],
    "suffix": PIN[1:],
}


@pytest.mark.parametrize("offered", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_a_near_miss_of_the_pin_is_wrong(offered: str) -> None:
    guard = PinGuard(PIN, free_tries=100)
    with pytest.raises(Exception) as refused:
        guard.check("10.0.0.9", offered)
    assert getattr(refused.value, "status", None) == 403
    assert "10.0.0.9" in guard._strikes  # counted as a wrong try
    guard.check("10.0.0.9", PIN)  # and the PIN itself still opens it


@pytest.mark.parametrize("offered", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_a_near_miss_of_the_pin_changes_nothing_over_http(client: FlaskClient,
                                                          offered: str) -> None:
    refused = post(client, "/api/game", SETUP, pin=offered)
    assert refused.status_code == 403, refused.json
    assert refused.json["error"] == {"rule": "pin", "message": "wrong table PIN"}
    assert client.get("/api/state").json["game"] is None


def test_a_blank_pin_is_asked_for_not_counted() -> None:
    guard = PinGuard(PIN, free_tries=1)
    for blank in ("", None):
        with pytest.raises(Exception) as refused:
            guard.check("10.0.0.9", blank)
        assert getattr(refused.value, "status", None) == 401
    assert "10.0.0.9" not in guard._strikes


def test_the_pin_typed_with_a_space_around_it_is_the_pin() -> None:
    """A phone keyboard's trailing space is no wrong try (web.security strips the offer)."""
    guard = PinGuard(PIN, free_tries=1)
    guard.check("10.0.0.9", f" {PIN} ")
    guard.check("10.0.0.9", f"{PIN}\n")
    assert "10.0.0.9" not in guard._strikes


def test_the_csrf_token_is_the_sessions_own_and_stays_the_same(client: FlaskClient) -> None:
    """A page loaded later must not void the token an open page's form carries."""
    first = client.get("/api/csrf").json["csrf_token"]
    assert client.get("/api/csrf").json["csrf_token"] == first
    assert client.application.test_client().get("/api/csrf").json["csrf_token"] != first
    assert post(client, "/api/game", SETUP).status_code == 200
    assert post(client, "/api/action", {"player": "Ann", "bid": "3x4"}).status_code == 200
    accepted = client.post("/api/undo", data={"pin": PIN, "csrf_token": first})
    assert accepted.status_code == 200, accepted.json


def test_the_strikes_kept_never_pass_the_cap_and_the_oldest_go_first() -> None:
    from web.security import STRIKES_KEPT, Refused

    now = [0.0]
    guard = PinGuard(PIN, free_tries=100, table_wrong_pins=10**6, clock=lambda: now[0])
    for n in range(STRIKES_KEPT + 5):
        now[0] += 1.0  # each device recent (under an hour): none is forgotten as quiet
        with pytest.raises(Refused):
            guard.check(f"10.9.{n // 250}.{n % 250}", "0000")
        assert len(guard._strikes) <= STRIKES_KEPT
    assert len(guard._strikes) == STRIKES_KEPT
    assert "10.9.0.0" not in guard._strikes  # the oldest went
    last = STRIKES_KEPT + 4
    assert f"10.9.{last // 250}.{last % 250}" in guard._strikes


def test_the_table_wide_wait_ends_with_the_window() -> None:
    from web.security import Refused

    now = [0.0]
    guard = PinGuard(PIN, table_wrong_pins=2, table_window_s=600.0, clock=lambda: now[0])
    for client in ("10.0.0.1", "10.0.0.2"):
        with pytest.raises(Refused):
            guard.check(client, "0000")
    now[0] = 598.5
    with pytest.raises(Refused) as held:
        guard.check("10.0.0.3", PIN)
    assert held.value.headers["Retry-After"] == "2"  # 1.5 s, rounded up
    now[0] = 599.5  # half a second before the first wrong PIN leaves the window
    with pytest.raises(Refused) as held:
        guard.check("10.0.0.3", PIN)
    assert held.value.status == 429 and held.value.headers["Retry-After"] == "1"
    now[0] = 600.0
    guard.check("10.0.0.3", PIN)  # its wait is over


def test_an_origin_of_null_is_refused_and_a_referer_of_null_is_no_origin(
        client: FlaskClient) -> None:
    """A sandboxed frame or a file sends ``Origin: null``: cross-site. A ``Referer: null``
    (a browser withholding it) names no site, like no Referer at all."""
    refused = post(client, "/api/game", SETUP, headers={"Origin": "null"})
    assert refused.status_code == 403
    assert refused.json["error"] == {"rule": "csrf",
                                     "message": "cross-site request refused (Origin: null)"}
    assert post(client, "/api/game", SETUP, headers={"Referer": "null"}).status_code == 200


def test_a_change_without_the_pin_is_told_where_to_find_it(client: FlaskClient) -> None:
    missing = post(client, "/api/game", SETUP, pin=None)
    assert missing.status_code == 401
    assert missing.json["error"] == {
        "rule": "pin", "message": "this changes the game: send the table PIN (X-Table-PIN "
                                  "header), shown on the board"}


@pytest.mark.parametrize(("host", "name"), [
    ("[::1]:8080", "::1"), ("[fe80::1%eth0]", "fe80::1"), ("Pi.Local.:80", "pi.local"),
    ("http://dice.example:8080/board", "dice.example"), ("10.0.0.5", "10.0.0.5"),
])
def test_the_name_in_a_host_header(host: str, name: str) -> None:
    from web.security import host_name

    assert host_name(host) == name


def test_the_wrong_pin_wait_grows_to_a_minute_and_no_further_by_default() -> None:
    from web.security import Refused

    now = [0.0]
    guard = PinGuard(PIN, free_tries=1, table_wrong_pins=10**6, clock=lambda: now[0])
    waits = []
    for _ in range(10):
        with pytest.raises(Refused) as refused:
            guard.check("10.0.0.9", "0000")
        assert refused.value.status == 403
        waits.append(guard._strikes["10.0.0.9"].locked_until - now[0])
        now[0] += waits[-1]
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0, 60.0]


@pytest.mark.parametrize(("host", "name"), [
    ("[::1", ""),  # an unclosed bracket names nothing
    ("[::1]]", "::1"),  # the first closing bracket ends the address
    ("http://dice.example/?next=http://pi.local", "dice.example"),
])
def test_the_name_in_an_odd_host(host: str, name: str) -> None:
    from web.security import host_name

    assert host_name(host) == name


def test_a_blank_host_is_told_how_to_add_a_name(client: FlaskClient) -> None:
    response = client.get("/api/state", environ_overrides={"HTTP_HOST": ""})
    assert response.status_code == 421
    assert response.json["error"]["message"].endswith("--allow-host NAME to add the name")


def test_a_machine_name_set_with_a_final_dot_answers_to_the_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from web.security import host_allowed

    monkeypatch.setattr(socket, "gethostname", lambda: "Dice.Example.")
    assert host_allowed("dice.example") and host_allowed("dice.local:8080")


def test_an_empty_pin_is_refused_when_the_guard_is_made() -> None:
    with pytest.raises(ValueError, match="^the table PIN must not be empty$"):
        PinGuard("")
