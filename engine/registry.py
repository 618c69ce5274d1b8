"""Game kinds by name. A variant registers here: ``GAMES["impus"] = ImpusGame``.

The table itself lives in `engine.game` (``Game.from_script`` looks kinds up there); this
module fills it, being the one that imports every game module.
"""

from __future__ import annotations

from engine.bluff import BluffGame
from engine.game import GAMES, Game, new_game
from engine.impus import ImpusGame
from engine.perudo import PerudoGame
from engine.scam import ScamGame

GAMES.update({
    "bluff": BluffGame,
    "scam": ScamGame,
    "impus": ImpusGame,
    "perudo": PerudoGame,
})

__all__ = ["GAMES", "Game", "new_game"]
