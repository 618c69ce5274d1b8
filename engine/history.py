"""Finished rounds as data: what was bid, what the cups showed, who paid, and a verdict sentence.

The verdict is written here, once, so the dashboard, the replay output and the tests all say
the same thing ("3s and ★: 6, bid was 8 — Ben loses 2 dice").
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import JsonObject
from engine.bids import JOKER_MARK, Bid
from engine.words import Said, said


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else (words or word + 's')}"


def counted_what(bid: Bid, joker_face: int | None) -> str:
    """What a bid counts, for people: "3s and ★", "★", or (no jokers) "3s"."""
    return str(counted_words(bid, joker_face))


def counted_words(bid: Bid, joker_face: int | None) -> Said:
    """`counted_what` as words to translate."""
    if bid.face is None:
        return said("{star}", star=JOKER_MARK)
    if joker_face is None:
        return said("{face}s", face=bid.face)
    return said("{face}s and {star}", face=bid.face, star=JOKER_MARK)


def verdict_text(words: tuple[Said, ...]) -> str:
    """A verdict's English sentence from its words: the head, then its parts."""
    head, *parts = words
    return f"{head} — {'; '.join(str(p) for p in parts)}" if parts else str(head)


def verdict_json(words: tuple[Said, ...]) -> JsonObject:
    """A verdict's words for a dashboard to say in its language (web/static/js/ui.js)."""
    head, *parts = words
    return {"head": head.to_json(), "parts": [p.to_json() for p in parts]}


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One adjudicated round of a dice game (Bluff: a challenge; Scam: a reveal or all passed)."""

    number: int
    bid: Bid | None
    bidder: str | None
    #: Bluff's challenger or Scam's "Scam!" caller; None when the round ended on passes
    challenger: str | None
    #: matching dice the reveal showed; None when nothing was revealed
    actual: int | None
    #: seat -> change: dice lost (negative) or gained in Bluff, points scored in Scam
    changes: tuple[tuple[str, int], ...]
    unit: str
    out: tuple[str, ...]
    verdict: str
    reveal: tuple[tuple[str, tuple[int, ...]], ...]
    next_starter: str | None
    winner: str | None = None
    #: the verdict as words to translate: its head, then its parts (engine/words.py)
    verdict_said: tuple[Said, ...] = ()

    def to_json(self) -> JsonObject:
        return {
            "round": self.number,
            "bid": None if self.bid is None else str(self.bid),
            "bidder": self.bidder,
            "challenger": self.challenger,
            "actual": self.actual,
            "changes": dict(self.changes),
            "unit": self.unit,
            "out": list(self.out),
            "verdict": self.verdict,
            "reveal": {name: list(faces) for name, faces in self.reveal},
            "next_starter": self.next_starter,
            "winner": self.winner,
            **({"verdict_said": verdict_json(self.verdict_said)} if self.verdict_said else {}),
        }
