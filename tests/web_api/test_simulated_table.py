"""Whole Bluff and Scam games at a simulated table, each reveal and re-roll read by the camera.

The table's truth (each player's dice in their cup and in front of it) is laid out in the
seat zones of a calibration profile, and a stand-in reader reports exactly those dice, surely
(now and then one die misread and unsure). So the reader's own quality is out of the question
here: what is checked is everything around it — players to seats (all of them, those out
included), cup zones against front-of-cup areas, the engine's expected dice, the table
applying a sure reading and holding an unsure one for a person — over random games with
eliminations, raises and re-rolls. Each sure camera reveal must apply at once with exactly the
dice on the table; each unsure one must wait for review and never be applied as read.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vision.reveal
from bluffcam.table import Table
from engine.scam import DICE_EACH as SCAM_DICE
from vision import ReaderParams
from vision.types import Die, Reading
from vision.zones import PolygonZones

NAMES = ["Ann", "Ben", "Cho", "Dev", "Eve", "Fay"]
SEAT_W = 100.0
#: six seats side by side: each a cup zone below a front-of-cup strip
ZONES = PolygonZones(
    tuple(f"Seat {i + 1}" for i in range(6)),
    tuple(((i * SEAT_W, 100.0), ((i + 1) * SEAT_W, 100.0), ((i + 1) * SEAT_W, 400.0),
           (i * SEAT_W, 400.0)) for i in range(6)),
    tuple(((i * SEAT_W, 0.0), ((i + 1) * SEAT_W, 0.0), ((i + 1) * SEAT_W, 90.0),
           (i * SEAT_W, 90.0)) for i in range(6)),
)


class TableTop:
    """The dice on the table: in each player's cup zone and in front of their cup (players at
    the seats numbered in ``seats``, else at the first ones in order)."""

    def __init__(self, players: list[str], seats: list[int] | None = None) -> None:
        self.seat = {name: (seats[i] - 1 if seats else i) for i, name in enumerate(players)}
        self.cup: dict[str, list[int]] = {}
        self.aside: dict[str, list[int]] = {}
        #: a player whose first cup die the camera misreads, unsure (one face on, at 40%)
        self.misread: str | None = None

    def reading(self) -> Reading:
        dice = []
        for name, faces in self.cup.items():
            left = self.seat[name] * SEAT_W
            dice += [_die(f, left + 20 + 30 * (k % 3), 140 + 60 * (k // 3))
                     if k or name != self.misread
                     else _die(f % 6 + 1, left + 20, 140, confidence=0.4)
                     for k, f in enumerate(faces)]
        for name, faces in self.aside.items():
            left = self.seat[name] * SEAT_W
            dice += [_die(f, left + 12 + 15 * k, 45) for k, f in enumerate(faces)]
        return Reading(dice=tuple(dice), width=600, height=400)


def _die(value: int, x: float, y: float, confidence: float = 0.99) -> Die:
    square = np.array([[-6, -6], [6, -6], [6, 6], [-6, 6]], dtype=np.float64) + [x, y]
    return Die(value, x, y, confidence, square)


class StillCamera:
    spec = "simulated:"
    status = "ok"

    def frames(self) -> Iterator[Any]:
        for _ in range(12):
            yield np.zeros((400, 600, 3), np.uint8)


def _table_at(top: TableTop, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Table:
    """A real Table whose camera looks at ``top`` (through a reader that reports its dice)."""
    monkeypatch.setattr(vision.reveal, "_default_reader",
                        lambda: lambda frame, params: top.reading())
    profile = SimpleNamespace(zones=ZONES, reader_params=ReaderParams())
    return Table(folder / "journal.sqlite", camera=StillCamera(), profile=profile,
                 data_dir=folder)


def _sorted_reveals(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rounds with each seat's revealed dice sorted (the camera lists them as it finds
    them, a person as they are confirmed)."""
    return [{**r, "reveal": {n: sorted(v) for n, v in r["reveal"].items()}} for r in history]


def _roll(rng: random.Random, count: int) -> list[int]:
    return [rng.randint(1, 6) for _ in range(count)]


def _play(table: Table, top: TableTop, rng: random.Random) -> int:
    """Play the game to its end; the number of camera reveals applied (one a round)."""
    for played in range(200):
        state = table.state()
        game = state["game"]
        if game["phase"] == "over":
            return played
        # a new round: every player still in rolls their dice
        top.cup = {p["name"]: _roll(rng, p["dice"]) for p in game["players"] if not p["out"]}
        top.aside = {name: [] for name in top.cup}
        for _bid in range(rng.randint(1, 4)):
            state = table.state()
            turn = state["game"]["turn"]
            bid = rng.choice(state["legal"]["lowest_raises"])
            if "set_aside" in state["legal"]["kinds"] and len(top.cup[turn]) > 1 \
                    and rng.random() < 0.4:
                # raise and re-roll: some dice to the front of the cup, the rest re-rolled;
                # the camera reads which dice were set aside
                moved = rng.sample(top.cup[turn], rng.randint(1, len(top.cup[turn]) - 1))
                rest = list((Counter(top.cup[turn]) - Counter(moved)).elements())
                top.aside[turn] += moved
                top.cup[turn] = _roll(rng, len(rest))
                table.submit({"player": turn, "bid": bid, "reroll": True}, source="panel")
                assert sorted(table.state()["set_aside"][turn]) == sorted(top.aside[turn])
            else:
                table.submit({"player": turn, "bid": bid})
        table.submit({"player": table.state()["game"]["turn"], "challenge": True})
        truth = {name: sorted(top.cup[name] + top.aside[name]) for name in top.cup}
        # now and then the camera misreads a die, unsure: a person confirms the truth
        top.misread = rng.choice([n for n in top.cup if top.cup[n]] or [None]) \
            if rng.random() < 0.25 else None
        settled = len(table.state()["history"])
        after = table.capture_reveal()
        if top.misread is not None:  # never applied as read: it waits for a person
            review = after["review"]
            assert review is not None and len(after["history"]) == settled
            assert [p["kind"] for p in review["problems"]] == ["uncertain"]
            assert review["problems"][0]["seat"] == top.misread
            after = table.confirm_review(review["id"], truth)
            assert after["last_reveal"]["how"] == "confirmed"
        else:
            assert after["review"] is None, after["review"]["problems"]
            assert after["last_reveal"]["how"] == "camera"
        applied = after["last_reveal"]
        assert {n: sorted(v) for n, v in applied["seats"].items()} == truth
        if rng.random() < 0.15:  # a player doubts the verdict and has the dice checked again
            assert after["reopen"] == applied["id"]
            reopened = table.reopen_reveal(applied["id"])
            assert reopened["game"]["phase"] == "reveal" and len(reopened["history"]) == settled
            again = table.confirm_review(applied["id"], truth)
            assert again["game"] == after["game"]
            assert _sorted_reveals(again["history"]) == _sorted_reveals(after["history"])
    raise AssertionError("the game did not end in 200 rounds")


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6), dice=st.integers(1, 3),
       choose_seats=st.booleans())
def test_whole_games_read_by_the_camera_apply_exactly_the_dice_on_the_table(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
    seed: int, players: int, dice: int, choose_seats: bool,
) -> None:
    rng = random.Random(seed)
    names = NAMES[:players]
    # the players take the first seats, or seats of their choosing round the table for six
    seats = sorted(rng.sample(range(1, 7), players)) if choose_seats else None
    top = TableTop(names, seats)
    table = _table_at(top, tmp_path_factory.mktemp("simulated"), monkeypatch)
    try:
        setup: dict[str, Any] = {"game": "bluff", "players": names, "starter": rng.choice(names),
                                 "options": {"dice_per_player": dice}}
        if seats:
            setup["seats"] = seats
        table.new_game(setup)
        reveals = _play(table, top, rng)
        final = table.state()["game"]
    finally:
        table.close()
    assert final["winner"] in names and reveals >= 1
    # someone was out before the last reveal whenever more than two played
    assert sum(p["out"] for p in final["players"]) == players - 1


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 4))
def test_whole_scam_games_read_by_the_camera_apply_exactly_the_dice_on_the_table(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
    seed: int, players: int,
) -> None:
    rng = random.Random(seed)
    names = NAMES[:players]
    top = TableTop(names)
    table = _table_at(top, tmp_path_factory.mktemp("simulated-scam"), monkeypatch)
    reveals = 0
    try:
        table.new_game({"game": "scam", "players": names, "starter": rng.choice(names),
                        "options": {"target": 4}})
        for _step in range(2000):
            state = table.state()
            game = state["game"]
            if game["phase"] == "over":
                break
            if game["phase"] == "reveal":
                truth = {name: sorted(top.cup[name]) for name in top.cup}
                after = table.capture_reveal()
                assert after["review"] is None, after["review"]["problems"]
                assert {n: sorted(v) for n, v in after["last_reveal"]["seats"].items()} == truth
                reveals += 1
                top.cup = {}
                continue
            if not top.cup:  # a new round: everyone rolls their dice
                top.cup = {name: _roll(rng, SCAM_DICE) for name in names}
            kinds = state["legal"]["kinds"]
            move = rng.choice([k for k in ("bid", "pass", "scam") if k in kinds])
            turn = game["turn"]
            if move == "bid":
                table.submit({"player": turn, "bid": rng.choice(state["legal"]["lowest_raises"])})
            else:
                table.submit({"player": turn, move: True})
        final = table.state()["game"]
    finally:
        table.close()
    assert final["phase"] == "over" and final["winner"] in names and reveals >= 1


def test_after_a_player_is_out_each_other_player_is_read_in_their_own_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann (the first seat) is out: Ben's die is still read in his zone, not in hers."""
    top = TableTop(["Ann", "Ben", "Cho"])
    table = _table_at(top, tmp_path, monkeypatch)
    try:
        table.new_game({"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann",
                        "options": {"dice_per_player": 1}})
        for action in ({"player": "Ann", "bid": "3x5"}, {"player": "Ben", "challenge": True},
                       {"reveal": {"Ann": [1], "Ben": [2], "Cho": [3]}}):
            table.submit(action)
        assert [p["out"] for p in table.state()["game"]["players"]] == [True, False, False]
        top.cup = {"Ben": [4], "Cho": [6]}
        turn = table.state()["game"]["turn"]
        table.submit({"player": turn, "bid": "1x4"})
        table.submit({"player": "Cho" if turn == "Ben" else "Ben", "challenge": True})
        state = table.capture_reveal()
    finally:
        table.close()
    assert state["review"] is None, state["review"]
    assert state["last_reveal"]["seats"] == {"Ben": [4], "Cho": [6]}
