"""Self-play: computer players against each other, the engine refereeing, one cup per seat.

The arena plays the table's part: it rolls every seat's dice, hands each player only its own
dice with the public game, applies the move it returns (a refused move is a bug and raises),
re-rolls after a raise and re-roll, and reveals every cup when a round is doubted.
Win rates come with Wilson 95% intervals (:func:`wilson`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from math import sqrt
from typing import Any

from bot.cup import Cup
from bot.players import Player
from engine.actions import BidAction, Reveal
from engine.bluff import BluffGame
from engine.game import Game, Phase
from engine.perudo import PerudoGame
from engine.registry import new_game
from engine.scam import DICE_EACH

KINDS = ("bluff", "scam", "perudo")
MAX_TURNS = 5000


@dataclass
class Outcome:
    game: Game
    #: index into the players list of the winner
    winner: int
    #: seconds each decision took, per player index (when a clock was given)
    seconds: dict[int, list[float]] = field(default_factory=dict)


def _roll_all(game: Game, cups: Sequence[Cup]) -> dict[str, tuple[int, ...]]:
    hands = {}
    for index, name in enumerate(game.players):
        count = game.dice[name] if isinstance(game, BluffGame | PerudoGame) else DICE_EACH
        hands[name] = cups[index].roll(count)
    return hands


def play_game(
    kind: str,
    players: Sequence[Player],
    rng: random.Random,
    options: Mapping[str, Any] | None = None,
    clock: Callable[[], float] | None = None,
) -> Outcome:
    """One game; ``players[i]`` sits in seat i ("S1", "S2", …), a random seat starts."""
    if kind not in KINDS:
        raise ValueError(f"unknown game {kind!r} for self-play; known: {', '.join(KINDS)}")
    names = [f"S{i + 1}" for i in range(len(players))]
    if options is None and kind == "scam" and len(players) < 3:
        options = {"allow_any_players": True}  # S1's option: two players
    game = new_game(kind, names, rng.choice(names), options)
    cups = [Cup(random.Random(rng.getrandbits(64))) for _ in players]
    decision_rng = random.Random(rng.getrandbits(64))
    hands = _roll_all(game, cups)
    seconds: dict[int, list[float]] = {i: [] for i in range(len(players))}
    for _ in range(MAX_TURNS):
        if game.phase is Phase.OVER:
            assert game.winner is not None
            return Outcome(game, names.index(game.winner), seconds)
        if game.phase is Phase.REVEAL:
            expected = game.expected_reveal()
            game.apply(Reveal(tuple((name, hands[name]) for name in expected)))
            hands = _roll_all(game, cups)
            continue
        seat = game.turn
        assert seat is not None
        index = names.index(seat)
        start = clock() if clock else 0.0
        action = players[index].choose(game, seat, hands[seat], decision_rng)
        if clock:
            seconds[index].append(clock() - start)
        game.apply(action)
        if isinstance(action, BidAction) and action.set_aside:
            assert isinstance(game, BluffGame)
            hands[seat] = cups[index].reroll(hands[seat], game.set_aside[seat])
    raise RuntimeError(f"a {kind} game did not finish in {MAX_TURNS} turns")


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a win rate (95% for z = 1.96)."""
    if games <= 0 or not 0 <= wins <= games:
        raise ValueError(f"wilson needs 0 ≤ wins ≤ games and games > 0, not {wins}/{games}")
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)
