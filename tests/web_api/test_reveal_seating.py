"""The table's camera reveals keep each player at their own zone after another player is out:
the zones are the table's seats, and a player who drops out leaves an empty seat behind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import vision.reveal
from bluffcam.table import Table
from vision import ReaderParams
from vision.types import Die, Reading
from vision.zones import PolygonZones

#: three seats side by side on a 300 x 200 picture
ZONES = PolygonZones(
    ("Seat 1", "Seat 2", "Seat 3"),
    tuple(((x, 0.0), (x + 100.0, 0.0), (x + 100.0, 200.0), (x, 200.0))
          for x in (0.0, 100.0, 200.0)),
)


class StillCamera:
    spec = "still:"
    status = "ok"

    def frames(self) -> Iterator[Any]:
        for _ in range(12):
            yield np.zeros((200, 300, 3), np.uint8)


def _die(value: int, x: float, y: float) -> Die:
    square = np.array([[-8, -8], [8, -8], [8, 8], [-8, 8]], dtype=np.float64) + [x, y]
    return Die(value, x, y, 0.97, square)


def test_after_a_player_is_out_each_other_player_is_read_in_their_own_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the camera sees Ben's 4 in the middle zone and Cho's 6 in the right one
    seen = Reading(dice=(_die(4, 150, 100), _die(6, 250, 100)), width=300, height=200)
    monkeypatch.setattr(vision.reveal, "_default_reader", lambda: lambda frame, params: seen)
    profile = SimpleNamespace(zones=ZONES, reader_params=ReaderParams())
    table = Table(tmp_path / "journal.sqlite", camera=StillCamera(), profile=profile)
    try:
        table.new_game({"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann",
                        "options": {"dice_per_player": 1}})
        for action in ({"player": "Ann", "bid": "3x5"}, {"player": "Ben", "challenge": True},
                       {"reveal": {"Ann": [1], "Ben": [2], "Cho": [3]}}):
            table.submit(action)
        players = {p["name"]: p for p in table.state()["game"]["players"]}
        assert players["Ann"]["out"] and not players["Ben"]["out"]
        turn = table.state()["game"]["turn"]
        other = "Cho" if turn == "Ben" else "Ben"
        table.submit({"player": turn, "bid": "1x4"})
        table.submit({"player": other, "challenge": True})
        state = table.capture_reveal()
    finally:
        table.close()
    assert state["review"] is None, state["review"]
    assert state["last_reveal"]["seats"] == {"Ben": [4], "Cho": [6]}
    assert state["last_reveal"]["how"] == "camera"
