"""Propose a table's zones from where the players put their dice.

At calibration every player puts their dice where their cup will stand. The dice positions
are grouped into one cluster per seat (k-means), the seats are ordered clockwise around the
table centre, and each seat gets a sector of the table: the outer part for the cup's dice, the
inner part (towards the centre) for dice set aside in front of the cup.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import Point, Polygon, sector
from calibration.zones import SeatZone, SeatZones


class FitError(ValueError):
    """The dice cannot give the zones asked for (too few dice, seats overlapping)."""


@dataclass(frozen=True, slots=True)
class FittedTable:
    centre: Point
    radius: float
    table_area: Polygon
    zones: SeatZones
    clusters: list[list[Point]]


def kmeans(points: NDArray[np.float64], k: int, *, iterations: int = 50) -> NDArray[np.int64]:
    """Cluster labels for ``points`` (n, 2); deterministic farthest-point initialisation."""
    n = len(points)
    if n < k:
        raise FitError(f"need at least one die per seat: found {n} dice for {k} seats")
    centres = [points[np.argmax(np.linalg.norm(points - points.mean(axis=0), axis=1))]]
    while len(centres) < k:
        distance = np.min([np.linalg.norm(points - c, axis=1) for c in centres], axis=0)
        centres.append(points[int(np.argmax(distance))])
    centre_array = np.asarray(centres, dtype=np.float64)
    labels = np.zeros(n, dtype=np.int64)
    for _ in range(iterations):
        distances = np.linalg.norm(points[:, None, :] - centre_array[None, :, :], axis=2)
        new_labels = np.argmin(distances, axis=1)
        for j in range(k):
            members = points[new_labels == j]
            if len(members):
                centre_array[j] = members.mean(axis=0)
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
    return labels


def fit_table(
    positions: Sequence[Point],
    seats: int,
    *,
    frame_size: tuple[int, int],
    die_size_px: float = 40.0,
    names: Sequence[str] | None = None,
) -> FittedTable:
    """Seat zones (sectors around the dice centroid) fitted to one cluster of dice per seat.

    Seat 1 is the cluster nearest the bottom of the picture; the others follow clockwise
    (as seen in the picture). ``die_size_px`` sets the margin around the dice.
    """
    if not 1 <= seats <= 6:
        raise FitError(f"seats must be 1..6, got {seats}")
    points = np.asarray(positions, dtype=np.float64).reshape(-1, 2)
    labels = kmeans(points, seats)
    clusters = [points[labels == j] for j in range(seats)]
    if any(len(c) == 0 for c in clusters):
        raise FitError("a seat got no dice; spread each player's dice in their own area")
    _check_groups_apart(clusters, die_size_px)
    means = np.asarray([c.mean(axis=0) for c in clusters])
    centre = means.mean(axis=0) if seats > 1 else np.asarray(frame_size, dtype=np.float64) / 2
    angles = np.degrees(np.arctan2(means[:, 1] - centre[1], means[:, 0] - centre[0]))
    # clockwise on screen = increasing image angle; start at the bottom (90 degrees)
    order = sorted(range(seats), key=lambda j: (angles[j] - 90.0) % 360.0)
    ordered = [clusters[j] for j in order]
    ordered_angles = [float(angles[j]) for j in order]
    reach = max(float(np.max(np.linalg.norm(points - centre, axis=1))), die_size_px)
    radius = reach + 1.5 * die_size_px
    seat_zones = []
    for index, cluster in enumerate(ordered):
        if seats == 1:
            start, end = ordered_angles[0] - 180.0, ordered_angles[0] + 180.0
        else:
            previous = ordered_angles[index - 1]
            following = ordered_angles[(index + 1) % seats]
            here = ordered_angles[index]
            start = here - ((here - previous) % 360.0) / 2
            end = here + ((following - here) % 360.0) / 2
        nearest = float(np.min(np.linalg.norm(cluster - centre, axis=1)))
        split = max(nearest - 1.0 * die_size_px, 0.3 * nearest)
        inner_front = max(split - 2.5 * die_size_px, 0.0)
        zone = sector((centre[0], centre[1]), start, end, split, radius)
        front = (
            sector((centre[0], centre[1]), start, end, inner_front, split) if split > 0 else None
        )
        name = names[index] if names and index < len(names) else f"Seat {index + 1}"
        seat_zones.append(SeatZone(name, zone, front))
    table_area = _circle((float(centre[0]), float(centre[1])), radius, frame_size)
    return FittedTable(
        centre=(float(centre[0]), float(centre[1])),
        radius=radius,
        table_area=table_area,
        zones=SeatZones(tuple(seat_zones)),
        clusters=[[(float(x), float(y)) for x, y in c] for c in ordered],
    )


#: two seats' dice closer than this many dice (centre to centre) are one group split in two:
#: dice spread under one cup lie a die or two apart, neighbours' cups several
GROUPS_APART_DICE = 2.5


def _check_groups_apart(clusters: list[NDArray[np.float64]], die_size_px: float) -> None:
    """Refuse seats cut out of one group of dice: with fewer groups on the table than seats
    asked for (a mat for six, four playing), k-means splits a player's dice between two
    seats, and the zones' border then runs through that player's place."""
    closest = GROUPS_APART_DICE * die_size_px
    for a in range(len(clusters)):
        for b in range(a + 1, len(clusters)):
            gap = np.min(np.linalg.norm(clusters[a][:, None, :] - clusters[b][None, :, :], axis=2))
            if gap < closest:
                raise FitError(
                    f"two seats' dice lie side by side ({gap:.0f} px apart, about "
                    f"{gap / die_size_px:.1f} dice): one player's dice split in two. Put a "
                    "few dice at every seat to fit, each group apart from the next, or fit "
                    "fewer seats")


def _circle(centre: Point, radius: float, frame_size: tuple[int, int], steps: int = 36) -> Polygon:
    """A circle as a polygon, clipped to the frame."""
    width, height = frame_size
    points = []
    for i in range(steps):
        a = 2 * math.pi * i / steps
        x = min(max(centre[0] + radius * math.cos(a), 0.0), float(width - 1))
        y = min(max(centre[1] + radius * math.sin(a), 0.0), float(height - 1))
        points.append((round(x, 2), round(y, 2)))
    return tuple(points)
