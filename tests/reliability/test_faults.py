"""Faults at the table: a camera that raises, goes black, freezes or vanishes; a chattering
button; a full disk. Each one shows a clear message on the board and the game goes on
(a reveal entered by hand works; a refused write changes nothing and says why)."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st
from reliability_helpers import PIN, write_review_table

from bluffcam.panel_controller import PanelController
from bluffcam.table import Table
from calibration import load_profile
from engine import Journal
from hardware.cameras import FROZEN_AFTER_FRAMES, CameraError, CameraSource, ResilientCamera
from hardware.panel import DEFAULT_BUTTON_PINS, ButtonPanel, Key
from web import create_app

PLAYERS = {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"}
HANDS = {"Ann": [1, 2, 3, 3, 5], "Ben": [2, 2, 4, 6, 6]}


class ScriptedSource(CameraSource):
    """A camera source whose frames (or failures) come from a function of the frame number."""

    def __init__(self, frame_at: Callable[[int], Any]) -> None:
        self.spec = "scripted:"
        self.frame_at = frame_at
        self.count = 0

    def read(self) -> Any:
        self.count += 1
        return self.frame_at(self.count)

    def close(self) -> None:
        pass


def noisy(level: int, seed: int) -> Any:
    """A still scene from a live sensor: never byte-identical twice."""
    rng = np.random.default_rng(seed)
    frame = np.full((240, 320, 3), level, dtype=np.int16)
    frame += rng.integers(-3, 4, size=frame.shape, dtype=np.int16)
    return np.clip(frame, 0, 255).astype(np.uint8)


@pytest.fixture
def review_profile(tmp_path: Path) -> Any:
    profile_path, _ = write_review_table(tmp_path / "table")
    return load_profile(profile_path)


def make_client(data_dir: Path, camera: Any, profile: Any) -> tuple[Table, FlaskClient]:
    table = Table(data_dir / "journal.sqlite", camera=camera, profile=profile,
                  data_dir=data_dir)
    app: Flask = create_app({"TESTING": True, "TABLE_PIN": PIN}, table=table)
    return table, app.test_client()


def post(client: FlaskClient, path: str, body: Any = None) -> Any:
    return client.post(path, json=body, headers={"X-Table-PIN": PIN})


def to_reveal(client: FlaskClient) -> None:
    assert post(client, "/api/game", PLAYERS).status_code == 200
    assert post(client, "/api/action", {"player": "Ann", "bid": "2x3"}).status_code == 200
    assert post(client, "/api/action", {"player": "Ben", "challenge": True}).status_code == 200


def messages(state: dict[str, Any]) -> str:
    return " | ".join(m["text"] for m in state["messages"])


def assert_manual_reveal_goes_on(client: FlaskClient) -> None:
    """The game goes on: the reveal entered by hand settles the round."""
    response = post(client, "/api/action", {"reveal": HANDS})
    assert response.status_code == 200, response.json
    state = response.json
    assert state["game"]["phase"] == "bidding" and len(state["history"]) == 1
    assert state["review"] is None


def raising(exc: BaseException) -> Callable[[int], Any]:
    def frame_at(n: int) -> Any:
        raise exc
    return frame_at


@pytest.mark.parametrize(("frame_at", "words"), [
    (raising(CameraError("opencv:0: no frame (camera disconnected or stream ended)")),
     "camera disconnected"),
    (raising(RuntimeError("VIDIOC_DQBUF: Input/output error")), "Input/output error"),
    (raising(OSError(errno.ENODEV, "No such device")), "No such device"),
    (lambda n: np.zeros((240, 320, 3), np.uint8), "frozen"),  # black and byte-identical
    (lambda n: noisy(120, 5), "frozen"),  # a stuck stream repeating its last picture
], ids=["camera-error", "driver-raises", "unplugged", "black-identical", "frozen"])
def test_a_failing_camera_is_reported_and_the_reveal_is_entered_by_hand(
    data_dir: Path, review_profile: Any, frame_at: Callable[[int], Any], words: str
) -> None:
    camera = ResilientCamera("scripted:", opener=lambda spec: ScriptedSource(frame_at))
    table, client = make_client(data_dir, camera, review_profile)
    try:
        to_reveal(client)
        response = post(client, "/api/reveal/capture")
        # refused with the reason, so the phone or button that asked does not report a
        # reveal taken; the board says it too
        assert response.status_code == 409, response.json
        assert response.json["error"]["rule"] == "camera"
        assert words in response.json["error"]["message"]
        state = client.get("/api/state").json
        assert state["game"]["phase"] == "reveal", "nothing may be adjudicated from a fault"
        assert state["review"] is None
        assert state["camera"]["status"].startswith("camera offline") and \
            words in state["camera"]["status"]
        assert "enter the reveal by hand" in messages(state)
        assert client.get("/api/camera/snapshot").status_code == 503
        assert_manual_reveal_goes_on(client)
    finally:
        table.close()


def test_a_camera_that_disappears_mid_reveal_then_comes_back(
    data_dir: Path, review_profile: Any
) -> None:
    plugged = [True]
    opens = [0]

    def opener(spec: str) -> CameraSource:
        if not plugged[0]:
            raise CameraError("opencv:0: could not open the camera; is the webcam plugged in?")
        opens[0] += 1

        def frame_at(n: int) -> Any:
            if n < 3:
                return noisy(100, n)
            plugged[0] = False  # the cable is pulled after two frames
            raise CameraError("opencv:0: no frame (camera disconnected or stream ended)")

        return ScriptedSource(frame_at)

    camera = ResilientCamera("opencv:0", opener=opener, first_retry_s=0.0)
    table, client = make_client(data_dir, camera, review_profile)
    try:
        to_reveal(client)
        refused = post(client, "/api/reveal/capture")  # two frames, then the cable is pulled
        assert refused.status_code == 409 and "camera offline" in refused.json["error"]["message"]
        state = client.get("/api/state").json
        assert state["game"]["phase"] == "reveal" and state["review"] is None
        assert "camera offline" in state["camera"]["status"]
        assert "capture again, or enter the reveal by hand" in messages(state)
        again = post(client, "/api/reveal/capture")  # still unplugged: said again
        assert again.status_code == 409
        state = client.get("/api/state").json
        assert "could not open the camera" in state["camera"]["status"]
        assert_manual_reveal_goes_on(client)
        plugged[0] = True  # plugged back in: the next read reopens it
        assert camera.read() is not None and camera.status == "ok" and opens[0] == 2
    finally:
        table.close()


def test_a_covered_lens_sends_the_reveal_to_review_never_a_verdict(
    data_dir: Path, review_profile: Any
) -> None:
    """Black frames with sensor noise: no dice read, counts cannot match, a person decides."""
    camera = ResilientCamera("scripted:", opener=lambda spec: ScriptedSource(
        lambda n: noisy(4, n)))
    table, client = make_client(data_dir, camera, review_profile)
    try:
        to_reveal(client)
        state = post(client, "/api/reveal/capture").json
        assert state["game"]["phase"] == "reveal" and state["review"] is not None
        kinds = {p["kind"] for p in state["review"]["problems"]}
        assert "count_mismatch" in kinds or "missing" in " ".join(kinds), kinds
        assert "needs a look" in messages(state)
        assert_manual_reveal_goes_on(client)  # entered by hand: the review is settled
    finally:
        table.close()


def test_frozen_detection_needs_identical_frames_in_a_row() -> None:
    same, other = noisy(90, 1), noisy(90, 2)
    run = FROZEN_AFTER_FRAMES - 1
    frames = iter([same] * run + [other] + [same] * run + [same, other])
    camera = ResilientCamera("scripted:", opener=lambda spec: ScriptedSource(
        lambda n: next(frames)), first_retry_s=0.0)
    got = [camera.read() for _ in range(2 * run + 1)]
    assert all(frame is not None for frame in got) and camera.status == "ok"
    assert camera.read() is None and "frozen" in camera.status  # one identical too many
    assert camera.read() is not None and camera.status == "ok"  # reopened, live again


# ---------------------------------------------------------------------- the button panel


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    factory = MockFactory()
    yield factory
    factory.reset()


DEBOUNCE_S = 0.03


@settings(max_examples=60, deadline=None)
@given(press_gaps=st.lists(st.floats(0.0001, DEBOUNCE_S * 0.45), min_size=1, max_size=30),
       hold=st.floats(0.08, 0.6),
       release_gaps=st.lists(st.floats(0.0001, DEBOUNCE_S * 0.45), min_size=0, max_size=30))
def test_a_chattering_pin_is_one_press(press_gaps: list[float], hold: float,
                                       release_gaps: list[float]) -> None:
    """Any burst of edges shorter than the debounce time around one press is one press.

    (Each gap < half the debounce time, pairs of edges stay inside one debounce window.)"""
    factory, clock = MockFactory(), Clock()
    try:
        with ButtonPanel(pin_factory=factory, clock=clock, debounce_s=DEBOUNCE_S,
                         feedback_s=0.001) as panel:
            pin = factory.pin(DEFAULT_BUTTON_PINS[Key.BID])
            level_low = False
            odd = len(press_gaps) - (1 - len(press_gaps) % 2)
            for gap in press_gaps[:odd]:  # an odd number of edges: ends pressed (low)
                pin.drive_high() if level_low else pin.drive_low()
                level_low = not level_low
                clock.now += gap
            clock.now += hold
            for gap in release_gaps[: len(release_gaps) // 2 * 2]:  # ends pressed again
                pin.drive_high()
                clock.now += gap
                pin.drive_low()
                clock.now += gap
            pin.drive_high()
            clock.now += 0.5
            events = []
            while not panel.events.empty():
                events.append(panel.events.get_nowait())
            assert [(e.key, e.kind) for e in events] == [(Key.BID, "press")]
    finally:
        factory.reset()


def test_chatter_on_the_bid_button_bids_once_at_the_table(data_dir: Path,
                                                           mock_factory: MockFactory) -> None:
    clock = Clock()
    table = Table(data_dir / "journal.sqlite", data_dir=data_dir)
    table.new_game({"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann"})
    try:
        with ButtonPanel(pin_factory=mock_factory, clock=clock, feedback_s=0.001) as panel:
            controller = PanelController(table, panel)
            pin = mock_factory.pin(DEFAULT_BUTTON_PINS[Key.BID])
            for _ in range(25):  # a worn contact: 50 edges in 5 ms
                pin.drive_low()
                clock.now += 0.0001
                pin.drive_high()
                clock.now += 0.0001
            pin.drive_low()
            clock.now += 0.2
            pin.drive_high()
            clock.now += 0.5
            while not panel.events.empty():
                controller.handle(panel.events.get_nowait())
        assert table.state()["actions_count"] == 1
        assert table.state()["game"]["turn"] == "Ben"
    finally:
        table.close()


# ---------------------------------------------------------------------- a full disk


def test_a_full_disk_refuses_the_action_says_why_and_changes_nothing(
    data_dir: Path, client: FlaskClient, table: Table
) -> None:
    """SQLite's own SQLITE_FULL (max_page_count: the file may not grow), not a stand-in."""
    assert post(client, "/api/game", {**PLAYERS, "players": ["Ann", "Ben", "Cho"]}).status_code \
        == 200
    db = table._journal._db  # the journal's own connection: cap its file at today's size
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    db.execute(f"PRAGMA max_page_count = {pages}")
    statuses = []
    state = client.get("/api/state").json
    while len(statuses) < 400:
        turn, raises = state["game"]["turn"], state["legal"]["lowest_raises"]
        before_export = client.get("/api/game/export").json
        response = post(client, "/api/action", {"player": turn, "bid": raises[-1]})
        statuses.append(response.status_code)
        if response.status_code != 200:
            break
        state = response.json
    assert statuses[-1] == 503, f"the journal never filled up: {statuses[-5:]}"
    refusal = response.json["error"]
    assert refusal["rule"] == "storage" and "database or disk is full" in refusal["message"]
    after = client.get("/api/state").json
    assert "nothing changed" in messages(after) and "disk" in messages(after)
    assert client.get("/api/game/export").json == before_export
    with Journal(data_dir / "journal.sqlite") as journal:  # the file says the same
        loaded = journal.load()
    assert loaded is not None and loaded[1] == before_export["actions"]
    # space is freed: the same action goes through, once
    db.execute("PRAGMA max_page_count = 1073741823")
    response = post(client, "/api/action", {"player": turn, "bid": raises[-1]})
    assert response.status_code == 200
    assert response.json["actions_count"] == len(before_export["actions"]) + 1


def test_a_full_disk_during_a_reveal_keeps_the_review_pending(
    data_dir: Path, review_profile: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    camera = ResilientCamera("scripted:", opener=lambda spec: ScriptedSource(
        lambda n: noisy(60, n)))
    table, client = make_client(data_dir, camera, review_profile)
    try:
        to_reveal(client)
        review = post(client, "/api/reveal/capture").json["review"]
        assert review is not None

        def disk_full(self: Any, path: Path, data: bytes) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr("bluffcam.table.reveal_store.RevealStore._write", disk_full)
        response = post(client, f"/api/reveals/{review['id']}/confirm", {"seats": HANDS})
        assert response.status_code == 503
        assert "No space left on device" in response.json["error"]["message"]
        state = client.get("/api/state").json
        assert state["game"]["phase"] == "reveal" and state["review"]["id"] == review["id"]
        assert state["actions_count"] == 2
        monkeypatch.undo()
        response = post(client, f"/api/reveals/{review['id']}/confirm", {"seats": HANDS})
        assert response.status_code == 200, response.json
        assert response.json["game"]["phase"] == "bidding"
    finally:
        table.close()


def test_a_journal_on_a_read_only_disk_refuses_clearly(
    data_dir: Path, client: FlaskClient, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert post(client, "/api/game", PLAYERS).status_code == 200
    real = table._journal._db

    class ReadOnly:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def execute(self, sql: str, *args: Any) -> Any:
            if sql.lstrip().upper().startswith(("INSERT", "DELETE", "BEGIN")):
                raise sqlite3.OperationalError("attempt to write a readonly database")
            return real.execute(sql, *args)

    monkeypatch.setattr(table._journal, "_db", ReadOnly())
    response = post(client, "/api/action", {"player": "Ann", "bid": "2x3"})
    assert response.status_code == 503 and "readonly" in response.json["error"]["message"]
    assert post(client, "/api/game", PLAYERS).status_code == 503
    monkeypatch.undo()
    assert client.get("/api/state").json["actions_count"] == 0


def test_a_game_imported_while_the_disk_fills_is_all_or_nothing(
    data_dir: Path, client: FlaskClient, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exported game (setup + actions) lands whole or not at all, on disk as in memory."""
    assert post(client, "/api/game", PLAYERS).status_code == 200
    assert post(client, "/api/action", {"player": "Ann", "bid": "2x3"}).status_code == 200
    imported = {**PLAYERS, "players": ["Ann", "Ben", "Cho"],
                "actions": [{"player": "Ann", "bid": "1x2"}, {"player": "Ben", "bid": "1x3"},
                            {"player": "Cho", "bid": "1x4"}]}
    real = table._journal._db
    inserts = [0]

    class FillsUp:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def execute(self, sql: str, *args: Any) -> Any:
            if sql.startswith("INSERT INTO actions"):
                inserts[0] += 1
                if inserts[0] == 2:
                    raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, *args)

    monkeypatch.setattr(table._journal, "_db", FillsUp())
    assert post(client, "/api/game", imported).status_code == 503
    monkeypatch.undo()
    # the old game goes on, in memory and in the journal
    assert post(client, "/api/action", {"player": "Ben", "bid": "2x4"}).status_code == 200
    expected = [{"bid": "2x3", "player": "Ann"}, {"bid": "2x4", "player": "Ben"}]
    assert client.get("/api/game/export").json["actions"] == expected
    with Journal(data_dir / "journal.sqlite") as journal:
        loaded = journal.load()
    assert loaded is not None and loaded[0]["players"] == ["Ann", "Ben"]
    assert loaded[1] == expected


def test_a_confirm_the_journal_refuses_leaves_the_review_pending_across_a_restart(
    data_dir: Path, review_profile: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    camera = ResilientCamera("scripted:", opener=lambda spec: ScriptedSource(
        lambda n: noisy(60, n)))
    table, client = make_client(data_dir, camera, review_profile)
    try:
        to_reveal(client)
        review = post(client, "/api/reveal/capture").json["review"]
        real = table._journal._db

        class Full:
            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

            def execute(self, sql: str, *args: Any) -> Any:
                if sql.startswith("INSERT INTO actions"):
                    raise sqlite3.OperationalError("database or disk is full")
                return real.execute(sql, *args)

        monkeypatch.setattr(table._journal, "_db", Full())
        response = post(client, f"/api/reveals/{review['id']}/confirm", {"seats": HANDS})
        assert response.status_code == 503
        monkeypatch.undo()
    finally:
        table.close()
    table, client = make_client(data_dir, camera, review_profile)  # the power goes, comes back
    try:
        state = client.get("/api/state").json
        assert state["review"] is not None and state["review"]["id"] == review["id"]
        response = post(client, f"/api/reveals/{review['id']}/confirm", {"seats": HANDS})
        assert response.status_code == 200 and response.json["game"]["phase"] == "bidding"
    finally:
        table.close()


def test_a_full_disk_during_a_capture_is_a_message_and_the_reveal_is_entered_by_hand(
    data_dir: Path, review_profile: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    camera = ResilientCamera("scripted:", opener=lambda spec: ScriptedSource(
        lambda n: noisy(60, n)))
    table, client = make_client(data_dir, camera, review_profile)
    try:
        to_reveal(client)

        def disk_full(self: Any, path: Path, data: bytes) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr("bluffcam.table.reveal_store.RevealStore._write", disk_full)
        response = post(client, "/api/reveal/capture")
        assert response.status_code == 503, response.get_data(as_text=True)[:300]
        assert "No space left on device" in response.json["error"]["message"]
        state = client.get("/api/state").json
        assert state["game"]["phase"] == "reveal" and state["review"] is None
        assert "nothing changed" in messages(state)
        monkeypatch.undo()
        assert_manual_reveal_goes_on(client)
    finally:
        table.close()


@pytest.mark.parametrize("how", ["reveal by hand", "undo"])
def test_when_only_the_reveal_record_cannot_be_written_the_journalled_change_still_stands(
    data_dir: Path, review_profile: Any, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """The journal took the change (it is acknowledged, and a restart replays it), so the
    answer is 200 and the board hears of it; the reveal's evidence file is what is missing."""
    camera = ResilientCamera("scripted:", opener=lambda spec: ScriptedSource(
        lambda n: noisy(60, n)))
    table, client = make_client(data_dir, camera, review_profile)
    try:
        to_reveal(client)
        assert post(client, "/api/reveal/capture").json["review"] is not None
        version = client.get("/api/state").json["version"]

        def disk_full(self: Any, path: Path, data: bytes) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr("bluffcam.table.reveal_store.RevealStore._write", disk_full)
        if how == "undo":
            response = post(client, "/api/undo")
        else:
            response = post(client, "/api/action", {"reveal": HANDS})
        assert response.status_code == 200, response.get_data(as_text=True)[:300]
        state = client.get("/api/state").json
        assert state["review"] is None and state["version"] > version
        assert state["actions_count"] == (1 if how == "undo" else 3)
        assert "No space left on device" in messages(state)
    finally:
        table.close()
