"""Card-shaped outlines in a frame, whatever is printed on them.

Used twice: to crop the card out of a registration photo, and to notice cards that no
registered face explains (face down, or a kind the table never registered) so that they are
flagged instead of silently missed.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

Quad = NDArray[np.float64]

#: short side / long side of a playing card (63 x 88 mm)
CARD_ASPECT = 63.0 / 88.0


def order_corners(quad: NDArray[np.float64]) -> Quad:
    """Corners clockwise (in image coordinates) starting at the top-left-most one."""
    pts = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def portrait_corners(quad: Quad) -> Quad:
    """Corners clockwise starting so that the first side is a short side (a card upright)."""
    pts = order_corners(quad)
    first = np.hypot(*(pts[1] - pts[0])) + np.hypot(*(pts[3] - pts[2]))
    second = np.hypot(*(pts[2] - pts[1])) + np.hypot(*(pts[0] - pts[3]))
    return pts if first <= second else np.roll(pts, -1, axis=0)


def corner_skew(quad: Quad) -> float:
    """The largest departure (radians) of a corner angle from a right angle."""
    worst = 0.0
    for i in range(4):
        a, b, c = quad[i - 1], quad[i], quad[(i + 1) % 4]
        u, v = a - b, c - b
        cos = float(np.dot(u, v) / max(np.linalg.norm(u) * np.linalg.norm(v), 1e-9))
        worst = max(worst, abs(np.arccos(np.clip(cos, -1.0, 1.0)) - np.pi / 2))
    return worst


def side_lengths(quad: Quad) -> NDArray[np.float64]:
    return np.asarray(np.hypot(*(np.roll(quad, -1, axis=0) - quad).T), dtype=np.float64)


def aspect(quad: Quad) -> float:
    """Short over long mean side length of a quad (1 for a square)."""
    sides = side_lengths(portrait_corners(quad))
    short = (sides[0] + sides[2]) / 2
    long = (sides[1] + sides[3]) / 2
    return float(short / max(long, 1e-9))


def is_card_shaped(
    quad: Quad, *, min_side: float, max_skew: float, aspect_tolerance: float = 0.22
) -> bool:
    """Convex, roughly rectangular, playing-card proportions (perspective allowed for)."""
    if not cv2.isContourConvex(quad.astype(np.float32).reshape(-1, 1, 2)):
        return False
    if side_lengths(quad).min() < min_side or corner_skew(quad) > max_skew:
        return False
    return abs(aspect(quad) - CARD_ASPECT) <= aspect_tolerance


def find_card_outlines(
    frame_bgr: NDArray[np.uint8], *, min_side: float = 30.0, max_skew: float = 0.6
) -> list[Quad]:
    """Card-shaped quadrilaterals (corners in frame pixels), largest first.

    Edges are found at two sensitivities and closed; each closed region's convex hull is
    simplified to four corners. Nested duplicates (a card's printed border inside its edge)
    are dropped.
    """
    gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (5, 5), 0)
    found: list[Quad] = []
    for low, high in ((40, 120), (20, 60)):
        edges = cv2.Canny(gray, low, high)
        edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            if cv2.contourArea(contour) < min_side * min_side:
                continue
            hull = cv2.convexHull(contour)
            perimeter = cv2.arcLength(hull, True)
            approx = cv2.approxPolyDP(hull, 0.03 * perimeter, True)
            if len(approx) != 4:
                continue
            quad = order_corners(approx.reshape(4, 2).astype(np.float64))
            solidity = cv2.contourArea(contour) / max(cv2.contourArea(approx), 1.0)
            if solidity < 0.6 or not is_card_shaped(quad, min_side=min_side, max_skew=max_skew):
                continue
            found.append(quad)
    found.sort(key=lambda q: -cv2.contourArea(q.astype(np.float32)))
    kept: list[Quad] = []
    for quad in found:
        if not any(quad_overlap(quad, other) > 0.5 for other in kept):
            kept.append(quad)
    return kept


def quad_overlap(a: Quad, b: Quad) -> float:
    """Intersection area over the smaller quad's area (0..1)."""
    pa, pb = a.astype(np.float32), b.astype(np.float32)
    area, _ = cv2.intersectConvexConvex(pa, pb)
    smaller = min(cv2.contourArea(pa), cv2.contourArea(pb))
    return float(area / smaller) if smaller > 0 else 0.0
