"""Hostile input: fuzzed actions and replay scripts, bad uploads, PIN guessing, path tricks.

Never a 500 or an uncaught exception; a refusal names what is wrong and changes nothing.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import re
import struct
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import quote

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_helpers import PIN, SETUP, Server, call

from bluffcam.commands import replay
from bluffcam.table import Table
from engine import run_script
from web.api import MAX_UPLOAD_PIXELS
from web.security import PinGuard

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
ACTION_KEYS = ["player", "bid", "challenge", "reveal", "set_aside", "reroll", "pass", "scam",
               "play", "claim", "doubt", "polymorph", "discard", "card", "cards", "kind"]
NAMES = ["Ann", "Ben", "Cho", "Zed", "", "../../etc/passwd", "Ann\x00", "ＡＮＮ", "🎲" * 40]

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30), st.sampled_from(NAMES),
    st.sampled_from(["3x4", "3×4", "2*", "2★", "0x4", "99999999999x6", "3x7", "-1x2", "x", "1x1"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.one_of(st.sampled_from(ACTION_KEYS), st.text(max_size=8)), inner,
                        max_size=6),
    ),
    max_leaves=25,
)
almost_actions = st.fixed_dictionaries(
    {"player": st.one_of(st.sampled_from(NAMES), scalars)},
    optional={key: json_values for key in ACTION_KEYS[1:]},
)
reveals = st.fixed_dictionaries({"reveal": st.dictionaries(
    st.sampled_from(NAMES), st.one_of(st.lists(st.integers(-3, 9), max_size=8), json_values),
    max_size=4)})


def game_snapshot(client: FlaskClient) -> Any:
    """Everything about the game (not the version or messages, which a refusal may touch)."""
    state = client.get("/api/state").json
    return {key: state[key] for key in ("setup", "game", "history", "review", "set_aside",
                                        "actions_count", "legal")}


def post_json(client: FlaskClient, path: str, body: Any) -> Any:
    return client.post(path, data=json.dumps(body), content_type="application/json",
                       headers={"X-Table-PIN": PIN})


def assert_refusal_shape(response: Any) -> None:
    error = response.json["error"]
    assert isinstance(error["rule"], str) and error["rule"]
    assert isinstance(error["message"], str) and error["message"]


@pytest.fixture
def playing(client: FlaskClient) -> FlaskClient:
    """A Bluff game mid-round: Ann bid 3x4, Ben raised to 4x4 setting aside two 4s."""
    assert post_json(client, "/api/game", SETUP).status_code == 200
    assert post_json(client, "/api/action", {"player": "Ann", "bid": "3x4"}).status_code == 200
    assert post_json(client, "/api/action",
                     {"player": "Ben", "bid": "4x4", "set_aside": [4, 4]}).status_code == 200
    return client


@FUZZ
@given(body=st.one_of(json_values, almost_actions, reveals))
def test_fuzzed_actions_never_500_and_refusals_change_nothing(
    playing: FlaskClient, body: Any
) -> None:
    before = game_snapshot(playing)
    response = post_json(playing, "/api/action", body)
    assert response.status_code < 500, (body, response.get_data(as_text=True))
    if response.status_code != 200:
        assert_refusal_shape(response)
        assert game_snapshot(playing) == before, body
    elif before["game"]["phase"] != "over":
        # accepted: it really was a legal action, so undo it to keep fuzzing this position
        playing.post("/api/undo", headers={"X-Table-PIN": PIN})


@FUZZ
@given(raw=st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)))
def test_unreadable_bodies_are_400_not_500(playing: FlaskClient, raw: bytes) -> None:
    before = game_snapshot(playing)
    for path in ("/api/action", "/api/game", "/api/reveals/r1/confirm"):
        response = playing.post(path, data=raw, content_type="application/json",
                                headers={"X-Table-PIN": PIN})
        assert response.status_code < 500, (path, raw, response.get_data(as_text=True))
    assert game_snapshot(playing) == before


@pytest.mark.parametrize("path", ["/api/undo", "/api/reveal/capture", "/api/pin/check",
                                  "/api/reveals/r1/reopen", "/api/reveals/r1/recapture"])
def test_a_request_that_needs_no_body_is_refused_with_a_broken_one_and_changes_nothing(
    playing: FlaskClient, path: str
) -> None:
    before = game_snapshot(playing)
    response = playing.post(path, data=b"{{{", content_type="application/json",
                            headers={"X-Table-PIN": PIN})
    assert response.status_code == 400 and "JSON" in response.json["error"]["message"]
    assert game_snapshot(playing) == before
    # without a body, or with a JSON one, the same request is taken
    assert playing.post("/api/undo", json={}, headers={"X-Table-PIN": PIN}).status_code == 200
    assert game_snapshot(playing) != before


@pytest.mark.parametrize("depth", [50, 400, 900, 980, 1200, 5000])
@pytest.mark.parametrize("path", ["/api/action", "/api/game", "/api/reveals/r1/confirm"])
def test_deeply_nested_bodies_are_refused_not_crashed(
    playing: FlaskClient, path: str, depth: int
) -> None:
    before = game_snapshot(playing)
    for body in ('{"player": "Ann", "bid": ' + "[" * depth + "]" * depth + "}",
                 '{"game": "bluff", "players": ["A", "B"], "options": '
                 + '{"x":' * depth + "1" + "}" * depth + "}",
                 '{"seats": {"Ann": ' + "[" * depth + "]" * depth + "}}"):
        response = playing.post(path, data=body, content_type="application/json",
                                headers={"X-Table-PIN": PIN})
        assert response.status_code < 500, (path, depth, response.get_data(as_text=True)[:300])
        assert_refusal_shape(response)
    assert game_snapshot(playing) == before


@FUZZ
@given(setup=st.one_of(json_values, st.fixed_dictionaries(
    {"game": st.sampled_from(["bluff", "scam", "impus", "chess", ""])},
    optional={"players": json_values, "starter": json_values, "options": json_values,
              "actions": json_values})))
def test_fuzzed_new_games_never_500(playing: FlaskClient, setup: Any) -> None:
    before = game_snapshot(playing)
    response = post_json(playing, "/api/game", setup)
    assert response.status_code < 500, (setup, response.get_data(as_text=True))
    if response.status_code != 200:
        assert_refusal_shape(response)
        assert game_snapshot(playing) == before


@FUZZ
@given(script=st.one_of(json_values, st.fixed_dictionaries(
    {"game": st.sampled_from(["bluff", "scam", "impus"]),
     "players": st.one_of(st.just(["Ann", "Ben", "Cho"]), json_values),
     "actions": st.lists(st.one_of(almost_actions, reveals, json_values), max_size=6)},
    optional={"starter": st.sampled_from(NAMES), "options": json_values})))
def test_fuzzed_replay_scripts_are_refused_or_played_never_crash(script: Any) -> None:
    output, code = run_script(script)
    assert code in (0, 2)
    json.dumps(output, allow_nan=True)  # printable as the CLI does
    if code == 2:
        assert output["error"]["message"]


@settings(max_examples=40, deadline=None)
@given(text=st.one_of(st.text(max_size=80), st.binary(max_size=80).map(
    lambda b: b.decode("latin-1"))))
def test_bluffcam_replay_never_exits_with_a_bug(tmp_path_factory: Any, text: str) -> None:
    path = tmp_path_factory.mktemp("replay") / "script.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    code = replay.run(argparse.Namespace(script=str(path), history=True))
    assert code in (0, 2)


def test_replay_of_nested_junk_and_huge_numbers_is_refused_by_name(tmp_path: Path,
                                                                   capsys: Any) -> None:
    deep = "[" * 5000 + "]" * 5000  # deeper than Python's recursion limit
    cases = [
        '{"game": "bluff", "players": ["Ann", "Ben"], "actions": ' + deep + "}",
        json.dumps({"game": "bluff", "players": ["Ann", "Ben"],
                    "actions": [{"player": "Ann", "bid": f"{10**400}x4"}]}),
        '{"game": "bluff", "players": ["Ann", "Ben"], "options": {"dice_per_player": 1e999}}',
    ]
    for text in cases:
        path = tmp_path / "s.json"
        path.write_text(text)
        code = replay.run(argparse.Namespace(script=str(path), history=False))
        out = capsys.readouterr().out
        assert code == 2, out
        assert json.loads(out)["error"]["message"]


# ---------------------------------------------------------------------- uploads


def png_declaring(width: int, height: int) -> bytes:
    """A small, valid-looking PNG that declares a huge canvas (a decompression bomb)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\x00" * (1 + width * 3) * 64, 9)  # the rest inflates on decode
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows)
            + chunk(b"IEND", b""))


def jpeg_declaring(width: int, height: int) -> bytes:
    ok, buffer = cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))
    assert ok
    data = bytearray(buffer.tobytes())
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def upload(client: FlaskClient, data: bytes, name: str = "dice.png") -> Any:
    token = client.get("/api/csrf").json["csrf_token"]
    return client.post("/api/calibration/read", data={
        "csrf_token": token, "image": (io.BytesIO(data), name)})


@pytest.mark.parametrize(("data", "status", "words"), [
    (png_declaring(50_000, 50_000), 413, "declares 50000 x 50000"),
    (png_declaring(20_000, 20_000), 413, "declares 20000 x 20000"),
    (jpeg_declaring(60_000, 60_000), 413, "declares 60000 x 60000"),
    (png_declaring(0, 10), 400, "not a valid image: its header declares 0 x 10"),
    (jpeg_declaring(640, 0), 400, "not a valid image: its header declares 640 x 0"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", 400, "not an image"),
    (b"GIF89a" + b"\x00" * 40, 400, "not an image"),
    (b"#!/bin/sh\nrm -rf /\n", 400, "not an image"),
    (b"", 400, "empty"),
])
def test_uploads_that_are_not_images_or_are_bombs_are_refused(
    client: FlaskClient, data: bytes, status: int, words: str
) -> None:
    response = upload(client, data)
    assert response.status_code == status, response.json
    assert words in response.json["error"]["message"]


def test_a_huge_upload_is_refused_before_it_is_read(client: FlaskClient) -> None:
    response = upload(client, b"\xff\xd8" + b"\x00" * (9 * 1024 * 1024))
    assert response.status_code == 413 and "too large" in response.json["error"]["message"]


def test_a_real_photo_within_the_limits_is_read(client: FlaskClient) -> None:
    side = int(math.sqrt(MAX_UPLOAD_PIXELS)) // 8  # well inside the limit, quick to read
    ok, buffer = cv2.imencode(".png", np.full((side, side, 3), 90, np.uint8))
    assert ok
    response = upload(client, buffer.tobytes())
    assert response.status_code == 200, response.json
    assert response.json["width"] == side


# ---------------------------------------------------------------------- PIN guessing


def test_guessing_every_pin_takes_days_not_minutes() -> None:
    """An attacker who waits exactly as long as told still needs days for 10 000 PINs."""
    now = [0.0]
    guard = PinGuard("9999", free_tries=3, max_lock_s=60.0, clock=lambda: now[0])
    tries = 0
    for guess in range(10_000):
        while True:
            try:
                guard.check("10.0.0.66", f"{guess:04d}")
                break
            except Exception as refused:
                status = getattr(refused, "status", None)
                if status == 429:
                    now[0] += float(refused.headers["Retry-After"])  # type: ignore[attr-defined]
                    continue
                assert status == 403
                break
        tries += 1
    assert tries == 10_000
    assert now[0] > 5 * 24 * 3600, f"all PINs tried in {now[0] / 3600:.1f} h"


@pytest.mark.slow
def test_wrong_pins_over_real_http_are_throttled_and_lock_out_the_right_one(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path).start()
    try:
        statuses = [server.call("POST", "/api/pin/check", {}, pin=f"{n:04d}")[0]
                    for n in range(1000, 1012)]
        assert statuses[:3] == [403, 403, 403] and set(statuses[3:]) <= {403, 429}
        assert statuses.count(429) >= 6, statuses
        status, body = server.call("POST", "/api/pin/check", {}, pin=PIN)
        assert status == 429 and "try again in " in body["error"]["message"]
        status, body = server.call("POST", "/api/game", SETUP, pin=PIN)
        assert status == 429, "a locked-out client changes nothing, even with the right PIN"
        assert server.state()["game"] is None
    finally:
        server.kill()


# ---------------------------------------------------------------------- the data folder

TRAVERSALS = ["../../etc/passwd", "..%2f..%2fsecret.txt", "%2e%2e%2f%2e%2e%2fsecret.txt",
              "r1/../../secret.txt", "r1%00.jpg", "/etc/passwd", "r1.json", "..", "r-1",
              "r1\\..\\..\\secret.txt", "r" + "9" * 40, "R1", "r１"]


@FUZZ
@given(reveal_id=st.one_of(st.sampled_from(TRAVERSALS), st.text(max_size=40)))
def test_reveal_ids_never_reach_outside_the_data_folder(
    client: FlaskClient, table: Table, data_dir: Path, reveal_id: str
) -> None:
    secret = data_dir.parent / "secret.txt"
    secret.write_text("not for guests")
    (data_dir / "reveals" / "r1.jpg").write_bytes(b"\xff\xd8 a reveal photo \xff\xd9")
    (data_dir / "reveals" / "r1.photo.jpg").write_bytes(b"\xff\xd8 a reveal photo \xff\xd9")
    path = quote(reveal_id, safe="%/")
    for kind in ("image", "photo"):  # the marked photo and the unmarked frame
        image = client.get(f"/api/reveals/{path}/{kind}")
        assert image.status_code in (200, 404, 308), (reveal_id, kind, image.status_code)
        if image.status_code == 200:
            assert image.data == b"\xff\xd8 a reveal photo \xff\xd9"
        assert b"not for guests" not in image.data
    before = game_snapshot(client)
    for action in ("confirm", "recapture"):
        response = post_json(client, f"/api/reveals/{path}/{action}", {"seats": {}})
        assert response.status_code in (400, 404, 405, 308, 409), response.status_code
    assert game_snapshot(client) == before


@pytest.mark.slow
def test_nothing_outside_the_data_folder_is_read_or_written_over_http(tmp_path: Path) -> None:
    """Raw paths over a real socket (no client-side clean-up), then a look at the disk."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (tmp_path / "secret.txt").write_text("not for guests")
    outside_before = {p for p in tmp_path.rglob("*") if data_dir not in p.parents}
    server = Server(data_dir).start()
    try:
        assert server.call("POST", "/api/game", {**SETUP, "players": ["../../x", "Ben"],
                                                 "starter": "Ben"})[0] == 200
        paths = [f"/api/reveals/{t}/{kind}" for t in TRAVERSALS for kind in ("image", "photo")] + [
            "/static/../../secret.txt", "/static/%2e%2e/%2e%2e/secret.txt",
            "/static/..%2f..%2fsecret.txt", "/../secret.txt", "/%2e%2e/secret.txt",
            "/api/game/export?download=../../secret.txt", "/api/../../secret.txt",
            "/static/../journal.sqlite", "/journal.sqlite", "/api/journal.sqlite"]
        for path in paths:
            status, body = call(server.port, "GET", quote(path, safe="%/?=&"), pin=None)
            assert status in (200, 400, 404), (path, status)
            assert "not for guests" not in str(body), path
            assert "SQLite format" not in str(body), path
        for path in ["/api/reveals/..%2f..%2fsecret/confirm", "/api/game?path=../../x"]:
            status, _ = server.call("POST", path, {"seats": {}})
            assert status < 500
    finally:
        server.kill()
    outside_after = {p for p in tmp_path.rglob("*") if data_dir not in p.parents}
    assert outside_after == outside_before, outside_after - outside_before
    assert (tmp_path / "secret.txt").read_text() == "not for guests"


# ---------------------------------------------------------------------- names on the board

HTML_SINKS = re.compile(r"\.(innerHTML|outerHTML|insertAdjacentHTML)\b|document\.write\(")


def test_the_pages_put_names_and_messages_on_screen_as_text_never_as_html(
    client: FlaskClient,
) -> None:
    """A player named <img src=x onerror=...> is shown as those characters, not run."""
    scripts = sorted((Path(__file__).resolve().parents[2] / "web" / "static").rglob("*.js"))
    assert scripts, "the dashboard's scripts were not found"
    for script in scripts:
        sinks = HTML_SINKS.findall(script.read_text(encoding="utf-8"))
        assert not sinks, f"{script.name} writes HTML from strings: {sinks}"
    evil = "<img src=x onerror=f()>"  # within a name's 24 characters
    assert post_json(client, "/api/game", {**SETUP, "players": [evil, "Ben"],
                                           "starter": "Ben"}).status_code == 200
    for page in ("/", "/control", "/review"):
        html = client.get(page).get_data(as_text=True)
        assert evil not in html  # server-side templates escape (or do not embed) names
