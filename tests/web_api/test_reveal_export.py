"""A table's settled reveals as labelled photos (`bluffcam export-reveals`): the review page's
places of the confirmed dice are kept on the record and become the bench's boxes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient
from web_api_helpers import HANDS, StubReader, play_to_reveal, post

from bluffcam.cli import main as cli_main
from bluffcam.labelled_photos import ACCEPTED, REVIEWED, export_reveals, labels
from bluffcam.table import Table
from bluffcam.table.reveal_store import RevealStore
from vision.bench import load_manifest

SIZE = 8.0
#: what the camera read: Cho's 1 (his die 4) read as a doubtful 4
MISREAD = {"Ann": HANDS["Ann"], "Ben": HANDS["Ben"], "Cho": [2, 3, 5, 6, 4]}


@pytest.fixture(autouse=True)
def _real_photo(reader: StubReader) -> None:
    """A frame that decodes, with dice of a known size."""
    ok, jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))
    assert ok
    reader.photo, reader.size = jpeg.tobytes(), SIZE


def _placed(state: dict[str, Any], values: dict[str, list[int]]) -> dict[str, Any]:
    """The review's dice at the places the camera read them, with ``values`` instead (what
    the review page sends after a person changed a value)."""
    return {seat: [{"value": v, "x": d["x"], "y": d["y"]}
                   for v, d in zip(values[seat], dice, strict=True)]
            for seat, dice in state["review"]["seats"].items()}


def _review(client: FlaskClient, reader: StubReader) -> dict[str, Any]:
    play_to_reveal(client)
    reader.hands, reader.uncertain = MISREAD, {("Cho", 4)}
    state: dict[str, Any] = post(client, "/api/reveal/capture").json
    assert state["review"] is not None
    return state


def test_a_corrected_review_becomes_a_photo_labelled_where_the_dice_lie(
        client: FlaskClient, reader: StubReader, table: Table, tmp_path: Path) -> None:
    state = _review(client, reader)
    reveal_id = state["review"]["id"]
    response = post(client, f"/api/reveals/{reveal_id}/confirm",
                    {"seats": _placed(state, HANDS)})
    assert response.status_code == 200, response.json
    record = table.reveals.load(reveal_id)
    assert record["confirmed_dice"]["Cho"][4] == {"value": 1, "x": 40.0, "y": 5.0}

    out = tmp_path / "export"
    summary = export_reveals(tmp_path / "reveals", out)
    assert summary.photos == {REVIEWED: 1} and summary.dice[REVIEWED] == 15
    assert summary.corrected == 1
    root, entries = load_manifest(out / "manifest.json")
    (entry,) = entries
    assert entry.source == REVIEWED and entry.complete
    assert cv2.imread(str(root / entry.image)).shape == (48, 64, 3)
    cho = entry.dice[10:]
    assert [d.value for d in cho] == HANDS["Cho"]
    assert cho[4].box == (36.0, 1.0, SIZE, SIZE)  # centred on (40, 5), the read die's size


def test_confirming_with_values_alone_keeps_no_places(
        client: FlaskClient, reader: StubReader, table: Table, tmp_path: Path) -> None:
    state = _review(client, reader)
    post(client, f"/api/reveals/{state['review']['id']}/confirm", {"seats": HANDS})
    assert "confirmed_dice" not in table.reveals.load(state["review"]["id"])
    export_reveals(tmp_path / "reveals", tmp_path / "out")
    _, (entry,) = load_manifest(tmp_path / "out" / "manifest.json")
    assert sorted(d.value for d in entry.dice) == sorted(sum(HANDS.values(), []))
    assert all(d.box is None for d in entry.dice)  # the bench compares the values as a whole


@pytest.mark.parametrize(("place", "named"), [
    ({"x": "left", "y": 5}, "die 5's x"), ({"x": 40, "y": -3}, "die 5's y"),
    ({"x": True, "y": 5}, "die 5's x"), ({"x": 40, "y": None}, "die 5's y"),
    ({"x": 10 ** 400, "y": 5}, "die 5's x"),  # an integer no float can hold
])
def test_a_broken_place_is_refused_by_name_and_changes_nothing(
        client: FlaskClient, reader: StubReader, table: Table, place: dict[str, Any],
        named: str) -> None:
    state = _review(client, reader)
    reveal_id = state["review"]["id"]
    seats = _placed(state, HANDS)
    seats["Cho"][4].update(place)
    response = post(client, f"/api/reveals/{reveal_id}/confirm", {"seats": seats})
    assert response.status_code == 400
    assert "seat Cho" in response.json["error"]["message"]
    assert named in response.json["error"]["message"]
    after = client.get("/api/state").json
    assert after["review"]["id"] == reveal_id and after["history"] == []
    assert table.reveals.load(reveal_id)["status"] == "needs_review"


def test_a_reopened_reveal_forgets_the_places_it_was_confirmed_with(
        client: FlaskClient, reader: StubReader, table: Table) -> None:
    state = _review(client, reader)
    reveal_id = state["review"]["id"]
    post(client, f"/api/reveals/{reveal_id}/confirm", {"seats": _placed(state, HANDS)})
    assert post(client, f"/api/reveals/{reveal_id}/reopen").status_code == 200
    record = table.reveals.load(reveal_id)
    assert "confirmed_dice" not in record
    assert "confirmed_dice" in record["reopened"][-1]["was"]


def test_reveals_applied_at_once_are_exported_only_when_asked_and_say_so(
        client: FlaskClient, reader: StubReader, tmp_path: Path) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    assert post(client, "/api/reveal/capture").json["review"] is None
    skipped = export_reveals(tmp_path / "reveals", tmp_path / "a")
    assert not skipped.photos and sum(skipped.skipped.values()) == 1
    summary = export_reveals(tmp_path / "reveals", tmp_path / "b", with_accepted=True)
    assert summary.photos == {ACCEPTED: 1}
    _, (entry,) = load_manifest(tmp_path / "b" / "manifest.json")
    assert entry.source == ACCEPTED
    # the reader's own dice, each boxed at the size it read
    assert entry.dice[0].box == (-4.0, 1.0, SIZE, SIZE)
    assert [d.value for d in entry.dice] == sum(HANDS.values(), [])


def test_pending_unreadable_and_card_records_are_passed_over_by_name(
        client: FlaskClient, reader: StubReader, tmp_path: Path) -> None:
    _review(client, reader)  # still waiting
    (tmp_path / "reveals" / "r9.json").write_text("{torn")
    summary = export_reveals(tmp_path / "reveals", tmp_path / "out")
    assert not summary.photos and summary.unreadable == ["r9"]
    (why,) = summary.skipped
    assert "not applied" in why
    lines = "\n".join(summary.lines(tmp_path / "out" / "manifest.json"))
    assert "r9" in lines and "not applied" in lines
    assert json.loads((tmp_path / "out" / "manifest.json").read_text()) == []
    card = {"status": "applied", "expected": {"cards": 2}, "read": {"cards": ["orc"]}}
    with pytest.raises(Exception, match="not a dice reveal"):
        labels(card)


def test_the_command_names_a_folder_that_holds_no_reveals(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["export-reveals", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")])
    assert code == 2
    assert "no reveals folder" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_the_command_writes_a_manifest_bench_vision_reads(
        client: FlaskClient, reader: StubReader, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    state = _review(client, reader)
    post(client, f"/api/reveals/{state['review']['id']}/confirm",
         {"seats": _placed(state, HANDS)})
    out = tmp_path / "out"
    assert cli_main(["export-reveals", str(tmp_path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "reviewed: 1 photos, 15 dice, 1 of them corrected by a person" in printed
    assert f"bench-vision {out / 'manifest.json'}" in printed
    assert cli_main(["bench-vision", str(out / "manifest.json"), "--json"]) == 0
    groups = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    overall = next(g for g in groups if g["name"] == "overall")
    assert overall["images"] == 1 and overall["labelled"] == 15


MALFORMED = "its record is malformed (edited by hand?)"


@pytest.mark.parametrize(("broken", "unreadable"), [
    ({"read": {"Ann": [{"value": 9, "x": 1, "y": 1, "size": 8}]}}, True),
    ({"read": {"Ann": [{"value": 2, "x": "left", "y": 1, "size": 8}]}}, True),
    ({"read": {"Ann": [{"value": 2, "x": float("nan"), "y": 1, "size": 8}]}}, True),
    ({"corrections": {"Ann": {"removed": 3, "added": []}}}, False),
    ({"read": {"Ann": ["two"]}}, True),
    ({"problems": ["not a problem"]}, True),
    ({"corrections": ["x"]}, True),
    ({"id": "rX"}, True),
    ({"id": 7}, True),
    # finite, but past what a float holds once squared: an OverflowError in the box's sums
    ({"read": {"Ann": [{"value": 2, "x": 1e308, "y": 1e308, "size": 1e308}]}}, False),
])
def test_a_record_edited_into_nonsense_is_passed_over_not_a_crash(
        client: FlaskClient, reader: StubReader, tmp_path: Path, broken: dict[str, Any],
        unreadable: bool) -> None:
    play_to_reveal(client)
    reader.hands = HANDS
    post(client, "/api/reveal/capture")
    path = tmp_path / "reveals" / "r1.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **broken}))
    summary = export_reveals(tmp_path / "reveals", tmp_path / "out", with_accepted=True)
    assert not summary.photos
    if unreadable:  # the store itself names it
        assert summary.unreadable == ["r1"] and not summary.skipped
    else:
        assert summary.skipped == {MALFORMED: 1}
    assert load_manifest(tmp_path / "out" / "manifest.json")[1] == []


def test_an_out_that_is_a_file_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "reveals").mkdir()
    (tmp_path / "taken").write_text("mine")
    with pytest.raises(NotADirectoryError, match="not a folder"):
        export_reveals(tmp_path / "reveals", tmp_path / "taken")
    assert (tmp_path / "taken").read_text() == "mine"


def test_a_die_of_no_size_is_labelled_without_a_box(
        client: FlaskClient, reader: StubReader, tmp_path: Path) -> None:
    reader.size = -8.0  # no size a box could have
    play_to_reveal(client)
    reader.hands = HANDS
    post(client, "/api/reveal/capture")
    export_reveals(tmp_path / "reveals", tmp_path / "out", with_accepted=True)
    _, (entry,) = load_manifest(tmp_path / "out" / "manifest.json")
    assert len(entry.dice) == 15 and all(d.box is None for d in entry.dice)


def _two_camera_reveals(client: FlaskClient, reader: StubReader) -> str:
    """Two rounds the camera read, applied at once; the first one's reveal id."""
    play_to_reveal(client)
    reader.hands = HANDS
    first: str = post(client, "/api/reveal/capture").json["last_reveal"]["id"]
    play_to_reveal(client)
    post(client, "/api/reveal/capture")
    return first


def _removed(path: Path) -> None:
    path.unlink()  # the photo budget's pass, between the export's look and its read


def _unreadable(path: Path) -> None:
    path.unlink()  # a folder where the photo is: reading it is an OSError, as no permission
    path.mkdir()


@pytest.mark.parametrize(("spoil", "reason"), [
    (_removed, "no unmarked photo kept"),
    (_unreadable, "its photo cannot be read (Is a directory)"),
])
def test_a_photo_gone_or_unreadable_is_passed_over_not_the_end_of_the_export(
        client: FlaskClient, reader: StubReader, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, spoil: Callable[[Path], None], reason: str) -> None:
    """A `serve` beside the export may remove an old reveal's photo (its photo budget) right
    after the export found it, and a photo left by sudo may not be readable: that reveal is
    skipped, saying why, and the others are written (one unreadable photo ended the whole
    export with no manifest)."""
    first = _two_camera_reveals(client, reader)
    found = RevealStore.photo_path

    def spoiled_first(store: RevealStore, reveal_id: str) -> Path:
        path = found(store, reveal_id)
        if reveal_id == first:
            spoil(path)
        return path

    monkeypatch.setattr(RevealStore, "photo_path", spoiled_first)
    summary = export_reveals(tmp_path / "reveals", tmp_path / "out", with_accepted=True)
    assert summary.photos == {ACCEPTED: 1}
    assert summary.skipped == {reason: 1}
    assert (tmp_path / "out" / "manifest.json").is_file()
