"""Actions in words, for the dashboard's messages (an undo, a refused save)."""

from __future__ import annotations

from typing import Any

import pytest

import engine.impus  # noqa: F401  (registers the Impus actions with parse_action)
from engine import parse_action


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"player": "Ann", "bid": "3x4"}, "Ann bid 3×4"),
        ({"player": "Ann", "bid": "2*"}, "Ann bid 2★"),
        ({"player": "Ben", "bid": "4x4", "set_aside": [4, 4]}, "Ben bid 4×4, setting aside 4, 4"),
        ({"player": "Cho", "challenge": True}, "Cho doubted the bid"),
        ({"player": "Ann", "pass": True}, "Ann passed"),
        ({"player": "Ann", "scam": True}, "Ann called Scam!"),
        ({"reveal": {"Ann": [1, 4], "Ben": []}}, "the reveal: Ann 1 4; Ben no dice"),
        ({"reveal": ["orc", "imp"]}, "cards turned up: orc, imp"),
        ({"player": "Ann", "play": 2, "claim": "orc"}, "Ann put down 2 cards, claiming orcs"),
        ({"player": "Ann", "play": 1}, "Ann put down 1 card"),
        ({"player": "Ben", "doubt": True}, "Ben did not believe"),
        ({"player": "Ben", "polymorph": "elf"}, "Ben played a polymorph as elf"),
        ({"player": "Cho", "discard": "troll"}, "Cho discarded the trolls"),
    ],
)
def test_every_action_kind_has_words_of_its_own(action: dict[str, Any], words: str) -> None:
    parsed = parse_action(action)
    assert parsed.describe() == words
