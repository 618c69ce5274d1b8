"""Procedural table surfaces, drawn in table-plane millimetres and warped into the view.

Drawing them flat and warping through the camera's plane homography gives correct
perspective for free: planks converge and the felt's grain gets finer toward the far edge.
"""

from __future__ import annotations

import cv2
import numpy as np

from tools.render.geometry import Array

TABLE_KINDS = ("wood", "dark_wood", "felt", "paper", "cloth", "board")
#: drawn only when asked for by name (``random_table`` never picks it, so the seeded scenes of
#: ``TABLE_KINDS`` stay as they were): a settlers-style board of busy hexagons
EXTRA_KINDS = ("hex_board",)


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
    mixed: Array = ca * (1 - t[..., None]) + cb * t[..., None]
    return mixed


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
    fibres: Array = rng.normal(0, 0.07, shape)
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


#: BGR base colours of the hex board's fields: forest, pasture, grain, hills, mountains, desert
HEX_FIELDS = ((40, 90, 40), (80, 190, 140), (60, 190, 220), (50, 100, 190), (140, 140, 140),
              (150, 200, 225))
#: BGR colours of the players' wooden pieces
PIECE_COLOURS = ((40, 40, 200), (200, 90, 30), (235, 235, 235), (30, 140, 240))


def hex_board(rng: np.random.Generator, shape: tuple[int, int], ppm: float) -> Array:
    """A settlers-style board: busy hexagonal fields inside a blue sea, round number tokens
    with dots, and the players' die-sized pieces (houses and roads, drawn flat with a lit top
    and a shaded side) — the clutter small dice on such a board must be told from."""
    h, w = shape
    sea = np.array([rng.uniform(150, 200), rng.uniform(110, 150), rng.uniform(30, 70)])
    img = np.empty((h, w, 3))
    img[:] = sea
    img *= (1 + 0.12 * fbm(rng, shape, 20 * ppm, 3))[..., None]
    canvas = np.clip(img, 0, 255).astype(np.uint8)
    radius = rng.uniform(45, 60) * ppm
    dx, dy = np.sqrt(3) * radius, 1.5 * radius
    thick = max(1, int(round(0.6 * ppm)))
    centres = []
    for row in range(-1, int(h / dy) + 2):
        for col in range(-1, int(w / dx) + 2):
            cx = col * dx + (dx / 2 if row % 2 else 0.0)
            cy = row * dy
            if rng.random() < 0.08:
                continue
            angles = np.radians(np.arange(6) * 60 + 30)
            corners = np.stack([cx + radius * np.cos(angles), cy + radius * np.sin(angles)], 1)
            base = np.array(HEX_FIELDS[int(rng.integers(len(HEX_FIELDS)))], float)
            cv2.fillPoly(canvas, [np.round(corners).astype(np.int32)],
                         tuple(float(v) for v in base * rng.uniform(0.85, 1.15)))
            cv2.polylines(canvas, [np.round(corners).astype(np.int32)], True,
                          (200, 220, 230), 2 * thick)
            centres.append((cx, cy, base))
    # the fields' illustrations: many small blobs of darker and lighter paint
    for cx, cy, base in centres:
        for _ in range(int(rng.integers(15, 40))):
            ang, dist = rng.uniform(0, 2 * np.pi), rng.uniform(0, 0.8) * radius
            x, y = cx + dist * np.cos(ang), cy + dist * np.sin(ang)
            r = rng.uniform(1.5, 6) * ppm
            tone = base * rng.uniform(0.4, 1.5) if rng.random() < 0.85 else np.full(3, 235.0)
            cv2.ellipse(canvas, (int(x), int(y)), (int(r), int(r * rng.uniform(0.5, 1.2))),
                        float(rng.uniform(0, 180)), 0, 360,
                        tuple(float(v) for v in np.clip(tone, 0, 255)), -1)
    # number tokens (dots like pips) on most fields
    for cx, cy, _ in centres:
        if rng.random() < 0.3:
            continue
        r = int(rng.uniform(11, 14) * ppm)
        x, y = int(cx + rng.uniform(-5, 5) * ppm), int(cy + rng.uniform(-5, 5) * ppm)
        cv2.circle(canvas, (x, y), r, (170, 215, 235), -1)
        cv2.circle(canvas, (x, y), r, (90, 120, 140), thick)
        ink = (30, 30, 190) if rng.random() < 0.3 else (30, 30, 30)
        cv2.putText(canvas, str(int(rng.choice([2, 3, 4, 5, 6, 8, 9, 10, 11, 12]))),
                    (x - int(0.45 * r), y + int(0.2 * r)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.045 * r, ink, max(1, int(r / 8)))
        for k in range(int(rng.integers(1, 6))):
            cv2.circle(canvas, (x - int(0.4 * r) + k * int(0.2 * r), y + int(0.55 * r)),
                       max(1, int(0.07 * r)), ink, -1)
    # players' pieces: roads along the hexagons' edges, houses at their corners
    for cx, cy, _ in centres:
        for _ in range(int(rng.poisson(0.8))):
            colour = np.array(PIECE_COLOURS[int(rng.integers(len(PIECE_COLOURS)))], float)
            ang = np.radians(int(rng.integers(6)) * 60 + 30)
            x, y = cx + radius * np.cos(ang), cy + radius * np.sin(ang)
            if rng.random() < 0.5:  # a road: a stick along the edge
                length, width = 28 * ppm, 6 * ppm
                rect = ((x, y), (length, width), float(np.degrees(ang) + 60))
            else:  # a house: about a die's size
                side = rng.uniform(11, 16) * ppm
                rect = ((x, y), (side, side * rng.uniform(0.9, 1.4)), float(rng.uniform(0, 90)))
            box = np.round(cv2.boxPoints(rect)).astype(np.int32)
            shadow = box + np.array([int(2 * ppm), int(2 * ppm)])
            cv2.fillPoly(canvas, [shadow], tuple(float(v) for v in colour * 0.45))
            cv2.fillPoly(canvas, [box], tuple(float(v) for v in colour))
            cv2.polylines(canvas, [box], True, tuple(float(v) for v in colour * 0.7), thick)
    img = canvas.astype(np.float64)
    img *= (1 + value_noise(rng, shape, 0.5 * ppm) * 0.04)[..., None]
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
    if kind == "hex_board":
        return hex_board(rng, shape, ppm)
    kinds = ", ".join(TABLE_KINDS + EXTRA_KINDS)
    raise ValueError(f"unknown table kind {kind!r}; choose one of {kinds}")
