"""`bluffcam replay` as a pure function: a script in, the output object and exit code out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.actions import JsonObject
from engine.errors import EngineError
from engine.game import game_from_setup

EXIT_OK = 0
EXIT_REFUSED = 2


def run_script(script: Mapping[str, Any]) -> tuple[JsonObject, int]:
    """Apply every action; on the first refusal stop, report it and show the state before it.

    Exit code 0 when everything applied, 2 when the setup or an action was refused. (1, a bug,
    is the caller's: any other exception escapes.)
    """
    try:
        game = game_from_setup(script)
        actions = script.get("actions", [])
        if not isinstance(actions, list):
            raise EngineError("format", f'"actions" must be a list, not {actions!r}')
    except EngineError as error:
        kind = script.get("game") if isinstance(script, Mapping) else None
        return {"game": kind, "error": {"index": None, **error.to_json()}}, EXIT_REFUSED
    for index, obj in enumerate(actions):
        try:
            game.apply_json(obj)
        except EngineError as error:
            output = game.to_json()
            output["error"] = {"index": index, **error.to_json()}
            return output, EXIT_REFUSED
    return game.to_json(), EXIT_OK
