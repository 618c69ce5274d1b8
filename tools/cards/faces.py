"""Draw the project's own Impus Bluff card faces: one distinct design per kind.

Each face has a colour band with the kind's name at top and bottom, corner letters, a
creature emblem made of simple shapes, and a seeded pattern of small marks in the kind's
palette. The pattern matters: feature matching (ORB) needs corners and texture, as real card
art has. Everything is deterministic: the same kind always gives the same pixels.
"""

from __future__ import annotations

import zlib

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.cards import DEFAULT_KINDS, POLYMORPH

Image = NDArray[np.uint8]

#: canonical card size in pixels (63 x 88 mm playing-card proportions)
FACE_WIDTH = 250
FACE_HEIGHT = 350

#: (band colour, emblem colour, pattern colour) in BGR, per kind
PALETTES: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]] = {
    "orc": ((40, 120, 40), (60, 160, 70), (20, 70, 20)),
    "gnome": ((40, 40, 170), (200, 170, 90), (30, 30, 120)),
    "elf": ((60, 170, 120), (120, 220, 160), (40, 110, 60)),
    "faun": ((40, 90, 140), (70, 130, 190), (30, 60, 100)),
    "skeleton": ((90, 90, 90), (225, 225, 215), (50, 50, 50)),
    "dragon": ((30, 30, 140), (40, 60, 200), (90, 30, 30)),
    "goblin": ((30, 140, 140), (80, 200, 170), (20, 90, 90)),
    "imp": ((20, 20, 200), (60, 60, 230), (10, 10, 110)),
    "troll": ((110, 80, 50), (150, 130, 100), (70, 50, 30)),
    "harpy": ((140, 60, 140), (200, 120, 200), (90, 30, 90)),
    POLYMORPH: ((160, 40, 40), (230, 160, 60), (120, 20, 80)),
}

CARD_KINDS: tuple[str, ...] = (*DEFAULT_KINDS, POLYMORPH)


def _rng(kind: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(kind.encode("utf-8")))


def _text_centered(
    image: Image,
    text: str,
    centre: tuple[int, int],
    scale: float,
    colour: tuple[int, int, int],
    thickness: int = 2,
) -> None:
    font = cv2.FONT_HERSHEY_DUPLEX
    (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
    origin = (int(centre[0] - w / 2), int(centre[1] + h / 2))
    cv2.putText(image, text, origin, font, scale, colour, thickness, cv2.LINE_AA)


def _pattern(image: Image, kind: str, colour: tuple[int, int, int]) -> None:
    """Seeded small marks across the face's middle field: the texture matching relies on."""
    rng = _rng(kind)
    top, bottom = 60, FACE_HEIGHT - 60
    for _ in range(70):
        x = int(rng.integers(14, FACE_WIDTH - 14))
        y = int(rng.integers(top + 6, bottom - 6))
        size = int(rng.integers(3, 10))
        shape = int(rng.integers(0, 4))
        shade = tuple(int(c) for c in np.clip(np.array(colour) + rng.integers(-40, 40, 3), 0, 255))
        if shape == 0:
            cv2.circle(image, (x, y), size, shade, -1, cv2.LINE_AA)
        elif shape == 1:
            cv2.rectangle(image, (x - size, y - size), (x + size, y + size), shade, 2)
        elif shape == 2:
            pts = np.array([[x, y - size], [x + size, y + size], [x - size, y + size]], np.int32)
            cv2.fillPoly(image, [pts], shade, cv2.LINE_AA)
        else:
            angle = float(rng.uniform(0, np.pi))
            dx, dy = int(size * 1.6 * np.cos(angle)), int(size * 1.6 * np.sin(angle))
            cv2.line(image, (x - dx, y - dy), (x + dx, y + dy), shade, 2, cv2.LINE_AA)


def _emblem(image: Image, kind: str, colour: tuple[int, int, int]) -> None:
    """A creature glyph in the middle: a head plus the kind's distinguishing features."""
    cx, cy = FACE_WIDTH // 2, FACE_HEIGHT // 2
    dark = (25, 25, 25)
    rng = _rng(kind + "/emblem")
    cv2.circle(image, (cx, cy), 58, (245, 245, 240), -1, cv2.LINE_AA)
    cv2.circle(image, (cx, cy), 58, dark, 2, cv2.LINE_AA)
    head_w = int(rng.integers(30, 44))
    head_h = int(rng.integers(32, 46))
    cv2.ellipse(image, (cx, cy + 6), (head_w, head_h), 0, 0, 360, colour, -1, cv2.LINE_AA)
    cv2.ellipse(image, (cx, cy + 6), (head_w, head_h), 0, 0, 360, dark, 2, cv2.LINE_AA)
    eye_dy = int(rng.integers(-6, 6))
    for side in (-1, 1):
        ex = cx + side * int(head_w * 0.45)
        cv2.circle(image, (ex, cy + eye_dy), 7, (255, 255, 255), -1, cv2.LINE_AA)
        cv2.circle(image, (ex + side * 2, cy + eye_dy), 3, dark, -1, cv2.LINE_AA)
    features = {
        "orc": [("tusks",)],
        "gnome": [("hat",)],
        "elf": [("ears",)],
        "faun": [("horns",)],
        "skeleton": [("teeth",)],
        "dragon": [("horns",), ("wings",)],
        "goblin": [("ears",), ("teeth",)],
        "imp": [("horns",), ("tail",)],
        "troll": [("tusks",), ("brow",)],
        "harpy": [("wings",), ("beak",)],
        POLYMORPH: [("star",)],
    }[kind]
    for (feature,) in features:
        _feature(image, feature, cx, cy, head_w, head_h, dark)
    mouth_y = cy + int(head_h * 0.55)
    cv2.ellipse(image, (cx, mouth_y), (12, 5), 0, 0, 180, dark, 2, cv2.LINE_AA)


def _feature(
    image: Image, feature: str, cx: int, cy: int, hw: int, hh: int, ink: tuple[int, int, int]
) -> None:
    if feature == "tusks":
        for side in (-1, 1):
            pts = np.array(
                [
                    [cx + side * 8, cy + hh - 4],
                    [cx + side * 14, cy + hh - 4],
                    [cx + side * 12, cy + hh - 22],
                ],
                np.int32,
            )
            cv2.fillPoly(image, [pts], (250, 250, 250), cv2.LINE_AA)
            cv2.polylines(image, [pts], True, ink, 1, cv2.LINE_AA)
    elif feature == "hat":
        pts = np.array(
            [[cx - hw, cy - hh + 14], [cx + hw, cy - hh + 14], [cx + 6, cy - hh - 40]], np.int32
        )
        cv2.fillPoly(image, [pts], (40, 40, 200), cv2.LINE_AA)
        cv2.polylines(image, [pts], True, ink, 2, cv2.LINE_AA)
    elif feature == "ears":
        for side in (-1, 1):
            pts = np.array(
                [
                    [cx + side * (hw - 4), cy - 6],
                    [cx + side * (hw - 2), cy + 14],
                    [cx + side * (hw + 26), cy - 26],
                ],
                np.int32,
            )
            cv2.fillPoly(image, [pts], (150, 200, 230), cv2.LINE_AA)
            cv2.polylines(image, [pts], True, ink, 2, cv2.LINE_AA)
    elif feature == "horns":
        for side in (-1, 1):
            pts = np.array(
                [
                    [cx + side * 10, cy - hh + 8],
                    [cx + side * 24, cy - hh + 14],
                    [cx + side * 30, cy - hh - 22],
                ],
                np.int32,
            )
            cv2.fillPoly(image, [pts], (60, 60, 60), cv2.LINE_AA)
    elif feature == "wings":
        for side in (-1, 1):
            pts = np.array(
                [
                    [cx + side * hw, cy],
                    [cx + side * (hw + 34), cy - 40],
                    [cx + side * (hw + 30), cy + 4],
                    [cx + side * (hw + 40), cy + 24],
                ],
                np.int32,
            )
            cv2.polylines(image, [pts], False, ink, 3, cv2.LINE_AA)
    elif feature == "teeth":
        y = cy + int(hh * 0.3)
        for i in range(-2, 3):
            cv2.rectangle(image, (cx + i * 7 - 3, y), (cx + i * 7 + 3, y + 8), (250, 250, 250), -1)
            cv2.rectangle(image, (cx + i * 7 - 3, y), (cx + i * 7 + 3, y + 8), ink, 1)
    elif feature == "tail":
        pts = np.array(
            [
                [cx + hw - 6, cy + hh - 4],
                [cx + hw + 20, cy + hh + 6],
                [cx + hw + 30, cy + hh - 16],
                [cx + hw + 40, cy + hh - 6],
            ],
            np.int32,
        )
        cv2.polylines(image, [pts], False, ink, 3, cv2.LINE_AA)
    elif feature == "brow":
        cv2.line(image, (cx - hw + 6, cy - 14), (cx + hw - 6, cy - 14), ink, 5, cv2.LINE_AA)
    elif feature == "beak":
        pts = np.array([[cx - 8, cy + 8], [cx + 8, cy + 8], [cx, cy + 26]], np.int32)
        cv2.fillPoly(image, [pts], (40, 180, 230), cv2.LINE_AA)
    elif feature == "star":
        angles = np.linspace(-np.pi / 2, 3.5 * np.pi, 11)[:10]
        radii = np.where(np.arange(10) % 2 == 0, 28, 12)
        pts = np.stack([cx + radii * np.cos(angles), cy + 6 + radii * np.sin(angles)], axis=1)
        cv2.fillPoly(image, [pts.astype(np.int32)], (60, 220, 250), cv2.LINE_AA)


def draw_face(kind: str, label: str | None = None) -> Image:
    """The face of one card of ``kind`` (a default kind or ``polymorph``), BGR, 250 x 350."""
    if kind not in PALETTES:
        raise ValueError(f"no design for {kind!r}; known: {', '.join(PALETTES)}")
    band, emblem, pattern = PALETTES[kind]
    label = (label or kind).upper()
    face = np.full((FACE_HEIGHT, FACE_WIDTH, 3), (236, 242, 246), np.uint8)
    _pattern(face, kind, pattern)
    for y0 in (0, FACE_HEIGHT - 54):
        cv2.rectangle(face, (0, y0), (FACE_WIDTH - 1, y0 + 53), band, -1)
    scale = 0.95 if len(label) <= 7 else 0.75
    _text_centered(face, label, (FACE_WIDTH // 2, 27), scale, (255, 255, 255))
    _text_centered(face, label, (FACE_WIDTH // 2, FACE_HEIGHT - 27), scale, (255, 255, 255))
    _emblem(face, kind, emblem)
    for corner in ((18, 74), (FACE_WIDTH - 18, FACE_HEIGHT - 74)):
        _text_centered(face, label[0], corner, 0.8, band, 2)
    cv2.rectangle(face, (0, 0), (FACE_WIDTH - 1, FACE_HEIGHT - 1), (40, 40, 40), 3)
    return face


def draw_back() -> Image:
    """The common back of every card: a regular lattice (so a face-down card looks alike)."""
    back = np.full((FACE_HEIGHT, FACE_WIDTH, 3), (120, 40, 30), np.uint8)
    for i in range(-FACE_HEIGHT, FACE_WIDTH + FACE_HEIGHT, 22):
        cv2.line(back, (i, 0), (i + FACE_HEIGHT, FACE_HEIGHT), (160, 80, 60), 3, cv2.LINE_AA)
        cv2.line(back, (i, FACE_HEIGHT), (i + FACE_HEIGHT, 0), (160, 80, 60), 3, cv2.LINE_AA)
    cv2.rectangle(back, (10, 10), (FACE_WIDTH - 11, FACE_HEIGHT - 11), (230, 230, 230), 4)
    return back
