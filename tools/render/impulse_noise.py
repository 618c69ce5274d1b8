"""Salt-and-pepper (impulse) noise: adding it, and measuring how much a photo carries.

Dev-time only. Most of the shared phone photos (epanemu) carry it: single black and white
pixels, each smudged into a small blot by JPEG, as a dataset tool's "noise" augmentation
leaves them (finding and removing them: ``vision.specks``). The detector's training can add
it (``tools.train.train_dice_detector --impulse``) and ``tools.bench.bench_impulse`` measures
what it costs the reader.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.specks import IMPULSE_STEP, impulses, switching_median

__all__ = ["IMPULSE_STEP", "impulse_share", "impulses", "salt_and_pepper", "switching_median"]


def salt_and_pepper(
    image: NDArray[np.uint8], amount: float, rng: np.random.Generator, *,
    coloured: bool = False, jpeg_quality: int | None = None,
) -> NDArray[np.uint8]:
    """A copy of ``image`` with a share ``amount`` of its pixels set white or black (half
    each), or with ``coloured``, each of their channels set to 0 or 255 on its own; then
    JPEG-compressed at ``jpeg_quality`` where given."""
    if not 0.0 <= amount <= 1.0:
        raise ValueError(f"amount must be a share of the pixels (0..1), got {amount}")
    draw = rng.random(image.shape[:2])
    out = image.copy()
    if coloured:
        hit = draw < amount
        out[hit] = rng.choice(np.array([0, 255], np.uint8), size=(int(hit.sum()), 3))
    else:
        out[draw < amount / 2] = 255
        out[(draw >= amount / 2) & (draw < amount)] = 0
    if jpeg_quality is not None:
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
        return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return out


def impulse_share(image: NDArray[np.uint8]) -> float:
    """The share of pixels that stand out from the median of their 3x3 neighbourhood by more
    than ``IMPULSE_STEP`` grey levels: about 0 on a clean photo (a pip is bigger than one
    pixel), 0.007 on a typical noisy phone photo of the shared set."""
    return float(impulses(image).mean())

