"""Elo ratings from a game's places (engine/ratings.py)."""

from __future__ import annotations

import pytest

from engine.ratings import START_RATING, expected_score, rate_game, rate_games


def test_a_duel_between_equals_moves_each_by_half_k() -> None:
    after = rate_game({}, [["Ann"], ["Ben"]])
    assert after == {"Ann": START_RATING + 16, "Ben": START_RATING - 16}


def test_ratings_are_zero_sum_and_follow_the_places() -> None:
    before = {"Ann": 1600.0, "Ben": 1500.0, "Cho": 1420.0}
    after = rate_game(before, [["Cho"], ["Ann"], ["Ben"]])
    assert sum(after.values()) == pytest.approx(sum(before.values()))
    assert after["Cho"] > before["Cho"] and after["Ben"] < before["Ben"]


def test_an_upset_moves_more_than_an_expected_win() -> None:
    expected = rate_game({"Ann": 1700.0, "Ben": 1300.0}, [["Ann"], ["Ben"]])
    upset = rate_game({"Ann": 1700.0, "Ben": 1300.0}, [["Ben"], ["Ann"]])
    assert upset["Ben"] - 1300 > expected["Ann"] - 1700 > 0


def test_a_shared_place_between_equals_changes_nothing() -> None:
    assert rate_game({}, [["Ann", "Ben"]]) == {"Ann": START_RATING, "Ben": START_RATING}


def test_players_not_in_the_game_keep_their_rating() -> None:
    assert rate_game({"Dan": 1555.0}, [["Ann"], ["Ben"]])["Dan"] == 1555.0


def test_each_game_kind_keeps_its_own_ratings() -> None:
    kinds = rate_games([("bluff", [["Ann"], ["Ben"]]), ("scam", [["Ben"], ["Ann"]])])
    assert kinds["bluff"]["Ann"] > START_RATING > kinds["scam"]["Ann"]


def test_the_expected_score_is_elos_curve() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)


@pytest.mark.parametrize("places", [[["Ann"], ["Ann"]], [["Ann"], []]])
def test_bad_places_are_refused_naming_them(places: list[list[str]]) -> None:
    with pytest.raises(ValueError, match="Ann"):
        rate_game({}, places)
