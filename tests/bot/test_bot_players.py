"""The computer player: legal moves only, its own dice only, seeded determinism, sound odds."""

from __future__ import annotations

import inspect
import random
from collections.abc import Sequence
from typing import Any

import pytest

from bot import Computer, Cup, RandomPlayer, Threshold, make_player
from bot.arena import play_game, wilson
from bot.model import belief
from bot.players import Player
from engine import Bid, Game, new_game, parse_action
from engine.actions import Action
from engine.odds import bid_probability
from engine.perudo import Calza, Dudo, probability_at_least, probability_exact

NAMES = ["easy", "normal", "hard", "threshold", "random"]


def random_options(kind: str, players: int, rng: random.Random) -> dict[str, Any]:
    if kind == "bluff":
        return rng.choice([{}, {"joker_face": 6}, {"reroll": False}, {"dice_per_player": 2},
                           {"exact": "challenger_pays_bidder"}, {"dice_per_player": "czech"}])
    if kind == "perudo":
        return rng.choice([{}, {"calza": False}, {"palifico": False}, {"dice_per_player": 2}])
    options: dict[str, Any] = {"target": rng.choice([3, 10])}
    if players not in (3, 4):
        options["allow_any_players"] = True
    return options


@pytest.mark.parametrize("kind", ["bluff", "scam", "perudo"])
def test_every_move_is_legal_in_random_games(kind: str) -> None:
    """The arena applies each move through the engine: a refused one raises and fails here."""
    rng = random.Random(54)
    for _ in range(40):
        players = rng.randint(2, 6 if kind != "scam" else 4)
        table = [make_player(rng.choice(NAMES)) for _ in range(players)]
        outcome = play_game(kind, table, rng, random_options(kind, players, rng))
        assert outcome.game.winner == outcome.game.players[outcome.winner]


class Spy:
    """Plays like ``inner`` and keeps every hand it was given, per round."""

    def __init__(self, inner: Player) -> None:
        self.inner, self.name = inner, "spy"
        self.given: dict[int, tuple[int, ...]] = {}

    def choose(self, game: Game, seat: str, own_dice: Sequence[int], rng: random.Random) -> Action:
        # the first hand of each round (Bluff: before any raise and re-roll)
        self.given.setdefault(len(game.history), tuple(own_dice))
        return self.inner.choose(game, seat, own_dice, rng)


@pytest.mark.parametrize("kind", ["scam", "perudo"])
def test_the_arena_gives_each_seat_its_own_dice_only(kind: str) -> None:
    spies = [Spy(make_player("hard")), Spy(make_player("threshold")), Spy(make_player("normal"))]
    outcome = play_game(kind, spies, random.Random(7))
    checked = 0
    for seat, spy in enumerate(spies):
        name = f"S{seat + 1}"
        for round_index, hand in spy.given.items():
            if round_index < len(outcome.game.history):
                revealed = outcome.game.history[round_index].to_json()["reveal"]
                if name in revealed:
                    assert sorted(revealed[name]) == sorted(hand)
                    checked += 1
    assert checked > 3


def test_the_interface_takes_the_public_game_and_its_own_dice_only() -> None:
    for player in (Computer("hard"), Threshold(), RandomPlayer()):
        params = list(inspect.signature(player.choose).parameters)
        assert params == ["game", "seat", "own_dice", "rng"]
    # a game object holds no dice that were not revealed: the engine never rolls
    game = new_game("perudo", ["A", "B"])
    assert "reveal" not in str(game.export()["actions"])


def test_own_dice_must_be_the_seats_count_and_it_must_be_its_turn() -> None:
    game = new_game("perudo", ["A", "B"])
    hard = Computer("hard")
    with pytest.raises(ValueError, match="has 5 dice"):
        hard.choose(game, "A", [1, 2, 3], random.Random(1))
    with pytest.raises(ValueError, match="not B's turn"):
        hard.choose(game, "B", [1, 2, 3, 4, 5], random.Random(1))
    with pytest.raises(ValueError, match="does not play Impus"):
        hard.choose(new_game("impus", ["A", "B"]), "A", [1], random.Random(1))
    with pytest.raises(ValueError, match="unknown player"):
        make_player("grandmaster")


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_decisions_are_determined_by_the_seed(level: str) -> None:
    game = new_game("bluff", ["A", "B", "C"])
    for obj in ({"player": "A", "bid": "2x3"}, {"player": "B", "bid": "3x3"}):
        game.apply(parse_action(obj))
    player = Computer(level)
    hand = (3, 3, 1, 5, 2)
    choices = {player.choose(game, "C", hand, random.Random(s)) for s in (11, 11, 11)}
    assert len(choices) == 1
    first = play_game("perudo", [Computer(level), Threshold()], random.Random(3))
    again = play_game("perudo", [Computer(level), Threshold()], random.Random(3))
    assert first.game.export() == again.game.export()


def test_hard_doubts_the_impossible_and_raises_on_a_sure_thing() -> None:
    game = new_game("perudo", ["A", "B"])
    game.apply(parse_action({"player": "A", "bid": "9x6"}))
    assert Computer("hard").choose(game, "B", (2, 3, 4, 5, 2), random.Random(1)) == Dudo("B")
    game = new_game("perudo", ["A", "B"])
    game.apply(parse_action({"player": "A", "bid": "2x6"}))
    move = Computer("hard").choose(game, "B", (6, 6, 6, 1, 6), random.Random(1))
    assert not isinstance(move, Dudo)


def test_hard_calls_calza_when_exact_is_likely_and_it_can_gain() -> None:
    all_twos = [{"reveal": {"A": [2] * a, "B": [2] * b}} for a, b in ((4, 4), (3, 4), (2, 4))]
    script = {"game": "perudo", "players": ["A", "B"], "options": {"palifico": False},
              "actions": [
        {"player": "A", "bid": "3x2"}, {"player": "B", "dudo": True},
        {"reveal": {"A": [2, 2, 2, 3, 3], "B": [4, 4, 4, 4, 4]}},  # B loses one
        {"player": "B", "bid": "1x5"}, {"player": "A", "bid": "6x5"}, {"player": "B", "dudo": True},
        {"reveal": {"A": [2] * 5, "B": [2] * 4}},  # A loses one, and starts
        *(obj for reveal in all_twos for obj in (
            {"player": "A", "bid": "6x5"}, {"player": "B", "dudo": True}, reveal)),
    ]}
    game = Game.from_script(script)
    assert game.to_json()["players"] == [{"name": "A", "dice": 1, "out": False},
                                         {"name": "B", "dice": 4, "out": False}]
    game.apply(parse_action({"player": "A", "bid": "4x6"}))
    # B sees four 6s and aces of its own: exact unless A's one die is a 6 or an ace (4/6)
    assert Computer("hard").choose(game, "B", (6, 6, 1, 1), random.Random(1)) == Calza("B")


def test_belief_matches_the_engines_odds_without_reading_bids() -> None:
    game = new_game("bluff", ["A", "B", "C"])
    game.apply(parse_action({"player": "A", "bid": "2x4", "set_aside": [4, 1]}))
    own = (4, 1, 2, 2, 6)
    seen = belief(game, "B", own)
    for bid in (Bid(3, 4), Bid(6, 4), Bid(2), Bid(5, 6)):
        want = bid_probability(bid, 8, [4, 1], own, 1)
        assert seen.at_least(bid) == pytest.approx(want)
    game = new_game("perudo", ["A", "B"])
    seen = belief(game, "A", (1, 3, 3, 5, 6))
    for bid in (Bid(3, 3), Bid(2), Bid(6, 5)):
        assert seen.at_least(bid) == pytest.approx(probability_at_least(bid, 5, (1, 3, 3, 5, 6)))
        assert seen.exactly(bid) == pytest.approx(probability_exact(bid, 5, (1, 3, 3, 5, 6)))


def test_reading_bids_raises_the_chance_of_the_bid_face() -> None:
    game = new_game("perudo", ["A", "B"])
    game.apply(parse_action({"player": "A", "bid": "3x5"}))
    plain = belief(game, "B", (2, 2, 3, 3, 4)).at_least(Bid(3, 5))
    tilted = belief(game, "B", (2, 2, 3, 3, 4), tilt=1.5).at_least(Bid(3, 5))
    assert tilted > plain


def test_cup() -> None:
    cup = Cup(random.Random(1))
    hand = cup.roll(5)
    assert len(hand) == 5 and set(hand) <= {1, 2, 3, 4, 5, 6}
    again = cup.reroll(hand, hand[:2])
    assert again[:2] == hand[:2] and len(again) == 5
    with pytest.raises(ValueError, match="not among"):
        cup.reroll((1, 1), (6,))
    with pytest.raises(ValueError, match="whole number"):
        cup.roll(-1)
    import secrets

    assert isinstance(Cup()._rng, secrets.SystemRandom)


def test_wilson() -> None:
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-3) and high == pytest.approx(0.7634, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    with pytest.raises(ValueError):
        wilson(3, 0)
