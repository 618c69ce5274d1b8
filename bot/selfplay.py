"""Match-ups for ``bluffcam selfplay``: one player against copies of another, many games.

The player under test moves round the table game by game (seat ``g mod n``), so no seat's
advantage (who starts, who bids after whom) favours it. Results are plain data; the command
prints them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.arena import play_game, wilson
from bot.players import make_player

#: (player under test, the others) for two-player and four-player tables
MATCHUPS: dict[int, tuple[tuple[str, str], ...]] = {
    2: (("hard", "threshold"), ("hard", "random"), ("normal", "threshold"),
        ("easy", "threshold"), ("hard", "normal"), ("hard", "easy")),
    4: (("hard", "threshold"), ("hard", "random"), ("normal", "threshold"),
        ("easy", "threshold")),
}


@dataclass
class MatchResult:
    kind: str
    players: int
    player: str
    against: str
    games: int
    wins: int
    #: seconds per decision of the player under test
    seconds: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.wins / self.games

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def share(self) -> float:
        """What a player as strong as the rest would win: one game in ``players``."""
        return 1 / self.players


def run_matchup(
    kind: str,
    player: str,
    against: str,
    players: int,
    games: int,
    rng: random.Random,
    clock: Callable[[], float] | None = None,
) -> MatchResult:
    if games < 1:
        raise ValueError(f"games must be ≥ 1, not {games}")
    result = MatchResult(kind, players, player, against, games, 0)
    for number in range(games):
        seat = number % players
        table = [make_player(against) for _ in range(players)]
        table[seat] = make_player(player)
        outcome = play_game(kind, table, rng, clock=clock)
        result.wins += outcome.winner == seat
        result.seconds += outcome.seconds[seat]
    return result
