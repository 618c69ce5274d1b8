"""Helpers every game's rule tests share: feed replay-script objects, expect refusals.

Importable from any test folder: pytest puts tests/ on the path for tests/conftest.py.
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine import Game, IllegalActionError, parse_action

G = TypeVar("G", bound=Game)

ABC = ["Ann", "Ben", "Cho"]


def play(game: G, *objs: dict[str, Any]) -> G:
    for obj in objs:
        game.apply(parse_action(obj))
    return game


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
