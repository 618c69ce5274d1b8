"""Shared helpers for the engine tests: build games and feed them replay-script objects."""

from __future__ import annotations

from typing import Any

from game_helpers import ABC, play, refused, reveal

from engine import Game, new_game

__all__ = ["ABC", "bid", "bluff", "challenge", "pass_", "play", "random_action", "refused",
           "reveal", "scam", "scam_call"]


def bluff(players: list[str] | None = None, starter: str | None = None, **options: Any) -> Game:
    return new_game("bluff", players or ABC, starter, options)


def scam(players: list[str] | None = None, starter: str | None = None, **options: Any) -> Game:
    return new_game("scam", players or ["Ann", "Ben", "Cho", "Dan"], starter, options)


def bid(player: str, text: str, *set_aside: int) -> dict[str, Any]:
    obj: dict[str, Any] = {"player": player, "bid": text}
    if set_aside:
        obj["set_aside"] = list(set_aside)
    return obj


def challenge(player: str) -> dict[str, Any]:
    return {"player": player, "challenge": True}


def pass_(player: str) -> dict[str, Any]:
    return {"player": player, "pass": True}


def scam_call(player: str) -> dict[str, Any]:
    return {"player": player, "scam": True}


def random_action(game: Game, rng: Any) -> dict[str, Any]:
    """A random legal replay object for ``game`` (rng: random.Random), biased to end games."""
    kinds = game.legal_action_kinds()
    if kinds == ["reveal"]:
        hands = {}
        for name, want in game.expected_reveal().items():
            rest = [rng.randint(1, 6) for _ in range(want.count - len(want.set_aside))]
            hand = list(want.set_aside) + rest
            rng.shuffle(hand)
            hands[name] = hand
        return {"reveal": hands}
    player = game.turn
    assert player is not None
    if "challenge" in kinds and rng.random() < 0.45:
        return challenge(player)
    if "scam" in kinds and rng.random() < 0.3:
        return scam_call(player)
    if "pass" in kinds and rng.random() < 0.5:
        return pass_(player)
    choice = rng.choice(game.lowest_raises())
    text = str(type(choice)(choice.count + rng.choice([0, 0, 0, 1, 2]), choice.face))
    obj = bid(player, text)
    if "set_aside" in kinds and rng.random() < 0.3:
        cup = game.in_cup(player)  # type: ignore[attr-defined]
        obj["set_aside"] = [rng.randint(1, 6) for _ in range(rng.randint(1, cup - 1))]
    return obj
