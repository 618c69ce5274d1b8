"""Camera reveals: sure readings apply, unsure ones wait for review; corrections are journalled."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient
from web_api_helpers import HANDS, SETUP, StubCamera, StubReader, play_to_reveal, post

from bluffcam.table import Table, TableError
from bluffcam.table import reveal_store as reveals


def test_confident_reading_applies_the_verdict(client: FlaskClient, reader: StubReader) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    response = post(client, "/api/reveal/capture")
    assert response.status_code == 200, response.json
    body = response.json
    assert body["review"] is None
    assert body["game"]["phase"] == "bidding"
    assert reader.calls == [{"Ann": 5, "Ben": 5, "Cho": 5}]
    last = body["last_reveal"]
    assert last["seats"] == HANDS and last["corrections"] == {}
    assert body["history"][0]["reveal_id"] == last["id"]
    assert body["history"][0]["image_url"] == last["image_url"]
    assert last["count"] == 6 and last["how"] == "camera"
    assert last["verdict"] == body["history"][0]["verdict"]
    image = client.get(last["image_url"])
    assert image.status_code == 200 and image.mimetype == "image/jpeg"


def test_every_capture_is_read_on_the_tables_one_reading_thread(
    client: FlaskClient, reader: StubReader, table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each web request comes on a new thread, and OpenCV and the networks set themselves
    up once per thread: some 25 ms of every reveal, paid again at each capture."""
    import threading

    threads: list[threading.Thread] = []
    read = reader.__call__

    def noting_the_thread(frames: Any, expected: Any) -> Any:
        threads.append(threading.current_thread())
        return read(frames, expected)

    monkeypatch.setattr(table, "_reveal_reader", noting_the_thread)
    reader.hands = HANDS
    for _ in range(2):
        play_to_reveal(client)
        assert post(client, "/api/reveal/capture").status_code == 200
    assert len(threads) == 2 and threads[0] is threads[1]
    assert threads[0] is not threading.current_thread() and threads[0].is_alive()


def test_closing_the_table_ends_a_reading_under_way_and_never_waits_for_it(
    tmp_path: Path,
) -> None:
    """Stopping the server during a capture waited for the whole reading (up to 120 frames,
    12 s at 10 fps), and the reading went on reading a camera already closed."""
    import threading

    from bluffcam.table.vision_bridge import RevealReading
    from vision.reveal import DEFAULT_STILLNESS

    class Restless:
        """A camera over a table that never stops moving; its third frame is held back
        until the test lets it go, so the table is closed while a reading is under way."""

        status, spec, taken = "ok", "restless:", 0
        held_frame = 3

        def __init__(self) -> None:
            self.underway = threading.Event()
            self.let_go = threading.Event()

        def frames(self) -> Any:
            while True:
                self.taken += 1
                if self.taken == self.held_frame:
                    self.underway.set()
                    self.let_go.wait(30)
                yield np.full((60, 80, 3), 40 * (self.taken % 2), dtype=np.uint8)

    def reader(frames: Any, expected: Any) -> RevealReading:
        from vision.reveal import SceneNotStillError, wait_for_still

        try:
            wait_for_still(frames, DEFAULT_STILLNESS)
        except SceneNotStillError as exc:
            return RevealReading({}, {}, [{"kind": "not_still", "seat": None, "x": None,
                                           "y": None, "message": str(exc)}], True, None)
        raise AssertionError("never still")

    camera = Restless()
    table = Table(tmp_path / "journal.sqlite", camera, reveal_reader=reader)
    table.new_game(SETUP)
    table.submit({"player": "Ann", "bid": "3x4"})
    table.submit({"player": "Ben", "challenge": True})
    ended: list[BaseException] = []

    def capturing() -> None:
        try:
            table.capture_reveal()
        except BaseException as exc:
            ended.append(exc)

    capture = threading.Thread(target=capturing, daemon=True)
    capture.start()
    assert camera.underway.wait(30), "the reading never reached the camera"
    closed = threading.Event()
    threading.Thread(target=lambda: (table.close(), closed.set()), daemon=True).start()
    # the reading is held inside the camera: a close that waited for it would never return
    assert closed.wait(30), "closing the table waited for the reading under way"
    camera.let_go.set()
    capture.join(30)
    assert not capture.is_alive()
    assert isinstance(ended[0], TableError) and "capture again" in str(ended[0])
    # the frame under way was the last one asked for: the camera is not read after closing
    assert camera.taken == camera.held_frame
    assert all(t.daemon for t in threading.enumerate() if t.name == "camera-reading")


def test_uncertain_reading_waits_for_review_then_corrections_are_journalled(
    client: FlaskClient, reader: StubReader, table: Table
) -> None:
    play_to_reveal(client)
    misread = {**HANDS, "Cho": [2, 3, 5, 6, 4]}  # the camera saw Cho's ★ as a 4, unsure
    reader.hands = misread
    reader.uncertain = {("Cho", 4)}
    body = post(client, "/api/reveal/capture").json
    review = body["review"]
    assert review is not None and review["status"] == "needs_review"
    assert body["game"]["phase"] == "reveal" and body["history"] == []
    assert review["problems"][0]["kind"] == "uncertain" and review["problems"][0]["seat"] == "Cho"
    assert review["expected"] == {"Ann": 5, "Ben": 5, "Cho": 5}
    assert client.get(review["image_url"]).status_code == 200

    # nothing but a confirmation (or a re-capture, or a hand-entered reveal) resolves it
    wrong_id = post(client, "/api/reveals/r999/confirm", {"seats": HANDS})
    assert wrong_id.status_code == 404
    bad_die = post(client, f"/api/reveals/{review['id']}/confirm",
                   {"seats": {**HANDS, "Cho": [2, 3, 5, 6, 9]}})
    assert bad_die.status_code == 400 and "9" in bad_die.json["error"]["message"]
    too_few = post(client, f"/api/reveals/{review['id']}/confirm",
                   {"seats": {**HANDS, "Cho": [2, 3, 5, 6]}})
    assert too_few.status_code == 409 and too_few.json["error"]["rule"] == "B10"
    assert client.get("/api/state").json["review"]["id"] == review["id"]

    confirmed = post(client, f"/api/reveals/{review['id']}/confirm", {"seats": HANDS})
    assert confirmed.status_code == 200, confirmed.json
    after = confirmed.json
    assert after["review"] is None
    assert after["history"][0]["actual"] == 6
    assert after["last_reveal"]["corrections"] == {"Cho": {"removed": [4], "added": [1]}}

    record = json.loads((table.data_dir / "reveals" / f"{review['id']}.json").read_text())
    assert record["status"] == "applied" and record["how"] == "confirmed"
    assert record["corrections"] == {"Cho": {"removed": [4], "added": [1]}}
    assert record["action"] == {"reveal": HANDS}

    resumed = Table(table.journal_path)
    try:
        assert resumed.state()["history"][0]["reveal_id"] == review["id"]
        assert resumed.state()["last_reveal"]["corrections"] == record["corrections"]
    finally:
        resumed.close()


def test_pending_review_survives_a_restart(client: FlaskClient, reader: StubReader,
                                           table: Table) -> None:
    play_to_reveal(client)
    reader.hands = {**HANDS, "Ann": [1, 4, 2, 3]}  # one die hidden from the camera
    body = post(client, "/api/reveal/capture").json
    assert body["review"]["problems"][0]["kind"] == "count_mismatch"
    resumed = Table(table.journal_path)
    try:
        assert resumed.state()["review"]["id"] == body["review"]["id"]
        warning = f"reveal {body['review']['id']} needs a look before its verdict"
        assert [m["text"] for m in resumed.state()["messages"]] == [warning]  # said again
        resumed.confirm_review(body["review"]["id"], HANDS)
        assert resumed.state()["history"][0]["actual"] == 6
        assert warning not in [m["text"] for m in resumed.state()["messages"]]
    finally:
        resumed.close()


def test_a_resumed_table_reads_back_only_to_its_own_games_reveals(
        client: FlaskClient, reader: StubReader, table: Table,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Months of reveal records are not read at every start: the newest first, down to the
    first of an earlier game. An earlier game's torn record is no news for this one."""
    reader.hands = {**HANDS, "Ann": [1, 4, 2, 3]}
    for _ in range(3):  # three games, each held at a review of its reveal: r1, r2, r3
        play_to_reveal(client)
        held = post(client, "/api/reveal/capture").json["review"]["id"]
    (table.reveals.folder / "r1.json").write_text('{"torn')  # game 1's record, torn
    opened: list[str] = []
    read_record = reveals._read_record
    monkeypatch.setattr(reveals, "_read_record",
                        lambda path: (opened.append(path.stem), read_record(path))[1])
    resumed = Table(table.journal_path)
    try:
        assert resumed.state()["review"]["id"] == held == "r3"
        assert opened == ["r3", "r2"]  # r2 is game 2's: r1 is older still
        assert not [m for m in resumed.state()["messages"] if "cannot be read" in m["text"]]
    finally:
        resumed.close()


def test_a_review_says_what_to_fix_about_the_picture_across_a_restart(
        client: FlaskClient, reader: StubReader, table: Table) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    reader.uncertain = {("Ann", 0)}
    reader.advice = [{"kind": "dark", "message": "The picture is dark (median brightness 31 "
                                                 "of 255): add light over the table."}]
    review = post(client, "/api/reveal/capture").json["review"]
    assert review["advice"] == reader.advice
    resumed = Table(table.journal_path)
    try:
        assert resumed.state()["review"]["advice"] == reader.advice
    finally:
        resumed.close()


def test_a_reveal_keeps_how_long_the_camera_took_across_a_restart(
        client: FlaskClient, reader: StubReader, table: Table) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    reader.uncertain = {("Ann", 0)}
    reader.frames_voted, reader.delay_s = 4, 0.05
    review = post(client, "/api/reveal/capture").json["review"]
    assert review["timing"]["frames"] == 4
    assert 50 <= review["timing"]["ms"] < 5000  # the reader's own time is in it
    resumed = Table(table.journal_path)
    try:
        assert resumed.state()["review"]["timing"] == review["timing"]
        resumed.confirm_review(review["id"], HANDS)
        assert resumed.state()["last_reveal"]["timing"] == review["timing"]
    finally:
        resumed.close()


def test_a_review_offers_the_frame_unmarked_for_close_ups_across_a_restart(
        client: FlaskClient, reader: StubReader, table: Table) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    reader.uncertain = {("Ann", 0)}
    review = post(client, "/api/reveal/capture").json["review"]
    assert review["photo_url"] == f"/api/reveals/{review['id']}/photo"
    photo = client.get(review["photo_url"])
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg"
    assert photo.data == reader.photo
    assert client.get(review["image_url"]).data != reader.photo  # the marked one
    resumed = Table(table.journal_path)
    try:
        assert resumed.state()["review"]["photo_url"] == review["photo_url"]
    finally:
        resumed.close()
    # a reader that keeps no unmarked frame: the review page falls back on the marked photo
    reader.photo = None
    again = post(client, f"/api/reveals/{review['id']}/recapture").json["review"]
    assert again["photo_url"] is None
    assert client.get(f"/api/reveals/{again['id']}/photo").status_code == 404


def test_recapture_replaces_the_pending_review(client: FlaskClient, reader: StubReader) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    reader.uncertain = {("Ann", 0)}
    first = post(client, "/api/reveal/capture").json["review"]
    reader.uncertain = set()
    response = post(client, f"/api/reveals/{first['id']}/recapture")
    assert response.status_code == 200
    assert response.json["review"] is None
    assert response.json["last_reveal"]["id"] != first["id"]
    assert response.json["history"][0]["actual"] == 6


def test_camera_offline_keeps_the_game_going_with_manual_entry(
    client: FlaskClient, camera: StubCamera
) -> None:
    play_to_reveal(client)
    camera.offline = True
    version = client.get("/api/state").json["version"]
    refused = post(client, "/api/reveal/capture")
    # refused, so no phone or button reports a reveal taken; said on the board as well
    assert refused.status_code == 409 and refused.json["error"]["rule"] == "camera"
    said = ("the camera gave nothing to read (camera offline: unplugged (retrying in 1 s)) — "
            "capture again, or enter the reveal by hand")
    assert refused.json["error"]["message"] == said
    body = client.get("/api/state").json
    assert body["game"]["phase"] == "reveal" and body["review"] is None
    # "Reading the dice…" shown and taken down again, then the board's message: nothing else
    assert body["version"] == version + 3 and body["camera"]["reading"] is False
    assert body["camera"]["status"].startswith("camera offline")
    assert [m["text"] for m in body["messages"]][-1] == said
    manual = post(client, "/api/action", {"reveal": HANDS})
    assert manual.status_code == 200 and manual.json["history"][0]["actual"] == 6


def test_no_camera_at_all_means_manual_entry(tmp_path: object) -> None:
    from pathlib import Path

    from web_api_helpers import SETUP

    table = Table(Path(str(tmp_path)) / "journal.sqlite")
    try:
        table.new_game(SETUP)
        table.submit({"player": "Ann", "bid": "3x4"})
        table.submit({"player": "Ben", "challenge": True})
        assert table.state()["camera"]["status"] == "none"
        try:
            table.capture_reveal()
        except ValueError as refused:
            assert "no camera" in str(refused)
        else:
            raise AssertionError("capture without a camera must be refused")
        table.submit({"reveal": {"Ann": [4] * 5, "Ben": [2] * 5, "Cho": [3] * 5}})
        assert table.state()["history"][0]["actual"] == 5
    finally:
        table.close()


def test_demo_truth_sends_a_disagreeing_reading_to_review(
    table: Table, reader: StubReader
) -> None:
    table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"})
    table.submit({"player": "Ann", "bid": "2x3"})
    table.submit({"player": "Ben", "challenge": True})
    truth = {"Ann": [3, 3, 1, 2, 5], "Ben": [6, 6, 2, 4, 5]}
    reader.hands = {"Ann": [3, 3, 1, 2, 5], "Ben": [6, 6, 2, 4, 6]}  # confident, but wrong
    state = table.capture_reveal(truth=truth)
    assert state["review"] is not None
    assert any(p["kind"] == "ground_truth" for p in state["review"]["problems"])
    assert state["history"] == []


@pytest.mark.parametrize("misread", [True, False])
def test_the_photo_of_a_reading_the_recorded_dice_contradict_says_so(
    table: Table, reader: StubReader, misread: bool
) -> None:
    """The photo's header counts the camera's own problems; a recorded game's ground truth
    adds its own line, so the photo never says "reading OK" above a list of differences."""
    ok, grey = cv2.imencode(".jpg", np.full((480, 640, 3), 128, np.uint8))
    reader.annotated = grey.tobytes()
    table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"})
    table.submit({"player": "Ann", "bid": "2x3"})
    table.submit({"player": "Ben", "challenge": True})
    truth = {"Ann": [3, 3, 1, 2, 5], "Ben": [6, 6, 2, 4, 5]}
    reader.hands = {"Ann": [3, 3, 1, 2, 5], "Ben": [6, 6, 2, 4, 6 if misread else 5]}
    state = table.capture_reveal(truth=truth)
    stored = table.reveals.image_path("r1").read_bytes()  # the table's first reveal
    if not misread:
        assert state["review"] is None and stored == reader.annotated
        return
    assert state["review"] is not None
    photo = cv2.imdecode(np.frombuffer(stored, np.uint8), cv2.IMREAD_COLOR)
    red = (photo[..., 2] > 180) & (photo[..., 1] < 90) & (photo[..., 0] < 90)
    rows = np.flatnonzero(red.any(axis=1))
    assert rows.size and rows.min() >= 40 and rows.max() <= 90  # the second header line
    assert red[:, :10].sum() == 0 and red.sum() > 200


def test_a_reading_the_rules_refuse_goes_to_review(client: FlaskClient, reader: StubReader) -> None:
    play_to_reveal(client)
    reader.hands = {**HANDS, "Ben": [2, 2, 1, 5, 6]}  # sure, but Ben's set-aside 4s are missing
    body = post(client, "/api/reveal/capture").json
    assert body["review"] is not None and body["history"] == []
    assert any(p["kind"] == "rules" and "B9" in p["message"] for p in body["review"]["problems"])


def test_a_new_game_discards_a_pending_review(client: FlaskClient, reader: StubReader,
                                              table: Table) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    reader.uncertain = {("Ann", 1)}
    review = post(client, "/api/reveal/capture").json["review"]
    from web_api_helpers import SETUP

    assert post(client, "/api/game", SETUP).json["review"] is None
    record = json.loads((table.data_dir / "reveals" / f"{review['id']}.json").read_text())
    assert record["status"] == "discarded"
    assert post(client, f"/api/reveals/{review['id']}/confirm", {"seats": HANDS}).status_code == 404


def _texts(state: dict[str, Any]) -> list[str]:
    return [m["text"] for m in state["messages"]]


def test_the_needs_a_look_warning_lasts_as_long_as_the_review(
    client: FlaskClient, reader: StubReader
) -> None:
    """Each way a review ends (confirmed with a correction, re-captured, the reveal entered by
    hand) takes its warning off the board; the other messages stay."""
    ends = {
        "confirmed": lambda rid: post(client, f"/api/reveals/{rid}/confirm", {"seats": HANDS}),
        "re-captured": lambda rid: post(client, f"/api/reveals/{rid}/recapture"),
        "entered by hand": lambda rid: post(client, "/api/action", {"reveal": HANDS}),
    }
    for how, end in ends.items():
        play_to_reveal(client)
        reader.hands = {**HANDS, "Cho": [2, 3, 5, 6, 4]}
        reader.uncertain = {("Cho", 4)}
        review = post(client, "/api/reveal/capture").json["review"]
        warning = f"reveal {review['id']} needs a look before its verdict"
        messages = client.get("/api/state").json["messages"]
        # it names its review, so a screen showing that review's own notice can skip it
        assert {"text": warning, "review": review["id"]}.items() <= next(
            m for m in messages if m["text"] == warning).items(), how
        reader.hands, reader.uncertain = HANDS, set()
        after = end(review["id"])
        assert after.status_code == 200, (how, after.json)
        assert after.json["review"] is None, how
        texts = _texts(after.json)
        assert warning not in texts, (how, texts)
        if how == "confirmed":
            round_no = after.json["history"][-1]["round"]
            assert f"round {round_no} corrected by hand" in texts


def test_a_round_entered_by_hand_has_no_photo(client: FlaskClient) -> None:
    play_to_reveal(client)
    body = post(client, "/api/action", {"reveal": HANDS}).json
    assert body["history"][0]["reveal_id"] is None
    assert "image_url" not in body["history"][0]


def test_a_reveal_whose_photo_was_not_kept_offers_no_photo(
    client: FlaskClient, reader: StubReader, table: Table
) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    body = post(client, "/api/reveal/capture").json
    reveal_id = body["history"][0]["reveal_id"]
    (table.data_dir / "reveals" / f"{reveal_id}.jpg").unlink()
    entry = client.get("/api/state").json["history"][0]
    assert entry["reveal_id"] == reveal_id and "image_url" not in entry


@pytest.mark.parametrize(("fault", "said"), [
    ("raise", "the camera's reading failed (lens cap on) — capture again, or enter the reveal "
              "by hand"),
    ("restless", "the camera read nothing (the scene never came to rest) — capture again, or "
                 "enter the reveal by hand"),
])
def test_a_capture_that_reads_nothing_is_refused_and_the_reveal_still_waits(
        tmp_path: Path, fault: str, said: str) -> None:
    from bluffcam.table.vision_bridge import RevealReading

    def reader(frames: Any, expected: Any) -> RevealReading:
        if fault == "raise":
            raise RuntimeError("lens cap on")
        return RevealReading({}, {}, [{"kind": "not_still", "seat": None, "x": None, "y": None,
                                       "message": "the scene never came to rest"}], True, None)

    table = Table(tmp_path / "journal.sqlite", StubCamera(), reveal_reader=reader)
    try:
        table.new_game(SETUP)
        table.submit({"player": "Ann", "bid": "3x4"})
        table.submit({"player": "Ben", "challenge": True})
        with pytest.raises(TableError) as refused:
            table.capture_reveal()
        assert refused.value.message == said and refused.value.rule == "camera"
        state = table.state()
        assert state["game"]["phase"] == "reveal" and state["review"] is None
        assert state["messages"][-1]["text"] == said
    finally:
        table.close()


def test_a_capture_naming_no_review_does_not_throw_away_one_that_waits(
    client: FlaskClient, reader: StubReader
) -> None:
    """Two screens (or a screen and the panel) press capture together: the second waited for
    the first's reading, then read again and discarded the review the first had left. Only
    "take the photo again" on that review replaces it."""
    play_to_reveal(client)
    reader.hands = {**HANDS, "Cho": [2, 3, 5, 6, 4]}
    reader.uncertain = {("Cho", 4)}
    review = post(client, "/api/reveal/capture").json["review"]
    calls = len(reader.calls)
    again = post(client, "/api/reveal/capture")
    assert again.status_code == 409 and again.json["error"]["rule"] == "camera"
    assert again.json["error"]["message"] == (
        f"reveal {review['id']} waits for review: confirm or correct it, or take the photo "
        "again from the review page")
    assert len(reader.calls) == calls  # the camera was not read
    assert client.get("/api/state").json["review"]["id"] == review["id"]
    reader.hands, reader.uncertain = HANDS, set()
    taken_again = post(client, f"/api/reveals/{review['id']}/recapture")
    assert taken_again.status_code == 200 and taken_again.json["review"] is None
