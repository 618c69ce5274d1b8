"""Plane geometry for zones: polygons, point-in-polygon, sectors and homographies (numpy only)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

Point = tuple[float, float]
Polygon = tuple[Point, ...]


def as_polygon(points: Sequence[Sequence[float]]) -> Polygon:
    """Normalise a list of ``[x, y]`` pairs to a tuple of float pairs."""
    return tuple((float(p[0]), float(p[1])) for p in points)


def contains(polygon: Polygon, x: float, y: float) -> bool:
    """Whether ``(x, y)`` lies inside ``polygon`` (even-odd ray casting; edges count as in)."""
    inside = False
    n = len(polygon)
    for i in range(n):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % n]
        if _on_segment(x, y, x1, y1, x2, y2):
            return True
        if (y1 > y) != (y2 > y):
            x_cross = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < x_cross:
                inside = not inside
    return inside


def _on_segment(x: float, y: float, x1: float, y1: float, x2: float, y2: float) -> bool:
    cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
    if abs(cross) > 1e-9 * max(1.0, abs(x2 - x1) + abs(y2 - y1)):
        return False
    return (
        min(x1, x2) - 1e-9 <= x <= max(x1, x2) + 1e-9
        and min(y1, y2) - 1e-9 <= y <= max(y1, y2) + 1e-9
    )


def first_crossing(polygon: Polygon, *, tolerance: float = 0.5) -> tuple[int, int] | None:
    """The first two edges (by their first corners' indices) that cross each other, or None.

    A zone whose corners are listed out of order is a bow-tie: ray casting then counts some
    of its inside as outside. Edges that only touch or run along each other (a full-circle
    sector's seam), or cross by less than ``tolerance`` pixels, do not count.
    """
    n = len(polygon)
    for i in range(n):
        a, b = polygon[i], polygon[(i + 1) % n]
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:  # the closing edge shares the first corner
                continue
            c, d = polygon[j], polygon[(j + 1) % n]
            if _strictly_apart(a, b, c, d, tolerance) and _strictly_apart(c, d, a, b, tolerance):
                return i, j
    return None


def _strictly_apart(a: Point, b: Point, c: Point, d: Point, tolerance: float) -> bool:
    """Whether c and d lie on opposite sides of the line through a and b, each farther from
    it than ``tolerance``."""
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length < 1e-9:
        return False

    def side(p: Point) -> float:  # signed distance from the line
        return ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) / length

    sc, sd = side(c), side(d)
    return (sc > tolerance and sd < -tolerance) or (sc < -tolerance and sd > tolerance)


def area(polygon: Polygon) -> float:
    """Unsigned area (shoelace formula)."""
    pts = np.asarray(polygon, dtype=np.float64)
    x, y = pts[:, 0], pts[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)


def centroid(polygon: Polygon) -> Point:
    """Mean of the vertices — good enough to place a label."""
    pts = np.asarray(polygon, dtype=np.float64)
    return float(pts[:, 0].mean()), float(pts[:, 1].mean())


def sector(
    centre: Point, start_deg: float, end_deg: float, inner: float, outer: float, *, steps: int = 16
) -> Polygon:
    """An annular sector as a polygon; angles in image degrees (0 = +x, 90 = +y = down)."""
    if end_deg <= start_deg:
        end_deg += 360.0
    angles = [math.radians(start_deg + (end_deg - start_deg) * i / steps) for i in range(steps + 1)]
    cx, cy = centre
    outer_arc = [(cx + outer * math.cos(a), cy + outer * math.sin(a)) for a in angles]
    if inner <= 0:
        return ((cx, cy), *outer_arc)
    inner_arc = [(cx + inner * math.cos(a), cy + inner * math.sin(a)) for a in reversed(angles)]
    return (*outer_arc, *inner_arc)


def apply_homography(matrix: NDArray[np.float64], polygon: Polygon) -> Polygon:
    """Map every vertex through a 3×3 homography."""
    pts = np.asarray(polygon, dtype=np.float64)
    homogeneous = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(matrix, dtype=np.float64).T
    mapped = homogeneous[:, :2] / homogeneous[:, 2:3]
    return tuple((float(x), float(y)) for x, y in mapped)


#: DLT's eighth singular value, relative to its first, under which the points do not fix a
#: homography (repeated points or points on a line: about 1e-17 and less; four corners of a
#: mat of 1000 px seen by a camera: about 1e-7)
DEGENERATE = 1e-12


def homography_from_points(source: Sequence[Point], target: Sequence[Point]) -> NDArray[np.float64]:
    """The 3×3 homography taking four (or more) source points onto target points (DLT)."""
    src = np.asarray(source, dtype=np.float64)
    dst = np.asarray(target, dtype=np.float64)
    if src.shape != dst.shape or src.shape[0] < 4 or src.shape[1] != 2:
        raise ValueError(f"need at least 4 matching point pairs, got {src.shape} and {dst.shape}")
    rows = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        rows.append([-x, -y, -1, 0, 0, 0, u * x, u * y, u])
        rows.append([0, 0, 0, -x, -y, -1, v * x, v * y, v])
    _, spread, vt = np.linalg.svd(np.asarray(rows))
    if spread[7] <= DEGENERATE * spread[0]:  # fewer than 8 independent equations
        raise ValueError("degenerate point configuration: the points repeat or lie on a line")
    matrix = vt[-1].reshape(3, 3)
    if abs(matrix[2, 2]) < 1e-12:
        raise ValueError("degenerate point configuration: no homography")
    return np.asarray(matrix / matrix[2, 2], dtype=np.float64)
