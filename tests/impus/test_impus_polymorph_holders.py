"""I2, I7, I8: the engine follows the two polymorphs as far as a referee can.

The deal gives them to the last two seats; a polymorph then moves only by being cast (face up)
or played as a lie (face down) onto a pile, and with the pile to whoever takes it. The engine
refuses a cast or a pair discard that no such history allows. The property test plays real
hands card by card beside the engine and checks that it never refuses what the cards allow.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Phase
from engine.cards import IMP, POLYMORPH, deal_counts
from engine.impus import ImpusGame
from tests.impus.conftest import cards, impus, play, refused

FOUR = ["Ann", "Ben", "Cho", "Dan"]


def test_I2_only_the_last_two_seats_are_dealt_a_polymorph() -> None:
    game = play(impus(FOUR), {"player": "Ann", "play": 2, "claim": "dragon"})
    assert [game.may_hold_polymorphs(n) for n in FOUR] == [0, 0, 1, 1]
    assert "polymorph" not in game.legal_action_kinds()  # Ben's turn
    error = refused(game, {"player": "Ben", "polymorph": "goblin"}, "I8")
    assert "Ben cannot hold a polymorph (only Cho, Dan can hold one now)" in error.message
    play(game, {"player": "Ben", "play": 1}, {"player": "Cho", "polymorph": "goblin"})


def test_I7_nobody_holds_both_polymorphs_after_the_deal() -> None:
    game = impus(FOUR)
    for name in FOUR:
        error = refused(game, {"player": name, "discard": "polymorph"}, "I7")
        assert "cannot hold both polymorphs" in error.message
    assert game.discard_candidates() == FOUR  # ten cards each: four of a kind is possible


def test_I8_a_polymorph_on_a_polymorph_is_refused() -> None:
    game = play(impus(FOUR, starter="Ben"), {"player": "Ben", "play": 1, "claim": "orc"},
                {"player": "Cho", "polymorph": "elf"})
    assert game.legal_action_kinds() == ["play"]  # Dan's turn: he holds the other one
    assert game.details()["polymorphs_hidden"] == 1  # Cho's lies face up
    error = refused(game, {"player": "Dan", "polymorph": "faun"}, "I8")
    assert "the next player must add cards" in error.message
    play(game, {"player": "Dan", "play": 1}, {"player": "Ann", "play": 1})
    assert "polymorph" not in game.legal_action_kinds()  # Ben never had one


def test_I7_a_pile_taken_with_a_polymorph_lets_its_taker_hold_both() -> None:
    game = play(
        impus(FOUR, starter="Ben"),
        {"player": "Ben", "play": 1, "claim": "orc"},
        {"player": "Cho", "polymorph": "elf"},
        {"player": "Dan", "play": 2},
        {"player": "Ann", "doubt": True},
        {"reveal": ["elf", "gnome"]},  # Dan lied: he takes the pile, Cho's polymorph with it
    )
    assert cards(game)["Dan"] == 11 - 2 + 4
    assert game.may_hold_polymorphs("Dan") == 2 and game.discard_candidates() == ["Dan"]
    play(game, {"player": "Dan", "discard": "polymorph"})
    assert game.to_json()["discards"] == [{"player": "Dan", "kind": "polymorph", "count": 2}]
    assert [game.may_hold_polymorphs(n) for n in FOUR] == [0, 0, 0, 0]


def test_I7_a_polymorph_turned_up_in_its_players_batch_is_not_counted_twice() -> None:
    # Dan's lie is his one polymorph: turned up, he takes it back with the pile, and holds
    # one, not two; Cho, who never played, still holds the other
    game = play(
        impus(FOUR, starter="Dan"),
        {"player": "Dan", "play": 1, "claim": "orc"},
        {"player": "Ann", "doubt": True},
        {"reveal": ["polymorph"]},
    )
    assert [game.may_hold_polymorphs(n) for n in FOUR] == [0, 0, 1, 1]
    error = refused(game, {"player": "Dan", "discard": "polymorph"}, "I7")
    assert "Dan cannot hold both polymorphs" in error.message
    play(game, {"player": "Ann", "play": 1, "claim": "elf"}, {"player": "Ben", "play": 1},
         {"player": "Cho", "polymorph": "orc"})


def test_I2_a_reveal_cannot_show_a_polymorph_its_player_could_not_have_played() -> None:
    game = play(impus(FOUR), {"player": "Ann", "play": 1, "claim": "orc"},
                {"player": "Ben", "doubt": True})
    error = refused(game, {"reveal": ["polymorph"]}, "I2")
    assert "Ann could not have played: Ann holds none" in error.message
    play(game, {"reveal": ["orc"]})


def test_I8_a_polymorph_played_face_down_rides_with_the_pile() -> None:
    game = play(
        impus(FOUR, starter="Dan"),
        {"player": "Dan", "play": 3, "claim": "orc"},  # his polymorph may be among them
        {"player": "Ann", "play": 1},
        {"player": "Ben", "doubt": True},
        {"reveal": ["orc"]},  # Ann told the truth: Ben takes the pile, and perhaps it
    )
    assert game.may_hold_polymorphs("Ben") == 1
    play(game, {"player": "Cho", "play": 1, "claim": "elf"})
    assert game.turn == "Dan" and "polymorph" in game.legal_action_kinds()
    play(game, {"player": "Dan", "play": 1}, {"player": "Ann", "play": 1},
         {"player": "Ben", "polymorph": "gnome"})


# ---------------------------------------------------------------- real cards beside it


class RealTable:
    """The cards themselves, dealt as I2 says, moved as the actions say."""

    def __init__(self, game: ImpusGame, rng: random.Random) -> None:
        deck = game.deck
        creatures = [k for k in deck.kinds_in_play for _ in range(deck.count_of(k))]
        rng.shuffle(creatures)
        sizes = deal_counts(len(game.players), deck)
        dealt_one = game.players[-deck.polymorphs:] if deck.polymorphs else []
        self.hands: dict[str, list[str]] = {}
        for name, size in zip(game.players, sizes, strict=True):
            extra = [POLYMORPH] if name in dealt_one else []
            take = size - len(extra)
            self.hands[name] = extra + creatures[:take]
            creatures = creatures[take:]
        assert not creatures
        self.pile: list[str] = []
        self.batch: list[str] = []

    def polymorphs(self, name: str) -> int:
        return self.hands[name].count(POLYMORPH)


def real_action(table: RealTable, game: ImpusGame, rng: random.Random) -> dict[str, object]:
    """An action the player's real cards allow: a batch of cards, a cast, or a doubt."""
    if game.phase is Phase.REVEAL:
        return {"reveal": list(table.batch)}
    player = game.turn
    assert player is not None
    hand = table.hands[player]
    top_is_cast = bool(game.to_json()["pile"]) and game.last_batch is None
    if (game.claim is not None and POLYMORPH in hand and not top_is_cast
            and len(game.deck.claimable) > 1 and rng.random() < 0.3):
        kind = rng.choice([k for k in game.deck.claimable if k != game.claim])
        return {"player": player, "polymorph": kind}
    if game.last_batch is not None and rng.random() < 0.3:
        return {"player": player, "doubt": True}
    action: dict[str, object] = {"player": player, "play": rng.randint(1, len(hand))}
    if game.claim is None:
        action["claim"] = rng.choice(game.deck.claimable)
    return action


def move_cards(table: RealTable, game: ImpusGame, action: dict[str, object],
               rng: random.Random) -> None:
    """The same action on the real cards (after the engine took it)."""
    player = action.get("player")
    if "play" in action:
        assert isinstance(player, str) and isinstance(action["play"], int)
        hand = table.hands[player]
        rng.shuffle(hand)
        table.batch, table.hands[player] = hand[:action["play"]], hand[action["play"]:]
        table.pile += table.batch
    elif "polymorph" in action:
        assert isinstance(player, str)
        table.hands[player].remove(POLYMORPH)
        table.pile.append(POLYMORPH)
    elif "reveal" in action:
        taker = game.history[-1].taker
        table.hands[taker] += table.pile
        table.pile, table.batch = [], []
    elif "discard" in action:
        assert isinstance(player, str)
        kind = action["discard"]
        table.hands[player] = [c for c in table.hands[player] if c != kind]


def real_discards(table: RealTable, game: ImpusGame, rng: random.Random) -> None:
    """Whoever may discard and really holds four of a kind (or both polymorphs) sometimes does."""
    for name in game.discard_candidates():
        hand = table.hands[name]
        for kind in [*game.deck.claimable, POLYMORPH]:
            need = game.deck.count_of(kind)
            if kind != IMP and need and hand.count(kind) == need and rng.random() < 0.5:
                action = {"player": name, "discard": kind}
                game.apply_json(action)  # must be accepted: the cards are really there
                move_cards(table, game, action, rng)
                if game.phase is Phase.OVER:
                    return
                break


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(4, 5), seed=st.integers(0, 2**32 - 1),
       removed=st.lists(st.sampled_from(["gnome", "elf", "faun", "dragon"]), unique=True,
                        max_size=2))
def test_I8_the_engine_never_refuses_what_the_real_cards_allow(
        players: int, seed: int, removed: list[str]) -> None:
    rng = random.Random(seed)
    game = impus(FOUR + ["Eve"] if players == 5 else FOUR, {"remove_kinds": removed},
                 starter=rng.choice(FOUR))
    table = RealTable(game, rng)
    for _ in range(150):
        real_discards(table, game, rng)
        if game.phase is Phase.OVER:
            break
        action = real_action(table, game, rng)
        game.apply_json(action)  # an IllegalActionError here is the engine refusing a real play
        move_cards(table, game, action, rng)
        for name in game.players:
            assert game.may_hold_polymorphs(name) >= table.polymorphs(name), name
            assert game.cards_of(name) == len(table.hands[name])


def test_I2_the_deal_says_who_gets_the_polymorphs() -> None:
    assert impus(FOUR).deal_text() == "Deal the cards: Ann and Ben 10 each; Cho and Dan 10 and " \
                                      "a polymorph each"
    assert impus(["Ann", "Ben", "Cho"]).deal_text() == "Deal 14 cards each"
    assert impus(FOUR, {"polymorphs": False}).deal_text() == "Deal 10 cards each"
    five = impus([*FOUR, "Eve"], {"remove_kinds": ["dragon"]})  # 36 creatures + 2 polymorphs
    assert five.deal_text() == ("Deal the cards: Ann and Ben 7 each; Cho 8; Dan and Eve 7 and "
                                "a polymorph each")
    assert sum(deal_counts(5, five.deck)) == five.deck.size == 38
