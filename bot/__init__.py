"""The computer player: pure decisions from the public game and its own dice (engine only).

``make_player("hard").choose(game, seat, own_dice, rng)`` returns the engine action it plays;
:mod:`bot.cup` rolls its dice; :mod:`bot.arena` pits players against each other.
"""

from bot.cup import Cup
from bot.players import Computer, Level, Player, RandomPlayer, Threshold, make_player

__all__ = ["Computer", "Cup", "Level", "Player", "RandomPlayer", "Threshold", "make_player"]
