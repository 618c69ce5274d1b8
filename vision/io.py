"""Loading images from disk with errors that say what is wrong."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray


class ImageLoadError(ValueError):
    """A path that cannot be read as an image (missing, not an image, or corrupt)."""


def load_image(path: str | Path) -> NDArray[np.uint8]:
    """Read an image file as a BGR uint8 array, or raise ImageLoadError naming the problem."""
    p = Path(path)
    try:
        if not p.exists():
            raise ImageLoadError(f"{path}: no such file")
        if p.is_dir():
            raise ImageLoadError(f"{path}: is a directory, not an image")
        # read(), not np.fromfile: fromfile seeks, so a pipe (``/dev/stdin``) would fail
        data = np.frombuffer(p.read_bytes(), dtype=np.uint8)
    except OSError as exc:  # a name too long, a loop of links, no permission
        raise ImageLoadError(f"{path}: cannot be read ({exc.strerror})") from exc
    if data.size == 0:
        raise ImageLoadError(f"{path}: empty file, not an image")
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error as exc:  # a header claiming more pixels than OpenCV will allocate
        raise ImageLoadError(f"{path}: not a readable image ({_last_line(exc)})") from None
    if image is None or image.size == 0:
        raise ImageLoadError(f"{path}: not a readable image (corrupt or unsupported format)")
    return np.ascontiguousarray(image, dtype=np.uint8)


def _last_line(exc: Exception) -> str:
    """OpenCV's error without its source file and line: the last line of its message."""
    return str(exc).strip().splitlines()[-1].strip("> ").strip()[:160]
