"""A table-top picture with dice at known places, for the stand-in camera of the browser tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

WIDTH, HEIGHT = 960, 540
DIE_SIZE = 56
PIP_OFFSETS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


@dataclass(frozen=True)
class SceneDie:
    seat: str
    value: int
    x: int
    y: int


def draw_scene(dice: Sequence[SceneDie]) -> Any:
    """A BGR frame: a felt table, a seat circle per player, each die drawn face up."""
    return _draw(tuple(dice)).copy()


@lru_cache(maxsize=4)
def _draw(dice: tuple[SceneDie, ...]) -> Any:
    frame: Any = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    frame[:] = (70, 92, 38)  # felt green (BGR)
    noise = np.random.default_rng(7).integers(0, 12, (HEIGHT, WIDTH, 1), dtype=np.uint8)
    frame = cv2.add(frame, np.repeat(noise, 3, axis=2))
    seats: dict[str, list[SceneDie]] = {}
    for d in dice:
        seats.setdefault(d.seat, []).append(d)
    for members in seats.values():
        cx = int(sum(d.x for d in members) / len(members))
        cy = int(sum(d.y for d in members) / len(members))
        cv2.circle(frame, (cx, cy), 130, (60, 80, 32), -1, cv2.LINE_AA)
    half = DIE_SIZE // 2
    for d in dice:
        cv2.rectangle(frame, (d.x - half + 4, d.y - half + 6), (d.x + half + 4, d.y + half + 6),
                      (30, 40, 18), -1, cv2.LINE_AA)  # shadow
        cv2.rectangle(frame, (d.x - half, d.y - half), (d.x + half, d.y + half),
                      (236, 244, 248), -1, cv2.LINE_AA)
        for ox, oy in PIP_OFFSETS[d.value]:
            cv2.circle(frame, (d.x + ox * 15, d.y + oy * 15), 6, (25, 25, 25), -1, cv2.LINE_AA)
    return frame


def encode_jpeg(frame: Any) -> bytes:
    ok, buffer = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 88])
    assert ok, "OpenCV could not encode the scene"
    return bytes(buffer.tobytes())
