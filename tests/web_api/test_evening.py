"""Tonight's standings: each finished game's winner (or Impus Bluff's loser) over an evening,
kept across undo and restarts, from the journal alone."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from flask.testing import FlaskClient
from web_api_helpers import post

from bluffcam.table import Table
from bluffcam.table.evening import EVENING, GameResult, standings
from engine.journal import _encode

ONE_DIE = {"game": "bluff", "players": ["Ann", "Ben"], "starter": "Ann",
           "options": {"dice_per_player": 1}}
#: the shortest Impus Bluff game that ends: Ben loses (I9)
SHORT_IMPUS = json.loads((Path(__file__).parents[1] / "known_games"
                          / "impus_two_kinds_to_the_end.json").read_text(encoding="utf-8"))


def one_die_game(table: Table, winner: str) -> None:
    """A one-die Bluff game: Ann bids one 2 and Ben challenges; the dice decide the winner."""
    table.new_game(ONE_DIE)
    table.submit({"player": "Ann", "bid": "1x2"})
    table.submit({"player": "Ben", "challenge": True})
    ann = 2 if winner == "Ann" else 3
    table.submit({"reveal": {"Ann": [ann], "Ben": [4]}})
    assert table.state()["game"]["winner"] == winner


def tally(table: Table) -> tuple[int, dict[str, tuple[int, int]]] | None:
    evening = table.state()["evening"]
    if evening is None:
        return None
    return evening["games"], {p["name"]: (p["wins"], p["losses"]) for p in evening["players"]}


def test_each_game_that_ends_adds_its_winner_and_an_impus_game_its_loser(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    assert table.state()["evening"] is None
    table.new_game(ONE_DIE)
    assert tally(table) is None  # a game on is no result yet
    one_die_game(table, "Ben")
    assert tally(table) == (1, {"Ben": (1, 0)})
    one_die_game(table, "Ann")
    one_die_game(table, "Ben")
    script = dict(SHORT_IMPUS["script"])
    actions = script.pop("actions")
    table.new_game(script)
    assert tally(table) == (3, {"Ben": (2, 0), "Ann": (1, 0)})
    for action in actions:
        table.submit(action)
    assert tally(table) == (4, {"Ben": (2, 1), "Ann": (1, 0)})
    assert [p["name"] for p in table.state()["evening"]["players"]] == ["Ben", "Ann"]
    table.close()


def test_undoing_the_last_reveal_takes_its_result_back(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    one_die_game(table, "Ben")
    one_die_game(table, "Ann")
    table.undo()
    assert tally(table) == (1, {"Ben": (1, 0)})
    table.submit({"reveal": {"Ann": [3], "Ben": [4]}})  # the dice read again: Ben won
    assert tally(table) == (2, {"Ben": (2, 0)})
    table.close()


def test_a_restarted_table_replays_the_evening_from_its_journal(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    one_die_game(table, "Ben")
    one_die_game(table, "Ann")
    table.new_game(ONE_DIE)
    table.submit({"player": "Ann", "bid": "1x3"})  # the game on when the power went
    before = tally(table)
    table.close()
    resumed = Table(tmp_path / "journal.sqlite")
    assert tally(resumed) == before == (2, {"Ann": (1, 0), "Ben": (1, 0)})
    resumed.close()


def set_started(journal: Path, game_id: int, when: datetime) -> None:
    with sqlite3.connect(journal) as db:
        db.execute("UPDATE games SET started = ? WHERE id = ?",
                   (when.isoformat(timespec="seconds"), game_id))


def test_games_started_long_before_the_current_one_belong_to_another_evening(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    table = Table(path)
    one_die_game(table, "Ben")   # game 1: last night
    one_die_game(table, "Ann")   # game 2: tonight
    table.new_game(ONE_DIE)      # game 3: on now
    table.close()
    now = datetime.now(UTC)
    set_started(path, 1, now - EVENING - timedelta(minutes=5))
    set_started(path, 2, now - EVENING + timedelta(minutes=5))
    resumed = Table(path)
    assert tally(resumed) == (1, {"Ann": (1, 0)})
    resumed.close()


def test_a_game_that_no_longer_replays_is_left_out_and_the_table_resumes(
        tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    table = Table(path)
    one_die_game(table, "Ben")
    one_die_game(table, "Ann")
    table.new_game(ONE_DIE)
    table.submit({"player": "Ann", "bid": "1x4"})
    table.close()
    with sqlite3.connect(path) as db:  # game 1's setup garbled: its checksum fails
        db.execute("UPDATE games SET setup = replace(setup, 'Ann', 'Anx') WHERE id = 1")
        # game 2's reveal reads well but the rules refuse it (as after a change to the rules)
        body, crc = _encode({"reveal": {"Ann": [2, 2], "Ben": [4]}})
        db.execute("UPDATE actions SET body = ?, crc = ? WHERE game_id = 2 AND seq = 3",
                   (body, crc))
    resumed = Table(path)
    assert tally(resumed) is None
    assert resumed.state()["game"]["bid"] == "1x4"  # the current game resumed all the same
    resumed.close()


def test_standings_put_most_wins_first_then_fewest_losses_then_names() -> None:
    at = datetime.now(UTC)
    results = [GameResult(1, at, "Cho", None), GameResult(2, at, "Ann", None),
               GameResult(3, at, None, "Ann"), GameResult(4, at, None, "Ben"),
               GameResult(5, at, "Ben", None), GameResult(6, at, None, None)]
    assert standings(results) == {"games": 6, "players": [
        {"name": "Cho", "wins": 1, "losses": 0},
        {"name": "Ann", "wins": 1, "losses": 1},
        {"name": "Ben", "wins": 1, "losses": 1},
    ]}
    assert standings([]) is None


def test_a_new_evening_clears_the_ended_games_and_a_restart_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    table = Table(path)
    one_die_game(table, "Ben")
    one_die_game(table, "Ann")
    table.new_evening()  # at a game's end: that game is over too, so it goes
    assert tally(table) is None
    assert "tonight's standings start afresh" in [m["text"] for m in table.state()["messages"]]
    one_die_game(table, "Ben")
    table.new_game(ONE_DIE)
    table.submit({"player": "Ann", "bid": "1x2"})
    table.new_evening()  # in a game: that game still counts once it ends
    table.submit({"player": "Ben", "challenge": True})
    table.submit({"reveal": {"Ann": [2], "Ben": [4]}})
    assert tally(table) == (1, {"Ann": (1, 0)})
    table.close()
    resumed = Table(path)
    assert tally(resumed) == (1, {"Ann": (1, 0)})
    one_die_game(resumed, "Ben")
    assert tally(resumed) == (2, {"Ann": (1, 0), "Ben": (1, 0)})
    resumed.close()


def test_the_api_starts_a_new_evening_only_with_the_pin(client: FlaskClient, table: Table) -> None:
    one_die_game(table, "Ben")
    refused = post(client, "/api/evening/new", pin=None)
    assert refused.status_code in (401, 403) and tally(table) == (1, {"Ben": (1, 0)})
    broken = post(client, "/api/evening/new", data="{not json",
                  headers={"Content-Type": "application/json"})
    assert broken.status_code == 400 and tally(table) == (1, {"Ben": (1, 0)})
    answered = post(client, "/api/evening/new")
    assert answered.status_code == 200 and answered.json["evening"] is None
    assert tally(table) is None


def test_a_clock_set_back_or_a_time_without_its_zone_loses_no_game(tmp_path: Path) -> None:
    """A Pi without a clock battery, after a power cut, starts the next game "before" the
    last ones (the ids say otherwise); a start time edited by hand without its zone stopped
    the table from starting."""
    path = tmp_path / "journal.sqlite"
    table = Table(path)
    one_die_game(table, "Ben")
    one_die_game(table, "Ann")
    table.new_game(ONE_DIE)
    table.close()
    now = datetime.now(UTC)
    set_started(path, 1, now - timedelta(minutes=30))
    with sqlite3.connect(path) as db:  # no zone: as typed by hand
        db.execute("UPDATE games SET started = ? WHERE id = 2",
                   ((now - timedelta(minutes=10)).replace(tzinfo=None).isoformat(),))
    set_started(path, 3, now - timedelta(minutes=50))  # the clock went back
    resumed = Table(path)
    assert tally(resumed) == (2, {"Ann": (1, 0), "Ben": (1, 0)})
    resumed.close()


def test_a_current_game_that_no_longer_loads_keeps_the_evening(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    table = Table(path)
    one_die_game(table, "Ben")
    table.new_game(ONE_DIE)
    table.close()
    with sqlite3.connect(path) as db:  # the current game's setup garbled
        db.execute("UPDATE games SET setup = replace(setup, 'Ann', 'Anx') WHERE id = 2")
    resumed = Table(path)
    assert resumed.game is None
    assert tally(resumed) == (1, {"Ben": (1, 0)})
    resumed.close()
