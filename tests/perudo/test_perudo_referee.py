"""Random Perudo games: the engine and the independent referee (referee.py) must agree on every
action — accepted or refused with the same rule id — and on the state after it."""

from __future__ import annotations

import random
from typing import Any

import pytest
from referee import Ref

from engine import EngineError, Game, Phase, new_game, parse_action
from engine.perudo import PerudoGame

GAMES = 300
MAX_STEPS = 3000
NAMES = ["Ann", "Ben", "Cho", "Dan", "Eve", "Fay"]


def random_object(game: PerudoGame, rng: random.Random) -> dict[str, Any]:
    """Mostly plausible actions, some wrong ones (wrong player, low bid, bad reveal)."""
    live = game.remaining()
    who = game.turn if game.turn is not None and rng.random() < 0.9 else rng.choice(game.players)
    roll = rng.random()
    if game.phase is Phase.REVEAL and roll < 0.9:
        hands = {name: [rng.choice((1, 1, 2, 3, 4, 5, 6)) for _ in range(game.dice[name])]
                 for name in live}
        if rng.random() < 0.05:
            hands[live[0]] = hands[live[0]][1:]
        return {"reveal": hands}
    if roll < 0.15:
        return {"player": who, "dudo": True}
    if roll < 0.25:
        return {"player": who, "calza": True}
    if roll < 0.35 or not game.lowest_raises():
        count = rng.randint(1, max(1, game.dice_in_play()))
        face = rng.choice(["*", "1", "2", "3", "4", "5", "6"])
        return {"player": who, "bid": f"{count}{'*' if face == '*' else 'x' + face}"}
    low = rng.choice(game.lowest_raises())
    count = low.count + rng.choice((0, 0, 0, 1, 2))
    return {"player": who, "bid": f"{count}*" if low.face is None else f"{count}x{low.face}"}


def same_state(game: PerudoGame, ref: Ref) -> None:
    assert game.dice == ref.dice
    assert game.turn == ref.turn
    assert game.winner == ref.winner
    assert game.palifico_for == ref.paly
    want = None if ref.bid is None else (ref.bid[0], None if ref.bid[1] == 0 else ref.bid[1])
    got = None if game.current_bid is None else (game.current_bid.count, game.current_bid.face)
    assert got == want
    assert (game.phase is Phase.REVEAL) == (ref.call is not None)


@pytest.mark.parametrize("block", range(3))
def test_engine_and_referee_agree_on_random_games(block: int) -> None:
    rng = random.Random(5400 + block)
    palifico_rounds = calza_rounds = 0
    for _ in range(GAMES // 3):
        players = NAMES[: rng.randint(2, 6)]
        options: dict[str, Any] = {}
        if rng.random() < 0.7:
            options["dice_per_player"] = rng.randint(1, 5)
        for key in ("calza", "palifico"):
            if rng.random() < 0.3:
                options[key] = rng.random() < 0.5
        starter = rng.choice(players)
        game = new_game("perudo", players, starter, options)
        assert isinstance(game, PerudoGame)
        ref = Ref.new(players, starter, options)
        for _step in range(MAX_STEPS):
            if game.phase is Phase.OVER:
                break
            obj = random_object(game, rng)
            want = ref.act(obj)
            try:
                game.apply(parse_action(obj))
                got = None
            except EngineError as error:
                got = error.rule
            assert got == want, (obj, game.export())
            same_state(game, ref)
            palifico_rounds += game.palifico_for is not None and not game.current_bid
            calza_rounds += game.call == "calza"
        else:
            raise AssertionError("game did not finish")
        again = Game.from_script(game.export())
        assert again.to_json() == game.to_json()
    assert palifico_rounds > 0 and calza_rounds > 0  # the random games reach both options
