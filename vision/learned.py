"""A small learned die-face classifier: the second look at every die the reader finds.

The learned detector (``vision.detector``) or the classical reader (``vision.reader``)
finds dice; this module names the value of a die from a square crop around it with tiny
CNNs (``vision/models/dice_value*.onnx``, trained by ``tools/train/train_dice_classifier.py``;
each network reads every crop as is and mirrored, in the quarter turn that is the photo's
up). Class 0 is "not a die", classes 1..6 are the face values. Runtime: numpy, and ONNX
Runtime or OpenCV's dnn (``vision.onnx_net``).

``refine_reading`` never silently trusts either side: where the two agree the die keeps
its value, where the classifier is confident and the reader was not the value follows the
classifier, and where they disagree the die's confidence drops below the reading's
threshold so that a human looks.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.looks import FEATURE_WIDTH
from vision.onnx_net import LazyNet, softmax
from vision.types import Die, Reading

MODEL_PATH = Path(__file__).with_name("models") / "dice_value.onnx"
#: the same network trained again with the project's renders added (``--renders``): the two
#: see dice differently, and their pooled read is steadier than either (as first
#: trained, held-out photos: 0.832 of dice right, 3 sure and wrong, against 0.825 / 3 and
#: 0.830 / 5 alone)
RENDERS_MODEL_PATH = MODEL_PATH.with_name("dice_value_renders.onnx")
MODEL_PATHS = (MODEL_PATH, RENDERS_MODEL_PATH)
#: photos of ../shared/datasets (manifest paths) that no network of the project trained on
HOLDOUT_PATH = MODEL_PATH.with_name("dice_value_holdout.json")
#: side in pixels of the grey crop the network sees
CROP_PX = 48
#: the networks' second output (``tools/train/features_output.py``): what each one's last
#: layer weighs, ``FEATURE_WIDTH`` numbers a crop, from which a table's own head learns this
#: table's dice (``vision.table_head``)
FEATURES_OUTPUT = "features"
#: class index of "not a die"; classes 1..6 are the face values
NOT_A_DIE = 0
#: a crop spans this many times the die's extent (training uses the same scale)
CROP_SCALE = 1.6
#: the classifier's probability above which it may override or drop
CONFIDENT = 0.9
#: the networks are upright looks (``tools/train/train_dice_classifier.py --upright``): trained on
#: crops that keep the photo's up, they tell a die's top face from the side face below it in
#: a photo taken at a slant, where looks trained in every turn read whichever face shows most
#: (held-out phone photos: 0.790 -> 0.825 of dice right, BENCHMARKS.md "Upright looks"). A
#: photo's up is unknown (a phone held sideways, an overhead camera), so every crop is read
#: in this many quarter turns and all the dice of one photo are read in the one turn the
#: networks are surest of (:func:`photo_up`), as is and mirrored
TURNS = 4
#: the photo as shot is the likeliest up (a phone is held upright, a camera mounted so): another
#: turn is taken only where its summed log odds beat it by this much. Without it the turn of
#: a photo of few dice at a steep slant was sometimes missed (unseen renders: 6
#: dice sure and wrong, 3 with it); larger margins keep more turned photos in the wrong turn.
#: 0.25 rather than 0.5 for today's networks: photos as shot read the same, turned
#: ones better (BENCHMARKS.md, "The as-shot margin lowered")
AS_SHOT_MARGIN = 0.25

def classifier_net(path: Path, what: str = "die classifier") -> LazyNet:
    """A classifier network in ``path``, giving its logits and its features."""
    return LazyNet(path, what, "tools/train/train_dice_classifier.py",
                   outputs=("logits", FEATURES_OUTPUT))


NETS = [classifier_net(path) for path in MODEL_PATHS]


#: the shared datasets' sources every shipped network was trained on (a fifth of each held
#: out, :func:`held_out_photos`)
TRAINED_SOURCES = frozenset({"matteo", "epanemu", "chase"})
#: the sources added to the shared photos since, which only the crop classifier
#: (``dice_value.onnx``) was trained on, a fifth of each held out too; the detectors, the
#: verifier and the cover check have seen none of their photos
CLASSIFIER_ONLY_SOURCES = frozenset({"aws", "kaggle_d6", "rune55", "tomitomi3"})


def classifier_files_hash() -> str:
    """The first 16 hex digits of one SHA-256 over the float files of the classifier's
    networks as the reader runs them (``NETS``): which networks a table head's feature layer
    learned from (their 8-bit copies give nearly the same features); "" where a file is
    missing."""
    return _files_hash(tuple(net.path for net in NETS))


@functools.lru_cache(maxsize=4)
def _files_hash(paths: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    try:
        for path in paths:
            digest.update(path.read_bytes())
    except OSError:
        return ""
    return digest.hexdigest()[:16]


def held_out_photos() -> frozenset[str]:
    """Manifest paths of the photos kept out of every network's training: a fifth of each
    source (the classifier's trainer draws them, ``split_holdout``)."""
    return frozenset(json.loads(HOLDOUT_PATH.read_text()))


def _grey(frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    if frame.ndim == 2:
        return frame
    if frame.ndim == 3 and frame.shape[2] == 3:
        return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    if frame.ndim == 3 and frame.shape[2] == 4:
        return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY), dtype=np.uint8)
    raise ValueError(f"frame must be grey, BGR or BGRA, got shape {frame.shape}")


def die_crop(
    grey: NDArray[np.uint8], cx: float, cy: float, side: float, angle: float = 0.0,
    out_px: int = CROP_PX,
) -> NDArray[np.uint8]:
    """An ``out_px`` square crop of ``side`` pixels centred on (cx, cy), rotated by ``angle``
    degrees; pixels outside the frame repeat the border. Large shrinks are area-averaged
    first so that small pips do not alias away."""
    if side <= 1:
        raise ValueError(f"crop side must be over 1 pixel, got {side}")
    s = out_px / side
    if s < 0.7:
        half = int(np.ceil(side * 0.75)) + 2
        roi = cv2.getRectSubPix(grey, (2 * half, 2 * half), (float(cx), float(cy)))
        shrink = min(1.0, 1.5 * s)
        size = max(2, round(2 * half * shrink))
        grey = np.asarray(cv2.resize(roi, (size, size), interpolation=cv2.INTER_AREA), np.uint8)
        cx = cy = (size - 1) / 2
        side *= size / (2 * half)
        s = out_px / side
    m = cv2.getRotationMatrix2D((float(cx), float(cy)), angle, s)
    m[0, 2] += out_px / 2 - cx
    m[1, 2] += out_px / 2 - cy
    out = cv2.warpAffine(grey, m, (out_px, out_px), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8)


def normalise(crops: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(n, CROP_PX, CROP_PX) uint8 -> (n, 1, CROP_PX, CROP_PX) float32, each crop to zero mean
    and unit spread, so that dice colour and lighting matter less."""
    x = crops.astype(np.float32) / 255.0
    mean = x.mean(axis=(1, 2), keepdims=True)
    std = x.std(axis=(1, 2), keepdims=True)
    x = (x - mean) / np.maximum(std, 0.05)
    return np.ascontiguousarray(x[:, None, :, :], dtype=np.float32)


class ViewsRead(NamedTuple):
    """The crops of one photo as the networks read them in its up."""

    #: each network's class probabilities (networks, n, 7), as is and mirrored pooled
    probs: NDArray[np.float32]
    #: each network's features (networks, n, ``FEATURE_WIDTH``), as is and mirrored averaged
    features: NDArray[np.float32]
    #: the quarter turn read in (``None``: no crops)
    up: int | None


def _probs_by_net(crops: NDArray[np.uint8], int8: bool = False) -> NDArray[np.float32]:
    """Each network's class probabilities (networks, n, 7) for (n, CROP_PX, CROP_PX) crops
    (from the networks' 8-bit copies with ``int8``)."""
    return _outputs_by_net(crops, int8)[0]


def _outputs_by_net(crops: NDArray[np.uint8], int8: bool = False
                    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """:func:`_probs_by_net`, and each network's features (networks, n, ``FEATURE_WIDTH``):
    zeros from a file without that output or with features of another width (a candidate
    network of other widths: ``tools.bench.with_classifier``), which no table head reads."""
    blob = normalise(crops)
    nets = [net.at_8_bits() for net in NETS] if int8 else NETS
    outputs = [net.run_outputs(blob) for net in nets]
    n = len(crops)
    probs = np.stack([softmax(out[0].reshape(n, -1), axis=1) for out in outputs])
    features = np.stack([out[1].reshape(n, FEATURE_WIDTH)
                         if len(out) > 1 and out[1].size == n * FEATURE_WIDTH
                         else np.zeros((n, FEATURE_WIDTH), np.float32) for out in outputs])
    return probs.astype(np.float32), features.astype(np.float32)


def pool(probs: NDArray[np.float32]) -> NDArray[np.float32]:
    """(m, n, k) probabilities from m looks at n crops -> (n, k), by their renormalised
    geometric mean: a class stays likely only where every look finds it likely, so one
    lucky look cannot make a die look sure."""
    if len(probs) == 1:
        return np.asarray(probs[0], dtype=np.float32)
    pooled = np.exp(np.log(np.maximum(probs, 1e-6)).mean(axis=0))
    return np.asarray(pooled / pooled.sum(axis=1, keepdims=True), dtype=np.float32)


def classify_crops(
    frame: NDArray[np.uint8], centers_and_sizes: list[tuple[float, float, float]],
    up: int | None = None, *, int8: bool = False,
) -> tuple[list[int], NDArray[np.float32]]:
    """For each (x, y, face_size) the most likely class (0 = not a die, 1..6 = value) and
    the (n, 7) probabilities. ``face_size`` is the die's extent in pixels
    (:func:`face_size`); ``up`` as for :func:`classify_views_by_net`; ``int8``: read by
    the networks' 8-bit copies."""
    probs = pool(classify_crops_and_up(frame, centers_and_sizes, up, int8=int8)[0])
    return [int(k) for k in probs.argmax(axis=1)], probs


def classify_crops_by_net(
    frame: NDArray[np.uint8], centers_and_sizes: list[tuple[float, float, float]],
    up: int | None = None,
) -> NDArray[np.float32]:
    """Like :func:`classify_crops`, but each network's (n, 7) probabilities apart, as
    (networks, n, 7): where the detector disputes a value, the reader asks whether the two
    networks, trained apart, each name it on their own (``vision.dice.detected``)."""
    return classify_crops_and_up(frame, centers_and_sizes, up)[0]


def classify_crops_and_up(
    frame: NDArray[np.uint8], centers_and_sizes: list[tuple[float, float, float]],
    up: int | None = None, *, int8: bool = False,
) -> tuple[NDArray[np.float32], int | None]:
    """:func:`classify_crops_by_net` and the photo's up it read the crops in (``None``
    where there were no crops), so that more crops of the same photo can be read in the
    same up; ``int8``: read by the networks' 8-bit copies."""
    read = read_crops(frame, centers_and_sizes, up, int8=int8)
    return read.probs, read.up


def read_crops(frame: NDArray[np.uint8], centers_and_sizes: list[tuple[float, float, float]],
               up: int | None = None, *, int8: bool = False) -> ViewsRead:
    """:func:`classify_crops_and_up` with each network's features of each crop too."""
    grey = _grey(frame)
    crops = np.stack(
        [die_crop(grey, x, y, CROP_SCALE * size) for x, y, size in centers_and_sizes]
    ) if centers_and_sizes else np.zeros((0, CROP_PX, CROP_PX), np.uint8)
    return read_views(crops, up=up, int8=int8)


def classify_views_by_net(crops: NDArray[np.uint8], turns: int = TURNS) -> NDArray[np.float32]:
    """Each network's class probabilities (networks, n, 7) for the crops of one photo, read
    in the photo's up: :func:`photo_up` picks the turn from the crops' reads in ``turns``
    quarter turns, then the crops turned so are read mirrored too and the two reads pooled
    (mirroring costs one more read per crop, not one per turn)."""
    return classify_views_and_up(crops, turns)[0]


def classify_views_and_up(crops: NDArray[np.uint8], turns: int = TURNS,
                          up: int | None = None, *, int8: bool = False,
                          ) -> tuple[NDArray[np.float32], int | None]:
    """:func:`classify_views_by_net` and the up it read the crops in (``None``: no crops).

    With ``up`` (a quarter turn, 0..3) the crops are read in that turn without a search: a
    photo has one up, and a few crops of it read later (the reader's closer look) should not
    pick their own."""
    read = read_views(crops, turns, up, int8=int8)
    return read.probs, read.up


def read_views(crops: NDArray[np.uint8], turns: int = TURNS, up: int | None = None, *,
               int8: bool = False) -> ViewsRead:
    """:func:`classify_views_and_up` with each network's features of each crop too (the
    crop as is and mirrored, averaged)."""
    n = len(crops)
    if n == 0:
        return ViewsRead(np.zeros((len(NETS), 0, 7), dtype=np.float32),
                         np.zeros((len(NETS), 0, FEATURE_WIDTH), dtype=np.float32), up)
    if up is None:
        turns = max(turns, 1)
        turned = [np.rot90(crops, k, axes=(1, 2)) for k in range(turns)]
        by_net, feats = _outputs_by_net(np.ascontiguousarray(np.concatenate(turned)), int8)
        by_turn = np.moveaxis(by_net.reshape(len(NETS), turns, n, -1), 1, 0)
        up = photo_up(by_turn)
        upright, first = turned[up], by_turn[up]
        first_features = feats.reshape(len(NETS), turns, n, FEATURE_WIDTH)[:, up]
    else:
        if up not in range(4):
            raise ValueError(f"up must be a quarter turn 0..3, got {up}")
        upright = np.rot90(crops, up, axes=(1, 2))
        first, first_features = _outputs_by_net(np.ascontiguousarray(upright), int8)
    mirrored, mirrored_features = _outputs_by_net(
        np.ascontiguousarray(upright[:, :, ::-1]), int8)
    pooled = np.stack([pool(np.stack([first[m], mirrored[m]])) for m in range(len(NETS))])
    features = ((first_features + mirrored_features) / 2).astype(np.float32)
    return ViewsRead(pooled, features, up)


def photo_up(by_turn: NDArray[np.float32]) -> int:
    """The turn (index into ``by_turn``, (turns, networks, n, 7)) in which the networks
    together are surest of the values of the crops they take for dice: the photo's up.

    Read sideways, a slanted die's side face looks like a top face, but less like one, and
    the photo's dice all share one up, so their votes are summed (log odds of each crop's
    favourite value; a crop the networks call no die has no vote). Turn 0, the photo as
    shot, wins unless another beats it by ``AS_SHOT_MARGIN``."""
    if by_turn.shape[0] == 1 or by_turn.shape[2] == 0:
        return 0
    pooled = np.stack([pool(turn) for turn in by_turn])  # (turns, n, 7)
    is_die = pooled[:, :, NOT_A_DIE] < 0.5
    sureness = np.log(np.maximum(pooled[:, :, 1:].max(axis=2), 1e-6))
    votes = (sureness * is_die).sum(axis=1)
    votes[0] += AS_SHOT_MARGIN
    return int(np.argmax(votes))


def face_size(die: Die) -> float:
    """The die's extent in pixels: its ``extent`` where the reader gave one, else its
    outline's widest span."""
    if die.extent is not None:
        return float(max(die.extent, 4.0))
    span = die.outline.max(axis=0) - die.outline.min(axis=0)
    return float(max(span.max(), 4.0))


def refine_reading(frame: NDArray[np.uint8], reading: Reading) -> Reading:
    """``reading`` checked die by die against the classifier.

    - both agree: the die keeps its value, with confidence no lower than before;
    - the classifier says "not a die" with probability >= CONFIDENT: the die is dropped;
    - they disagree and the classifier is confident: the classifier's value is kept but the
      confidence is capped below the reading's threshold (a human must look);
    - they disagree and the classifier is unsure: the reader's value is kept, confidence
      likewise capped below the threshold.
    """
    if not reading.dice:
        return reading
    _, probs = classify_crops(frame, [(d.x, d.y, face_size(d)) for d in reading.dice])
    doubtful = reading.min_confidence * 0.9
    dice: list[Die] = []
    for die, p in zip(reading.dice, probs, strict=True):
        best = int(p.argmax())
        if best == NOT_A_DIE and p[NOT_A_DIE] >= CONFIDENT:
            continue
        if best == die.value:
            confidence = max(die.confidence, min(float(p[best]), 1.0))
            dice.append(replace(die, confidence=float(np.clip(confidence, 0.0, 1.0))))
            continue
        value = best if best != NOT_A_DIE and p[best] >= CONFIDENT else die.value
        confidence = min(die.confidence, float(p[value]), doubtful)
        dice.append(replace(die, value=value, confidence=float(np.clip(confidence, 0.0, 1.0))))
    return Reading(dice=tuple(dice), width=reading.width, height=reading.height,
                   min_confidence=reading.min_confidence)
