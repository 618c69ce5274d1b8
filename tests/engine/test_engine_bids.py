"""Bids: notation round trip, and the B6/S3 orders as strict total orders."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Bid, BluffLadder, IllegalActionError, ScamOrder


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3x4", Bid(3, 4)),
        ("3×4", Bid(3, 4)),
        (" 3 X 4 ", Bid(3, 4)),
        ("2*", Bid(2)),
        ("2★", Bid(2, None)),
        ("12x6", Bid(12, 6)),
    ],
)
def test_bid_parse_accepts_both_notations(text: str, expected: Bid) -> None:
    assert Bid.parse(text) == expected


@pytest.mark.parametrize("text", ["3x7", "0x4", "x4", "3x", "3", "three x four", "3x0", ""])
def test_bid_parse_refuses_with_the_input_named(text: str) -> None:
    with pytest.raises(IllegalActionError) as error:
        Bid.parse(text)
    assert error.value.rule == "format"
    assert repr(text) in error.value.message or "count" in error.value.message


def test_bid_is_a_frozen_value_with_canonical_str_and_pasteable_repr() -> None:
    bid = Bid.parse("3×4")
    assert str(bid) == "3x4" and str(Bid.parse("2★")) == "2*"
    assert bid.pretty() == "3×4" and Bid(2).pretty() == "2★"
    assert eval(repr(bid)) == bid  # noqa: S307 - a repr you can paste back
    with pytest.raises(dataclasses.FrozenInstanceError):
        bid.count = 5  # type: ignore[misc]
    assert {Bid(3, 4), Bid.parse("3x4")} == {Bid(3, 4)}


@given(st.integers(1, 99), st.sampled_from([None, 1, 2, 3, 4, 5, 6]))
def test_bid_notation_round_trip(count: int, face: int | None) -> None:
    bid = Bid(count, face)
    assert Bid.parse(str(bid)) == bid
    assert Bid.parse(bid.pretty()) == bid


def _board(texts: str) -> list[Bid]:
    return [Bid.parse(t) for t in texts.split()]


def test_B6_board_order_joker_one() -> None:
    order = _board(
        "1x2 1x3 1x4 1x5 1x6 1* 2x2 2x3 2x4 2x5 2x6 3x2 3x3 3x4 3x5 3x6 2* "
        "4x2 4x3 4x4 4x5 4x6 5x2 5x3 5x4 5x5 5x6 3* 6x2 6x6 7x2 4* 8x2 19x6 10* 20x2"
    )
    ladder = BluffLadder(1)
    assert sorted(reversed(order), key=ladder.key) == order


def test_B6_board_order_joker_six() -> None:
    order = _board("1x1 1x5 1* 2x1 3x5 2* 4x1 4x5 5x5 3* 6x1")
    ladder = BluffLadder(6)
    assert sorted(reversed(order), key=ladder.key) == order


def bluff_bids(joker: int) -> st.SearchStrategy[Bid]:
    faces = [f for f in range(1, 7) if f != joker]
    return st.builds(Bid, st.integers(1, 40), st.sampled_from([None, *faces]))


@given(st.sampled_from([1, 6]), st.data())
def test_B6_ladder_is_a_strict_total_order(joker: int, data: st.DataObject) -> None:
    ladder = BluffLadder(joker)
    a, b, c = (data.draw(bluff_bids(joker)) for _ in range(3))
    # exactly one of a < b, a == b, b < a
    assert [ladder.is_raise(a, b), a == b, ladder.is_raise(b, a)].count(True) == 1
    assert not ladder.is_raise(a, a)
    if ladder.is_raise(a, b) and ladder.is_raise(b, c):
        assert ladder.is_raise(a, c)


@given(st.sampled_from([1, 6]), st.data())
def test_B6_ladder_agrees_with_the_rules_text(joker: int, data: st.DataObject) -> None:
    ladder = BluffLadder(joker)
    a, b = data.draw(bluff_bids(joker)), data.draw(bluff_bids(joker))
    higher = ladder.is_raise(a, b)
    if a.face is not None and b.face is not None:  # number -> number
        assert higher == (b.count > a.count or (b.count == a.count and b.face > a.face))
    elif a.face is None and b.face is None:  # star -> star
        assert higher == (b.count > a.count)
    elif b.face is None:  # N★ ranks above counts up to 2N−1, below 2N
        assert higher == (a.count <= 2 * b.count - 1)
    else:
        assert higher == (b.count >= 2 * a.count)


@given(st.sampled_from([1, 6]), st.data())
def test_B6_lowest_raises_are_raises_and_nothing_lower_is(joker: int, data: st.DataObject) -> None:
    ladder = BluffLadder(joker)
    current = data.draw(st.none() | bluff_bids(joker))
    raises = ladder.lowest_raises(current)
    assert len(raises) == 6 and len({b.face for b in raises}) == 6
    for bid in raises:
        assert ladder.is_raise(current, bid)
        if bid.count > 1:
            assert not ladder.is_raise(current, Bid(bid.count - 1, bid.face))
    assert raises == sorted(raises, key=ladder.key)


def test_B6_from_number_the_lowest_joker_bid_is_half_plus_one() -> None:
    ladder = BluffLadder(1)
    for count in range(1, 21):
        (star,) = [b for b in ladder.lowest_raises(Bid(count, 6)) if b.face is None]
        assert star.count == count // 2 + 1


@given(st.data())
def test_S3_scam_order_is_a_strict_total_order(data: st.DataObject) -> None:
    order = ScamOrder()
    bids = st.builds(Bid, st.integers(2, 20), st.integers(1, 6))
    a, b, c = data.draw(bids), data.draw(bids), data.draw(bids)
    assert [order.is_raise(a, b), a == b, order.is_raise(b, a)].count(True) == 1
    assert order.is_raise(a, b) == ((b.count, b.face) > (a.count, a.face))
    if order.is_raise(a, b) and order.is_raise(b, c):
        assert order.is_raise(a, c)
    for bid in order.lowest_raises(a):
        assert order.is_raise(a, bid)


def test_legal_bids_are_enumerable_up_to_the_dice_in_play() -> None:
    from engine import new_game, parse_action

    game = new_game("bluff", ["Ann", "Ben"], options={"dice_per_player": 2})
    game.apply(parse_action({"player": "Ann", "bid": "3x5"}))
    expected = ["3x6", "2*", "4x2", "4x3", "4x4", "4x5", "4x6", "3*", "4*"]
    assert [str(b) for b in game.legal_bids()] == expected
    scam = new_game("scam", ["A", "B", "C"])
    assert len(scam.legal_bids()) == 6 * 8  # counts 2..9, faces 1..6
    assert scam.legal_bids(2) == [Bid(2, f) for f in range(1, 7)]


@pytest.mark.parametrize(("order", "current", "new", "why"), [
    (BluffLadder(), "3x5", "3x4", "3×5 → 3×4 is not a raise: same count needs a higher face "
                                  "than 5 (B6)"),
    (BluffLadder(), "3x5", "2x6", "3×5 → 2×6 is not a raise: a number bid must raise the "
                                  "count, or keep it and raise the face (B6)"),
    (BluffLadder(), "3*", "2*", "3★ → 2★ is not a raise: a ★ bid must raise the count above 3 "
                                "(B6)"),
    (BluffLadder(), "4x2", "2*", "4×2 → 2★ is not a raise: 2★ ranks below 4×any; the lowest ★ "
                                 "raise is 3★ (B6)"),
    (BluffLadder(), "2*", "3x6", "2★ → 3×6 is not a raise: 3×any ranks below 2★; the lowest "
                                 "number raise is 4×2 (B6)"),
    (ScamOrder(), "3x5", "3x4", "3×5 → 3×4 is not a raise: same count needs a higher face "
                                "than 5 (S3)"),
    (ScamOrder(), "3x5", "2x6", "3×5 → 2×6 is not a raise: raise the count, or keep it and "
                                "raise the face (S3)"),
])
def test_a_bid_that_is_no_raise_is_told_why_in_words(order: BluffLadder | ScamOrder,
                                                      current: str, new: str, why: str) -> None:
    with pytest.raises(IllegalActionError) as error:
        order.check_raise(Bid.parse(current), Bid.parse(new))
    assert error.value.message == why


def test_a_scam_bid_below_two_is_refused_by_name() -> None:
    with pytest.raises(IllegalActionError) as error:
        ScamOrder().validate(Bid(1, 4))
    assert error.value.message == "1×4 is too low: the lowest Scam bid is 2×1 (S3)"
    with pytest.raises(IllegalActionError) as error:
        ScamOrder().validate(Bid(2))
    assert error.value.message == "2★: Scam has no jokers, bid COUNTxFACE (S3)"


@pytest.mark.parametrize(("count", "face", "message"), [
    (0, 4, "bid count 0 must be a whole number ≥ 1 (format)"),
    (True, 4, "bid count True must be a whole number ≥ 1 (format)"),
    (2, 7, "bid face 7 must be 1–6 (format)"),
])
def test_a_bid_that_cannot_be_is_refused_by_name(count: int, face: int, message: str) -> None:
    with pytest.raises(IllegalActionError) as error:
        Bid(count, face)
    assert (error.value.rule, error.value.message) == ("format", message)


def test_a_bid_naming_the_joker_face_lists_the_number_faces() -> None:
    with pytest.raises(IllegalActionError) as error:
        BluffLadder().validate(Bid(2, 1))
    assert error.value.message == ("2×1 names the joker face 1: bid 2★ for jokers, or a number "
                                   "face (2, 3, 4, 5, 6) (B5)")
