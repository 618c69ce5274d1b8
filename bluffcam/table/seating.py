"""Who sits at which of the table's seats: the seat zones of the calibration profile, the seat
LEDs of the button panel.

The rules only know the players' order round the table. A table whose profile has more seats
than a game has players (a printed mat for six, four playing) also needs to know which seats
they took: a game's setup may say so with ``"seats"``, the seat number (1 = the profile's
first seat, numbered clockwise) of each player in the setup's order. Without it the players
take the first seats in order. The table keeps ``"seats"`` beside the engine's setup (the
rules never see it) and journals it with the game, so a restart keeps everyone in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

#: the setup key the table keeps beside the engine's
SEATS_KEY = "seats"
#: seats a table without a calibration profile may number (the panel has six seat LEDs)
DEFAULT_SEAT_COUNT = 6


class SeatingError(ValueError):
    """A ``"seats"`` list that does not fit the players or the table; the message says why."""


def check_seats(seats: Any, players: Sequence[str], seat_count: int) -> list[int]:
    """``seats`` as a list of seat numbers, one per player, each an existing seat, in the
    players' (clockwise) order; else a `SeatingError` naming what is wrong."""
    if not isinstance(seats, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in seats):
        raise SeatingError(f"seats: give a list of seat numbers such as [1, 2, 4], got {seats!r}")
    if len(seats) != len(players):
        raise SeatingError(f"seats: give one seat number per player ({len(players)} players, "
                           f"{len(seats)} seat numbers)")
    for name, seat in zip(players, seats, strict=True):
        if not 1 <= seat <= seat_count:
            raise SeatingError(f"seats: {name}'s seat {seat} does not exist; the table has "
                               f"seats 1 to {seat_count}")
    for (before, first), (after, second) in pairwise(zip(players, seats, strict=True)):
        if second <= first:
            raise SeatingError(f"seats: the players sit clockwise in the order listed, so "
                               f"{after}'s seat must come after {before}'s {first}, "
                               f"not {second}")
    return list(seats)


def seat_map(players: Sequence[str], seats: Sequence[int] | None) -> list[str | None]:
    """Who sits at seat index 0, 1, …: a player's name, or None for a seat nobody took."""
    if not seats:
        return list(players)
    taken: list[str | None] = [None] * max(seats)
    for name, seat in zip(players, seats, strict=True):
        taken[seat - 1] = name
    return taken


def seat_index(players: Sequence[str], seats: Sequence[int] | None, player: str) -> int:
    """The index (from 0) of ``player``'s seat."""
    index = list(players).index(player)
    return seats[index] - 1 if seats else index
