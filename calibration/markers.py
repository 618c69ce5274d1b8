"""ArUco markers at the mat's corners: find them and map mat coordinates into the image.

With markers, zones are stored in mat coordinates, so a bumped camera only moves the
homography, not the zones. cv2 is imported here only (profiles load without it).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import Point, Polygon, contains, homography_from_points


@dataclass(frozen=True, slots=True)
class MarkerConfig:
    """ArUco markers at the mat's corners.

    ``mat_points`` are the marker centres in mat coordinates (any unit, e.g. mm), in the
    order of ``ids``; ``image_points`` are where they were seen at calibration time (pixels),
    used when a frame shows too few markers.
    """

    dictionary: str
    ids: tuple[int, ...]
    mat_points: tuple[Point, ...]
    image_points: tuple[Point, ...]

    @property
    def calibration_homography(self) -> NDArray[np.float64]:
        """Mat -> image as the camera stood at calibration time."""
        return homography_from_points(self.mat_points, self.image_points)


@functools.cache
def known_dictionaries() -> tuple[str, ...]:
    """cv2.aruco's dictionary names (``DICT_4X4_50``, ...): a profile naming another is
    refused as it loads rather than at every reveal; empty where cv2 is missing. Listed once:
    each frame a marked mat is looked for in asks again."""
    try:
        import cv2
    except ImportError:
        return ()
    aruco = getattr(cv2, "aruco", None)
    names = dir(aruco) if aruco is not None else []
    return tuple(sorted(n for n in names
                        if n.startswith("DICT_") and isinstance(getattr(aruco, n), int)))


def _dictionary(name: str) -> Any:
    import cv2

    if name not in known_dictionaries():
        raise ValueError(f"unknown ArUco dictionary {name!r} (e.g. DICT_4X4_50)")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def detect_marker_quads(frame: NDArray[np.uint8], dictionary: str) -> dict[int, Polygon]:
    """Corners (pixels, clockwise from the marker's top-left) of every marker seen, by id."""
    import cv2

    detector = cv2.aruco.ArucoDetector(_dictionary(dictionary), cv2.aruco.DetectorParameters())
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, Polygon] = {}
    if ids is None:
        return found
    for marker_id, quad in zip(ids.ravel().tolist(), corners, strict=True):
        points = np.asarray(quad, dtype=np.float64).reshape(4, 2)
        found[int(marker_id)] = tuple((float(x), float(y)) for x, y in points)
    return found


def detect_markers(frame: NDArray[np.uint8], dictionary: str) -> dict[int, Point]:
    """Centres (pixels) of every marker of ``dictionary`` visible in ``frame``, by id."""
    return {
        marker_id: quad_centre(quad)
        for marker_id, quad in detect_marker_quads(frame, dictionary).items()
    }


def marker_footprints(quads: Iterable[Polygon], margin: float = 0.35) -> tuple[Polygon, ...]:
    """Each marker's quad grown by ``margin`` of its size on every side.

    A printed marker is a black-and-white square with a white border, about a die's size: a
    dice reader may well take it for a die. The footprint (marker plus its quiet zone) is
    where no reading can be a die.
    """
    grown = []
    for quad in quads:
        centre = np.asarray(quad_centre(quad))
        points = centre + (np.asarray(quad, dtype=np.float64) - centre) * (1.0 + 2.0 * margin)
        grown.append(tuple((float(x), float(y)) for x, y in points))
    return tuple(grown)


def on_a_marker(footprints: Iterable[Polygon], x: float, y: float) -> bool:
    """Whether ``(x, y)`` lies in one of these marker footprints."""
    return any(contains(area, x, y) for area in footprints)


def quad_centre(quad: Polygon) -> Point:
    x, y = np.asarray(quad, dtype=np.float64).mean(axis=0)
    return (float(x), float(y))


def find_mat_homography(
    frame: NDArray[np.uint8], config: MarkerConfig
) -> NDArray[np.float64] | None:
    """Mat -> image homography from the markers in this frame; None if fewer than 4 are seen."""
    return mat_homography(detect_marker_quads(frame, config.dictionary), config)


def mat_homography(
    seen: dict[int, Polygon], config: MarkerConfig
) -> NDArray[np.float64] | None:
    """Mat -> image homography from markers already found (their quads, by id); None if
    fewer than 4 of the configured ones are among them."""
    pairs = [
        (mat, quad_centre(seen[marker_id]))
        for marker_id, mat in zip(config.ids, config.mat_points, strict=True)
        if marker_id in seen
    ]
    if len(pairs) < 4:
        return None
    return homography_from_points([m for m, _ in pairs], [i for _, i in pairs])


def render_marker(
    marker_id: int, size_px: int, dictionary: str = "DICT_4X4_50"
) -> NDArray[np.uint8]:
    """A printable marker image (grey, with a white quiet zone of one cell)."""
    import cv2

    inner = cv2.aruco.generateImageMarker(_dictionary(dictionary), marker_id, size_px)
    border = max(2, size_px // 6)
    return np.asarray(
        cv2.copyMakeBorder(inner, border, border, border, border, cv2.BORDER_CONSTANT, value=255),
        dtype=np.uint8,
    )
