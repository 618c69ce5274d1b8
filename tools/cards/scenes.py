"""Render photos of Impus cards lying on a table, with the ground truth of every card.

A scene is drawn top-down (cards placed by rotation, scale and position on a wood texture,
each with a soft shadow), then seen through a tilted camera (a homography), lit unevenly,
blurred a little, given sensor noise and JPEG-compressed. Every card's four corners go
through the same transforms, so the truth is exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.cards.faces import FACE_HEIGHT, FACE_WIDTH, draw_back, draw_face

Image = NDArray[np.uint8]
Points = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class PlacedCard:
    """One card in a rendered photo. ``kind`` None is a card lying face down."""

    kind: str | None
    corners: Points  # (4, 2): the face's top-left, top-right, bottom-right, bottom-left

    @property
    def centre(self) -> tuple[float, float]:
        return float(self.corners[:, 0].mean()), float(self.corners[:, 1].mean())

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "face_up": self.kind is not None,
            "centre": [round(c, 1) for c in self.centre],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
        }


@dataclass(frozen=True, slots=True)
class SceneSpec:
    """What to render: the cards (``None`` = face down) and how the camera and light are."""

    name: str
    kinds: Sequence[str | None]
    seed: int
    size: tuple[int, int] = (1024, 768)
    card_width: tuple[float, float] = (150.0, 190.0)
    tilt: float = 0.12  # keystone strength: 0 = straight down
    light: float = 0.25  # brightness falloff across the frame (0 = even)
    noise: float = 4.0  # sensor noise standard deviation (grey levels)
    blur: float = 0.8  # gaussian blur sigma (px)
    jpeg_quality: int = 88
    fan: bool = False  # overlap the cards in a row (each covers part of the previous one)


def table_texture(width: int, height: int, rng: np.random.Generator) -> Image:
    """A wooden table top: warm base colour, wavy grain, a little noise."""
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    wave = np.sin(ys / 23.0 + 3.0 * np.sin(xs / 170.0) + rng.uniform(0, 6)) * 0.5 + 0.5
    fine = np.sin(ys / 3.7 + 0.8 * np.sin(xs / 41.0)) * 0.5 + 0.5
    grain = 0.65 * wave + 0.35 * fine
    base = np.array([45, 85, 135], np.float32)  # BGR brown
    image = base[None, None, :] * (0.75 + 0.35 * grain[..., None])
    image += rng.normal(0, 3.0, image.shape).astype(np.float32)
    return np.asarray(np.clip(image, 0, 255), dtype=np.uint8)


def _card_quad(centre: tuple[float, float], width: float, angle: float) -> Points:
    height = width * FACE_HEIGHT / FACE_WIDTH
    local = np.array(
        [
            [-width / 2, -height / 2],
            [width / 2, -height / 2],
            [width / 2, height / 2],
            [-width / 2, height / 2],
        ]
    )
    c, s = np.cos(angle), np.sin(angle)
    rotation = np.array([[c, -s], [s, c]])
    return np.asarray(local @ rotation.T + np.array(centre), dtype=np.float64)


def _paste(canvas: Image, art: Image, quad: Points) -> None:
    """Warp ``art`` onto ``canvas`` at ``quad`` with anti-aliased edges and a soft shadow."""
    h, w = canvas.shape[:2]
    src = np.array(
        [[0, 0], [FACE_WIDTH, 0], [FACE_WIDTH, FACE_HEIGHT], [0, FACE_HEIGHT]], np.float32
    )
    matrix = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    shadow = np.zeros((h, w), np.float32)
    cv2.fillConvexPoly(shadow, (quad + np.array([5.0, 7.0])).astype(np.int32), 1.0)
    shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), 6), dtype=np.float32)
    canvas[:] = np.clip(canvas * (1 - 0.45 * shadow[..., None]), 0, 255).astype(np.uint8)
    warped = cv2.warpPerspective(art, matrix, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.ones(art.shape[:2], np.float32), matrix, (w, h))
    alpha = mask[..., None]
    canvas[:] = np.clip(warped * alpha + canvas * (1 - alpha), 0, 255).astype(np.uint8)


def _half_diagonal(quad: Points) -> float:
    return float(np.hypot(*(quad[0] - quad[2]))) / 2


def _fan(spec: SceneSpec, camera: Points, rng: np.random.Generator) -> list[PlacedCard]:
    """Cards in an overlapping row near the middle, as a batch pushed together."""
    width, height = spec.size
    for _attempt in range(200):
        card_w = float(rng.uniform(*spec.card_width))
        step = card_w * float(rng.uniform(0.55, 0.7))
        start_x = width / 2 - step * (len(spec.kinds) - 1) / 2
        y = height / 2 + float(rng.uniform(-40, 40))
        placed = [
            PlacedCard(
                kind,
                _card_quad(
                    (start_x + i * step, y + float(rng.uniform(-15, 15))),
                    card_w,
                    float(rng.uniform(-0.25, 0.25)),
                ),
            )
            for i, kind in enumerate(spec.kinds)
        ]
        seen = [cv2.perspectiveTransform(c.corners[None], camera)[0] for c in placed]
        if all(np.all((s >= 12) & (s <= np.array([width, height]) - 12)) for s in seen):
            return placed
    raise ValueError(f"{spec.name}: the fan does not fit in the photo")


def _place(spec: SceneSpec, camera: Points, rng: np.random.Generator) -> list[PlacedCard]:
    """Cards at random, non-overlapping spots on the top-down table, each wholly in the photo."""
    if spec.fan:
        return _fan(spec, camera, rng)
    width, height = spec.size
    placed: list[PlacedCard] = []
    for kind in spec.kinds:
        for _attempt in range(1000):
            card_w = float(rng.uniform(*spec.card_width))
            centre = (float(rng.uniform(0, width)), float(rng.uniform(0, height)))
            quad = _card_quad(centre, card_w, float(rng.uniform(-np.pi, np.pi)))
            seen = cv2.perspectiveTransform(quad[None], camera)[0]
            inside = bool(np.all((seen >= 12) & (seen <= np.array([width, height]) - 12)))
            apart = all(
                np.hypot(*(np.array(centre) - np.array(other.centre)))
                > _half_diagonal(quad) + _half_diagonal(other.corners) + 8
                for other in placed
            )
            if inside and apart:
                placed.append(PlacedCard(kind, quad))
                break
        else:
            raise ValueError(f"{spec.name}: cannot fit {len(spec.kinds)} cards without overlap")
    return placed


def _camera(width: int, height: int, tilt: float, rng: np.random.Generator) -> Points:
    """A keystone homography: the near (bottom) edge of the table looks wider, and the table
    fills the whole photo."""
    inset = tilt * width
    jitter = rng.uniform(0, 0.02, (4, 2)) * np.array([width, height])
    src = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)
    dst = np.array([[0, 0], [width, 0], [width + inset, height], [-inset, height]])
    dst += jitter * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(
        np.float64
    )


def render_scene(spec: SceneSpec) -> tuple[Image, list[PlacedCard]]:
    """The photo and its truth (corners in photo pixels)."""
    rng = np.random.default_rng(spec.seed)
    width, height = spec.size
    canvas = table_texture(width, height, rng)
    camera = _camera(width, height, spec.tilt, rng)
    placed = _place(spec, camera, rng)
    for card in placed:
        art = draw_face(card.kind) if card.kind is not None else draw_back()
        _paste(canvas, art, card.corners)
    photo = cv2.warpPerspective(
        canvas, camera, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    truth = [
        PlacedCard(card.kind, cv2.perspectiveTransform(card.corners[None], camera)[0])
        for card in placed
    ]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    direction = rng.uniform(0, 2 * np.pi)
    ramp = np.cos(direction) * xs / width + np.sin(direction) * ys / height
    ramp = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-6)
    light = 1.0 - spec.light * ramp
    lit = photo.astype(np.float32) * light[..., None]
    if spec.blur > 0:
        lit = cv2.GaussianBlur(lit, (0, 0), spec.blur)
    lit += rng.normal(0, spec.noise, lit.shape).astype(np.float32)
    photo = np.clip(lit, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, spec.jpeg_quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    return np.asarray(decoded, dtype=np.uint8), truth
