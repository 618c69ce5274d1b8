"""Refitting the seat zones from the calibration page: a proposal first, then the profile file
and the running table take it; the profile's other settings stay."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient
from web_api_helpers import PIN, SETUP, post

from bluffcam.table import Table
from calibration import Profile, SeatZone, SeatZones, load_profile, save_profile
from calibration.geometry import as_polygon
from calibration.profile import backup_of
from web import create_app

_spec = importlib.util.spec_from_file_location(
    "drawn_dice", Path(__file__).resolve().parents[1] / "reveal" / "drawn_dice.py")
assert _spec and _spec.loader
drawn_dice = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("drawn_dice", drawn_dice)
_spec.loader.exec_module(drawn_dice)

#: three players' dice on a felt table: bottom, top left, top right
CLUSTERS = [[(370, 470, 4), (420, 475, 2), (400, 430, 6)],
            [(180, 150, 3), (230, 170, 5)],
            [(560, 150, 1), (610, 180, 6), (570, 200, 2)]]


def _table_photo(with_dice: bool = True) -> np.ndarray:
    image = np.full((600, 800, 3), (40, 110, 40), np.uint8)
    for cluster in CLUSTERS if with_dice else []:
        for x, y, value in cluster:
            drawn_dice.draw_die(image, drawn_dice.DrawnDie(x, y, value), size=34)
    return image


class PhotoCamera:
    spec = "photo:"
    status = "ok"

    def __init__(self) -> None:
        self.image = _table_photo()

    def frames(self) -> Iterator[Any]:
        for _ in range(12):
            yield self.image

    def read(self) -> Any:
        return self.image


def _two_seat_profile(path: Path) -> Path:
    def box(x0: float, y0: float, x1: float, y1: float) -> Any:
        return as_polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])

    profile = Profile(name="felt", camera="photo:", resolution=(800, 600),
                      table_area=box(0, 0, 800, 600),
                      seat_zones=SeatZones((SeatZone("North", box(0, 0, 800, 300)),
                                            SeatZone("South", box(0, 300, 800, 600)))),
                      reader={"detector_side": 384}, panel={"buzzer": 18})
    return save_profile(profile, path)


@pytest.fixture
def profile_file(tmp_path: Path) -> Path:
    return _two_seat_profile(tmp_path / "felt.toml")


@pytest.fixture
def table(tmp_path: Path, profile_file: Path) -> Iterator[Table]:
    t = Table(tmp_path / "journal.sqlite", camera=PhotoCamera(),
              profile=load_profile(profile_file), data_dir=tmp_path)
    yield t
    t.close()


@pytest.fixture
def client(table: Table) -> FlaskClient:
    app = create_app({"TESTING": True, "TABLE_PIN": PIN}, table=table)
    return app.test_client()


def test_a_fit_is_a_proposal_and_applying_it_rewrites_the_zones_only(
    client: FlaskClient, table: Table, profile_file: Path
) -> None:
    before = profile_file.read_text()
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 3})
    assert fitted.status_code == 200, fitted.json
    assert fitted.json["seats"] == ["Seat 1", "Seat 2", "Seat 3"]
    assert fitted.json["dice"] == 8
    assert fitted.json["image"].startswith("data:image/jpeg;base64,")
    # nothing changed yet
    assert profile_file.read_text() == before
    assert client.get("/api/state").json["table_seats"] == ["North", "South"]

    applied = post(client, "/api/calibration/zones/apply", {"proposal": fitted.json["proposal"]})
    assert applied.status_code == 200, applied.json
    assert applied.json["restart_for"] == []  # nothing the running camera or panel lacks
    assert client.get("/api/state").json["table_seats"] == ["Seat 1", "Seat 2", "Seat 3"]
    saved = load_profile(profile_file)
    assert saved.zones.names == ["Seat 1", "Seat 2", "Seat 3"]
    assert saved.reader == {"detector_side": 384} and saved.panel == {"buzzer": 18}
    # the dice's size is measured again with the zones (the camera may have moved)
    assert saved.dice is not None and saved.dice.size_px > 0
    # each cluster lies in a zone of its own (their order is calibration.fit's, tested there)
    seats = [{saved.zones.seat_of(x, y) for x, y, _ in cluster} for cluster in CLUSTERS]
    assert all(len(s) == 1 and None not in s for s in seats), seats
    assert len(set.union(*seats)) == 3
    assert table.profile is not None and table.profile.zones.names == saved.zones.names
    # a proposal is applied once
    again = post(client, "/api/calibration/zones/apply", {"proposal": fitted.json["proposal"]})
    assert again.status_code == 409 and "fit the zones again" in again.json["error"]["message"]


def test_applying_zones_keeps_an_edit_made_to_the_file_since_and_a_backup(
    client: FlaskClient, table: Table, profile_file: Path
) -> None:
    """The running table's profile was written over the file: a [panel] pin changed since
    start, and the file's comments, were lost without a word."""
    edited = profile_file.read_text().replace("buzzer = 18", "buzzer = 4")
    profile_file.write_text("# the table in the den\n" + edited)
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 3})
    applied = post(client, "/api/calibration/zones/apply", {"proposal": fitted.json["proposal"]})
    assert applied.status_code == 200, applied.json
    saved = load_profile(profile_file)
    assert saved.panel == {"buzzer": 4} and saved.zones.names == ["Seat 1", "Seat 2", "Seat 3"]
    backup = Path(applied.json["backup"])
    assert backup == profile_file.with_name("felt.toml.bak")
    assert backup.read_text().startswith("# the table in the den")
    # the panel was opened with the pins of the start: the page says the edit waits for a
    # restart, and says it again at the next fit (the table's profile holds the edit now)
    assert applied.json["restart_for"] == ["panel"]
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 3})
    again = post(client, "/api/calibration/zones/apply", {"proposal": fitted.json["proposal"]})
    assert again.json["restart_for"] == ["panel"]


def test_a_profile_file_half_edited_since_start_is_not_overwritten(
    client: FlaskClient, table: Table, profile_file: Path
) -> None:
    half = profile_file.read_text() + "\n[panel\nleds = [17, 27,\n"
    profile_file.write_text(half)
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 3})
    refused = post(client, "/api/calibration/zones/apply", {"proposal": fitted.json["proposal"]})
    assert refused.status_code == 409
    assert refused.json["error"]["message"].startswith(
        "felt.toml was changed since the table started and does not load now")
    assert profile_file.read_text() == half  # untouched
    assert client.get("/api/state").json["table_seats"] == ["North", "South"]


def test_the_seats_keep_their_names_when_their_number_stays(client: FlaskClient) -> None:
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 2})
    # two clusters asked for three piles of dice: the fit still names the seats as before
    assert fitted.status_code == 200 and fitted.json["seats"] == ["North", "South"]


@pytest.mark.parametrize("seats", [0, 7, "3", True, None])
def test_a_bad_seat_count_is_refused_by_name(client: FlaskClient, seats: Any) -> None:
    refused = post(client, "/api/calibration/zones/fit", {"seats": seats})
    assert refused.status_code == 400
    assert "seats: give the number of seats, 1 to 6" in refused.json["error"]["message"]


@pytest.mark.parametrize("body", [[], "3", 3])
def test_a_request_that_is_not_an_object_is_told_so(client: FlaskClient, body: Any) -> None:
    for path in ("fit", "apply"):
        refused = post(client, f"/api/calibration/zones/{path}", body)
        assert refused.status_code == 400
        assert "must be a JSON object" in refused.json["error"]["message"]


def test_zones_for_fewer_seats_than_the_game_sits_its_players_at_are_refused(
    client: FlaskClient, table: Table, profile_file: Path
) -> None:
    three = post(client, "/api/calibration/zones/fit", {"seats": 3}).json
    post(client, "/api/calibration/zones/apply", {"proposal": three["proposal"]})
    two = post(client, "/api/calibration/zones/fit", {"seats": 2}).json  # made before the game
    # Ann at seat 1 and Ben at seat 3 of three: two players, but seat 3 must stay
    table.new_game({**SETUP, "players": ["Ann", "Ben"], "starter": "Ann", "seats": [1, 3]})
    before = profile_file.read_text()
    late = post(client, "/api/calibration/zones/apply", {"proposal": two["proposal"]})
    assert late.status_code == 409 and "up to seat 3" in late.json["error"]["message"]
    refused = post(client, "/api/calibration/zones/fit", {"seats": 2})
    assert refused.status_code == 409
    assert "up to seat 3: fit 3 seats or more" in refused.json["error"]["message"]
    assert profile_file.read_text() == before
    assert post(client, "/api/calibration/zones/fit", {"seats": 3}).status_code == 200


def test_no_dice_no_zones(client: FlaskClient, table: Table) -> None:
    table.camera.image = _table_photo(with_dice=False)  # type: ignore[union-attr]
    refused = post(client, "/api/calibration/zones/fit", {"seats": 3})
    assert refused.status_code == 422
    assert "no dice seen" in refused.json["error"]["message"]


def test_zones_do_not_move_while_a_reveal_is_due(
    client: FlaskClient, table: Table, profile_file: Path
) -> None:
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 3}).json
    table.new_game({**SETUP, "players": ["Ann", "Ben"], "starter": "Ann"})
    table.submit({"player": "Ann", "bid": "2x3"})
    table.submit({"player": "Ben", "challenge": True})
    before = profile_file.read_text()
    for path, body in (("fit", {"seats": 3}), ("apply", {"proposal": fitted["proposal"]})):
        refused = post(client, f"/api/calibration/zones/{path}", body)
        assert refused.status_code == 409
        assert "a reveal is due" in refused.json["error"]["message"]
    assert profile_file.read_text() == before


def test_refitting_needs_the_pin_and_a_profile_file(client: FlaskClient, table: Table) -> None:
    assert post(client, "/api/calibration/zones/fit", {"seats": 3}, pin=None).status_code in (
        401, 403)
    table.profile = None
    refused = post(client, "/api/calibration/zones/fit", {"seats": 3})
    assert refused.status_code == 409
    assert "start bluffcam serve with --profile FILE" in refused.json["error"]["message"]


def test_the_table_keeps_its_zones_through_a_reveal(table: Table) -> None:
    """The table itself refuses new zones while a reveal is due, however they come."""
    from bluffcam.table import TableError

    table.new_game({"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann"})
    table.submit({"player": "Ann", "bid": "2x3"})
    table.submit({"player": "Ben", "challenge": True})
    kept = table.profile
    with pytest.raises(TableError, match="a reveal is due"):
        table.set_profile(None)
    assert table.profile is kept


def test_a_camera_that_fails_is_a_refusal_that_says_so(client: FlaskClient, table: Table) -> None:
    class BrokenCamera(PhotoCamera):
        status = "camera offline: unplugged"

        def read(self) -> Any:
            raise OSError("unplugged")

    table.set_camera(BrokenCamera())
    refused = post(client, "/api/calibration/zones/fit", {"seats": 3})
    assert refused.status_code == 503
    assert refused.json["error"]["message"] == "no camera frame: camera offline: unplugged"


def test_a_camera_that_says_ok_yet_gives_nothing_is_told_as_such(
    client: FlaskClient, table: Table
) -> None:
    class EmptyCamera(PhotoCamera):
        def read(self) -> Any:
            return None

    table.set_camera(EmptyCamera())
    refused = post(client, "/api/calibration/zones/fit", {"seats": 3})
    assert refused.status_code == 503
    assert refused.json["error"]["message"] == "no camera frame: the camera gave none; try again"
    snapshot = client.get("/api/camera/snapshot")
    assert snapshot.status_code == 503 and "try again" in snapshot.json["error"]["message"]


def test_a_challenge_made_while_zones_are_applied_leaves_the_file_as_it_was(
    client: FlaskClient, table: Table, profile_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zones' check and the file's rewrite were apart: a challenge coming between them
    got the apply refused ("a reveal is due") with the file already rewritten, so the next
    start read other zones than the table had played by."""
    import web.zones

    post(client, "/api/game", {**SETUP, "players": ["Ann", "Ben"], "starter": "Ann"})
    post(client, "/api/action", {"player": "Ann", "bid": "2x3"})
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 2})
    before = profile_file.read_text()
    reread = web.zones.load_profile

    def challenged_meanwhile(path: Any) -> Any:  # the file re-read: a phone challenges now
        table.submit({"player": "Ben", "challenge": True})
        return reread(path)

    monkeypatch.setattr(web.zones, "load_profile", challenged_meanwhile)
    refused = post(client, "/api/calibration/zones/apply", {"proposal": fitted.json["proposal"]})
    assert refused.status_code == 409 and "a reveal is due" in refused.json["error"]["message"]
    assert profile_file.read_text() == before
    assert not backup_of(profile_file).exists()
    assert client.get("/api/state").json["table_seats"] == ["North", "South"]


def test_a_disk_that_refuses_the_zones_changes_nothing_and_keeps_the_backup_whole(
    client: FlaskClient, profile_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 3})
    assert post(client, "/api/calibration/zones/apply",
                {"proposal": fitted.json["proposal"]}).status_code == 200
    profile, backup = profile_file.read_text(), backup_of(profile_file).read_text()
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 2})

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.fsync", disk_full)
    refused = post(client, "/api/calibration/zones/apply", {"proposal": fitted.json["proposal"]})
    monkeypatch.undo()
    assert refused.status_code == 503, refused.get_data(as_text=True)[:200]
    assert refused.json["error"]["rule"] == "storage"
    assert "felt.toml could not be written" in refused.json["error"]["message"]
    assert profile_file.read_text() == profile and backup_of(profile_file).read_text() == backup
    assert [p.name for p in profile_file.parent.glob(".felt.toml*")] == []  # no half file
    assert client.get("/api/state").json["table_seats"] == ["Seat 1", "Seat 2", "Seat 3"]


@pytest.mark.parametrize(("running", "said"), [("photo:", ["camera"]), ("opencv:2", [])])
def test_a_camera_edited_in_the_file_waits_for_a_restart_unless_another_is_in_use(
    table: Table, profile_file: Path, running: str, said: list[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve --camera opencv:2` runs another camera than the file's: an edit of the file's
    camera is not waiting for a restart (the override would win again)."""
    monkeypatch.setattr(PhotoCamera, "spec", running)
    client = create_app({"TESTING": True, "TABLE_PIN": PIN}, table=table).test_client()
    profile_file.write_text(profile_file.read_text().replace('"photo:"', '"opencv:1"'))
    fitted = post(client, "/api/calibration/zones/fit", {"seats": 3})
    applied = post(client, "/api/calibration/zones/apply", {"proposal": fitted.json["proposal"]})
    assert applied.status_code == 200, applied.json
    assert load_profile(profile_file).camera == "opencv:1"
    assert applied.json["restart_for"] == said
