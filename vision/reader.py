"""read_dice: frame in, Reading out.

By default (``ReaderParams.method = "learned"``) a small detector network proposes the dice
and a crop classifier names them (``vision.dice.detected``). The classical pip reader below
(``method = "classical"``) needs no network for finding dice.

Classical pipeline: (1) pip candidates on an image pyramid (vision.dice.pips), (2) link pips
that can share a face and check each group against the six layouts (vision.dice.faces), (3) settle
overlaps — a die showing a side face next to its top face keeps only the top one — and
reject lone blobs that do not look like a die's one-face.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dice.faces import Face, link_pips, pip_context, read_face
from vision.dice.pips import Pip, find_pips
from vision.params import ReaderParams
from vision.smear import doubt_smeared
from vision.types import Die, Reading, doubt_crowds

#: link reaches tried (in pip diameters), widest first, when splitting a group that is not a face
_REACHES = (5.2, 4.0, 3.0, 2.3)


def read_dice(frame: NDArray[np.uint8], params: ReaderParams | None = None, *,
              crop: bool = False) -> Reading:
    """Read every die whose top face is visible in a BGR (or grey) uint8 frame.

    ``crop``: the frame is one die cut out of a photo (it may then be read as one die filling
    it); the caller says so, it is never guessed from the frame's size. With a table
    profile's die size or table box in ``params`` (and not a crop), the learned reader reads
    only the table, at the one scale the die size implies (``vision.dice.calibrated``)."""
    params = params or ReaderParams()
    image = _as_bgr(frame)
    if params.method == "learned":
        # lazy: loads the networks on first use
        from vision.dice.doubts import doubt_cut_and_twice

        if not crop and (params.die_size_px is not None or params.table_box is not None):
            from vision.dice.calibrated import read_calibrated

            reading = read_calibrated(image, params)
        else:
            from vision.dice.detected import read_detected

            reading = read_detected(image, params, crop=crop)  # smear-checked there
        if params.table_head is not None:  # this table's own head decides again
            from vision.table_head import adapt_reading, load_head

            reading = adapt_reading(image, reading, load_head(params.table_head),
                                    params.max_dice)
        # a die cut by the frame's edge or read twice is doubted, whoever named its value
        return doubt_cut_and_twice(reading)
    return doubt_smeared(image, _read_classical(image, params), params.min_gradient_balance)


def load_networks(params: ReaderParams | None = None) -> None:
    """Read the networks ``params`` reads with now rather than at the first read, so that a
    frame's read time is its own (``bluffcam read``'s ms, a table's first reveal) and a
    missing model is found at start-up; the reveal's cover check too, where it is on."""
    params = params or ReaderParams()
    from vision import learned

    if params.method == "learned":
        from vision import detector, verifier
        from vision.dice import detected  # noqa: F401  (imported here, not at the first read)

        classifiers = [n.at_8_bits() for n in learned.NETS] if params.int8_networks \
            else learned.NETS
        nets = [*detector.networks(params.detector_networks, int8=params.int8_networks),
                *classifiers, verifier.NET]
    else:
        nets = list(learned.NETS) if params.learned_check else []
    if params.cover_doubt_odds < 1.0:
        from vision import cover_check

        nets.append(cover_check.NET)
    for net in nets:
        net.load()
    if params.method == "learned" and params.table_head is not None:
        from vision.table_head import load_head

        load_head(params.table_head)  # a missing or damaged head is named at start-up


def _read_classical(image: NDArray[np.uint8], params: ReaderParams) -> Reading:
    """The pip reader (``method = "classical"``), checked by the learned classifier where
    ``params.learned_check``."""
    h, w = image.shape[:2]
    scale = min(1.0, params.work_max_side / max(h, w))
    work = (
        image if scale == 1.0
        else np.asarray(cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))),
                                   interpolation=cv2.INTER_AREA), dtype=np.uint8)
    )
    work = _remove_impulse_noise(work)
    gray = np.asarray(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    pips = find_pips(
        gray,
        min_contrast=params.min_pip_contrast,
        min_fill=params.min_pip_circularity,
        max_elongation=params.max_pip_elongation,
        min_diameter=params.min_pip_diameter_px,
        polarity=params.pip_polarity,
    )
    if params.pip_diameter_px is not None:
        want = params.pip_diameter_px * scale
        tol = params.pip_size_tolerance
        pips = [p for p in pips if want / tol <= p.diameter <= want * tol]
    faces = _faces(work, pips, params)
    faces = _settle_overlaps(faces)
    faces = _drop_implausible_ones(faces)
    dice = tuple(
        Die(
            value=f.value,
            x=float((f.x + 0.5) / scale - 0.5),
            y=float((f.y + 0.5) / scale - 0.5),
            confidence=float(np.clip(f.confidence, 0.0, 1.0)),
            outline=(f.outline + 0.5) / scale - 0.5,
        )
        for f in sorted(faces, key=lambda f: (f.y, f.x))
    )
    dice = doubt_crowds(dice, params.max_dice, params.min_confidence)
    reading = Reading(dice=dice, width=w, height=h, min_confidence=params.min_confidence)
    if params.learned_check and dice:
        from vision.learned import refine_reading  # lazy: loads the ONNX model on first use

        reading = refine_reading(image, reading)
    return reading


def _as_bgr(frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    arr = np.asarray(frame)
    if arr.dtype != np.uint8:
        raise ValueError(f"frame must be uint8, got {arr.dtype}")
    if arr.size == 0:
        raise ValueError(f"frame is empty (shape {arr.shape}): no pixels to read")
    if arr.ndim == 2:
        return np.asarray(cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    if arr.ndim == 3 and arr.shape[2] == 3:
        return arr
    if arr.ndim == 3 and arr.shape[2] == 4:
        return np.asarray(cv2.cvtColor(arr, cv2.COLOR_BGRA2BGR), dtype=np.uint8)
    raise ValueError(f"frame must be HxW or HxWx3 BGR, got shape {arr.shape}")


def _remove_impulse_noise(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Salt-and-pepper specks look exactly like tiny pips; where a frame has many isolated
    outlier pixels, a 3x3 median removes them (and costs little detail)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    med = cv2.medianBlur(gray, 3)
    outliers = cv2.absdiff(gray, med) > 50
    if float(np.count_nonzero(outliers)) / outliers.size < 0.002:
        return image
    return np.asarray(cv2.medianBlur(image, 3), dtype=np.uint8)


def _faces(work: NDArray[np.uint8], pips: list[Pip], params: ReaderParams) -> list[Face]:
    ctx = pip_context(work, pips)
    faces: list[Face] = []
    pending = [list(range(len(pips)))]
    for reach in _REACHES:
        next_pending: list[list[int]] = []
        for subset in pending:
            sub_pips = [pips[i] for i in subset]
            sub_ctx = [ctx[i] for i in subset]
            for group in link_pips(work, sub_pips, sub_ctx, params.pip_size_tolerance, reach):
                face = read_face(work, sub_pips, group, sub_ctx)
                if face is not None:
                    faces.append(face)
                elif len(group) > 1:
                    next_pending.append([subset[i] for i in group])
        pending = next_pending
        if not pending:
            break
    return faces


def _settle_overlaps(faces: list[Face]) -> list[Face]:
    """Keep one face per die, and only faces lying in the table's plane.

    Every top face lies in the table plane, so the view squashes their pips alike; a side
    face's pips are squashed another way. Where two faces overlap (one die's top and side),
    the one whose squash matches the table's wins; on a tie, the upper one (side faces show
    on the camera's side of a die, below its top in the image).
    """
    if not faces:
        return faces
    ref = _table_squash(faces)
    mismatch = [float(np.abs(f.shape - ref).sum()) for f in faces]
    kept: list[int] = []
    # a lone blob is the weakest evidence: it loses a clash unless clearly in the table plane
    order = sorted(
        range(len(faces)),
        key=lambda i: mismatch[i] - 0.3 * faces[i].confidence + 0.3 * (faces[i].value == 1),
    )
    for i in order:
        f = faces[i]
        if mismatch[i] > 1.0:
            continue
        clash = next(
            (k for k, j in enumerate(kept)
             if np.hypot(f.x - faces[j].x, f.y - faces[j].y) < 1.05 * max(f.side, faces[j].side)),
            None,
        )
        if clash is None:
            kept.append(i)
            continue
        j = kept[clash]
        g = faces[j]
        if abs(mismatch[i] - mismatch[j]) < 0.15 and f.y < g.y - 0.25 * max(f.side, g.side):
            kept[clash] = i
    out = []
    for i in kept:
        f = faces[i]
        penalty = float(np.clip(1.0 - max(mismatch[i] - 0.4, 0.0), 0.3, 1.0))
        out.append(Face(f.value, f.x, f.y, f.outline, f.confidence * penalty, f.pip_diameter,
                        f.side, f.shape))
    return out


def _table_squash(faces: list[Face]) -> NDArray[np.float64]:
    """The view's squash of the table plane: a vote of the faces, many-pip faces counting more."""
    weights = np.array([f.value * f.confidence for f in faces]) + 1e-6
    shapes = np.array([f.shape for f in faces])
    # weighted medoid: robust to a minority of side faces
    cost = [float((weights * np.abs(shapes - s).sum(axis=(1, 2))).sum()) for s in shapes]
    return np.asarray(shapes[int(np.argmin(cost))], dtype=np.float64)


def _drop_implausible_ones(faces: list[Face]) -> list[Face]:
    """A lone blob is only a one-face if it is about as big as other dice's pips, or larger."""
    multi = [f.pip_diameter for f in faces if f.value > 1]
    if not multi:
        return faces
    typical = float(np.median(multi))
    return [f for f in faces if f.value > 1 or f.pip_diameter >= 0.75 * typical]
