"""Tonight's standings as a table and each game kind's ratings across evenings
(`bluffcam.standings`): every player who played, games played and won per kind, the last
game's places, Elo from the journal's games."""

from __future__ import annotations

import json
from pathlib import Path

from bluffcam.standings import replay_places, standings_table
from bluffcam.table import Table
from engine.ratings import START_RATING

ONE_DIE = {"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann",
           "options": {"dice_per_player": 1}}
SHORT_IMPUS = json.loads((Path(__file__).parents[1] / "known_games"
                          / "impus_two_kinds_to_the_end.json").read_text(encoding="utf-8"))


def three_player_bluff(table: Table) -> None:
    """Ben goes out first (his doubt of a bid that holds), then the next doubter."""
    table.new_game(ONE_DIE)
    table.submit({"player": "Ann", "bid": "1x3"})
    table.submit({"player": "Ben", "challenge": True})
    table.submit({"reveal": {"Ann": [3], "Ben": [4], "Cho": [3]}})  # holds (not exactly): Ben out
    turn = table.state()["game"]["turn"]
    other = "Ann" if turn == "Cho" else "Cho"
    table.submit({"player": turn, "bid": "1x6"})
    table.submit({"player": other, "challenge": True})
    table.submit({"reveal": {turn: [6], other: [6]}})  # holds (not exactly): the doubter out


def test_a_bluff_games_places_are_the_winner_then_the_last_out_first(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    try:
        three_player_bluff(table)
        game = table.state()["game"]
        assert game["phase"] == "over"
        script = table.export()
        found = replay_places({k: v for k, v in script.items() if k != "actions"},
                              script["actions"])
        assert found is not None
        kind, places = found
        winner = game["winner"]
        assert kind == "bluff" and places[0] == [winner] and places[-1] == ["Ben"]
        assert len(places) == 3
    finally:
        table.close()


def test_tonights_table_lists_every_player_with_games_and_wins_per_kind(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    try:
        assert table.state()["standings"] is None
        three_player_bluff(table)
        script = dict(SHORT_IMPUS["script"])
        actions = script.pop("actions")
        table.new_game(script)
        for action in actions:
            table.submit(action)
        standings = table.state()["standings"]
        assert standings["games"] == 2 and standings["kinds"] == ["bluff", "impus"]
        rows = {row["name"]: row for row in standings["players"]}
        assert set(rows) >= {"Ann", "Ben", "Cho"}  # those with no win too
        assert rows["Ben"]["kinds"]["bluff"] == {"played": 1, "won": 0}
        assert standings["last_game"]["kind"] == "impus"
        assert standings["last_game"]["places"][-1] == ["Ben"]  # Impus's loser last
        assert rows["Ben"]["last_place"] == len(standings["last_game"]["places"])
        assert rows["Ben"]["ratings"]["bluff"] < START_RATING
    finally:
        table.close()


def test_ratings_carry_across_evenings(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite")
    try:
        three_player_bluff(table)
        first = {r["name"]: r["ratings"]["bluff"] for r in table.state()["standings"]["players"]}
        table.new_evening()
        three_player_bluff(table)
        rows = table.state()["standings"]["players"]
        assert table.state()["standings"]["games"] == 1  # tonight: one game
        ben = next(r for r in rows if r["name"] == "Ben")
        assert ben["ratings"]["bluff"] < first["Ben"]  # out first twice: lower again
    finally:
        table.close()


def test_a_game_under_way_is_not_counted() -> None:
    assert standings_table([], {}) is None
