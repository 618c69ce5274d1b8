"""Stage 1: find pip candidates — small, round, high-contrast blobs — at every scale.

Pips are found as dark-on-light (black-hat) and light-on-dark (top-hat) blobs on an image
pyramid with one small kernel, so a 3 px pip and a 60 px pip are found the same way and no
pixel size is tuned to a camera.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

#: kernel (px, at each pyramid level) of the black/top-hat; pips up to ~kernel-2 px across
_KERNEL = 11
#: a pip is kept at the level where its diameter (level px) falls in this range
_LEVEL_MIN_D = 2.2
_LEVEL_MAX_D = 9.5


@dataclass(frozen=True, slots=True)
class Pip:
    """A pip candidate in work-image pixels.

    ``cov`` is the 2x2 second-moment matrix of the blob (its ellipse shape: circles are
    squashed into ellipses by the view, the same way for every pip of one face).
    """

    x: float
    y: float
    diameter: float
    cov: NDArray[np.float64]
    contrast: float
    dark: bool
    fill: float

    @property
    def elongation(self) -> float:
        ev = np.linalg.eigvalsh(self.cov)
        return float(np.sqrt(max(ev[1], 1e-9) / max(ev[0], 1e-9)))


def find_pips(
    gray: NDArray[np.uint8],
    *,
    min_contrast: float,
    min_fill: float,
    max_elongation: float,
    min_diameter: float,
    polarity: str,
) -> list[Pip]:
    """All pip candidates in ``gray`` (work image), deduplicated across pyramid levels."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (_KERNEL, _KERNEL))
    found: list[Pip] = []
    level_img = gray
    scale = 1.0
    while min(level_img.shape[:2]) >= 16:
        for dark in (True, False):
            if (polarity == "dark" and not dark) or (polarity == "light" and dark):
                continue
            op = cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT
            hat = np.asarray(cv2.morphologyEx(level_img, op, kernel), dtype=np.uint8)
            found.extend(
                _blobs(hat, scale, dark, min_contrast, min_fill, max_elongation,
                       min_diameter, first_level=scale == 1.0)
            )
        level_img = np.asarray(cv2.pyrDown(level_img), dtype=np.uint8)
        scale *= 2.0
    return _drop_containers(_dedupe(found))


def _blobs(
    hat: NDArray[np.uint8],
    scale: float,
    dark: bool,
    min_contrast: float,
    min_fill: float,
    max_elongation: float,
    min_diameter: float,
    first_level: bool,
) -> list[Pip]:
    out: list[Pip] = []
    _blobs_at(hat, min_contrast * 0.5, 0, 0, scale, dark, min_contrast, min_fill,
              max_elongation, min_diameter, 1.2 if first_level else _LEVEL_MIN_D, 2, out)
    return out


def _blobs_at(
    hat: NDArray[np.uint8],
    threshold: float,
    ox: int,
    oy: int,
    scale: float,
    dark: bool,
    min_contrast: float,
    min_fill: float,
    max_elongation: float,
    min_diameter: float,
    lo: float,
    depth: int,
    out: list[Pip],
) -> None:
    """Blobs above ``threshold``; a blob that is not pip-shaped (pips blurred together, a pip
    touching a bright edge) is split by thresholding it again higher, up to ``depth`` times."""
    _, mask = cv2.threshold(hat, threshold, 255, cv2.THRESH_BINARY)
    # keep only blobs that reach the contrast and are not specks, before the per-blob loop
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return
    wanted = np.zeros(count, dtype=np.uint8)
    wanted[np.unique(labels[hat >= min_contrast])] = 255
    wanted[0] = 0
    wanted[stats[:, cv2.CC_STAT_AREA] < 4] = 0
    if not wanted.any():
        return
    mask = wanted[labels]
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    for c in contours:
        if len(c) < 4:
            continue
        x, y, w, h = cv2.boundingRect(c)
        if w * h < 3:
            continue
        roi = hat[y:y + h, x:x + w]
        peak = float(roi.max())
        if peak < min_contrast:
            continue
        pip, retry = _measure(c, scale, dark, peak, min_fill, max_elongation, lo, ox, oy)
        if pip is not None:
            if pip.diameter >= min_diameter:
                out.append(pip)
        elif retry and depth > 0 and peak > threshold * 1.6:
            # only this blob's pixels, thresholded nearer its peak
            blob = np.zeros_like(roi)
            cv2.drawContours(blob, [c - np.array([x, y])], -1, 255, -1)
            sub = np.where(blob > 0, roi, 0).astype(np.uint8)
            _blobs_at(sub, threshold + 0.4 * (peak - threshold), ox + x, oy + y, scale, dark,
                      min_contrast, min_fill, max_elongation, min_diameter, lo, depth - 1, out)


def _measure(
    c: NDArray[np.int32],
    scale: float,
    dark: bool,
    peak: float,
    min_fill: float,
    max_elongation: float,
    lo: float,
    ox: int,
    oy: int,
) -> tuple[Pip | None, bool]:
    """The pip a contour describes, or (None, worth splitting?)."""
    m = cv2.moments(c)
    area = m["m00"]
    if area < 3.0:
        return None, False
    d_level = 2.0 * np.sqrt(area / np.pi)
    if d_level < lo:
        return None, False
    cx, cy = m["m10"] / area + ox, m["m01"] / area + oy
    cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / area
    ev = np.linalg.eigvalsh(cov)
    if ev[0] <= 1e-6:
        return None, False
    elong = float(np.sqrt(ev[1] / ev[0]))
    # area of the moment-equivalent ellipse; a filled ellipse has ratio 1
    fill = area / (4.0 * np.pi * np.sqrt(ev[0] * ev[1]))
    hull_area = cv2.contourArea(cv2.convexHull(c))
    solidity = area / hull_area if hull_area > 0 else 0.0
    if (
        d_level >= _LEVEL_MAX_D
        or elong > max_elongation
        or fill < min_fill
        or fill > 1.35
        or solidity < 0.8
    ):
        return None, d_level < 4 * _LEVEL_MAX_D
    # pyrDown maps level pixel centres to (p + 0.5) * 2 - 0.5
    fx = (cx + 0.5) * scale - 0.5
    fy = (cy + 0.5) * scale - 0.5
    return Pip(fx, fy, d_level * scale, cov * scale * scale, peak, dark, min(fill, 1.0)), False


def _dedupe(pips: list[Pip]) -> list[Pip]:
    """Drop a candidate found again at another level (same place, same polarity)."""
    pips = sorted(pips, key=lambda p: -p.contrast * p.fill)
    kept: list[Pip] = []
    for p in pips:
        if any(
            q.dark == p.dark
            and (q.x - p.x) ** 2 + (q.y - p.y) ** 2 < (0.5 * max(p.diameter, q.diameter)) ** 2
            for q in kept
        ):
            continue
        kept.append(p)
    return kept


def _drop_containers(pips: list[Pip]) -> list[Pip]:
    """A blob holding two or more smaller blobs is a whole die (or a board token), not a pip."""
    if len(pips) < 3:
        return pips
    xy = np.array([[p.x, p.y] for p in pips])
    d = np.array([p.diameter for p in pips])
    dist = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    inside = (dist < 0.5 * d[:, None]) & (d[None, :] < 0.6 * d[:, None])
    holds = inside.sum(axis=1)
    return [p for p, k in zip(pips, holds.tolist(), strict=True) if k < 2]
