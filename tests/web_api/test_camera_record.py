"""The camera's record at a table (`GET /api/camera/record`), counted from its reveal records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from web_api_helpers import HANDS, StubReader, play_to_reveal, post

from bluffcam.camera_record import camera_record
from bluffcam.table import Table

#: Cho's 1 read as a 4, surely: applied at once, wrongly, then reopened by the players
MISREAD = {"Ann": HANDS["Ann"], "Ben": HANDS["Ben"], "Cho": [2, 3, 5, 6, 4]}


def test_a_new_table_has_no_record_yet(client: FlaskClient) -> None:
    record = client.get("/api/camera/record").json
    assert record["reveals"] == record["dice"] == record["reopened"] == 0
    assert record["since"] is None


def test_a_sure_misread_the_players_took_back_is_counted_as_such(
        client: FlaskClient, reader: StubReader) -> None:
    play_to_reveal(client)
    reader.hands = MISREAD
    applied = post(client, "/api/reveal/capture").json
    assert applied["review"] is None
    after_once = client.get("/api/camera/record").json
    assert (after_once["reveals"], after_once["at_once"], after_once["dice"]) == (1, 1, 15)
    assert after_once["since"] is not None and after_once["corrected"] == 0

    reveal_id = applied["last_reveal"]["id"]
    assert post(client, f"/api/reveals/{reveal_id}/reopen").status_code == 200
    waiting = client.get("/api/camera/record").json
    assert (waiting["reveals"], waiting["waiting"], waiting["reopened"]) == (0, 1, 1)

    post(client, f"/api/reveals/{reveal_id}/confirm", {"seats": HANDS})
    record = client.get("/api/camera/record").json
    assert (record["reveals"], record["at_once"], record["reviewed"]) == (1, 0, 1)
    assert (record["corrected"], record["reopened"], record["waiting"]) == (1, 1, 0)


def test_a_reveal_typed_in_instead_and_unreadable_records_are_counted_apart(
        client: FlaskClient, reader: StubReader, tmp_path: Path) -> None:
    play_to_reveal(client)
    reader.hands, reader.uncertain = MISREAD, {("Cho", 4)}
    assert post(client, "/api/reveal/capture").json["review"] is not None
    assert post(client, "/api/action", {"reveal": HANDS}).status_code == 200
    (tmp_path / "reveals" / "r7.json").write_text("[torn")
    record = client.get("/api/camera/record").json
    assert (record["reveals"], record["by_hand"], record["reviewed"]) == (1, 1, 0)
    assert record["corrected"] == 1 and record["unreadable"] == 1


def test_card_reveals_are_not_the_dice_cameras_record() -> None:
    cards = {"status": "applied", "how": "camera", "expected": {"cards": 2},
             "read": {"cards": [{"value": "orc"}]}, "captured_at": 5.0}
    assert camera_record([cards])["reveals"] == 0


def test_records_edited_into_nonsense_are_counted_unreadable_not_in_part() -> None:
    good = {"status": "applied", "how": "camera", "read": {"Ann": [{"value": 2}]},
            "captured_at": 5.0}
    broken = [{**good, "corrections": {"Ann": {"removed": 3}}}, {**good, "reopened": [7]},
              {**good, "read": {"Ann": 4}}, {**good, "expected": 3}]
    record = camera_record([good, *broken])
    assert (record["reveals"], record["dice"], record["unreadable"]) == (1, 1, len(broken))


def test_a_record_named_out_of_pattern_or_nested_past_reason_is_passed_over(
        client: FlaskClient, tmp_path: Path) -> None:
    folder = tmp_path / "reveals"
    folder.mkdir(exist_ok=True)
    (folder / "r1.json").write_text(json.dumps({"id": "rX", "status": "applied"}))
    (folder / "r2.json").write_text("[" * 100_000)
    record = client.get("/api/camera/record").json
    assert record["reveals"] == 0 and record["unreadable"] == 2


def test_the_records_are_read_again_only_when_one_was_written(
        client: FlaskClient, reader: StubReader, table: Table,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A table's months of records take seconds to read on a Pi: the calibration page's
    record is kept until a record file changes (written, replaced, removed)."""
    play_to_reveal(client)
    reader.hands = MISREAD
    reveal_id = post(client, "/api/reveal/capture").json["last_reveal"]["id"]
    scans = []
    scan = table.reveals.scan
    monkeypatch.setattr(table.reveals, "scan", lambda: scans.append(1) or scan())
    first = client.get("/api/camera/record").json
    assert client.get("/api/camera/record").json == first and len(scans) == 1
    post(client, f"/api/reveals/{reveal_id}/reopen")  # its record is rewritten
    assert client.get("/api/camera/record").json["waiting"] == 1 and len(scans) == 2
    table.reveals.folder.joinpath(f"{reveal_id}.json").unlink()
    assert client.get("/api/camera/record").json["waiting"] == 0 and len(scans) == 3


def test_a_reveals_folder_gone_is_a_record_of_nothing_not_an_error(
        client: FlaskClient, table: Table) -> None:
    import shutil

    shutil.rmtree(table.reveals.folder)
    response = client.get("/api/camera/record")
    assert response.status_code == 200 and response.json["reveals"] == 0
    photos = response.json["photos"]  # none, and the data folder's disk still measured
    assert photos["reveals"] == photos["bytes"] == 0 and photos["free_bytes"] > 0


def test_the_record_says_what_the_reveal_photos_take_and_the_room_left(
        client: FlaskClient, reader: StubReader, table: Table) -> None:
    assert client.get("/api/camera/record").json["photos"]["reveals"] == 0
    play_to_reveal(client)
    reader.hands = HANDS
    post(client, "/api/reveal/capture")
    client.application.config["PHOTO_BUDGET_MB"] = 300  # serve --keep-photos 300
    photos = client.get("/api/camera/record").json["photos"]
    on_disk = sum(p.stat().st_size for p in table.reveals.folder.glob("r*.jpg"))
    assert (photos["reveals"], photos["bytes"]) == (1, on_disk) and on_disk > 0
    assert photos["budget_bytes"] == 300_000_000 and photos["free_bytes"] > 0
    assert photos["min_free_bytes"] == 500_000_000
