"""Property tests over random legal games (hypothesis draws the seed and the options)."""

from __future__ import annotations

import random
from typing import Any

from engine_helpers import bid, random_action, refused
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import BluffGame, Game, Phase, ScamGame, new_game, parse_action

MAX_STEPS = 5000

bluff_options = st.fixed_dictionaries(
    {},
    optional={
        "dice_per_player": st.sampled_from([1, 2, 3, 5, "czech", "split"]),
        "joker_face": st.sampled_from([1, 6]),
        "exact": st.sampled_from(["all_others_lose_one", "challenger_pays_bidder"]),
        "reroll": st.booleans(),
    },
).flatmap(
    lambda o: (
        st.just(o)
        if o.get("exact") == "challenger_pays_bidder"
        else st.fixed_dictionaries({}, optional={"protect_last_die": st.booleans()}).map(
            lambda extra: {**o, **extra}
        )
    )
)


def check_bluff_invariants(game: BluffGame) -> None:
    for name in game.players:
        assert game.dice[name] >= 0, "dice never go negative"
        assert 0 <= len(game.set_aside[name]) < max(game.dice[name], 1)
    if game.turn is not None:
        assert game.dice[game.turn] > 0, "the player to act has dice"


def play_out(game: Game, seed: int, check: Any) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    played: list[dict[str, Any]] = []
    for step in range(MAX_STEPS):
        if game.phase is Phase.OVER:
            return played
        obj = random_action(game, rng)
        game.apply(parse_action(obj))
        played.append(obj)
        check(game)
        if step % 17 == 0:  # export → replay gives the same state, mid-game too
            again = Game.from_script(game.export())
            assert again.to_json() == game.to_json() and again.details() == game.details()
    raise AssertionError("game did not finish")


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 6),
    options=bluff_options,
)
def test_random_bluff_games_end_with_exactly_one_winner(
    seed: int, players: int, options: dict[str, Any]
) -> None:
    names = [f"P{i}" for i in range(players)]
    game = new_game("bluff", names, options=options)
    assert isinstance(game, BluffGame)
    play_out(game, seed, check_bluff_invariants)
    with_dice = [n for n in names if game.dice[n] > 0]
    assert with_dice == [game.winner]
    assert game.to_json()["winner"] == game.winner and game.turn is None
    assert sum(1 for p in game.to_json()["players"] if not p["out"]) == 1
    replayed = Game.from_script(game.export())
    assert replayed.to_json() == game.to_json()
    assert [h.to_json() for h in replayed.history] == [h.to_json() for h in game.history]


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 6),
    target=st.integers(1, 6),
)
def test_random_scam_games_end_with_one_player_at_the_target(
    seed: int, players: int, target: int
) -> None:
    names = [f"P{i}" for i in range(players)]
    game = new_game("scam", names, options={"target": target, "allow_any_players": True})
    assert isinstance(game, ScamGame)

    def check(g: Game) -> None:
        assert isinstance(g, ScamGame)
        assert all(score >= 0 for score in g.score.values())

    play_out(game, seed, check)
    at_target = [n for n in names if game.score[n] >= target]
    assert at_target == [game.winner]
    assert Game.from_script(game.export()).to_json() == game.to_json()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 40))
def test_refused_actions_change_nothing(seed: int, steps: int) -> None:
    rng = random.Random(seed)
    game = new_game("bluff", ["Ann", "Ben", "Cho"])
    for _ in range(steps):
        if game.phase is Phase.OVER:
            break
        game.apply(parse_action(random_action(game, rng)))
    others = [n for n in game.players if n != game.turn]
    refused(game, bid(rng.choice(others), "30x6"))  # out of turn (or game over)
    refused(game, {"reveal": {"Ann": [9]}} if rng.random() < 0.5 else {"reveal": {}})


def test_undo_is_a_rebuild_without_the_last_action() -> None:
    game = new_game("bluff", ["Ann", "Ben"])
    game.apply(parse_action(bid("Ann", "2x3")))
    before = game.to_json()
    game.apply(parse_action(bid("Ben", "2x4", 4)))
    undone = game.without_last()
    assert undone.to_json() == before
    assert len(undone.actions) == 1 and len(game.actions) == 2
