"""Seats in a game where a player is out once their dice are gone (Bluff B1, Perudo P1).

Both games keep ``dice`` (seat → dice left) and pass the turn clockwise over the empty
seats; the rule ids they cite stay in each game.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.actions import Reveal
from engine.bids import Bid
from engine.game import Game
from engine.history import RoundResult, verdict_text
from engine.words import Said


class DiceSeats(Game):
    """A :class:`Game` whose players hold dice; ``dice`` and ``round_number`` are set by the
    game's ``__init__``."""

    dice: dict[str, int]
    round_number: int

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

    def _take_dice(self, changes: Mapping[str, int]) -> tuple[tuple[str, ...], str | None]:
        """Each seat's dice changed by ``changes``; the players that put out, and the winner
        where one player alone has dice left."""
        for name, delta in changes.items():
            self.dice[name] += delta
        out = tuple(name for name, d in changes.items() if d < 0 and self.dice[name] == 0)
        remaining = self.remaining()
        return out, remaining[0] if len(remaining) == 1 else None

    def _record_round(self, reveal: Reveal, bid: Bid, bidder: str, challenger: str,
                      actual: int, changes: Mapping[str, int], out: tuple[str, ...],
                      words: tuple[Said, ...], starter: str, winner: str | None) -> None:
        """The round just settled, in the game's history."""
        self.history.append(
            RoundResult(
                number=self.round_number,
                bid=bid,
                bidder=bidder,
                challenger=challenger,
                actual=actual,
                changes=tuple(changes.items()),
                unit="dice",
                out=out,
                verdict=verdict_text(words),
                reveal=reveal.hands,
                next_starter=None if winner else starter,
                winner=winner,
                verdict_said=words,
            )
        )
