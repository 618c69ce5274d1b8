"""Is the scene still? Frame differencing on a small blurred grey copy of each frame."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.params import NumberRange, check_numbers

#: The documented range of each of :class:`StillnessParams`' numbers.
_STILLNESS_RANGES: dict[str, NumberRange] = {
    "work_width": NumberRange(16, unit="px"),
    "blur_px": NumberRange(1, unit="px"),
    "pixel_threshold": NumberRange(0.0, 255.0, most_open=True),
    "max_moving_fraction": NumberRange(0.0, 1.0),
    "still_frames": NumberRange(1),
    "max_frames": NumberRange(2),
}


@dataclass(frozen=True, slots=True)
class StillnessParams:
    """Settings for deciding that hands are out of the picture and nothing moves.

    Attributes:
        work_width: frames are shrunk to this width (pixels) before comparing (speed, noise).
        blur_px: Gaussian blur kernel (odd, work pixels) against sensor noise.
        pixel_threshold: a change of a colour channel (0..255) above this marks a pixel as
            moving; under 255, or no change could ever count and noise would pass for still.
        max_moving_fraction: a frame is "still" when at most this fraction of pixels moved
            since the first frame of its run.
        still_frames: still frames needed after a run's first (5 at 10 fps is half a second).
        max_frames: give up after this many frames (None: watch until the frames end).
    """

    work_width: int = 160
    blur_px: int = 5
    pixel_threshold: float = 25.0
    max_moving_fraction: float = 0.002
    still_frames: int = 5
    max_frames: int | None = 300

    def __post_init__(self) -> None:
        check_numbers(self, _STILLNESS_RANGES)
        if self.blur_px % 2 == 0:
            raise ValueError(f"blur_px must be odd and positive, got {self.blur_px}")


def prepare(frame: NDArray[np.uint8], params: StillnessParams) -> NDArray[np.uint8]:
    """The small blurred copy that motion is measured on, in colour: a hand's skin and a
    wooden table can share a grey level (about 165) and differ only in hue."""
    if frame.size == 0:
        raise ValueError(f"frame is empty (shape {frame.shape}): no pixels to compare")
    height, width = frame.shape[:2]
    scale = params.work_width / width
    small = cv2.resize(
        frame, (params.work_width, max(1, round(height * scale))), interpolation=cv2.INTER_AREA
    )
    return np.asarray(cv2.GaussianBlur(small, (params.blur_px, params.blur_px), 0), dtype=np.uint8)


def moving_fraction(
    previous: NDArray[np.uint8], current: NDArray[np.uint8], params: StillnessParams
) -> float:
    """Fraction (0..1) of work pixels where some colour channel changed by more than the
    threshold."""
    if previous.shape != current.shape:
        return 1.0  # a resolution change is not a still scene
    diff = cv2.absdiff(previous, current)
    if diff.ndim == 3:
        diff = diff.max(axis=2)
    return float(np.count_nonzero(diff > params.pixel_threshold)) / diff.size
