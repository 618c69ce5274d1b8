"""Exact odds that a bid holds (B17 and beyond), for the dashboard.

Dice a viewer can see — set-aside faces (B9) and, optionally, the viewer's own dice — are
counted as they are; every hidden die matches a number bid with probability 2/6 (face or
joker) and a ★ bid with 1/6 (``joker_face=None``: Scam, no jokers, 1/6). The probability that
at least the missing number of hidden dice match is a binomial tail, computed exactly with
fractions and returned as a float.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import comb

from engine.bids import Bid


def match_probability(bid: Bid, joker_face: int | None) -> Fraction:
    """Chance one unseen fair die counts towards ``bid``."""
    if bid.face is None and joker_face is None:
        raise ValueError(f"{bid} is a joker bid, but this game has no joker face")
    if joker_face is None or bid.face is None:
        return Fraction(1, 6)
    return Fraction(2, 6)


def _matches(bid: Bid, faces: Sequence[int], joker_face: int | None) -> int:
    if bid.face is None:
        return sum(1 for f in faces if f == joker_face)
    return sum(1 for f in faces if f == bid.face or (joker_face is not None and f == joker_face))


def check_hidden(hidden_dice: int) -> None:
    """Refuse a negative count of unseen dice rather than return a meaningless chance."""
    if hidden_dice < 0:
        raise ValueError(f"hidden_dice must be ≥ 0, not {hidden_dice}")


def tail_probability(needed: int, hidden_dice: int, p: Fraction) -> float:
    """P(at least ``needed`` of ``hidden_dice`` unseen dice match), each with chance ``p``;
    exact in fractions, so every game's odds agree to the last digit."""
    if needed <= 0:
        return 1.0
    if needed > hidden_dice:
        return 0.0
    q = 1 - p
    tail = sum(
        (
            comb(hidden_dice, k) * p**k * q ** (hidden_dice - k)
            for k in range(needed, hidden_dice + 1)
        ),
        Fraction(0),
    )
    return float(tail)


def bid_probability(
    bid: Bid,
    hidden_dice: int,
    public_faces: Sequence[int] = (),
    own_faces: Sequence[int] | None = None,
    joker_face: int | None = 1,
) -> float:
    """P(at least ``bid.count`` matching dice on the table).

    ``hidden_dice`` counts only dice the viewer cannot see: not the public faces, and not
    ``own_faces`` when given.
    """
    check_hidden(hidden_dice)
    p = match_probability(bid, joker_face)
    seen = list(public_faces) + list(own_faces or ())
    return tail_probability(bid.count - _matches(bid, seen, joker_face), hidden_dice, p)


def expected_count(
    bid: Bid,
    hidden_dice: int,
    public_faces: Sequence[int] = (),
    own_faces: Sequence[int] | None = None,
    joker_face: int | None = 1,
) -> float:
    """Expected matching dice on the table: the seen ones plus hidden × (1/3 or 1/6) (B17)."""
    check_hidden(hidden_dice)
    seen = list(public_faces) + list(own_faces or ())
    return float(_matches(bid, seen, joker_face) + hidden_dice * match_probability(bid, joker_face))
