"""Checks every dice game makes of a reveal: each remaining player once, with all their dice.

Bluff (B10) and Perudo (P8) refuse a wrong reveal in the same words; only the rule id they
cite differs, so each game passes its own.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from engine.errors import IllegalActionError
from engine.words import said, said_n


def check_reveal_names(names: Sequence[str], expected: Collection[str], rule: str) -> None:
    """Refuse a reveal that lists a player twice, misses one, or shows one not in play."""
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise IllegalActionError(
            rule, said("the reveal lists {players} twice", players=", ".join(duplicates))
        )
    missing = [n for n in expected if n not in names]
    extra = [n for n in names if n not in expected]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {', '.join(missing)}")
        if extra:
            parts.append(f"{', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not in play")
        raise IllegalActionError(
            rule, said("the reveal must show every remaining player's dice: {problems}",
                       problems="; ".join(parts))
        )


def check_hand_size(name: str, faces: Sequence[int], count: int, rule: str) -> None:
    """Refuse a hand that shows more or fewer dice than the player has."""
    if len(faces) != count:
        raise IllegalActionError(
            rule,
            said_n("the reveal shows {n} die for {player}, who has {count}",
                   "the reveal shows {n} dice for {player}, who has {count}",
                   len(faces), player=name, count=count),
        )
