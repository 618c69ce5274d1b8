"""A game's "seats": which of the table's seats each player took (the rules never see it)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from flask.testing import FlaskClient
from web_api_helpers import post

from bluffcam.table import Table
from vision.zones import PolygonZones

FOUR_SEATS = PolygonZones(
    ("North", "East", "South", "West"),
    tuple(((x, 0.0), (x + 100.0, 0.0), (x + 100.0, 100.0), (x, 100.0))
          for x in (0.0, 100.0, 200.0, 300.0)),
)
GAME = {"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann"}


@pytest.mark.parametrize("seats, message", [
    ("1,2,3", "give a list of seat numbers such as [1, 2, 4], got '1,2,3'"),
    ([1, True, 3], "give a list of seat numbers"),
    ([1, 2], "give one seat number per player (3 players, 2 seat numbers)"),
    ([1, 2, 5], "Cho's seat 5 does not exist; the table has seats 1 to 4"),
    ([0, 2, 3], "Ann's seat 0 does not exist"),
    ([1, 4, 2], "the players sit clockwise in the order listed, so Cho's seat must come after "
                "Ben's 4, not 2"),
    ([1, 1, 2], "Ben's seat must come after Ann's 1, not 1"),
])
def test_seats_that_do_not_fit_are_refused_by_name_and_change_nothing(
    client: FlaskClient, table: Table, seats: object, message: str
) -> None:
    table.profile = SimpleNamespace(zones=FOUR_SEATS)
    before = client.get("/api/state").json
    refused = post(client, "/api/game", {**GAME, "seats": seats})
    assert refused.status_code == 400
    assert message in refused.json["error"]["message"]
    after = client.get("/api/state").json
    assert after["setup"] == before["setup"] and after["version"] == before["version"]


def test_the_seats_are_kept_with_the_game_and_across_a_restart(tmp_path: Path) -> None:
    profile = SimpleNamespace(zones=FOUR_SEATS)
    table = Table(tmp_path / "journal.sqlite", profile=profile)
    try:
        state = table.new_game({**GAME, "seats": [1, 2, 4]})
        assert state["setup"]["seats"] == [1, 2, 4]
        assert state["table_seats"] == ["North", "East", "South", "West"]
        assert table.seating() == ["Ann", "Ben", None, "Cho"]
        table.submit({"player": "Ann", "bid": "2x3"})
    finally:
        table.close()
    resumed = Table(tmp_path / "journal.sqlite", profile=profile)
    try:
        assert resumed.seating() == ["Ann", "Ben", None, "Cho"]
        assert resumed.state()["game"]["bid"] == "2x3"
        # the rules' own script (export, replay) has no seats: they are the table's
        assert "seats" not in resumed.export()
    finally:
        resumed.close()


def test_without_seats_the_players_take_the_first_seats(table: Table) -> None:
    table.profile = SimpleNamespace(zones=FOUR_SEATS)
    table.new_game(GAME)
    assert table.seating() == ["Ann", "Ben", "Cho"]
    assert "seats" not in table.state()["setup"]


def test_a_game_with_more_players_than_seats_is_told_to_enter_reveals_by_hand(
    client: FlaskClient, table: Table
) -> None:
    table.profile = SimpleNamespace(zones=PolygonZones(("North", "South"), FOUR_SEATS.zones[:2]))
    state = post(client, "/api/game", GAME).json
    warning = "the calibration profile has 2 seats and this game needs 3"
    assert any(warning in m["text"] for m in state["messages"])
    post(client, "/api/action", {"player": "Ann", "bid": "2x3"})
    post(client, "/api/action", {"player": "Ben", "challenge": True})
    capture = post(client, "/api/reveal/capture")
    assert capture.status_code == 409
    assert capture.json["error"]["message"] == f"{warning}: enter the reveal by hand"
    assert client.get("/api/state").json["review"] is None


def test_a_reroll_read_by_the_camera_is_refused_too_where_the_seats_are_too_few(
    client: FlaskClient, table: Table
) -> None:
    table.profile = SimpleNamespace(zones=PolygonZones(("North", "South"), FOUR_SEATS.zones[:2]))
    post(client, "/api/game", GAME)
    before = client.get("/api/state").json
    refused = post(client, "/api/action", {"player": "Ann", "bid": "2x3", "reroll": True})
    assert refused.status_code == 409
    assert refused.json["error"]["message"] == (
        "raise and re-roll: the calibration profile has 2 seats and this game needs 3; "
        "give their faces by hand")
    assert client.get("/api/state").json["actions_count"] == before["actions_count"]


def test_a_card_game_needs_no_seats_for_its_reveals(client: FlaskClient, table: Table) -> None:
    table.profile = SimpleNamespace(zones=PolygonZones(("North", "South"), FOUR_SEATS.zones[:2]))
    state = post(client, "/api/game", {**GAME, "game": "impus"}).json
    assert not any("seats" in m["text"] for m in state["messages"]), state["messages"]
