"""Bids and the orders they are ranked in.

A :class:`Bid` is a small immutable value with a notation round trip
(``Bid.parse("3x4")`` ⇄ ``str(bid)``), like python-chess's ``Move.from_uci`` ⇄ ``uci()``.
Which bids exist and how they rank is a property of the game, not of the bid, so each game
owns a :class:`BidOrder`: Bluff's board track (B6) or Scam's plain order (S3). From one
total order both "is this a raise?" and "what are the lowest legal raises?" follow.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass

from engine.errors import IllegalActionError
from engine.words import Said, said

JOKER_MARK = "★"
FACES = (1, 2, 3, 4, 5, 6)

_BID_RE = re.compile(r"^\s*(\d{1,3})\s*(?:[xX×]\s*(\d)|([*★]))\s*$")


@dataclass(frozen=True, slots=True)
class Bid:
    """ "At least ``count`` dice show ``face``"; ``face=None`` is a joker (★) bid."""

    count: int
    face: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 1:
            raise IllegalActionError(
                "format", f"bid count {self.count!r} must be a whole number ≥ 1"
            )
        if self.face is not None and (
            isinstance(self.face, bool) or not isinstance(self.face, int) or self.face not in FACES
        ):
            raise IllegalActionError("format", f"bid face {self.face!r} must be 1–6")

    @classmethod
    def parse(cls, text: str) -> Bid:
        """Read "3x4", "3×4", "2*" or "2★" (spaces and a capital X are tolerated)."""
        if not isinstance(text, str):
            raise IllegalActionError(
                "format", f'bid {text!r} must be a string such as "3x4" or "2*"'
            )
        match = _BID_RE.match(text)
        if match is None:
            raise IllegalActionError(
                "format", f'{text!r} is not a bid: write COUNTxFACE ("3x4") or COUNT* ("2*")'
            )
        count = int(match.group(1))
        face = None if match.group(3) else int(match.group(2))
        if count < 1:
            raise IllegalActionError("format", f"{text!r} is not a bid: the count must be ≥ 1")
        if face is not None and face not in FACES:
            raise IllegalActionError("format", f"{text!r} is not a bid: faces are 1–6")
        return cls(count, face)

    @property
    def is_joker(self) -> bool:
        return self.face is None

    def __str__(self) -> str:
        return f"{self.count}*" if self.face is None else f"{self.count}x{self.face}"

    def pretty(self) -> str:
        """The form people read on the dashboard: "3×4", "2★"."""
        return f"{self.count}{JOKER_MARK}" if self.face is None else f"{self.count}×{self.face}"


class BidOrder(ABC):
    """A strict total order over one game's legal bids."""

    #: the RULES.md id refusals cite
    rule: str

    @abstractmethod
    def validate(self, bid: Bid) -> None:
        """Refuse a bid this game does not have (IllegalActionError)."""

    @abstractmethod
    def key(self, bid: Bid) -> tuple[int, int]:
        """Sort key: a < b in the order exactly when key(a) < key(b)."""

    @abstractmethod
    def lowest_raises(self, current: Bid | None) -> list[Bid]:
        """The lowest legal bid for every face (and ★), lowest first."""

    @abstractmethod
    def _why_not(self, current: Bid, new: Bid) -> Said:
        """Explain, for a person, why ``new`` does not beat ``current``."""

    def raises_up_to(self, current: Bid | None, max_count: int) -> list[Bid]:
        """Every legal bid with a count up to ``max_count``, lowest first (enumerable moves)."""
        bids = [
            Bid(count, low.face)
            for low in self.lowest_raises(current)
            for count in range(low.count, max_count + 1)
        ]
        return sorted(bids, key=self.key)

    def is_raise(self, current: Bid | None, new: Bid) -> bool:
        self.validate(new)
        return current is None or self.key(new) > self.key(current)

    def check_raise(self, current: Bid | None, new: Bid) -> None:
        """Refuse ``new`` unless legal here: any first bid, then strictly higher ones."""
        if not self.is_raise(current, new):
            assert current is not None
            raise IllegalActionError(
                self.rule,
                said("{current} → {new} is not a raise: {why}", current=current.pretty(),
                     new=new.pretty(), why=self._why_not(current, new)),
            )


class BluffLadder(BidOrder):
    """B6: the bid board ``1, 1★, 2, 3, 2★, 4, 5, 3★, …``.

    A ★ bid of N sits above every number bid of count 2N−1 and below count 2N. Keys make
    that one order: number bid N×F → (2N, rank of F); N★ → (4N−1, 0).
    """

    rule = "B6"

    def __init__(self, joker_face: int = 1) -> None:
        if joker_face not in (1, 6):
            raise ValueError(f"joker_face must be 1 or 6, not {joker_face!r}")
        self.joker_face = joker_face
        self.number_faces = tuple(f for f in FACES if f != joker_face)

    def validate(self, bid: Bid) -> None:
        if bid.face == self.joker_face:
            faces = ", ".join(str(f) for f in self.number_faces)
            raise IllegalActionError(
                "B5",
                said("{bid} names the joker face {joker}: bid {count}{star} for jokers, or a "
                     "number face ({faces})", bid=bid.pretty(), joker=self.joker_face,
                     count=bid.count, star=JOKER_MARK, faces=faces),
            )

    def key(self, bid: Bid) -> tuple[int, int]:
        self.validate(bid)
        if bid.face is None:
            return (4 * bid.count - 1, 0)
        return (2 * bid.count, self.number_faces.index(bid.face) + 1)

    def lowest_raises(self, current: Bid | None) -> list[Bid]:
        if current is None:
            return [Bid(1, f) for f in self.number_faces] + [Bid(1)]
        floor = self.key(current)
        raises = []
        for face in (*self.number_faces, None):
            count = 1
            while self.key(Bid(count, face)) <= floor:
                count += 1
            raises.append(Bid(count, face))
        return sorted(raises, key=self.key)

    def _why_not(self, current: Bid, new: Bid) -> Said:
        if current.face is not None and new.face is not None:
            if new.count == current.count:
                return said("same count needs a higher face than {face}", face=current.face)
            return said("a number bid must raise the count, or keep it and raise the face")
        if current.face is None and new.face is None:
            return said("a {star} bid must raise the count above {count}", star=JOKER_MARK,
                        count=current.count)
        if new.face is None:  # number -> joker
            lowest = current.count // 2 + 1
            return said("{new} ranks below {count}×any; the lowest {star} raise is {lowest}{star}",
                        new=new.pretty(), count=current.count, star=JOKER_MARK, lowest=lowest)
        lowest_number = Bid(2 * current.count, self.number_faces[0])
        return said("{count}×any ranks below {current}; the lowest number raise is {lowest}",
                    count=new.count, current=current.pretty(), lowest=lowest_number.pretty())


class ScamOrder(BidOrder):
    """S3: plain "N × F" bids, no jokers, lowest 2×1; higher count, or same count higher face."""

    rule = "S3"
    lowest_count = 2

    def validate(self, bid: Bid) -> None:
        if bid.face is None:
            raise IllegalActionError(
                "S3", said("{bid}: Scam has no jokers, bid COUNTxFACE", bid=bid.pretty())
            )
        if bid.count < self.lowest_count:
            raise IllegalActionError(
                "S3", said("{bid} is too low: the lowest Scam bid is 2×1", bid=bid.pretty())
            )

    def key(self, bid: Bid) -> tuple[int, int]:
        self.validate(bid)
        assert bid.face is not None
        return (bid.count, bid.face)

    def lowest_raises(self, current: Bid | None) -> list[Bid]:
        if current is None:
            return [Bid(self.lowest_count, f) for f in FACES]
        assert current.face is not None
        raises = [Bid(current.count if f > current.face else current.count + 1, f) for f in FACES]
        return sorted(raises, key=self.key)

    def _why_not(self, current: Bid, new: Bid) -> Said:
        if new.count == current.count:
            return said("same count needs a higher face than {face}", face=str(current.face))
        return said("raise the count, or keep it and raise the face")
