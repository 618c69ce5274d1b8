"""A table layout for a 2-6 seat game: the table area, one zone per seat, and the area in
front of each seat's cup where set-aside (re-roll) dice lie.

Zones are designed on the table plane (millimetres) and projected into the image, so the
polygons in calibration/demo.toml line up with the rendered frames exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tools.render.camera import Camera
from tools.render.geometry import Array


@dataclass(frozen=True)
class SeatArea:
    name: str
    angle_deg: float  # direction from the table centre to this seat
    zone: Array  # (k, 2) mm, where the seat's dice lie when the cup is lifted
    front: Array  # (k, 2) mm, in front of the cup, for set-aside dice
    cup_spot: Array  # (2,) mm, where the cup stands while bidding


@dataclass(frozen=True)
class Layout:
    table: Array  # (k, 2) mm
    seats: tuple[SeatArea, ...]

    def to_image(self, camera: Camera) -> dict[str, object]:
        """The layout in image pixels, in the shape of a calibration profile."""

        def proj(poly: Array) -> list[list[float]]:
            pts = np.column_stack([poly, np.zeros(len(poly))])
            return [[round(float(x), 1), round(float(y), 1)] for x, y in camera.project(pts)]

        return {
            "table": proj(self.table),
            "seats": [
                {"name": s.name, "zone": proj(s.zone), "front": proj(s.front)} for s in self.seats
            ],
        }


def _sector(r0: float, r1: float, a0: float, a1: float, steps: int = 8) -> Array:
    outer = [(r1 * np.cos(a), r1 * np.sin(a)) for a in np.linspace(a0, a1, steps)]
    inner = [(r0 * np.cos(a), r0 * np.sin(a)) for a in np.linspace(a1, a0, steps)]
    return np.array(outer + inner)


def seat_layout(
    seats: int,
    *,
    radius: float = 260.0,
    first_angle_deg: float = 90.0,
    names: list[str] | None = None,
) -> Layout:
    """Seats evenly round a round table of `radius` mm, clockwise as seen from above.

    Each seat gets a sector: its outer part (0.44..1.02 R) is the seat's zone, the inner
    part (0.06..0.41 R) is in front of the cup. The cup stands at 0.72 R.
    """
    if not 2 <= seats <= 6:
        raise ValueError(f"a layout has 2-6 seats, not {seats}")
    names = names or [f"Seat {i + 1}" for i in range(seats)]
    span = 2 * np.pi / seats
    table = np.array(
        [(radius * np.cos(a), radius * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 48, False)]
    )
    areas = []
    for i in range(seats):
        # clockwise seen from above: decreasing angle (x right, y up on the table plane)
        centre = np.radians(first_angle_deg) - i * span
        half = span / 2 - np.radians(4)
        zone = _sector(0.44 * radius, 1.02 * radius, centre - half, centre + half)
        front_half = min(half * 0.85, np.radians(40))
        front = _sector(0.06 * radius, 0.41 * radius, centre - front_half, centre + front_half)
        cup = 0.72 * radius * np.array([np.cos(centre), np.sin(centre)])
        areas.append(SeatArea(names[i], float(np.degrees(centre)), zone, front, cup))
    return Layout(table, tuple(areas))
