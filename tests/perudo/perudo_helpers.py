"""Shared helpers for the Perudo tests: build games and feed them replay-script objects."""

from __future__ import annotations

from typing import Any, TypeVar

from engine import Game, IllegalActionError, new_game, parse_action
from engine.perudo import PerudoGame

G = TypeVar("G", bound=Game)

ABC = ["Ann", "Ben", "Cho"]


def perudo(
    players: list[str] | None = None, starter: str | None = None, **options: Any
) -> PerudoGame:
    game = new_game("perudo", players or ABC, starter, options)
    assert isinstance(game, PerudoGame)
    return game


def play(game: G, *objs: dict[str, Any]) -> G:
    for obj in objs:
        game.apply(parse_action(obj))
    return game


def bid(player: str, text: str) -> dict[str, Any]:
    return {"player": player, "bid": text}


def dudo(player: str) -> dict[str, Any]:
    return {"player": player, "dudo": True}


def calza(player: str) -> dict[str, Any]:
    return {"player": player, "calza": True}


def reveal(**hands: list[int]) -> dict[str, Any]:
    return {"reveal": hands}


def refused(game: Game, obj: dict[str, Any]) -> IllegalActionError:
    """Apply ``obj`` expecting a refusal; assert it changed nothing; return the error."""
    before = (game.to_json(), game.details(), len(game.actions))
    try:
        game.apply(parse_action(obj))
    except IllegalActionError as error:
        assert (game.to_json(), game.details(), len(game.actions)) == before
        return error
    raise AssertionError(f"{obj} was accepted")


def dice(game: Game) -> dict[str, int]:
    return {p["name"]: p["dice"] for p in game.to_json()["players"]}


def last(game: Game) -> dict[str, Any]:
    """The last finished round as JSON (verdict, actual, next_starter, …)."""
    return game.history[-1].to_json()
