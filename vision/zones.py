"""What `vision.reveal` needs to know about seat zones (a protocol, so vision needs no calibration).

`calibration.SeatZones` satisfies it; `PolygonZones` is a small stand-alone implementation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

Point = tuple[float, float]
Polygon = tuple[Point, ...]


class ZoneMap(Protocol):
    """Seat zones in image pixels, seat 0 first.

    A zone map may also have ``for_frame(frame) -> ZoneMap`` (zones that follow ArUco markers
    on the mat); `vision.reveal` then uses the zones as they lie in the frame it votes on.
    It may also have ``masks(x, y) -> bool``, true where no reading can be a die (on a mat
    marker, which a reader may take for one); the reveal ignores readings there.
    """

    @property
    def names(self) -> list[str]: ...

    def seat_of(self, x: float, y: float) -> int | None: ...

    def front_seat_of(self, x: float, y: float) -> int | None: ...

    def zone(self, seat: int) -> Polygon: ...

    def front_of_cup(self, seat: int) -> Polygon | None: ...


def point_in_polygon(polygon: Sequence[Point], x: float, y: float) -> bool:
    """Even-odd ray casting; a point on an edge counts as inside."""
    pts = np.asarray(polygon, dtype=np.float64)
    inside = False
    for (x1, y1), (x2, y2) in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
        if (
            abs(cross) < 1e-9
            and min(x1, x2) <= x <= max(x1, x2)
            and min(y1, y2) <= y <= max(y1, y2)
        ):
            return True
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


@dataclass(frozen=True, slots=True)
class PolygonZones:
    """Seat zones as plain polygons; front-of-cup areas are checked first."""

    seat_names: tuple[str, ...]
    zones: tuple[Polygon, ...]
    fronts: tuple[Polygon | None, ...] = ()

    def __post_init__(self) -> None:
        if len(self.seat_names) != len(self.zones):
            raise ValueError(f"{len(self.seat_names)} names for {len(self.zones)} zones")
        if self.fronts and len(self.fronts) != len(self.zones):
            raise ValueError(f"{len(self.fronts)} front areas for {len(self.zones)} zones")

    @property
    def names(self) -> list[str]:
        return list(self.seat_names)

    def seat_of(self, x: float, y: float) -> int | None:
        if self.front_seat_of(x, y) is not None:
            return None
        for index, polygon in enumerate(self.zones):
            if point_in_polygon(polygon, x, y):
                return index
        return None

    def front_seat_of(self, x: float, y: float) -> int | None:
        for index, polygon in enumerate(self.fronts):
            if polygon and point_in_polygon(polygon, x, y):
                return index
        return None

    def zone(self, seat: int) -> Polygon:
        return self.zones[seat]

    def front_of_cup(self, seat: int) -> Polygon | None:
        return self.fronts[seat] if self.fronts else None
