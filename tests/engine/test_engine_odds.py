"""Odds (B17): exact probabilities checked against brute-force enumeration of every roll."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Bid
from engine.odds import bid_probability, expected_count


def brute_force(bid: Bid, hidden: int, seen: list[int], joker: int | None) -> float:
    def matches(face: int) -> bool:
        if bid.face is None:
            return face == joker
        return face == bid.face or (joker is not None and face == joker)

    known = sum(matches(f) for f in seen)
    rolls = list(itertools.product(range(1, 7), repeat=hidden))
    hits = sum(1 for roll in rolls if known + sum(matches(f) for f in roll) >= bid.count)
    return hits / len(rolls)


@settings(max_examples=80)
@given(
    count=st.integers(1, 7),
    face=st.sampled_from([None, 2, 3, 4, 5]),
    hidden=st.integers(0, 4),
    public=st.lists(st.integers(1, 6), max_size=3),
    own=st.none() | st.lists(st.integers(1, 6), max_size=3),
    joker=st.sampled_from([1, None]),
)
def test_B17_probability_matches_enumeration(
    count: int,
    face: int | None,
    hidden: int,
    public: list[int],
    own: list[int] | None,
    joker: int | None,
) -> None:
    bid = Bid(count, face)
    if face is None and joker is None:
        with pytest.raises(ValueError, match="no joker face"):
            bid_probability(bid, hidden, public, own, joker)
        return
    got = bid_probability(bid, hidden, public, own, joker)
    assert got == pytest.approx(brute_force(bid, hidden, public + (own or []), joker), abs=1e-12)


def test_B17_simple_values() -> None:
    assert bid_probability(Bid(1, 3), 1) == pytest.approx(1 / 3)
    assert bid_probability(Bid(1), 1) == pytest.approx(1 / 6)
    assert bid_probability(Bid(2, 3), 0, [3, 1]) == 1.0
    assert bid_probability(Bid(3, 3), 0, [3, 1]) == 0.0
    assert bid_probability(Bid(2, 3), 1, [3], own_faces=[1]) == 1.0
    assert expected_count(Bid(2, 4), 12, [4, 1, 5]) == pytest.approx(2 + 4)
    assert expected_count(Bid(2, 4), 12, [4, 1], joker_face=None) == pytest.approx(1 + 2)
    with pytest.raises(ValueError):
        bid_probability(Bid(1, 3), -1)


def test_B17_game_details_show_the_odds_of_the_standing_bid() -> None:
    from engine import new_game, parse_action

    scam = new_game("scam", ["A", "B", "C"])
    scam.apply(parse_action({"player": "A", "bid": "2x6"}))
    odds = scam.details()["odds"]
    assert odds["expected"] == pytest.approx(9 / 6)
    assert odds["probability"] == pytest.approx(1 - (5 / 6) ** 9 - 9 * (1 / 6) * (5 / 6) ** 8)
