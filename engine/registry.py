"""Game kinds by name. A variant registers here: ``GAMES["impus"] = ImpusGame``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.bluff import BluffGame
from engine.errors import SetupError
from engine.game import Game
from engine.impus import ImpusGame
from engine.perudo import PerudoGame
from engine.scam import ScamGame

GAMES: dict[str, type[Game]] = {
    "bluff": BluffGame,
    "scam": ScamGame,
    "impus": ImpusGame,
    "perudo": PerudoGame,
}


def new_game(
    kind: str,
    players: Sequence[str],
    starter: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Game:
    """A fresh game of ``kind``; SetupError names what is wrong with the setup."""
    if not isinstance(kind, str) or kind not in GAMES:
        raise SetupError("format", f"unknown game {kind!r}; known: {', '.join(sorted(GAMES))}")
    return GAMES[kind](players, starter, options)
