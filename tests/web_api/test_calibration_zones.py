"""The calibration page's snapshot draws the seat zones as every reveal photo does: in each
seat's colour, labelled with the player who sits there while a game is on."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient
from web_api_helpers import SETUP

from bluffcam.table import Table
from vision.reveal import draw_zones, seat_colour, seat_labels
from vision.zones import PolygonZones

ZONES = PolygonZones(
    ("Seat 1", "Seat 2", "Seat 3"),
    tuple(((x + 25.0, 100.0), (x + 300.0, 100.0), (x + 300.0, 650.0), (x + 25.0, 650.0))
          for x in (0.0, 325.0, 650.0)),
)


class GreyCamera:
    spec = "grey:"
    status = "ok"

    def frames(self) -> Iterator[Any]:
        yield self.read()

    def read(self) -> Any:
        return np.full((750, 1000, 3), 128, np.uint8)


@pytest.fixture
def camera() -> GreyCamera:
    return GreyCamera()


def _snapshot(client: FlaskClient, query: str = "") -> np.ndarray:
    response = client.get(f"/api/camera/snapshot{query}")
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return np.asarray(image, np.int16)


def test_each_zone_is_drawn_in_its_seats_reveal_colour(client: FlaskClient, table: Table) -> None:
    table.profile = SimpleNamespace(zones_for_frame=lambda frame: ZONES)
    picture = _snapshot(client)
    for seat, left in enumerate((25, 350, 675)):
        edge = picture[375, left]  # the zone's left side, half way down
        assert np.abs(edge - np.array(seat_colour(seat))).max() < 60, (seat, edge)
    plain = _snapshot(client, "?zones=0")
    assert np.abs(plain - 128).max() < 10


def test_the_zones_are_labelled_with_the_players_while_a_game_is_on(
    client: FlaskClient, table: Table
) -> None:
    table.profile = SimpleNamespace(zones_for_frame=lambda frame: ZONES)
    before = _snapshot(client)
    table.new_game(SETUP)
    during = _snapshot(client)
    # the labels' corner changed (Ann for Seat 1); the zones' sides did not
    assert np.abs(before[100:160, 25:300] - during[100:160, 25:300]).max() > 40
    assert np.array_equal(before[375, 25], during[375, 25])


def test_seat_labels_name_the_players_those_out_and_the_empty_seats() -> None:
    assert seat_labels(ZONES, ["Ann", "Ben"], out=["Ann"]) == ["Ann (out)", "Ben",
                                                             "Seat 3 (empty)"]
    assert seat_labels(ZONES, ["Ann", "Ben", "Cho"]) == ["Ann", "Ben", "Cho"]


def test_names_outside_ascii_are_written_on_photos_as_opencv_can_draw_them() -> None:
    """OpenCV's fonts draw "?" for every letter outside ASCII: accents are dropped, a
    name in another script gives way to its seat's name."""
    assert seat_labels(ZONES, ["Zoë", "Søren", "李"], out=["Søren"]) == [
        "Zoe", "Soren (out)", "Seat 3"]
    assert seat_labels(ZONES, ["Straße", "Łukasz"]) == ["Strasse", "Lukasz", "Seat 3 (empty)"]
    # what a phone's keyboard types: curly apostrophes, dashes, an emoji
    assert seat_labels(ZONES, ["O’Brien", "Jean–Luc", "Ann 🎲"]) == ["O'Brien", "Jean-Luc",
                                                                     "Ann"]
    blank = np.zeros((400, 600, 3), np.uint8)
    by_seat, by_name = blank.copy(), blank.copy()
    draw_zones(by_seat, ZONES, ["Seat 1", "Seat 2", "Seat 3"])
    draw_zones(by_name, ZONES, ["李", "Seat 2", "Seat 3"])  # a caller that did not ask
    assert np.array_equal(by_seat, by_name)
