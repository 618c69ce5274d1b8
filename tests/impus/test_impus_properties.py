"""Property tests: random legal Impus games (any table, any options) always end well.

Each game plays randomly for a while, then switches to an "empty your hand" policy that must
finish it; after every action the cards are counted, and random illegal actions are tried
to show that a refusal changes nothing.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, IllegalActionError, Phase, parse_action
from engine.cards import DEFAULT_KINDS, IMP, POLYMORPH
from engine.impus import ImpusGame
from tests.impus.conftest import impus

RANDOM_STEPS = 120
NAMES = ["Ann", "Ben", "Cho", "Dan", "Eve", "Fay"]


def assert_cards_add_up(game: ImpusGame) -> None:
    state = game.to_json()
    hands = [p["cards"] for p in state["players"]]
    assert all(n >= 0 for n in hands)
    assert state["pile"] >= 0
    discarded = sum(d["count"] for d in state["discards"])
    assert sum(hands) + state["pile"] + discarded == game.deck.size
    for name in state["safe"]:
        assert game.cards_of(name) == 0


def a_reveal(data: st.DataObject, game: ImpusGame) -> list[str]:
    """A reveal the referee must accept: truthful when possible and chosen, else a mix."""
    batch = game.last_batch
    assert batch is not None
    if data.draw(st.booleans()) and game.hidden_count(batch.claim) >= batch.count:
        return [batch.claim] * batch.count
    cards = [*game.deck.kinds_in_play, *([POLYMORPH] if game.deck.polymorphs else [])]
    supply = {card: game.most_in_doubted_batch(card) for card in cards}
    order = data.draw(st.permutations(cards))
    reveal: list[str] = []
    for card in order:
        take = min(supply[card], batch.count - len(reveal))
        reveal += [card] * take
    assert len(reveal) == batch.count
    return data.draw(st.permutations(reveal))


def a_random_action(data: st.DataObject, game: ImpusGame) -> dict[str, Any]:
    if game.phase is Phase.REVEAL:
        return {"reveal": a_reveal(data, game)}
    player = game.turn
    assert player is not None
    kinds = game.legal_action_kinds()
    if "doubt" in kinds and data.draw(st.integers(0, 3)) == 0:
        return {"player": player, "doubt": True}
    if "polymorph" in kinds and data.draw(st.integers(0, 5)) == 0:
        others = [k for k in game.deck.claimable if k != game.claim]
        return {"player": player, "polymorph": data.draw(st.sampled_from(others))}
    count = data.draw(st.integers(1, game.cards_of(player)))
    action: dict[str, Any] = {"player": player, "play": count}
    if game.claim is None:
        action["claim"] = data.draw(st.sampled_from(game.deck.claimable))
    return action


def an_ending_action(data: st.DataObject, game: ImpusGame) -> dict[str, Any]:
    """Empty the hand in one batch; never doubt. Every such play makes someone safe."""
    if game.phase is Phase.REVEAL:
        return {"reveal": a_reveal(data, game)}
    player = game.turn
    assert player is not None
    action: dict[str, Any] = {"player": player, "play": game.cards_of(player)}
    if game.claim is None:
        action["claim"] = game.deck.claimable[0]
    return action


def an_illegal_attempt(data: st.DataObject, game: ImpusGame) -> dict[str, Any]:
    player = data.draw(st.sampled_from(game.players))
    return data.draw(
        st.sampled_from(
            [
                {
                    "player": player,
                    "play": data.draw(st.integers(-1, 30)),
                    "claim": data.draw(st.sampled_from([*DEFAULT_KINDS, "unicorn"])),
                },
                {"player": player, "play": data.draw(st.integers(-1, 30))},
                {"player": player, "doubt": True},
                {"player": player, "discard": data.draw(st.sampled_from(DEFAULT_KINDS))},
                {"player": player, "polymorph": data.draw(st.sampled_from(DEFAULT_KINDS))},
                {
                    "reveal": data.draw(
                        st.lists(st.sampled_from([*DEFAULT_KINDS, POLYMORPH]), max_size=6)
                    )
                },
            ]
        )
    )


def try_illegal(data: st.DataObject, game: ImpusGame) -> None:
    obj = an_illegal_attempt(data, game)
    before = game.to_json()
    try:
        game.check(parse_action(obj))
    except IllegalActionError as error:
        assert error.rule.startswith("I") or error.rule == "format", error.message
        assert game.to_json() == before
        return
    game.apply_json(obj)  # it happened to be legal: play it like any other


def maybe_discard(data: st.DataObject, game: ImpusGame) -> None:
    """Now and then, a player who may discard (after the deal or taking the pile) does."""
    for name in game.discard_candidates():
        if game.phase is Phase.OVER or data.draw(st.integers(0, 3)) != 0:
            continue
        kind = data.draw(st.sampled_from([*game.deck.claimable, POLYMORPH]))
        need = game.deck.count_of(kind)
        if kind == POLYMORPH and game.may_hold_polymorphs(name) < need:
            continue
        if need and game.hidden_count(kind) == need and game.cards_of(name) >= need:
            game.apply_json({"player": name, "discard": kind})
            assert_cards_add_up(game)


def a_table(data: st.DataObject) -> ImpusGame:
    players = NAMES[: data.draw(st.integers(2, 6), label="players")]
    removable = [k for k in DEFAULT_KINDS if k != IMP]
    removed = data.draw(st.lists(st.sampled_from(removable), unique=True, max_size=4))
    options = {"polymorphs": data.draw(st.booleans()), "remove_kinds": removed}
    return impus(players, options, starter=data.draw(st.sampled_from(players)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_I9_random_legal_games_end_with_exactly_one_loser(data: st.DataObject) -> None:
    game = a_table(data)
    for _ in range(RANDOM_STEPS):
        maybe_discard(data, game)
        if game.phase is Phase.OVER:
            break
        if data.draw(st.integers(0, 4)) == 0:
            try_illegal(data, game)
            assert_cards_add_up(game)
            if game.phase is Phase.OVER:
                break
        game.apply_json(a_random_action(data, game))
        assert_cards_add_up(game)
    for _ in range(4 * len(game.players) + 4):
        if game.phase is Phase.OVER:
            break
        game.apply_json(an_ending_action(data, game))
        assert_cards_add_up(game)

    state = game.to_json()
    assert state["phase"] == "over"
    losers = [p["name"] for p in state["players"] if p["lost"]]
    assert losers == [game.loser]
    assert sorted(state["safe"]) == sorted(n for n in game.players if n != game.loser)
    assert game.legal_action_kinds() == []
    rebuilt = Game.from_script(game.export())
    assert rebuilt.to_json() == state
