"""The learned die detector: where the dice are, how big, and what they probably show.

A small fully convolutional network (``vision/models/dice_detector.onnx``, trained by
``tools/train/train_dice_detector.py``) looks at the whole frame at a fixed working size and
paints, at a quarter of that resolution, a heat map of die centres, the odds of each face
value and the top face's size. Peaks of the heat map are dice. A second network of the same
design with wider deep stages (``dice_detector_wide.onnx``) paints the same maps,
and the reader averages the two: two networks trained apart err apart, and their mean reads
the held-out photos better than either (docs/vision_detector.md, "Two detectors").
Runtime: numpy, OpenCV, and ONNX Runtime where installed (``vision.onnx_net``); the same
preprocessing is used for training, so the two cannot drift apart.

Why a detector: the classical pip reader (``vision.reader``) misses dice whose pips are tiny,
merged with glare, or lost in noise; a network that has seen many tables finds the die as a
whole and leaves the naming to both itself and the crop classifier (``vision.learned``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.onnx_net import LazyNet, softmax
from vision.specks import switching_median

MODEL_PATH = Path(__file__).with_name("models") / "dice_detector.onnx"
WIDE_MODEL_PATH = MODEL_PATH.with_name("dice_detector_wide.onnx")
#: the network's output is this many times smaller than its input
STRIDE = 4
#: input sides are padded up to a multiple of this (the network halves five times)
ALIGN = 32
#: small frames are enlarged at most this much before detection
MAX_UPSCALE = 2.0


@dataclass(frozen=True, slots=True)
class Candidate:
    """One peak of the heat maps, in frame pixels.

    ``score`` is the heat at the peak (0..1, how sure the network is that a die is there),
    ``size`` the top face's extent, ``values`` the network's probabilities of faces 1..6.
    """

    x: float
    y: float
    size: float
    score: float
    values: NDArray[np.float32]


def input_scale(height: int, width: int, side: int) -> float:
    """How much a frame is scaled so that its longer side becomes ``side`` (small frames
    are enlarged at most ``MAX_UPSCALE`` times)."""
    return min(side / max(height, width), MAX_UPSCALE)


def prepare(image: NDArray[np.uint8], scale: float) -> NDArray[np.uint8]:
    """``image`` (BGR) resized by ``scale`` and padded (edge pixels repeated) to a multiple of
    ALIGN on each side: what the network sees."""
    h, w = image.shape[:2]
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = image if (nw, nh) == (w, h) else cv2.resize(image, (nw, nh), interpolation=interp)
    pad_h, pad_w = (-nh) % ALIGN, (-nw) % ALIGN
    if pad_h or pad_w:
        resized = cv2.copyMakeBorder(resized, 0, pad_h, 0, pad_w, cv2.BORDER_REPLICATE)
    return np.asarray(resized, dtype=np.uint8)


def normalise(batch: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(n, H, W, 3) BGR uint8 -> (n, 3, H, W) float32, each image to zero mean per channel
    and unit overall spread, so that exposure and colour casts matter less.

    The statistics come from ``cv2.meanStdDev`` on the uint8 pixels and the scaling is one
    pass over the transposed copy: about a third of the time of doing it in float numpy (a
    640-px frame: 10 -> 5 ms), the same values to 1e-4."""
    n, h, w, channels = batch.shape
    if n == 0:
        return np.zeros((0, channels, h, w), np.float32)
    stats = [cv2.meanStdDev(image) for image in batch]
    mean = np.array([m.ravel() for m, _ in stats])  # (n, 3), grey levels
    # the channels are centred apart, so the overall spread is the root of their mean variance
    spread = np.sqrt((np.array([s.ravel() for _, s in stats]) ** 2).mean(axis=1)) / 255.0
    gain = 1.0 / (255.0 * np.maximum(spread, 0.02))
    x = batch.transpose(0, 3, 1, 2).astype(np.float32, order="C")
    x -= mean.astype(np.float32)[:, :, None, None]
    x *= gain.astype(np.float32)[:, None, None, None]
    return x


def cell_to_pixel(u: float) -> float:
    """The input-pixel coordinate of the centre of output cell ``u``."""
    return STRIDE * u + (STRIDE - 1) / 2


def pixel_to_cell(p: float) -> float:
    """Inverse of :func:`cell_to_pixel`."""
    return (p - (STRIDE - 1) / 2) / STRIDE


NET = LazyNet(MODEL_PATH, "die detector", "tools/train/train_dice_detector.py")
WIDE_NET = LazyNet(WIDE_MODEL_PATH, "wide die detector",
                   "tools/train/train_dice_detector.py --deep-widths 128 192")
#: how many detector networks a read averages unless told otherwise (``ReaderParams``)
NETWORKS = 2


def networks(count: int = NETWORKS, *, int8: bool = False) -> tuple[LazyNet, ...]:
    """The first ``count`` detector networks: the shipped one, then the wide one; with
    ``int8``, their 8-bit copies (:meth:`LazyNet.at_8_bits`)."""
    every = (NET, WIDE_NET)  # looked up at each call, so a test can swap either
    if not 1 <= count <= len(every):
        raise ValueError(f"detector networks must be 1..{len(every)}, got {count}")
    return tuple(net.at_8_bits() for net in every[:count]) if int8 else every[:count]


#: the views of a frame the detector can read and average (flip rows, flip columns): the
#: frame, its half turn, then its two mirror images. The network was trained on turned and
#: mirrored windows, yet a small die's read still depends on how the frame's pixels fall on
#: its stride grid; averaging views evens that out (docs/vision_detector.md, "Views")
VIEWS = ((False, False), (True, True), (False, True), (True, False))


def heat_maps(
    image: NDArray[np.uint8], side: int, views: int = 1, nets: int = NETWORKS, *,
    int8: bool = False,
) -> tuple[NDArray[np.float32], float]:
    """The network's (8, h, w) output for a BGR frame (the die-centre heat map after a
    sigmoid, the six value probabilities after a softmax, then the log face size in input
    pixels) and the scale the frame was read at; with ``views`` > 1, the mean of that many
    of :data:`VIEWS`, each mapped back onto the frame; with ``nets`` > 1, the mean over
    that many of :func:`networks` too (their 8-bit copies with ``int8``)."""
    if not 1 <= views <= len(VIEWS):
        raise ValueError(f"views must be 1..{len(VIEWS)}, got {views}")
    chosen = networks(nets, int8=int8)
    scale = input_scale(image.shape[0], image.shape[1], side)
    prepared = prepare(image, scale)
    batch = normalise(np.stack([_flip(prepared, rows, cols) for rows, cols in VIEWS[:views]]))
    maps = []
    for net in chosen:
        for out, (rows, cols) in zip(net.run(batch), VIEWS[:views], strict=True):
            out[0] = 1.0 / (1.0 + np.exp(-out[0]))
            out[1:7] = softmax(out[1:7], axis=0)
            maps.append(_flip(out.transpose(1, 2, 0), rows, cols))
    mean = np.mean(maps, axis=0) if len(maps) > 1 else maps[0]
    return np.ascontiguousarray(mean.transpose(2, 0, 1), dtype=np.float32), scale


def _flip(image: NDArray[Any], rows: bool, cols: bool) -> NDArray[Any]:
    """``image`` (H, W, ...) upside down (``rows``) and/or mirrored (``cols``); its own inverse."""
    return image[::-1 if rows else 1, ::-1 if cols else 1]


def find_candidates(
    image: NDArray[np.uint8],
    *,
    side: int,
    min_score: float,
    coarse: bool = True,
    max_side: int | None = None,
    faint_score: float | None = None,
    views: int = 1,
    nets: int = NETWORKS,
    int8: bool = False,
) -> list[Candidate]:
    """Every heat-map peak of at least ``min_score``, strongest first, one per die.

    The frame is read at :func:`working_side` (``side``, or up to ``max_side`` — default
    ``MAX_WORKING_SIDE`` — for a big camera frame).
    With ``coarse``, a frame whose dice look big at the working size (``BIG_DIE`` input pixels
    or more) is also read at half that size, where a big die's pips are too small to pass for
    dice of their own; the two passes are merged by :func:`merge_candidates`.
    With ``faint_score`` (below ``min_score``), fainter peaks down to it are returned too, for
    a closer look by the caller; they play no part in deciding whether dice look big.
    ``views``: how many of :data:`VIEWS` each read averages, ``nets`` how many of
    :func:`networks`, ``int8`` whether their 8-bit copies (:func:`heat_maps`).
    """
    lowest = min_score if faint_score is None else min(faint_score, min_score)
    side = working_side(image.shape[0], image.shape[1], side, max_side)
    found = _pass(image, side, lowest, views, nets, int8=int8)
    fine_scale = input_scale(image.shape[0], image.shape[1], side)
    strong = [c for c in found if c.score >= min_score]
    big = [c for c in strong if c.size * fine_scale >= BIG_DIE]
    if (coarse and big and len(big) * 2 >= len(strong)
            and input_scale(image.shape[0], image.shape[1], side // 2) < fine_scale):
        found += _pass(image, side // 2, lowest, views, nets, int8=int8)
    return merge_candidates(found)


#: a closer look reads the frame this many times larger than the first read
CLOSER_ZOOM = 2.0


def closer_side(height: int, width: int, side: int, max_side: int | None = None) -> int:
    """The working side of a closer look (:func:`closer_candidates`): twice the side the
    frame is read at, but never more than the frame's own size (nothing to gain by
    enlarging it further) nor than ``max_side`` (time); the usual side where that is no
    larger."""
    first = working_side(height, width, side, max_side)
    limit = MAX_WORKING_SIDE if max_side is None else max_side
    wanted = min(CLOSER_ZOOM * first, max(height, width), limit)
    return max(first, int(wanted) // ALIGN * ALIGN)


def closer_candidates(
    image: NDArray[np.uint8], *, side: int, min_score: float, max_side: int | None = None,
    views: int = 1, nets: int = NETWORKS, int8: bool = False,
) -> list[Candidate]:
    """Heat-map peaks of at least ``min_score`` where the frame is read at twice its working
    size (:func:`closer_side`; none where it cannot be read larger), one per die.

    Dice of 15-25 px in a 640-px photo are 7-12 px at the usual working size, where the
    detector sees many of them only faintly or not at all; at twice that they stand out.
    Single-pixel specks are removed first (:func:`vision.specks.switching_median`): at
    twice the size a speck is as big as such a die's pip, and a few of them pass for a die.
    """
    h, w = image.shape[:2]
    closer = closer_side(h, w, side, max_side)
    if closer <= working_side(h, w, side, max_side):
        return []
    return merge_candidates(_pass(switching_median(image), closer, min_score, views, nets,
                                  int8=int8))


#: a frame is never shrunk more than this for the detector (the shrink of the 640-px
#: photos it was trained and measured on, read at 320)
MAX_SHRINK = 2.0
#: ... unless that would make the working side larger than this (time; the default of
#: ``ReaderParams.detector_max_side``)
MAX_WORKING_SIDE = 960


def working_side(height: int, width: int, side: int, max_side: int | None = None) -> int:
    """The longer side the detector reads a frame at: ``side``, or more for a frame over
    ``MAX_SHRINK`` times that, so a camera frame's dice are not shrunk to a few pixels.

    A table camera's frame (1280-2028 px and more) holds dice of 30-60 px: shrunk to 320 px
    they are 8-15 px, where the detector finds and names dice worst. Reading such frames
    at half their size (at most ``max_side``) keeps the dice at the scale the detector was
    trained and measured at; frames of up to twice ``side`` are read as before.
    """
    limit = MAX_WORKING_SIDE if max_side is None else max_side
    wanted = min(max(height, width) / MAX_SHRINK, limit)
    return max(side, int(wanted) // ALIGN * ALIGN)


#: dice at least this big (in input pixels) are looked for again at half the working size
BIG_DIE = 44.0
#: a candidate at least this many times bigger than another may hold it (a die holds pips)
NESTED = 1.8
#: two candidates closer than this share of the bigger's size are one die. The detector's
#: sizes run large on dice in heaps (the face plus the sides it sees), and at half a size
#: touching dice were merged into one: at 0.42, held-out phone photos read 3 more dice of
#: 252 (0.825 -> 0.837, precision the same), 0.776 -> 0.785 over five orientations, unseen
#: renders of touching dice 0.780 -> 0.782 found, for 4 more false dice in 300 scenes
#: (at 0.3, 12 more false dice and lower precision)
SAME_SPOT = 0.42


def merge_candidates(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per die, strongest first. A candidate is dropped where a stronger one
    sits on the same spot (within ``SAME_SPOT`` of a die), where its centre lies on a stronger, much
    bigger one's top face (a pip of that die, not a die), or where a stronger, much smaller
    one lies on its face (a group of small dice, or pips, seen as one big die)."""
    kept: list[Candidate] = []
    for c in sorted(candidates, key=lambda c: -c.score):
        if not any(clash(c, k) for k in kept):
            kept.append(c)
    return kept


def clash(c: Candidate, k: Candidate) -> bool:
    """Whether ``c`` is the same die as the stronger ``k``, a pip on it, or holds it."""
    dist = np.hypot(c.x - k.x, c.y - k.y)
    same_spot = dist < SAME_SPOT * max(c.size, k.size)
    on_bigger = k.size >= NESTED * c.size and dist < 0.6 * k.size
    holds_smaller = c.size >= NESTED * k.size and dist < 0.6 * c.size
    return bool(same_spot or on_bigger or holds_smaller)


def _pass(image: NDArray[np.uint8], side: int, min_score: float,
          views: int = 1, nets: int = NETWORKS, *, int8: bool = False) -> list[Candidate]:
    """The heat-map peaks of one read at working size ``side``, in frame pixels."""
    out, scale = heat_maps(image, side, views, nets, int8=int8)
    heat = out[0]
    h, w = heat.shape
    peaks = (heat >= min_score) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    vs, us = np.nonzero(peaks)
    found: list[Candidate] = []
    for v, u in zip(vs.tolist(), us.tolist(), strict=True):
        y0, y1, x0, x1 = max(v - 1, 0), min(v + 2, h), max(u - 1, 0), min(u + 2, w)
        patch = heat[y0:y1, x0:x1]
        gy, gx = np.mgrid[y0:y1, x0:x1]
        weight = float(patch.sum())
        cu, cv_ = float((gx * patch).sum() / weight), float((gy * patch).sum() / weight)
        x = (cell_to_pixel(cu) + 0.5) / scale - 0.5
        y = (cell_to_pixel(cv_) + 0.5) / scale - 0.5
        if not (0 <= x < image.shape[1] and 0 <= y < image.shape[0]):
            continue  # a peak in the padding
        size = float(np.exp(out[7, v, u])) / scale
        found.append(Candidate(x, y, size, float(heat[v, u]), out[1:7, v, u].astype(np.float32)))
    return found
