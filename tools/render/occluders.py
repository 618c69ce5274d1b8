"""Draw things that lie over part of a die: a finger, a hand, a sleeve, a cup's rim, a card.

Dev-time only: the cover check (``vision.cover_check``) learns from photos with these drawn
over them, and ``tools.bench.bench_covered`` measures the reader on such photos. Each drawing
returns the new image and the occluder's coverage mask (0..1 per pixel), so how much of a
die is hidden is measured, not assumed.

These are drawings, not photos of hands: shaded capsules for fingers, textured regions for
cloth, flat shapes for cups and cards, each with a soft edge and (for fingers) a soft
shadow. What the check learns from them is that a die's face is cut off by something, not
what a real hand looks like; that it carries over to real hands is untested (no photo in
``../shared/datasets`` shows one over a die).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
Mask = NDArray[np.float32]

#: skin tones (BGR) from pale to dark; each drawing varies its pick by about 10%
SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (185, 200, 240), (150, 175, 230), (120, 150, 205), (95, 130, 190),
    (75, 105, 160), (55, 80, 130), (40, 55, 90),
)
KINDS = ("finger", "hand", "sleeve", "cup", "card")


def _unit(angle: float) -> NDArray[np.float64]:
    return np.array([np.cos(angle), np.sin(angle)])


def _grid(shape: tuple[int, ...]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    yy, xx = np.mgrid[0: shape[0], 0: shape[1]]
    return xx.astype(np.float64), yy.astype(np.float64)


def _soften(mask: NDArray[Any], sigma: float) -> Mask:
    soft = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), max(0.5, sigma))
    return np.asarray(np.clip(soft, 0.0, 1.0), np.float32)


def _capsule(shape: tuple[int, ...], tip: NDArray[np.float64], direction: NDArray[np.float64],
             radius: float, length: float) -> tuple[Mask, NDArray[np.float64]]:
    """A finger's silhouette: a half disc at ``tip`` and a band running ``length`` back along
    ``-direction``; also each pixel's distance across the finger (for shading)."""
    xx, yy = _grid(shape)
    dx, dy = xx - tip[0], yy - tip[1]
    along = -(dx * direction[0] + dy * direction[1])  # 0 at the tip, growing toward the hand
    across = dx * -direction[1] + dy * direction[0]
    inside = ((along >= 0) & (along <= length) & (np.abs(across) <= radius)) | (
        (along < 0) & (along**2 + across**2 <= radius**2))
    return inside.astype(np.float32), np.abs(across) / radius


def _paint(image: Image, mask: Mask, colour: NDArray[np.float64]) -> Image:
    out = image.astype(np.float32) * (1 - mask[..., None]) + colour * mask[..., None]
    return np.asarray(np.clip(out, 0, 255), np.uint8)


def _shadow(image: Image, mask: Mask, offset: NDArray[np.float64], depth: float,
            blur: float) -> Image:
    """Darken the table under a raised occluder: its mask shifted and blurred."""
    m = np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32)
    moved = cv2.warpAffine(mask, m, (mask.shape[1], mask.shape[0]))
    shade = 1.0 - depth * _soften(moved, blur)
    return np.asarray(np.clip(image.astype(np.float32) * shade[..., None], 0, 255), np.uint8)


def _skin(rng: np.random.Generator) -> NDArray[np.float64]:
    tone = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], np.float64)
    return tone * rng.uniform(0.9, 1.1, 3)


def _fingers(image: Image, edge: NDArray[np.float64], away: NDArray[np.float64], face: float,
             rng: np.random.Generator, count: int) -> tuple[Image, Mask]:
    """``count`` side-by-side fingers reaching in from ``away``, the first one's tip at
    ``edge``; the others fall to one side and a little back."""
    turn = rng.uniform(-0.6, 0.6)
    c, s = np.cos(turn), np.sin(turn)
    direction = -np.array([c * away[0] - s * away[1], s * away[0] + c * away[1]])
    radius = face * rng.uniform(0.45, 0.8)
    side = np.array([-direction[1], direction[0]])
    skin = _skin(rng)
    shape = image.shape[:2]
    total = np.zeros(shape, np.float32)
    colour = np.zeros((*shape, 3), np.float32)
    for k in range(count):
        back = k * rng.uniform(0, 0.8) * radius
        tip = edge - direction * (radius + back) + side * k * 2.05 * radius
        length = max(shape) * 2.0
        inside, across = _capsule(shape, tip, direction, radius, length)
        shade = 0.72 + 0.28 * np.sqrt(np.clip(1 - across**2, 0, 1))  # a rounded finger
        tone = skin[None, None, :] * shade[..., None]
        colour = np.where(inside[..., None] > 0, tone, colour).astype(np.float32)
        total = np.maximum(total, inside)
    texture = np.asarray(rng.normal(0, rng.uniform(1, 5), colour.shape), np.float32)
    mask = _soften(total, face * rng.uniform(0.02, 0.06))
    lamp = _unit(rng.uniform(0, 2 * np.pi)) * face * rng.uniform(0.1, 0.5)
    shaded = _shadow(image, mask, lamp, rng.uniform(0.2, 0.55), face * rng.uniform(0.1, 0.3))
    out = shaded.astype(np.float32) * (1 - mask[..., None]) + (colour + texture) * mask[..., None]
    return np.asarray(np.clip(out, 0, 255), np.uint8), mask


def _sleeve(image: Image, centre: NDArray[np.float64], away: NDArray[np.float64], face: float,
            rng: np.random.Generator) -> tuple[Image, Mask]:
    """Cloth lying toward ``away`` with a wavy edge through ``centre``, in any colour, with a
    weave."""
    xx, yy = _grid(image.shape[:2])
    normal = away
    along = (xx - centre[0]) * -normal[1] + (yy - centre[1]) * normal[0]
    wave = face * 0.3 * np.sin(along / (face * rng.uniform(0.8, 2.5)) + rng.uniform(0, 6.3))
    inside = ((xx - centre[0]) * normal[0] + (yy - centre[1]) * normal[1] + wave) > 0
    mask = _soften(inside, face * rng.uniform(0.03, 0.1))
    colour = rng.uniform(10, 240, 3)
    period = face * rng.uniform(0.1, 0.4)
    weave = np.sin(xx / period) * np.sin(yy / period) * rng.uniform(0, 25)
    cloth = colour[None, None, :] + weave[..., None] + rng.normal(0, 4, (*mask.shape, 3))
    out = image.astype(np.float32) * (1 - mask[..., None]) + cloth * mask[..., None]
    return np.asarray(np.clip(out, 0, 255), np.uint8), mask


def _cup(image: Image, centre: NDArray[np.float64], away: NDArray[np.float64], face: float,
         rng: np.random.Generator) -> tuple[Image, Mask]:
    """A cup's rim: a large disc toward ``away`` whose edge runs through ``centre``."""
    radius = face * rng.uniform(2.0, 5.0)
    middle = centre + away * radius
    xx, yy = _grid(image.shape[:2])
    dist = np.hypot(xx - middle[0], yy - middle[1])
    mask = _soften(dist <= radius, face * 0.04)
    body = rng.uniform(10, 200, 3)
    rim = np.clip(1 - np.abs(dist - radius * 0.93) / (face * 0.15), 0, 1) * rng.uniform(20, 70)
    colour = body[None, None, :] * (0.8 + 0.2 * dist[..., None] / radius) + rim[..., None]
    out = image.astype(np.float32) * (1 - mask[..., None]) + colour * mask[..., None]
    return np.asarray(np.clip(out, 0, 255), np.uint8), mask


def _card(image: Image, centre: NDArray[np.float64], away: NDArray[np.float64], face: float,
          rng: np.random.Generator) -> tuple[Image, Mask]:
    """A card or slip of paper lying toward ``away``, one straight edge through ``centre``."""
    w, h = face * rng.uniform(3, 6), face * rng.uniform(4, 8)
    angle = float(np.degrees(np.arctan2(away[1], away[0])))
    middle = centre + away * w / 2 + np.array([-away[1], away[0]]) * rng.uniform(-0.4, 0.4) * h
    box = cv2.boxPoints(((float(middle[0]), float(middle[1])), (float(w), float(h)), angle))
    solid = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(solid, np.round(box).astype(np.int32), 1, cv2.LINE_AA)
    mask = _soften(solid, face * 0.02)
    paper = rng.uniform(150, 250, 3) if rng.random() < 0.7 else rng.uniform(20, 250, 3)
    return _paint(image, mask, paper), mask


DRAWERS: dict[str, Callable[..., tuple[Image, Mask]]] = {
    "finger": lambda im, e, a, f, r: _fingers(im, e, a, f, r, 1),
    "hand": lambda im, e, a, f, r: _fingers(im, e, a, f, r, int(r.integers(2, 5))),
    "sleeve": _sleeve,
    "cup": _cup,
    "card": _card,
}


def occlude(image: Image, x: float, y: float, face: float, kind: str,
            rng: np.random.Generator, reach: float) -> tuple[Image, Mask]:
    """``image`` with a ``kind`` occluder whose edge lies ``reach`` faces from the die's
    centre (x, y) toward a random side (negative: past the centre, hiding most of the die;
    about 0.5 and more: beside the die, hiding nothing), and its coverage mask."""
    if kind not in DRAWERS:
        raise ValueError(f"unknown occluder {kind!r}: one of {', '.join(KINDS)}")
    towards = _unit(rng.uniform(0, 2 * np.pi))
    edge = np.array([x, y]) + towards * reach * face
    return DRAWERS[kind](image, edge, towards, face, rng)


def hidden_share(mask: Mask, x: float, y: float, face: float) -> float:
    """How much of the square face of side ``face`` around (x, y) the mask covers (0..1)."""
    h, w = mask.shape
    half = face / 2
    x0, x1 = int(max(0, np.floor(x - half))), int(min(w, np.ceil(x + half)))
    y0, y1 = int(max(0, np.floor(y - half))), int(min(h, np.ceil(y + half)))
    if x1 <= x0 or y1 <= y0:
        return 0.0
    return float((mask[y0:y1, x0:x1] > 0.5).mean())
