"""The table PIN (refused, accepted, throttled), cross-site guards, upload limits, the data dir."""

from __future__ import annotations

import io

import cv2
import numpy as np
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
