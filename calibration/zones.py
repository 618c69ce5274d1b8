"""Seat zones: where each player's dice lie, and the area in front of each cup."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import Polygon, apply_homography, contains
from calibration.markers import on_a_marker


@dataclass(frozen=True, slots=True)
class SeatZone:
    """One seat: its dice zone and (for re-rolls) the area in front of its cup."""

    name: str
    zone: Polygon
    front: Polygon | None = None

    def transformed(self, matrix: NDArray[np.float64]) -> SeatZone:
        front = apply_homography(matrix, self.front) if self.front else None
        return SeatZone(self.name, apply_homography(matrix, self.zone), front)


@dataclass(frozen=True, slots=True)
class SeatZones:
    """Every seat's zones, in seat order (clockwise, seat 0 first).

    Front-of-cup areas are checked before dice zones, so a front area may lie inside its
    seat's zone. Satisfies `vision.zones.ZoneMap`, so `vision.reveal` can use it directly.
    """

    seats: tuple[SeatZone, ...]
    #: re-finds the zones in a given frame (ArUco markers); None: the zones are fixed
    relocate: Callable[[NDArray[np.uint8]], SeatZones] | None = field(
        default=None, compare=False, repr=False
    )
    #: areas where no reading is a die (the mat's markers as seen in this frame), in pixels
    no_dice: tuple[Polygon, ...] = field(default=(), compare=False)

    def for_frame(self, frame: NDArray[np.uint8]) -> SeatZones:
        """These zones as they lie in ``frame`` (moved with the mat when markers are used)."""
        return self.relocate(frame) if self.relocate is not None else self

    def masks(self, x: float, y: float) -> bool:
        """Whether ``(x, y)`` lies where no die can be (on a mat marker): readings there are
        the marker's black-and-white squares, not dice."""
        return on_a_marker(self.no_dice, x, y)

    def __len__(self) -> int:
        return len(self.seats)

    def __iter__(self) -> Iterator[SeatZone]:
        return iter(self.seats)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def seat_of(self, x: float, y: float) -> int | None:
        """Index of the seat whose dice zone holds ``(x, y)`` (front areas excluded), or None."""
        if self.front_seat_of(x, y) is not None:
            return None
        for index, seat in enumerate(self.seats):
            if contains(seat.zone, x, y):
                return index
        return None

    def front_seat_of(self, x: float, y: float) -> int | None:
        """Index of the seat whose front-of-cup area holds ``(x, y)``, or None."""
        for index, seat in enumerate(self.seats):
            if seat.front and contains(seat.front, x, y):
                return index
        return None

    def front_of_cup(self, seat: int) -> Polygon | None:
        return self.seats[seat].front

    def zone(self, seat: int) -> Polygon:
        return self.seats[seat].zone

    def transformed(self, matrix: NDArray[np.float64]) -> SeatZones:
        """These zones mapped through a homography (mat coordinates -> image pixels)."""
        return SeatZones(tuple(s.transformed(matrix) for s in self.seats))
