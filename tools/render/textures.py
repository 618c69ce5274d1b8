"""Procedural table surfaces, drawn in table-plane millimetres and warped into the view.

Drawing them flat and warping through the camera's plane homography gives correct
perspective for free: planks converge and the felt's grain gets finer toward the far edge.
"""

from __future__ import annotations

import cv2
import numpy as np

from tools.render.geometry import Array

TABLE_KINDS = ("wood", "dark_wood", "felt", "paper", "cloth", "board")


def value_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> Array:
    """Smooth noise in [-1, 1] with features about `cell` pixels across."""
    h, w = shape
    small = rng.uniform(-1, 1, (max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)))
    big = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(big, -1.5, 1.5).astype(np.float64)


def fbm(rng: np.random.Generator, shape: tuple[int, int], cell: float, octaves: int = 4) -> Array:
    total = np.zeros(shape)
    amp = 1.0
    for _ in range(octaves):
        total += amp * value_noise(rng, shape, max(cell, 1.5))
        cell /= 2.0
        amp /= 2.0
    return total / 1.9


def _mix(a: tuple[float, float, float], b: tuple[float, float, float], t: Array) -> Array:
    ca, cb = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)
    return ca * (1 - t[..., None]) + cb * t[..., None]


def wood(rng: np.random.Generator, shape: tuple[int, int], ppm: float, dark: bool) -> Array:
    h, w = shape
    light, deep = ((52, 84, 128), (28, 46, 76)) if dark else ((120, 170, 212), (72, 112, 160))
    plank_w = rng.uniform(90, 160) * ppm
    ys = np.arange(h)[:, None] * np.ones((1, w))
    xs = np.ones((h, 1)) * np.arange(w)[None, :]
    plank = np.floor(ys / plank_w)
    # stretched noise: long along the grain (x), short across it (y)
    stretch = max(2, int(w / 6))
    warp = cv2.resize(
        rng.uniform(-1, 1, (max(2, int(h / (3 * ppm))), 6)).astype(np.float32), (w, h),
        interpolation=cv2.INTER_CUBIC,
    ).astype(np.float64)
    del stretch
    period = rng.uniform(2.5, 5) * ppm
    grain = np.sin((ys + 18 * ppm * warp + plank * 37.0) * (2 * np.pi / period))
    fine = value_noise(rng, shape, 0.6 * ppm) * 0.15
    t = np.clip(0.5 + 0.28 * grain + 0.2 * warp + fine, 0, 1)
    img = _mix(light, deep, t)
    shade = 1.0 + rng.uniform(-0.12, 0.12, int(plank.max()) + 2)[plank.astype(int)]
    img *= shade[..., None]
    seams = (np.mod(ys, plank_w) < 0.8 * ppm)
    img[seams] *= 0.55
    # butt joints at random places along each plank
    for p in range(int(plank.max()) + 1):
        x0 = rng.uniform(0, w)
        band = (plank == p) & (np.abs(xs - x0) < 0.6 * ppm)
        img[band] *= 0.6
    return img


def felt(rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> Array:
    colours = [(48, 110, 30), (110, 60, 20), (40, 40, 120), (70, 70, 70), (90, 40, 60)]
    base = np.array(colours[rng.integers(len(colours))], dtype=np.float64)
    low = fbm(rng, shape, 60 * ppm, 3) * 0.08
    fibres = rng.normal(0, 0.07, shape)
    fibres = cv2.GaussianBlur(fibres, (0, 0), 0.35 * ppm)
    t = 1 + low + fibres * 2.5
    return base[None, None, :] * t[..., None]


def paper(rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> Array:
    base = np.array([rng.uniform(205, 235), rng.uniform(218, 240), rng.uniform(222, 245)])
    t = 1 + fbm(rng, shape, 40 * ppm, 3) * 0.03 + value_noise(rng, shape, 0.5 * ppm) * 0.02
    img = base[None, None, :] * t[..., None]
    if rng.random() < 0.5:  # squared paper
        step = rng.choice([5.0, 10.0]) * ppm
        ys, xs = np.mgrid[0 : shape[0], 0 : shape[1]]
        line = (np.mod(ys, step) < 0.25 * ppm + 0.5) | (np.mod(xs, step) < 0.25 * ppm + 0.5)
        img[line] = img[line] * 0.85 + np.array([200, 150, 120]) * 0.15
    return img


def cloth(rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> Array:
    h, w = shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    a = np.array(rng.uniform(60, 220, 3))
    b = np.array(rng.uniform(30, 200, 3))
    stripe = rng.uniform(8, 25) * ppm
    plaid = 0.5 * ((np.mod(xs, 2 * stripe) < stripe).astype(float)
                   + (np.mod(ys, 2 * stripe) < stripe).astype(float))
    weave_p = rng.uniform(0.7, 1.4) * ppm
    weave = np.sin(xs * np.pi / weave_p) * np.sin(ys * np.pi / weave_p)
    img = _mix(tuple(a), tuple(b), plaid * 0.8)
    img *= (1 + 0.08 * weave + fbm(rng, shape, 30 * ppm, 2) * 0.05)[..., None]
    return img


def board(rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> Array:
    """A printed game board: coloured fields, dark outlines, numbers and dots."""
    h, w = shape
    img = np.empty((h, w, 3))
    img[:] = np.array([rng.uniform(170, 215), rng.uniform(200, 230), rng.uniform(215, 240)])
    palette = [(60, 60, 190), (170, 110, 40), (60, 150, 70), (40, 170, 220), (140, 70, 120)]
    cell = rng.uniform(35, 60) * ppm
    canvas = np.clip(img, 0, 255).astype(np.uint8)
    thick = max(1, int(round(0.8 * ppm)))
    for gy in range(int(h / cell) + 1):
        for gx in range(int(w / cell) + 1):
            if rng.random() < 0.45:
                continue
            x0, y0 = int(gx * cell + 3 * ppm), int(gy * cell + 3 * ppm)
            x1, y1 = int((gx + 1) * cell - 3 * ppm), int((gy + 1) * cell - 3 * ppm)
            colour = palette[rng.integers(len(palette))]
            cv2.rectangle(canvas, (x0, y0), (x1, y1), colour, -1)
            cv2.rectangle(canvas, (x0, y0), (x1, y1), (30, 30, 30), thick)
            kind = rng.integers(3)
            mid = ((x0 + x1) // 2, (y0 + y1) // 2)
            if kind == 0:
                where = (x0 + int(4 * ppm), y1 - int(5 * ppm))
                cv2.putText(canvas, str(int(rng.integers(1, 21))), where,
                            cv2.FONT_HERSHEY_SIMPLEX, 0.2 * ppm, (25, 25, 25), thick)
            elif kind == 1:
                cv2.circle(canvas, mid, int(4 * ppm), (235, 235, 235), -1)
                cv2.circle(canvas, mid, int(1.5 * ppm), (25, 25, 25), -1)
    img = canvas.astype(np.float64)
    img *= (1 + value_noise(rng, shape, 0.5 * ppm) * 0.03)[..., None]
    return img


def table_texture(kind: str, rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> Array:
    """An sRGB BGR float image (0-255) of the table, `ppm` texels per millimetre."""
    if kind == "wood":
        return wood(rng, shape, ppm, dark=False)
    if kind == "dark_wood":
        return wood(rng, shape, ppm, dark=True)
    if kind == "felt":
        return felt(rng, shape, ppm)
    if kind == "paper":
        return paper(rng, shape, ppm)
    if kind == "cloth":
        return cloth(rng, shape, ppm)
    if kind == "board":
        return board(rng, shape, ppm)
    raise ValueError(f"unknown table kind {kind!r}; choose one of {', '.join(TABLE_KINDS)}")
