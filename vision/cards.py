"""Name the turned-up Impus cards in a frame by matching them against the registered art.

    from vision.cards import CardLibrary, CardReaderParams, read_cards, draw_card_reading
    library = CardLibrary.from_directory("calibration/cards")     # one photo per kind
    reading = read_cards(frame_bgr, library, CardReaderParams())
    reading.kinds()        # ["orc", "imp"] — only cards the reader is sure of
    reading.unnamed        # cards a person must look at (face down, unregistered, unsure)

How: ORB keypoints of the frame are matched to every registered face at once (Lowe's ratio
test against the best match in any face, so features that several designs share are
dropped). For each kind, RANSAC finds a homography from the face to the frame; a card-shaped
projection with enough inliers is a card of that kind, its matches are removed, and the
search repeats (two orcs are two cards). Card-shaped outlines that no match explains are
reported as unnamed cards. Nothing is ever named on a weak or ambiguous match.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.card_library import CardLibrary, CardRegistrationError, CardTemplate, extract_card_face
from vision.card_outlines import find_card_outlines, is_card_shaped, quad_overlap
from vision.card_types import CardReaderParams, CardReading, SeenCard
from vision.draw import drawable

Image = NDArray[np.uint8]

__all__ = [
    "CardLibrary",
    "CardReaderParams",
    "CardReading",
    "CardRegistrationError",
    "SeenCard",
    "draw_card_reading",
    "extract_card_face",
    "read_cards",
]

#: two different kinds whose outlines overlap by more than this claim the same card
SAME_CARD_OVERLAP = 0.35


@dataclass(slots=True)
class _Match:
    """A candidate card: a homography-checked match of one registered face."""

    kind: str
    outline: NDArray[np.float64]  # work-image pixels
    inliers: int
    inlier_ratio: float
    rival: int = 0  # inliers of the best other kind claiming the same card


def _frame_features(
    gray: NDArray[np.uint8], params: CardReaderParams
) -> tuple[NDArray[np.float32], NDArray[np.uint8] | None]:
    orb = cv2.ORB.create(
        nfeatures=params.frame_features,
        scaleFactor=1.2,
        nlevels=6,
        edgeThreshold=15,
        patchSize=31,
        fastThreshold=10,
    )
    keypoints, descriptors = orb.detectAndCompute(gray, None)
    points = np.array([kp.pt for kp in keypoints], np.float32).reshape(-1, 2)
    if descriptors is None:
        return points, None
    return points, np.asarray(descriptors, dtype=np.uint8)


def _ratio_matches(
    descriptors: NDArray[np.uint8], library: CardLibrary, params: CardReaderParams
) -> dict[int, list[tuple[int, int]]]:
    """Frame keypoint -> (template index, template point) pairs surviving the ratio test."""
    stacked = np.vstack([t.descriptors for t in library.templates])
    owner = np.concatenate(
        [np.full(len(t.descriptors), i) for i, t in enumerate(library.templates)]
    )
    local = np.concatenate([np.arange(len(t.descriptors)) for t in library.templates])
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    by_template: dict[int, list[tuple[int, int]]] = {}
    for pair in matcher.knnMatch(descriptors, stacked, k=2):
        if len(pair) < 2:
            continue
        best, second = pair
        if best.distance >= params.ratio * second.distance:
            continue
        template = int(owner[best.trainIdx])
        by_template.setdefault(template, []).append((best.queryIdx, int(local[best.trainIdx])))
    return by_template


def _find_instances(
    template: CardTemplate,
    pairs: list[tuple[int, int]],
    frame_points: NDArray[np.float32],
    params: CardReaderParams,
) -> list[_Match]:
    """Every card of one kind: RANSAC, take the card, drop its matches, repeat."""
    found: list[_Match] = []
    remaining = list(pairs)
    while len(remaining) >= params.min_inliers and len(found) < params.max_cards:
        src = np.array([template.points[t] for _, t in remaining], np.float32)
        dst = np.array([frame_points[q] for q, _ in remaining], np.float32)
        homography, mask = cv2.findHomography(
            src, dst, cv2.RANSAC, params.ransac_px, maxIters=2000, confidence=0.995
        )
        if homography is None or mask is None:
            break
        inlier = mask.ravel().astype(bool)
        count = int(inlier.sum())
        if count < params.min_inliers:
            break
        outline = cv2.perspectiveTransform(template.corners[None], homography)[0].astype(np.float64)
        shaped = np.linalg.det(homography[:2, :2]) > 0 and is_card_shaped(
            outline, min_side=params.min_card_side_px, max_skew=params.max_skew
        )
        if shaped:
            found.append(_Match(template.kind, outline, count, count / len(remaining)))
        inside = cv2.pointPolygonTest if shaped else None
        keep = []
        for index, (query, t) in enumerate(remaining):
            if inlier[index]:
                continue
            if inside is not None:
                x, y = (float(v) for v in frame_points[query])
                if inside(outline.astype(np.float32), (x, y), False) >= 0:
                    continue
            keep.append((query, t))
        remaining = keep
    return found


def _settle_conflicts(matches: list[_Match]) -> list[_Match]:
    """One card, one kind: where two kinds claim the same spot the stronger stays, and its
    rival's strength is remembered (an ambiguous card is not named)."""
    matches = sorted(matches, key=lambda m: -m.inliers)
    kept: list[_Match] = []
    for match in matches:
        clash = next(
            (k for k in kept if quad_overlap(k.outline, match.outline) > SAME_CARD_OVERLAP), None
        )
        if clash is None:
            kept.append(match)
        elif clash.kind != match.kind:
            clash.rival = max(clash.rival, match.inliers)
    return kept


def _confidence(match: _Match, params: CardReaderParams) -> float:
    strength = min(1.0, match.inliers / params.confident_inliers)
    clarity = 1.0 - match.rival / match.inliers if match.inliers else 0.0
    return float(np.clip(strength * clarity, 0.0, 1.0))


def _to_seen(match: _Match, scale: float, params: CardReaderParams) -> SeenCard:
    outline = match.outline / scale
    confidence = _confidence(match, params)
    sure = confidence >= params.min_confidence
    problem = None
    if not sure:
        problem = "ambiguous" if match.rival >= 0.5 * match.inliers else "weak_match"
    return SeenCard(
        kind=match.kind if sure else None,
        x=float(outline[:, 0].mean()),
        y=float(outline[:, 1].mean()),
        confidence=confidence,
        outline=outline,
        inliers=match.inliers,
        candidate=match.kind,
        problem=problem,
    )


def read_cards(
    frame: Image, library: CardLibrary, params: CardReaderParams | None = None
) -> CardReading:
    """Every card visible in ``frame`` (BGR uint8), named where the match is sure. Pure."""
    params = params or CardReaderParams()
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected a BGR uint8 frame, got shape {frame.shape} {frame.dtype}")
    height, width = frame.shape[:2]
    scale = min(1.0, params.work_max_side / max(height, width))
    work = frame
    if scale < 1.0:
        size = (round(width * scale), round(height * scale))
        work = np.asarray(cv2.resize(frame, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
    gray = np.asarray(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    matches: list[_Match] = []
    if library.templates:
        points, descriptors = _frame_features(gray, params)
        if descriptors is not None and len(points) >= params.min_inliers:
            for index, pairs in _ratio_matches(descriptors, library, params).items():
                matches += _find_instances(library.templates[index], pairs, points, params)
    matches = _settle_conflicts(matches)
    seen = [_to_seen(m, scale, params) for m in matches]
    if params.find_unmatched:
        for quad in find_card_outlines(
            work, min_side=params.min_card_side_px, max_skew=params.max_skew
        ):
            if any(quad_overlap(quad, m.outline) > SAME_CARD_OVERLAP for m in matches):
                continue
            outline = quad / scale
            seen.append(
                SeenCard(
                    None,
                    float(outline[:, 0].mean()),
                    float(outline[:, 1].mean()),
                    0.0,
                    outline,
                    problem="unknown_face",
                )
            )
    if len(seen) > params.max_cards:
        seen = [_unnamed(card) for card in seen]
    seen.sort(key=lambda card: (card.x, card.y))
    return CardReading(tuple(seen), width, height)


def _unnamed(card: SeenCard) -> SeenCard:
    if card.kind is None:
        return card
    return SeenCard(
        None, card.x, card.y, card.confidence, card.outline, card.inliers, card.kind, "weak_match"
    )


def draw_card_reading(frame: Image, reading: CardReading) -> Image:
    """A copy of ``frame`` with each card's outline and name (unnamed cards in red, with '?')."""
    out = frame.copy()
    thickness = max(2, round(max(out.shape[:2]) / 500))
    for card in reading.cards:
        named = card.kind is not None
        colour = (60, 200, 60) if named else (40, 40, 230)
        pts = card.outline.round().astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, colour, thickness, cv2.LINE_AA)
        label = card.kind if card.kind is not None else f"? {card.candidate or ''}".strip()
        label = drawable(label) or label  # a kind named in another script: "?"s, as before
        text = f"{label} {card.confidence:.2f}" if card.inliers else label
        origin = (int(card.x) - 40, int(card.y))
        cv2.putText(
            out, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), thickness + 2, cv2.LINE_AA
        )
        cv2.putText(
            out, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, thickness, cv2.LINE_AA
        )
    return out
