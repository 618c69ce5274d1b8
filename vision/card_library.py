"""The table's registered card art: one photo per kind in, ORB descriptions out.

A table registers its own deck once (the calibration page asks for a photo of one card of
each kind). A photo may show the card lying on the table — it is found and cropped upright —
or be a flat, tightly cropped scan of the face.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.card_outlines import CARD_ASPECT, find_card_outlines, portrait_corners
from vision.card_types import CardReaderParams
from vision.io import load_image, write_image

Image = NDArray[np.uint8]

#: the canonical upright face every registration is warped to (pixels)
FACE_SIZE = (250, 350)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")


class CardRegistrationError(ValueError):
    """A registration photo that cannot be used; the message names the kind and the problem."""


@dataclass(frozen=True, slots=True)
class CardTemplate:
    """One registered kind: its upright face and feature points (in face pixels)."""

    kind: str
    face: Image = field(repr=False)
    points: NDArray[np.float32] = field(repr=False)  # (N, 2) in FACE_SIZE pixels
    descriptors: NDArray[np.uint8] = field(repr=False)  # (N, 32) ORB

    @property
    def corners(self) -> NDArray[np.float32]:
        w, h = FACE_SIZE
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def extract_card_face(photo: Image, kind: str = "card") -> Image:
    """The card in ``photo`` warped upright to FACE_SIZE.

    A flat scan (the image itself has card proportions): used whole. A photo of a card lying
    on a table: the largest card-shaped outline, which must cover at least 3% of the photo.
    """
    if photo.ndim != 3 or photo.shape[2] != 3 or photo.dtype != np.uint8:
        raise CardRegistrationError(f"{kind}: expected a BGR uint8 photo, got {photo.shape}")
    h, w = photo.shape[:2]
    short, long = sorted((h, w))
    if abs(short / long - CARD_ASPECT) <= 0.03 and short >= 80:
        # card proportions (camera photos are 4:3, 3:2 or 16:9): a flat scan of the face
        upright = photo if h >= w else cv2.rotate(photo, cv2.ROTATE_90_CLOCKWISE)
        return np.asarray(cv2.resize(upright, FACE_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
    outlines = [
        q
        for q in find_card_outlines(photo, min_side=0.08 * short)
        if cv2.contourArea(q.astype(np.float32)) >= 0.03 * h * w
    ]
    if outlines:
        quad = portrait_corners(outlines[0])
        target = np.array(
            [[0, 0], [FACE_SIZE[0], 0], [FACE_SIZE[0], FACE_SIZE[1]], [0, FACE_SIZE[1]]],
            np.float32,
        )
        matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
        return np.asarray(cv2.warpPerspective(photo, matrix, FACE_SIZE), dtype=np.uint8)
    raise CardRegistrationError(
        f"{kind}: no card found in the photo ({w}x{h}); lay one card alone on the table, face "
        "up and wholly in view, or use a tightly cropped scan of its face"
    )


def describe_face(face: Image, kind: str, params: CardReaderParams) -> CardTemplate:
    """ORB features of an upright face at several sizes, all in FACE_SIZE coordinates."""
    gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    orb = cv2.ORB.create(
        nfeatures=params.template_features,
        scaleFactor=1.2,
        nlevels=3,
        edgeThreshold=15,
        patchSize=31,
        fastThreshold=10,
    )
    points: list[NDArray[np.float32]] = []
    descriptors: list[NDArray[np.uint8]] = []
    for width in params.template_widths:
        scale = width / FACE_SIZE[0]
        size = (width, round(FACE_SIZE[1] * scale))
        resized = cv2.resize(
            gray, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        )
        keypoints, desc = orb.detectAndCompute(resized, None)
        if desc is None or not keypoints:
            continue
        points.append(np.array([kp.pt for kp in keypoints], np.float32) / scale)
        descriptors.append(np.asarray(desc, dtype=np.uint8))
    if not descriptors or sum(len(d) for d in descriptors) < 4 * params.min_inliers:
        raise CardRegistrationError(
            f"{kind}: the card face has too little detail to recognise (blurred or blank?)"
        )
    return CardTemplate(kind, face, np.vstack(points), np.vstack(descriptors))


@dataclass(frozen=True, slots=True)
class CardLibrary:
    """The registered kinds, in the table's order."""

    templates: tuple[CardTemplate, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(t.kind for t in self.templates)

    @classmethod
    def register(
        cls, photos: Mapping[str, Image], params: CardReaderParams | None = None
    ) -> CardLibrary:
        """Register one photo per kind (``{"orc": image, ...}``)."""
        params = params or CardReaderParams()
        if not photos:
            raise CardRegistrationError("no card photos given: register one photo per kind")
        templates = []
        for kind, photo in photos.items():
            if not isinstance(kind, str) or not kind.strip():
                raise CardRegistrationError(f"a card kind must be a name, got {kind!r}")
            face = extract_card_face(photo, kind)
            templates.append(describe_face(face, kind.strip().lower(), params))
        return cls(tuple(templates))

    @classmethod
    def from_directory(
        cls,
        folder: str | Path,
        params: CardReaderParams | None = None,
        kinds: Iterable[str] | None = None,
    ) -> CardLibrary:
        """Register ``<kind>.jpg`` / ``.png`` files in ``folder`` (only ``kinds``, if given)."""
        folder = Path(folder)
        files = {
            p.stem.lower(): p
            for p in sorted(folder.iterdir())
            if p.suffix.lower() in IMAGE_SUFFIXES
        }
        wanted = list(kinds) if kinds is not None else sorted(files)
        missing = [k for k in wanted if k not in files]
        if missing:
            raise CardRegistrationError(f"{folder}: no photo for {', '.join(missing)}")
        return cls.register({k: load_image(files[k]) for k in wanted}, params)

    def save_faces(self, folder: str | Path) -> list[Path]:
        """Write each upright face as ``<kind>.png``: a profile keeps these, and
        :meth:`from_directory` registers them again without the original photos."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for template in self.templates:
            path = folder / f"{template.kind}.png"
            if not write_image(path, template.face):
                raise OSError(f"{path}: could not be written")
            written.append(path)
        return written

    def without(self, *kinds: str) -> CardLibrary:
        """The same library with some kinds left out (e.g. those removed from the deck)."""
        return CardLibrary(tuple(t for t in self.templates if t.kind not in kinds))
