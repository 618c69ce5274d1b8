"""The computer's cup: its dice, rolled where no one can predict them.

A table's cup draws from ``secrets.SystemRandom`` (the operating system's cryptographic
source), so nobody at the table can work out the computer's dice from earlier rolls or the
time of day. Self-play and tests pass a seeded ``random.Random`` instead, to replay games.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence

from engine.bids import FACES


class Cup:
    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng: random.Random = rng if rng is not None else secrets.SystemRandom()

    def roll(self, count: int) -> tuple[int, ...]:
        """``count`` fresh dice."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"a cup rolls a whole number of dice ≥ 0, not {count!r}")
        return tuple(self._rng.choice(FACES) for _ in range(count))

    def reroll(self, hand: Sequence[int], kept: Sequence[int]) -> tuple[int, ...]:
        """B8: ``hand`` after a raise and re-roll: the ``kept`` faces (every die set aside this
        round) stay, first; the other dice are rolled again."""
        rest = list(hand)
        for face in kept:
            if face not in rest:
                raise ValueError(f"set-aside {list(kept)} is not among the dice {list(hand)}")
            rest.remove(face)
        return (*kept, *self.roll(len(rest)))
