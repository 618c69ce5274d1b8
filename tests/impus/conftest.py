"""Helpers for the Impus Bluff tests: build a game and feed it replay objects."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from engine import IllegalActionError, new_game
from engine.impus import ImpusGame


def impus(players: list[str], options: Mapping[str, Any] | None = None, **setup: Any) -> ImpusGame:
    game = new_game("impus", players, setup.get("starter"), options)
    assert isinstance(game, ImpusGame)
    return game


def play(game: ImpusGame, *objs: Mapping[str, Any]) -> ImpusGame:
    for obj in objs:
        game.apply_json(obj)
    return game


def refused(game: ImpusGame, obj: Mapping[str, Any], rule: str) -> IllegalActionError:
    """Assert ``obj`` is refused under ``rule`` and that the game did not change."""
    before = game.to_json()
    actions = len(game.actions)
    with pytest.raises(IllegalActionError) as caught:
        game.apply_json(obj)
    assert caught.value.rule == rule, caught.value.message
    assert game.to_json() == before
    assert len(game.actions) == actions
    return caught.value


def cards(game: ImpusGame) -> dict[str, int]:
    return {p["name"]: p["cards"] for p in game.to_json()["players"]}
