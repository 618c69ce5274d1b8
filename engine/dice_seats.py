"""Seats in a game where a player is out once their dice are gone (Bluff B1, Perudo P1).

Both games keep ``dice`` (seat → dice left) and pass the turn clockwise over the empty
seats; the rule ids they cite stay in each game.
"""

from __future__ import annotations

from engine.game import Game


class DiceSeats(Game):
    """A :class:`Game` whose players hold dice; ``dice`` is set by the game's ``__init__``."""

    dice: dict[str, int]

    def is_out(self, name: str) -> bool:
        return self.dice[name] == 0

    def remaining(self) -> list[str]:
        return [name for name in self.players if self.dice[name] > 0]

    def next_player(self, name: str) -> str:
        """The next seat clockwise that still has dice (B1, P1)."""
        index = self.players.index(name)
        for step in range(1, len(self.players) + 1):
            candidate = self.players[(index + step) % len(self.players)]
            if self.dice[candidate] > 0:
                return candidate
        raise AssertionError("no player has dice")

    def dice_in_play(self) -> int:
        return sum(self.dice.values())
