"""Shared helpers for the Perudo tests: build games and feed them replay-script objects."""

from __future__ import annotations

from typing import Any

from game_helpers import ABC, play, refused, reveal

from engine import Game, new_game
from engine.perudo import PerudoGame

__all__ = ["ABC", "bid", "calza", "dice", "dudo", "last", "perudo", "play", "refused", "reveal"]


def perudo(
    players: list[str] | None = None, starter: str | None = None, **options: Any
) -> PerudoGame:
    game = new_game("perudo", players or ABC, starter, options)
    assert isinstance(game, PerudoGame)
    return game


def bid(player: str, text: str) -> dict[str, Any]:
    return {"player": player, "bid": text}


def dudo(player: str) -> dict[str, Any]:
    return {"player": player, "dudo": True}


def calza(player: str) -> dict[str, Any]:
    return {"player": player, "calza": True}


def dice(game: Game) -> dict[str, int]:
    return {p["name"]: p["dice"] for p in game.to_json()["players"]}


def last(game: Game) -> dict[str, Any]:
    """The last finished round as JSON (verdict, actual, next_starter, …)."""
    return game.history[-1].to_json()
