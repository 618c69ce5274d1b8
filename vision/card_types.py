"""The card reader's settings and results: what was seen, and how sure the reader is.

Kept apart from the matching so the table, the review screen and the tests depend only on
these. A card the reader cannot name for sure has ``kind`` None: it is flagged, never
guessed (the best candidate is kept for a reviewer in ``candidate``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: why a card is unnamed (``SeenCard.problem``)
PROBLEMS = ("weak_match", "ambiguous", "unknown_face")


@dataclass(frozen=True, slots=True)
class CardReaderParams:
    """Settings for :func:`vision.cards.read_cards` (a calibration profile may override them).

    Attributes:
        min_confidence: cards matched with a confidence (0..1) below this are not named.
        work_max_side: frames are downscaled to this longer side before reading (speed);
            positions are always reported in the original frame's pixels.
        frame_features: the most ORB keypoints taken from a frame.
        template_features: the most ORB keypoints taken from each registered face, per scale.
        template_widths: the widths (px) each registered face is described at, so that cards
            near and far from the camera match.
        ratio: Lowe's ratio test: a match is kept only when its distance is below this
            fraction of the second-best match's (to any registered face).
        ransac_px: the reprojection error (work-image px) a RANSAC inlier may have.
        min_inliers: the fewest homography inliers that count as a card at all.
        confident_inliers: inliers at which a clean match reaches confidence 1.
        max_skew: the largest departure (radians) of an outline's corner angles from 90°.
        min_card_side_px: outlines with a side shorter than this (work px) are ignored.
        max_cards: more cards than this in one frame is treated as unreliable (all unnamed).
        find_unmatched: also look for card-shaped outlines that no registered face explains
            (face-down or unregistered cards) and report them unnamed.
    """

    min_confidence: float = 0.6
    work_max_side: int = 1280
    frame_features: int = 3000
    template_features: int = 250
    template_widths: tuple[int, ...] = (330, 220, 140)
    ratio: float = 0.8
    ransac_px: float = 5.0
    min_inliers: int = 10
    confident_inliers: int = 25
    max_skew: float = 0.6
    min_card_side_px: float = 30.0
    max_cards: int = 24
    find_unmatched: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be in 0..1, got {self.min_confidence}")
        if self.work_max_side < 128:
            raise ValueError(f"work_max_side must be at least 128 px, got {self.work_max_side}")
        if not 0.0 < self.ratio < 1.0:
            raise ValueError(f"ratio must be in (0, 1), got {self.ratio}")
        if self.min_inliers < 4:
            raise ValueError(
                f"min_inliers must be at least 4 (a homography), got {self.min_inliers}"
            )
        if self.confident_inliers < self.min_inliers:
            raise ValueError("confident_inliers must be at least min_inliers")
        if not self.template_widths or min(self.template_widths) < 48:
            raise ValueError(
                f"template_widths must be sizes of 48 px or more, got {self.template_widths}"
            )
        object.__setattr__(self, "template_widths", tuple(int(w) for w in self.template_widths))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardReaderParams:
        """Build from a profile's ``[cards]`` table; unknown keys are an error, not ignored."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown card reader setting(s): {', '.join(unknown)}")
        values = dict(data)
        if "template_widths" in values:
            values["template_widths"] = tuple(values["template_widths"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["template_widths"] = list(self.template_widths)
        return out


@dataclass(frozen=True, slots=True)
class SeenCard:
    """One turned-up (or face-down) card found in a frame.

    ``kind`` is the registered kind when the reader is sure, else None with ``problem`` saying
    why. ``x``, ``y``: the card's centre; ``outline``: (4, 2) corners in frame pixels, starting
    at the face's top-left when the face was matched; ``inliers``: matched features.
    """

    kind: str | None
    x: float
    y: float
    confidence: float
    outline: NDArray[np.float64] = field(compare=False, repr=False)
    inliers: int = 0
    candidate: str | None = None
    problem: str | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"card confidence must be in 0..1, got {self.confidence}")
        outline = np.asarray(self.outline, dtype=np.float64)
        if outline.shape != (4, 2):
            raise ValueError(f"card outline must have shape (4, 2), got {outline.shape}")
        if (self.kind is None) == (self.problem is None):
            raise ValueError("a card has either a kind or a problem, not both or neither")
        if self.problem is not None and self.problem not in PROBLEMS:
            raise ValueError(f"unknown problem {self.problem!r}; known: {', '.join(PROBLEMS)}")
        object.__setattr__(self, "outline", outline)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "x": round(self.x, 1),
            "y": round(self.y, 1),
            "confidence": round(self.confidence, 3),
            "inliers": self.inliers,
            "candidate": self.candidate,
            "problem": self.problem,
            "outline": [[round(float(x), 1), round(float(y), 1)] for x, y in self.outline],
        }


@dataclass(frozen=True, slots=True)
class CardReading:
    """Every card found in one frame, left to right. No cards is a valid, empty reading."""

    cards: tuple[SeenCard, ...] = ()
    width: int = 0
    height: int = 0

    @property
    def named(self) -> tuple[SeenCard, ...]:
        return tuple(card for card in self.cards if card.kind is not None)

    @property
    def unnamed(self) -> tuple[SeenCard, ...]:
        """Cards a person must look at before the reveal is adjudicated."""
        return tuple(card for card in self.cards if card.kind is None)

    @property
    def needs_review(self) -> bool:
        return bool(self.unnamed)

    def kinds(self) -> list[str]:
        """Named kinds, left to right: the ``{"reveal": [...]}`` list when nothing is unnamed."""
        return [card.kind for card in self.named if card.kind is not None]

    def to_json(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "needs_review": self.needs_review,
            "kinds": self.kinds(),
            "cards": [card.to_json() for card in self.cards],
        }
