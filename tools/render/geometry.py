"""Small geometric helpers shared by the renderer: rotations and footprint overlap tests."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]


def rot_x(deg: float) -> Array:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=np.float64)


def rot_y(deg: float) -> Array:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], dtype=np.float64)


def rot_z(deg: float) -> Array:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)


def rot_axis(axis: Array, deg: float) -> Array:
    """Rodrigues rotation about a unit `axis`."""
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    t = np.radians(deg)
    rotation: Array = np.eye(3) + np.sin(t) * k + (1 - np.cos(t)) * (k @ k)
    return rotation


def square_corners(x: float, y: float, yaw_deg: float, size: float) -> Array:
    """The 4 corners (4, 2) of a die's footprint on the table."""
    h = size / 2.0
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    c, s = np.cos(np.radians(yaw_deg)), np.sin(np.radians(yaw_deg))
    corners: Array = local @ np.array([[c, s], [-s, c]]) + np.array([x, y])
    return corners


def convex_overlap(a: Array, b: Array, gap: float = 0.0) -> bool:
    """Separating-axis test for two convex polygons, closer than `gap` counts as touching."""
    for poly in (a, b):
        n = len(poly)
        for i in range(n):
            edge = poly[(i + 1) % n] - poly[i]
            axis = np.array([-edge[1], edge[0]])
            axis /= np.linalg.norm(axis)
            pa, pb = a @ axis, b @ axis
            if pa.max() + gap <= pb.min() or pb.max() + gap <= pa.min():
                return False
    return True


def point_in_polygon(point: tuple[float, float], polygon: Array) -> bool:
    """Even-odd rule; polygons here are small, so a plain loop is fine."""
    x, y = point
    inside = False
    n = len(polygon)
    for i in range(n):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < xc:
                inside = not inside
    return inside
