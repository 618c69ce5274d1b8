"""Drawing a reading on a copy of the frame, for people to check what the reader saw."""

from __future__ import annotations

import unicodedata

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.types import Reading

_SURE = (60, 200, 60)
_UNSURE = (0, 140, 255)


def draw_reading(frame: NDArray[np.uint8], reading: Reading) -> NDArray[np.uint8]:
    """Return a new image: each die's outline, value and confidence (orange when uncertain)."""
    if frame.ndim == 3 and frame.shape[2] == 4:
        return _draw_on_bgra(frame, reading)
    out = frame.copy()
    if out.ndim == 2:
        out = np.asarray(cv2.cvtColor(out, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    return _draw_on(out, reading)


def _draw_on_bgra(frame: NDArray[np.uint8], reading: Reading) -> NDArray[np.uint8]:
    """A BGRA frame (read_dice takes one) drawn on its colours, then made opaque where drawn:
    OpenCV drawing on it leaves alpha 0, or a haze of levels under antialiased text, there."""
    colours = np.ascontiguousarray(frame[:, :, :3])
    drawn = _draw_on(colours.copy(), reading)
    out = np.ascontiguousarray(np.dstack([drawn, frame[:, :, 3]]), dtype=np.uint8)
    out[np.any(drawn != colours, axis=2), 3] = 255
    return out


def _draw_on(out: NDArray[np.uint8], reading: Reading) -> NDArray[np.uint8]:
    """Draw the reading on ``out`` (BGR, the caller's copy) and return it."""
    scale = max(out.shape[:2]) / 640.0
    thickness = max(1, round(2 * scale))
    for die in reading.dice:
        colour = _SURE if die.confidence >= reading.min_confidence else _UNSURE
        pts = np.round(die.outline).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, colour, thickness, cv2.LINE_AA)
        label = f"{die.value} {die.confidence:.2f}"
        top = int(np.min(die.outline[:, 1]))
        left = int(np.min(die.outline[:, 0]))
        org = (left, max(12, top - 4))
        font_scale = 0.5 * scale
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0),
                    thickness + 2, cv2.LINE_AA)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour,
                    thickness, cv2.LINE_AA)
    return out


#: letters that Unicode does not split into a Latin letter and an accent, and the typographic
#: punctuation phones type (O'Brien with a curly apostrophe, Jean-Luc with a dash)
_SPELT_OUT = str.maketrans({"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
                            "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D",
                            "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D", "ı": "i",
                            "‘": "'", "’": "'", "‚": "'", "ʼ": "'", "“": '"', "”": '"',
                            "„": '"', "‐": "-", "‑": "-", "–": "-", "—": "-", "·": "."})


def drawable(text: str) -> str | None:
    """``text`` as OpenCV's fonts can write it on a photo (they know ASCII only and draw
    "?" for the rest): accents dropped (Zoë: Zoe, Søren: Soren), curly quotes and dashes
    straightened, other signs (an emoji) left out; None where a letter or digit of another
    script would be lost (李), so that the caller writes something else."""
    kept = []
    for c in unicodedata.normalize("NFKD", text.translate(_SPELT_OUT)):
        if c.isascii():
            kept.append(c)
        elif unicodedata.category(c)[0] in "LN":  # a letter or digit it cannot write
            return None
        # an accent (a combining mark), an emoji, a sign: left out
    plain = " ".join("".join(kept).split())
    return plain or None


#: the pixels a zone's mask is drawn at, per picture pixel, to find its label a place
_LABEL_GRID = 4


def label_anchor(polygon: object, image_shape: tuple[int, ...],
                 box: tuple[int, int]) -> tuple[int, int] | None:
    """Where a zone's label goes: the top-left corner of the top-most place where a box of
    ``box`` (width, height) lies wholly inside the zone and the picture, so it is read as
    that zone's label (the zone's bounding-box corner may lie in a neighbour's zone). None
    where it fits nowhere."""
    height, width = image_shape[:2]
    mask = np.zeros((height // _LABEL_GRID + 1, width // _LABEL_GRID + 1), np.uint8)
    points = np.round(np.asarray(polygon, dtype=np.float64) / _LABEL_GRID).astype(np.int32)
    cv2.fillPoly(mask, [points.reshape(-1, 1, 2)], 255)
    # the box and a cell round it (the mask's edge cells are only partly inside the zone)
    kernel = np.ones((-(-box[1] // _LABEL_GRID) + 2, -(-box[0] // _LABEL_GRID) + 2), np.uint8)
    # a cell survives where all of that, rightwards and downwards from it, is inside
    inside = cv2.erode(mask, kernel, anchor=(0, 0), borderType=cv2.BORDER_CONSTANT,
                       borderValue=0)
    ys, xs = np.nonzero(inside)
    if not len(ys):
        return None
    first = int(np.lexsort((xs, ys))[0])  # top-most, then left-most
    return (int(xs[first]) + 1) * _LABEL_GRID, (int(ys[first]) + 1) * _LABEL_GRID
