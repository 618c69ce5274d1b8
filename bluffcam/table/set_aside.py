"""Raise and re-roll from the panel: the set-aside dice read from the player's front area.

The panel names no faces for a re-roll; the camera reads what lies in front of the player's
cup, less what was set aside there before. Asked only once the rules allow the re-roll at
all, so a refusal names the rule, not the camera; anything unsure is a refusal that asks for
the faces by hand.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from bluffcam.table.camera_port import CameraPort
from bluffcam.table.errors import TableError
from bluffcam.table.ledger import Ledger
from bluffcam.table.seating import SEATS_KEY, seat_index
from engine import Game, parse_action
from engine.words import Said, said

#: reads one seat's front-of-cup dice: (frames, seat index) -> (faces, problems), each
#: problem in words to translate (vision's, `bluffcam.camera_news.problem_said`) or English
SetAsideReader = Callable[[Iterator[Any], int], tuple[list[int], Sequence[str | Said]]]


def wants_camera_set_aside(action: Mapping[str, Any]) -> bool:
    """A re-roll that leaves its set-aside faces to the camera."""
    return bool(action.get("reroll")) and action.get("set_aside") in (None, "camera")


class SetAsideReads:
    """Fills in a panel re-roll's set-aside faces from the camera."""

    def __init__(self, ledger: Ledger, port: CameraPort, lock: threading.RLock,
                 reader: SetAsideReader, seats_short: Callable[[], str]) -> None:
        self._ledger, self._port, self._lock = ledger, port, lock
        self._reader = reader
        self._seats_short = seats_short
        #: for recorded games: the faces the next camera-read re-roll must find
        self.truth: list[int] | None = None

    def fill(self, action: dict[str, Any]) -> dict[str, Any]:
        """The action with ``set_aside`` read by the camera; TableError where it cannot be."""
        player = str(action.get("player"))
        filled = {k: v for k, v in action.items() if k not in ("reroll", "set_aside")}
        with self._lock:
            game = self._ledger.require_game()
            if player not in game.players:
                raise TableError(f"{player} is not at this table", rule="format", status=400)
            game.check(parse_action({**filled, "set_aside": [1]}))  # any face: B9 is later
            seat = seat_index(game.players, (self._ledger.setup or {}).get(SEATS_KEY), player)
            before = list(_set_aside_of(game).get(player, []))
        if self._port.camera is None:
            refused = said("raise and re-roll: no camera to read the set-aside dice; give their "
                           "faces on the control page (\"set_aside\": [4, 4])")
            raise TableError(str(refused), rule="camera", status=409, said=refused)
        short = self._seats_short()
        if short:
            refused = said("raise and re-roll: {why}; give their faces by hand", why=short)
            raise TableError(str(refused), rule="camera", status=409, said=refused)
        try:
            seen, problems = self._port.on_reading_thread(self._reader, self._port.frames(),
                                                          seat)
        except Exception as exc:
            problems, seen = [said("the camera could not read them ({error})", error=str(exc))], []
        new = _multiset_minus(list(seen), before)
        truth = self.truth
        if truth is not None and sorted(new) != truth and not problems:
            problems = [said("the camera read {read}, the recording says {truth}",
                             read=str(sorted(new)), truth=str(truth))]
        if problems or not new:
            why = tuple(p if isinstance(p, Said) else Said(str(p)) for p in problems) or (
                said("no newly set-aside dice seen in front of {player}'s cup", player=player),)
            refused = said("raise and re-roll: {why}; give their faces by hand", why=why)
            raise TableError(str(refused), rule="camera", status=409, said=refused)
        filled["set_aside"] = sorted(new)
        return filled


def _set_aside_of(game: Game) -> dict[str, list[int]]:
    value = getattr(game, "set_aside", None)
    if callable(value):
        value = value()
    return {str(k): list(v) for k, v in (value or {}).items()}


def _multiset_minus(items: list[int], remove: list[int]) -> list[int]:
    left = list(items)
    for value in remove:
        if value in left:
            left.remove(value)
    return left
