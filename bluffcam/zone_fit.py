"""Fitting a table's seat zones to the dice the players put down, from a few camera frames.

Shared by `bluffcam calibrate` (which writes a new profile) and the calibration page's
"Fit the zones" (which refits the running table's profile): read each frame, vote per die,
drop readings on mat markers, and fit one zone per seat around the clusters
(`calibration.fit.fit_table`). Also the picture both show of the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import Profile
from calibration.fit import FitError, FittedTable, fit_table
from calibration.geometry import Polygon
from calibration.markers import detect_marker_quads, marker_footprints, on_a_marker
from calibration.profile import DiceConfig
from vision import Reading
from vision.reveal import draw_zones

#: the ArUco dictionary of the project's printed mat markers
DEFAULT_MARKER_DICT = "DICT_4X4_50"


@dataclass(frozen=True)
class ZoneFit:
    """Zones fitted on ``frame`` (the last one read), the dice they were fitted to, that
    frame's own reading (for advice about the picture) and the markers seen in it."""

    fitted: FittedTable
    frame: NDArray[np.uint8]
    dice: list[Any]
    reading: Reading
    quads: dict[int, Polygon]


def fit_from_frames(
    frames: Sequence[NDArray[np.uint8]], seats: int, *, names: Sequence[str] | None = None,
    marker_dict: str = DEFAULT_MARKER_DICT,
) -> ZoneFit:
    """Zones for ``seats`` players fitted to the dice the frames show (voted over them);
    a `FitError` saying what is missing when the dice cannot give them."""
    from vision import ReaderParams, read_dice
    from vision.reveal import vote

    if not frames:
        raise FitError("no frames from the camera")
    frame = frames[-1]
    params = ReaderParams()
    readings = [read_dice(f, params) for f in frames]
    # a printed marker may be read as a die: nothing on one counts
    quads = detect_marker_quads(frame, marker_dict)
    footprints = marker_footprints(quads.values())
    dice = [d for d in vote(readings) if not on_a_marker(footprints, d.x, d.y)]
    if not dice:
        raise FitError("no dice seen: put each player's dice in their area, in good light")
    sizes = [d.side_px for r in readings for d in r.dice
             if not on_a_marker(footprints, d.x, d.y)]
    height, width = frame.shape[:2]
    fitted = fit_table(
        [(d.x, d.y) for d in dice],
        seats,
        frame_size=(width, height),
        die_size_px=float(np.median(sizes)) if sizes else 40.0,
        names=list(names) if names is not None else None,
    )
    return ZoneFit(fitted, frame, dice, readings[-1], quads)


def measured_dice(fit: ZoneFit) -> DiceConfig | None:
    """The profile's ``[dice]`` from the frame the zones were fitted on: the sure dice's
    size, the camera's up and their colours (``vision.dice.measure``); ``None`` where no
    die was read sure (the reader then sizes each frame itself)."""
    from vision.dice.measure import camera_up, dice_colours, die_size

    footprints = marker_footprints(fit.quads.values())
    sure = [d for d in fit.reading.sure if not on_a_marker(footprints, d.x, d.y)]
    size = die_size(sure)
    if size is None:
        return None
    return DiceConfig(size, dice_colours(fit.frame, sure), camera_up(fit.frame, sure))


def _poly(
    image: NDArray[np.uint8], polygon: Polygon | None, colour: tuple[int, int, int], thick: int
) -> None:
    if polygon:
        pts = np.round(np.asarray(polygon)).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(image, [pts], True, colour, thick, cv2.LINE_AA)


def draw_profile(
    frame: NDArray[np.uint8], profile: Profile, dice: list[Any] | None = None
) -> NDArray[np.uint8]:
    """The frame with the table area, seat zones, front areas and dice drawn (in pixels)."""
    image = frame.copy()
    scale = max(image.shape[:2]) / 1000
    thick = max(1, round(2 * scale))
    _poly(image, profile.image_table_area, (255, 255, 255), thick)
    zones = profile.zones
    draw_zones(image, zones, zones.names)
    for die in dice or []:
        cv2.circle(
            image, (round(die.x), round(die.y)), max(4, round(8 * scale)), (0, 0, 255), thick
        )
    if profile.markers is not None:
        for x, y in profile.markers.image_points:
            cv2.drawMarker(
                image,
                (round(x), round(y)),
                (0, 255, 255),
                cv2.MARKER_CROSS,
                round(30 * scale) + 5,
                thick,
            )
    return image
