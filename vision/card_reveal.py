"""Turn card readings of a doubted Impus batch into a reveal, or a reason for review.

The engine knows how many cards the doubted batch holds (``ImpusGame.reveal_due()``). A
reveal is applied without a person only when several frames agree, every card is named, and
the count is right; anything else comes back with problems for the review screen — the same
flow as dice (vision.reveal.Problem).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vision.card_types import CardReading
from vision.reveal import Problem
from vision.words import N_, place, said

_PROBLEM_TEXT = {
    "weak_match": N_("card at {place}: too few features match any registered face"),
    "ambiguous": N_("card at {place}: matches two registered faces almost equally"),
    "unknown_face": N_("card at {place}: looks like a card but matches no registered face "
                       "(face down, or not registered?)"),
}
_NOT_RECOGNISED = N_("card at {place}: not recognised")
_GUESS = N_("{problem} (best guess {guess})")


@dataclass(frozen=True, slots=True)
class CardRevealCheck:
    """The outcome for one doubted batch: ``kinds`` is the reveal when ``problems`` is empty."""

    kinds: list[str]
    expected: int
    reading: CardReading
    problems: list[Problem] = field(default_factory=list)

    @property
    def needs_review(self) -> bool:
        return bool(self.problems)

    def action(self) -> dict[str, Any] | None:
        """The replay object ``{"reveal": [...]}`` to apply, or None while review is needed."""
        return None if self.problems else {"reveal": list(self.kinds)}

    def to_json(self) -> dict[str, Any]:
        return {
            "kinds": list(self.kinds),
            "expected": self.expected,
            "needs_review": self.needs_review,
            "problems": [p.to_json() for p in self.problems],
            "cards": [card.to_json() for card in self.reading.cards],
        }


def check_card_reveal(readings: Sequence[CardReading], expected: int) -> CardRevealCheck:
    """Judge readings of consecutive still frames of the turned-up batch of ``expected`` cards.

    The last reading is the one shown for review; the others must name the same kinds.
    """
    if not readings:
        raise ValueError("no card readings to check: capture at least one frame")
    if expected < 1:
        raise ValueError(f"a doubted batch has at least one card, got {expected}")
    last = readings[-1]
    problems: list[Problem] = []
    for card in last.unnamed:
        words = said(_PROBLEM_TEXT.get(card.problem or "", _NOT_RECOGNISED),
                     place=place(card.x, card.y))
        if card.candidate:
            words = said(_GUESS, problem=words, guess=card.candidate)
        problems.append(Problem.saying("uncertain", None, card.x, card.y, words))
    seen = len(last.cards)
    if seen != expected:
        problems.append(
            Problem.saying(
                "count_mismatch", None, None, None,
                said("the doubted batch has {expected} cards but {seen} are seen",
                     expected=expected, seen=seen),
            )
        )
    kinds = last.kinds()
    if any(Counter(r.kinds()) != Counter(kinds) for r in readings[:-1]):
        problems.append(
            Problem.saying(
                "not_still", None, None, None,
                said("the frames disagree about the cards (moving hand or changing light?)"),
            )
        )
    return CardRevealCheck(kinds, expected, last, problems)
