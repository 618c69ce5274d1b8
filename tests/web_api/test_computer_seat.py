"""A computer seat at the table: it moves by itself, its cup is journalled and hidden until the
reveal, where its dice join the camera's (or the typed) reading of the humans' dice."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from web_api_helpers import StubCamera, StubReader, post

from bluffcam.table import Table, TableError

SETUP = {"game": "perudo", "players": ["Ann", "Cho"], "starter": "Ann",
         "computer": {"player": "Cho", "level": "hard"}}


@pytest.fixture
def quick(tmp_path: Path, camera: StubCamera, reader: StubReader) -> Iterator[Table]:
    """A table whose computer moves without a pause."""
    t = Table(tmp_path / "journal.sqlite", camera=camera, reveal_reader=reader,
              computer_pause=(0.0, 0.0))
    yield t
    t.close()


def wait_for_actions(table: Table, count: int) -> dict[str, Any]:
    for _ in range(500):
        state = table.state()
        if state["actions_count"] >= count:
            return state
        time.sleep(0.01)
    raise AssertionError(f"the computer did not move: {table.state()['actions_count']} actions")


def cup_key(table: Table) -> str:
    return f"computer_cup_{table._journal.game_id}"


def stored_dice(table: Table) -> dict[str, Any]:
    return json.loads(table._journal.setting(cup_key(table)) or "{}")  # type: ignore[no-any-return]


def test_the_computer_moves_after_a_human_and_its_dice_join_the_typed_reveal(
    quick: Table,
) -> None:
    quick.new_game(SETUP)
    assert quick.state()["setup"]["computer"] == {"player": "Cho", "level": "hard"}
    quick.submit({"player": "Ann", "bid": "9x6"})  # nine 6s among ten dice: Cho doubts
    state = wait_for_actions(quick, 2)
    assert state["game"]["phase"] == "reveal"
    cho = stored_dice(quick)["0"]["dice"]
    assert len(cho) == 5
    state = quick.submit({"reveal": {"Ann": [2, 2, 3, 3, 4]}})  # the humans' dice only
    assert state["history"][0]["reveal"] == {"Ann": [2, 2, 3, 3, 4], "Cho": cho}


def test_the_camera_reads_the_humans_only_and_the_cup_fills_in(
    quick: Table, reader: StubReader
) -> None:
    quick.new_game(SETUP)
    quick.submit({"player": "Ann", "bid": "9x6"})
    wait_for_actions(quick, 2)
    reader.hands = {"Ann": [2, 2, 3, 3, 4]}
    state = quick.capture_reveal()
    assert reader.calls == [{"Ann": 5}]
    assert state["history"][0]["reveal"]["Cho"] == stored_dice(quick)["0"]["dice"]
    assert state["game"]["phase"] == "bidding"


def test_the_cup_is_journalled_and_survives_a_restart(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    table = Table(journal, computer_pause=(60.0, 60.0))  # it will not move in this test
    table.new_game({**SETUP, "starter": "Cho"})
    table.play_computer(0)  # as the timer would: Cho opens the round
    assert table.state()["actions_count"] == 1
    dice = stored_dice(table)
    table.close()
    again = Table(journal, computer_pause=(60.0, 60.0))
    assert stored_dice(again) == dice
    again.submit({"player": "Ann", "dudo": True})
    state = again.submit({"reveal": {"Ann": [1, 1, 1, 1, 1]}})
    assert state["history"][0]["reveal"]["Cho"] == dice["0"]["dice"]
    again.close()


def test_no_screen_shows_the_computers_dice_before_the_reveal(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite", computer_pause=(60.0, 60.0))
    table.new_game({**SETUP, "starter": "Cho"})
    table.play_computer(0)
    before = table.state()
    table._journal.set_setting(cup_key(table), json.dumps({"0": {"dice": [6, 6, 6, 6, 6],
                                                                  "at": 0}}))
    assert table.state() == before  # the state does not depend on the computer's dice
    table._journal.set_setting(cup_key(table), json.dumps({"0": {"dice": [2, 3, 4, 5, 2],
                                                                  "at": 0}}))
    assert table.state() == before
    table.close()


def test_a_stale_timer_does_not_move_for_a_later_turn(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite", computer_pause=(60.0, 60.0))
    table.new_game({**SETUP, "starter": "Cho"})
    table.play_computer(5)  # chosen for another position: nothing happens
    assert table.state()["actions_count"] == 0
    table.close()


@pytest.mark.parametrize(
    ("computer", "words"),
    [
        ({"player": "Zed"}, "not one of the players"),
        ({"player": "Cho", "level": "genius"}, "easy, normal or hard"),
        ("Cho", "give {"),
        ({"player": "Cho", "extra": 1}, "give {"),
    ],
)
def test_a_bad_computer_entry_is_refused_and_changes_nothing(
    table: Table, computer: Any, words: str
) -> None:
    with pytest.raises(TableError, match=words):
        table.new_game({**SETUP, "computer": computer})
    assert table.state()["game"] is None


def test_the_computer_does_not_play_impus(table: Table) -> None:
    with pytest.raises(TableError, match="not Impus Bluff"):
        table.new_game({"game": "impus", "players": ["Ann", "Cho"],
                        "computer": {"player": "Cho"}})


def test_the_api_starts_a_game_with_a_computer_seat(client: FlaskClient) -> None:
    response = post(client, "/api/game", {**SETUP, "starter": "Cho"})
    assert response.status_code == 200, response.json
    assert response.json["setup"]["computer"]["player"] == "Cho"


def test_the_cup_rerolls_after_the_computers_raise_and_reroll_keeping_the_set_aside(
    tmp_path: Path,
) -> None:
    import random

    from bluffcam.computer_seat import ComputerSeat
    from bot import Cup
    from engine import Journal, new_game, parse_action

    journal = Journal(tmp_path / "j.sqlite")
    game = new_game("bluff", ["Ann", "Cho"], "Cho")
    journal.start(game.setup_json())
    seat = ComputerSeat("Cho", "hard", journal, journal.game_id, Cup(random.Random(4)))
    first = seat.hand(game)
    assert seat.hand(game) == first  # asked again: the same dice, not a new roll
    kept = first[:2]
    game.apply(parse_action({"player": "Cho", "bid": "1x2", "set_aside": list(kept)}))
    after = seat.hand(game)
    assert after[:2] == kept and len(after) == 5
    assert seat.hand(game) == after  # re-rolled once only
    game.apply(parse_action({"player": "Ann", "challenge": True}))
    reveal = seat.complete_reveal(game, {"Ann": [2, 2, 2, 2, 2]})
    assert reveal["Cho"] == list(after)
    game.apply(parse_action({"reveal": reveal}))
    next_round = seat.hand(game)
    assert len(next_round) == game.dice["Cho"]  # type: ignore[attr-defined]
    # the reveal undone: back to that round's dice, not a new roll
    undone = game.without_last()
    assert seat.hand(undone) == after
    journal.close()
