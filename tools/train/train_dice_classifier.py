"""Train the die-face classifier behind ``vision.learned`` and export it to ONNX.

Dev-time only (needs PyTorch: ``.venv/bin/pip install torch==2.13.0``; the runtime needs only
OpenCV). Seeded and reproducible:

    .venv/bin/python -m tools.train.train_dice_classifier ../shared/datasets/manifest.json \
        --upright --detector-crops
    .venv/bin/python -m tools.train.train_dice_classifier ../shared/datasets/manifest.json \
        --upright --renders .cache/renders_a/manifest.json \
        --renders .cache/renders_b/manifest.json --out vision/models/dice_value_renders.onnx

(the first makes ``dice_value.onnx``, the second ``dice_value_renders.onnx``: the reader pools
both, see docs/vision_learned.md; without ``--upright``, the first looks
(docs/lab-notebook.md), turned all
the way round; ``--detector-crops`` cuts each photo's dice where the shipped detector proposes
them as well, so the first is remade only with the detector it was trained beside).

Training crops come from the manifest's labelled boxes (the photos are read in place, never
copied), plus drawn synthetic dice, plus "not a die" crops from the same photos away from every
box, plus (``--renders``) dice and background cut from the project's own renders
(``tools.render.detector_renders``: exact truth, twelve dice styles, six tables). A fixed 20% of
the photos of each source (by a seeded shuffle) is held out; the held-out list is written
beside the model so that ``tools/bench/bench_refine.py`` scores only unseen photos.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.render.dice import pip_layout
from tools.train.features_output import give_output
from tools.train.half_weights import store_half
from vision.bench import Entry, load_manifest, matched_pairs
from vision.detector import find_candidates
from vision.io import load_image
from vision.learned import (
    CROP_PX,
    CROP_SCALE,
    HOLDOUT_PATH,
    MODEL_PATH,
    NOT_A_DIE,
    die_crop,
    normalise,
)
from vision.params import ReaderParams

HOLDOUT_FRACTION = 0.2
#: the held-out photos are drawn with this seed whatever ``--seed`` trains with: one list for
#: every network (the detector and the verifier read it with
#: ``vision.learned.held_out_photos``), so a run with another training seed neither trains on
#: the photos the benches call unseen nor rewrites the list (before 2026-11-25 the training
#: seed drew it too)
HOLDOUT_SEED = 7
#: the sources the first networks were trained on: their held-out photos are drawn as they
#: always were (one shuffle over them, in name order), so that adding a source leaves their
#: list, and every figure measured on it, as it was; each other source is drawn by a shuffle
#: of its own (seeded by HOLDOUT_SEED and its name), so no source added later moves another's
FIRST_SOURCES = frozenset({"chase", "epanemu", "matteo"})
#: the share of a crop source's side its die's top face spans where the die does not fill
#: the crop (tomitomi3: a die of about 55 px in a 128 px crop of a round cup)
CROP_FACE_SHARE = {"tomitomi3": 0.43}
#: the boxes of these sources hold the whole visible die; the face is this share of it
#: (epanemu and aws: phone photos, often oblique; kaggle_d6 and rune55: mostly top-down)
WHOLE_DIE_FACE = {"epanemu": 0.85, "aws": 0.85, "kaggle_d6": 0.95, "rune55": 0.95}
#: patches are cached at this size, spanning PATCH_SPAN face sizes, then augmented
PATCH_PX = 112
PATCH_SPAN = 2.6
#: matteo boxes hug the pips of faces 1-3; its dice are never smaller than this on the webcam
MATTEO_MIN_FACE = 40.0


@dataclass(frozen=True, slots=True)
class Patch:
    """A grey square around one sample, PATCH_SPAN face sizes wide; label 0 = not a die."""

    pixels: NDArray[np.uint8]
    label: int
    source: str


def split_holdout(entries: list[Entry], seed: int) -> set[str]:
    """Image paths held out: HOLDOUT_FRACTION of each source, by a seeded shuffle."""
    first = random.Random(seed)
    held: set[str] = set()
    sources = sorted({e.source for e in entries})
    for source in [s for s in sources if s in FIRST_SOURCES] + [
            s for s in sources if s not in FIRST_SOURCES]:
        rng = first if source in FIRST_SOURCES else random.Random(f"{seed}:{source}")
        images = sorted(e.image for e in entries if e.source == source)
        rng.shuffle(images)
        held.update(images[: round(len(images) * HOLDOUT_FRACTION)])
    return held


def face_size_of(entry: Entry, box: tuple[float, float, float, float]) -> float:
    """The top-face extent a box stands for (matteo boxes of faces 1-3 hug the pips)."""
    side = max(box[2], box[3])
    if entry.source == "matteo":
        side = max(side, MATTEO_MIN_FACE)
    elif entry.source in WHOLE_DIE_FACE:
        side *= WHOLE_DIE_FACE[entry.source]  # the box holds the whole visible die
    elif entry.source in CROP_FACE_SHARE:
        side *= CROP_FACE_SHARE[entry.source]
    elif entry.subset == "crop":
        side /= CROP_SCALE * 0.8  # the whole crop is the die and a little felt
    return side


def _patch(grey: NDArray[np.uint8], cx: float, cy: float, face: float) -> NDArray[np.uint8]:
    return die_crop(grey, cx, cy, PATCH_SPAN * face, out_px=PATCH_PX)


def photo_patches(root: Path, entry: Entry, rng: np.random.Generator,
                  detector_crops: bool = False) -> list[Patch]:
    """The labelled dice of one photo, and as many background patches away from them; with
    ``detector_crops``, each labelled die also where the detector places and sizes it
    (:func:`detector_patches`)."""
    image = load_image(root / entry.image)
    grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image,
                      dtype=np.uint8)
    out: list[Patch] = []
    centres: list[tuple[float, float, float]] = []
    for d in entry.dice:
        if d.box is None:
            continue
        x, y, bw, bh = d.box
        face = face_size_of(entry, d.box)
        cx, cy = x + bw / 2, y + bh / 2
        centres.append((cx, cy, max(face, bw, bh)))
        out.append(Patch(_patch(grey, cx, cy, face), d.value, entry.source))
    if detector_crops:
        out.extend(detector_patches(image, grey, entry))
    if entry.subset == "crop" or not entry.complete or not centres:
        return out
    for _ in range(len(centres) + 1):
        background = background_patch(grey, centres, entry.source, rng)
        if background is not None:
            out.append(background)
    return out


def detector_patches(image: NDArray[np.uint8], grey: NDArray[np.uint8],
                     entry: Entry) -> list[Patch]:
    """Each labelled die of a photo cut where the shipped detector's proposal for it lies,
    at the size it gives (matched by the bench's rule): the crop the reader shows the
    classifier, which on oblique phone dice sits lower and larger than the labelled box's
    (the photos network is trained with them: docs/lab-notebook.md)."""
    params = ReaderParams()
    found = find_candidates(image, side=params.detector_side,
                            min_score=params.detector_min_score,
                            max_side=params.detector_max_side)
    boxed = [d for d in entry.dice if d.box is not None]
    pairs = matched_pairs(boxed, [(0, c.x, c.y) for c in found])
    return [Patch(_patch(grey, found[k].x, found[k].y, found[k].size), boxed[i].value,
                  entry.source) for i, k in pairs]


def background_patch(grey: NDArray[np.uint8], dice: list[tuple[float, float, float]],
                     source: str, rng: np.random.Generator) -> Patch | None:
    """A "not a die" patch, die-sized, well away from every (x, y, size) in ``dice``; None
    where 20 tries find no room."""
    h, w = grey.shape
    sizes = [size for _, _, size in dice]
    for _try in range(20):
        face = float(rng.choice(sizes)) * rng.uniform(0.7, 1.4)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if all(np.hypot(cx - a, cy - b) > 0.9 * (s + face) for a, b, s in dice):
            return Patch(_patch(grey, cx, cy, face), NOT_A_DIE, source)
    return None


def render_patches(manifest: Path, limit: int, rng: np.random.Generator) -> list[Patch]:
    """At most ``limit`` dice (and a background patch per render) cut from the project's renders.

    Dice the renderer marks ``ignore`` (leaning or half hidden) are left out: their value is
    not for the camera to read.
    """
    raw = json.loads(manifest.read_text())
    dice = [(item, d) for item in raw for d in item["dice"] if not d.get("ignore")]
    picked = rng.permutation(len(dice))[:limit]
    chosen: dict[str, list[dict[str, Any]]] = {}
    for k in sorted(picked.tolist()):
        item, d = dice[k]
        chosen.setdefault(item["image"], []).append(d)
    out: list[Patch] = []
    for item in raw:
        image = load_image(manifest.parent / item["image"])
        grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
        for d in chosen.get(item["image"], []):
            x, y, bw, bh = d["box"]
            out.append(Patch(_patch(grey, x + bw / 2, y + bh / 2, max(bw, bh)), d["value"],
                             "render"))
        placed = [(bx + bw / 2, by + bh / 2, max(bw, bh))
                  for bx, by, bw, bh in (d["box"] for d in item["dice"])]
        background = background_patch(grey, placed, "render", rng) if placed else None
        if background is not None:
            out.append(background)
    return out


def drawn_die(value: int, rng: np.random.Generator) -> NDArray[np.uint8]:
    """A drawn die patch (face PATCH_PX/PATCH_SPAN wide) of random shade and pip style."""
    face = PATCH_PX / PATCH_SPAN
    table = int(rng.integers(0, 256))
    body = int(rng.integers(0, 256))
    while abs(body - table) < 40:
        body = int(rng.integers(0, 256))
    pip = 20 if body > 128 else 235
    img = np.full((PATCH_PX, PATCH_PX), table, np.uint8)
    c = PATCH_PX / 2
    half = face / 2
    cv2.rectangle(img, (round(c - half), round(c - half)), (round(c + half), round(c + half)),
                  body, -1, cv2.LINE_AA)
    r = face * rng.uniform(0.08, 0.12)
    for px, py in pip_layout(value, rng.uniform(0.45, 0.6)):
        cv2.circle(img, (round(c + px * half), round(c + py * half)), round(r), pip, -1,
                   cv2.LINE_AA)
    return img


def drawn_die_varied(value: int, rng: np.random.Generator) -> NDArray[np.uint8]:
    """A drawn die patch with the looks :func:`drawn_die` lacks: pips light or dark on a body
    of any shade (a lit blue or red face with white pips is mid-grey with light pips), pips
    of varied shade and size, a rim darker or lighter than the face (a rounded edge's shade)
    and a light gradient across the face."""
    face = PATCH_PX / PATCH_SPAN
    table = int(rng.integers(0, 256))
    body = int(rng.integers(0, 256))
    while abs(body - table) < 30:
        body = int(rng.integers(0, 256))
    if body > 190:
        light_pips = False
    elif body < 70:
        light_pips = True
    else:
        light_pips = bool(rng.random() < 0.5)
    pip = int(rng.integers(max(body + 60, 190), 256)) if light_pips else int(
        rng.integers(0, min(body - 60, 70) + 1))
    img = np.full((PATCH_PX, PATCH_PX), table, np.float32)
    c = PATCH_PX / 2
    half = face / 2
    corner = (round(c - half), round(c - half)), (round(c + half), round(c + half))
    if rng.random() < 0.6:
        rim = float(np.clip(body + rng.choice([-1, 1]) * rng.uniform(25, 80), 0, 255))
        grow = round(face * rng.uniform(0.04, 0.12))
        cv2.rectangle(img, (corner[0][0] - grow, corner[0][1] - grow),
                      (corner[1][0] + grow, corner[1][1] + grow), rim, -1, cv2.LINE_AA)
    cv2.rectangle(img, corner[0], corner[1], body, -1, cv2.LINE_AA)
    r = face * rng.uniform(0.07, 0.13)
    for px, py in pip_layout(value, rng.uniform(0.42, 0.62)):
        cv2.circle(img, (round(c + px * half), round(c + py * half)), round(r), pip, -1,
                   cv2.LINE_AA)
    if rng.random() < 0.5:
        ramp = np.linspace(-1, 1, PATCH_PX, dtype=np.float32)
        angle = rng.uniform(0, 2 * np.pi)
        gradient = np.cos(angle) * ramp[None, :] + np.sin(angle) * ramp[:, None]
        img = img + gradient * rng.uniform(10, 45)
    return np.clip(img, 0, 255).astype(np.uint8)


DRAWN_LOOKS = {"plain": drawn_die, "varied": drawn_die_varied}


#: an upright look (``--upright``) turns its training crops at most this many degrees
UPRIGHT_TURN = 12.0
#: ``--any-angle`` views turn up to this many degrees: the reader reads every crop in four
#: quarter turns, so a die at any angle lies within this of one of them
ANY_ANGLE_TURN = 45.0


def tone_curve(crop: NDArray[Any], rng: np.random.Generator) -> NDArray[np.float32]:
    """``crop`` (0-255) through a random gamma (0.35-2.8): a curve that squeezes the light
    end leaves light pips on a light body (orange, yellow, red dice in grey) barely apart,
    one that squeezes the dark end does the same to dark pips on dark dice."""
    gamma = float(np.exp(rng.uniform(np.log(0.35), np.log(2.8))))
    x = np.clip(np.asarray(crop, np.float32) / 255.0, 0.0, 1.0)
    return np.asarray(255.0 * x ** gamma, np.float32)


def motion_blur(crop: NDArray[Any], length: float, angle: float) -> NDArray[Any]:
    """``crop`` smeared along a line ``length`` pixels long at ``angle`` degrees: a die that
    moved, or a hand that shook, while the shutter was open."""
    size = int(np.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = np.cos(np.radians(angle)) * length / 2, np.sin(np.radians(angle)) * length / 2
    cv2.line(kernel, (round(c * 16 - dx * 16), round(c * 16 - dy * 16)),
             (round(c * 16 + dx * 16), round(c * 16 + dy * 16)), 1.0, 1, cv2.LINE_AA, shift=4)
    kernel /= max(float(kernel.sum()), 1e-6)
    return np.asarray(cv2.filter2D(crop.astype(np.float32), -1, kernel,
                                   borderType=cv2.BORDER_REPLICATE))


#: an ``--occlude`` view's cover reaches this far into the face (shares of its width): a die
#: beside a lifted cup or under a finger's edge, most of its pips still in sight
OCCLUDE_DEPTH = (0.08, 0.35)


def occlude(crop: NDArray[Any], rng: np.random.Generator, face_px: float) -> NDArray[np.float32]:
    """``crop`` with the round edge of something flat and plain (a cup's rim, a hand's edge)
    reaching in from one side over part of the face ``face_px`` wide: the cup put aside
    beside its dice that a reveal photo so often holds."""
    h, w = crop.shape[:2]
    theta = rng.uniform(0.0, 2 * np.pi)
    radius = face_px * rng.uniform(1.2, 3.5)
    depth = face_px * rng.uniform(*OCCLUDE_DEPTH)
    reach = face_px / 2 - depth + radius
    cx, cy = w / 2 + reach * np.cos(theta), h / 2 + reach * np.sin(theta)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    inside = np.clip(radius - np.hypot(xx - cx, yy - cy) + 0.5, 0.0, 1.0)
    tone = rng.uniform(0.0, 255.0)
    slope = rng.uniform(-1.5, 1.5)
    cover = tone + slope * (xx * np.cos(theta + 1.57) + yy * np.sin(theta + 1.57) - w / 2)
    out = np.asarray(crop, np.float32)
    if rng.random() < 0.5:  # its shadow on the table and the die beside it
        shade = np.clip((radius + face_px * rng.uniform(0.1, 0.3))
                        - np.hypot(xx - cx, yy - cy), 0.0, 1.0)
        out = out * (1.0 - rng.uniform(0.2, 0.5) * shade)
    return np.asarray(out * (1.0 - inside) + cover * inside, np.float32)


def augment(patch: NDArray[np.uint8], rng: np.random.Generator,
            upright: bool = False, motion: float = 0.0, any_angle: float = 0.0,
            tone: float = 0.0, cover: float = 0.0) -> NDArray[np.uint8]:
    """One random view: rotation, scale and centre jitter, contrast, blur, noise, JPEG.

    ``upright``: the crop keeps the photo's up (turned at most UPRIGHT_TURN degrees, mirrored
    left to right half the time), so that the network may learn that a die's top face lies
    above its side faces in a photo taken at a slant. ``motion``: the share of views smeared
    by :func:`motion_blur` (2-7 px of the crop's 48, any direction): smeared pips must not
    pass for more pips. ``any_angle``: the share of upright views turned anywhere within
    ±ANY_ANGLE_TURN degrees rather than UPRIGHT_TURN: a die lies on the table at any angle,
    and the reader's quarter turns leave up to 45° to the look (a small 6 turned 20-45° was
    read as a sure 5). ``tone``: the share of views given a random tone curve
    (:func:`tone_curve`): light pips on a light coloured body keep little contrast in grey.
    ``cover``: the share of dice views partly covered by :func:`occlude` (never a "not a
    die" patch: label unknown to this function, so the caller passes 0 for those).
    All at 0 draw exactly as before."""
    face = PATCH_PX / PATCH_SPAN
    side = CROP_SCALE * face * rng.uniform(0.8, 1.3)
    jitter = 0.08 * face
    cx = PATCH_PX / 2 + rng.uniform(-jitter, jitter)
    cy = PATCH_PX / 2 + rng.uniform(-jitter, jitter)
    turn = UPRIGHT_TURN
    if upright and any_angle and rng.random() < any_angle:
        turn = ANY_ANGLE_TURN
    angle = rng.uniform(-turn, turn) if upright else rng.uniform(0, 360)
    crop: NDArray[Any] = die_crop(patch, cx, cy, side, angle=angle).astype(np.float32)
    if upright and rng.random() < 0.5:
        crop = crop[:, ::-1]
    if cover and rng.random() < cover:
        crop = occlude(crop, rng, crop.shape[1] * face / side)
    if tone and rng.random() < tone:
        crop = tone_curve(crop, rng)
    crop = crop * rng.uniform(0.6, 1.3) + rng.uniform(-40, 40)
    if rng.random() < 0.1:
        crop = 255 - crop  # light pips on dark dice
    if rng.random() < 0.4:
        crop = np.asarray(cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.3, 1.3)))
    if motion and rng.random() < motion:
        crop = motion_blur(crop, rng.uniform(2.0, 7.0), rng.uniform(0.0, 180.0))
    if rng.random() < 0.4:
        crop = crop + rng.normal(0, rng.uniform(2, 12), crop.shape)
    out = np.clip(crop, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE), dtype=np.uint8)
    return out


#: channels of the three conv blocks and of the last conv (the shipped networks' widths)
WIDTHS = (16, 32, 64, 96)


def build_net(widths: tuple[int, ...] = WIDTHS) -> Any:
    import torch.nn as nn

    a, b, c, d = widths

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2)]

    return nn.Sequential(*block(1, a), *block(a, b), *block(b, c),
                         nn.Conv2d(c, d, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(d, 7))


#: the operations of a classifier file as ``torch.onnx.export`` writes ``build_net`` in eval
#: mode (each batch norm folded into its convolution), ``store_half`` stores it and
#: ``tools.train.features_output`` gives it its features (an Identity)
FOLDED_OPS = frozenset({"Cast", "Conv", "Relu", "MaxPool", "GlobalAveragePool", "Flatten",
                        "Gemm", "Identity"})


def init_from_onnx(net: Any, path: Path) -> None:
    """Load a shipped classifier's weights into ``net`` (``build_net`` of the same widths),
    to go on training it rather than start anew.

    The export folded each batch norm into the convolution before it, so the file holds
    the folded convolutions only: they are loaded as they are and every batch norm is set
    to pass its input through (mean 0, variance 1, scale 1, shift 0). Keep the batch norms
    in eval mode while training (:func:`freeze_batch_norms`), or the batch's own statistics
    would undo the folding."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(str(path))
    others = sorted({n.op_type for n in model.graph.node} - FOLDED_OPS)
    if others:  # e.g. batch norms left unfolded: their weights would be lost unsaid
        raise ValueError(f"{path}: not a folded classifier export (it has {', '.join(others)})")
    weights = {i.name: numpy_helper.to_array(i).astype(np.float32)
               for i in model.graph.initializer}
    # the half-precision store puts a Cast between a weight and its node
    for node in model.graph.node:
        if node.op_type == "Cast" and node.input[0] in weights:
            weights[node.output[0]] = weights[node.input[0]]
    layers = [node for node in model.graph.node if node.op_type in ("Conv", "Gemm")]
    modules = [m for m in net if isinstance(m, torch.nn.Conv2d | torch.nn.Linear)]
    if len(layers) != len(modules):
        raise ValueError(f"{path}: {len(layers)} layers, the network built has {len(modules)}")
    with torch.no_grad():
        for node, module in zip(layers, modules, strict=True):
            trans_b = [a.i for a in node.attribute if a.name == "transB"]
            if node.op_type == "Gemm" and trans_b != [1]:
                raise ValueError(f"{path}: a Gemm layer {node.name!r} without transB=1")
            if len(node.input) < 3 or not all(name in weights for name in node.input[1:3]):
                raise ValueError(f"{path}: layer {node.name!r} lacks a stored weight or bias")
            weight, bias = weights[node.input[1]], weights[node.input[2]]
            if tuple(weight.shape) != tuple(module.weight.shape):
                raise ValueError(f"{path}: a layer of {weight.shape}, the network built "
                                 f"has {tuple(module.weight.shape)}")
            module.weight.copy_(torch.from_numpy(weight))
            module.bias.copy_(torch.from_numpy(bias))
        for module in net:
            if isinstance(module, torch.nn.BatchNorm2d):
                module.reset_parameters()  # mean 0, variance 1, scale 1, shift 0
                module.running_var.fill_(1.0 - module.eps)


def freeze_batch_norms(net: Any) -> None:
    """Batch norms in eval mode (their running statistics kept), the rest as it is."""
    import torch

    for module in net:
        if isinstance(module, torch.nn.BatchNorm2d):
            module.eval()


def evaluate(net, patches: list[Patch], rng: np.random.Generator) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Accuracy per source (and for 'not a die') on centred, unrotated crops of held-out photos."""
    import torch

    crops = np.stack([die_crop(p.pixels, PATCH_PX / 2, PATCH_PX / 2,
                               CROP_SCALE * PATCH_PX / PATCH_SPAN) for p in patches])
    net.eval()
    with torch.no_grad():
        pred = net(torch.from_numpy(normalise(crops))).argmax(1).numpy()
    result: dict[str, float] = {}
    for group in sorted({p.source for p in patches}) + ["not-a-die"]:
        idx = [k for k, p in enumerate(patches)
               if (p.label == NOT_A_DIE if group == "not-a-die"
                   else p.source == group and p.label != NOT_A_DIE)]
        if idx:
            ok = sum(int(pred[k] == patches[k].label) for k in idx)
            result[group] = round(ok / len(idx), 4)
            result[f"{group}_n"] = len(idx)
    return result


def save_patches(path: Path, train: list[Patch], test: list[Patch]) -> None:
    """The patches of a run, so that its later legs (``--resume``) need not cut them again."""
    path.parent.mkdir(parents=True, exist_ok=True)
    both = train + test
    np.savez(path, pixels=np.stack([p.pixels for p in both]),
             labels=np.array([p.label for p in both]),
             sources=np.array([p.source for p in both]), n_train=len(train))


def load_patches(path: Path) -> tuple[list[Patch], list[Patch]]:
    data = np.load(path)
    both = [Patch(px, int(lab), str(src))
            for px, lab, src in zip(data["pixels"], data["labels"], data["sources"], strict=True)]
    n = int(data["n_train"])
    return both[:n], both[n:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", type=Path)
    ap.add_argument("--seed", type=int, default=7,
                    help="training seed (the held-out photos are drawn with HOLDOUT_SEED)")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--views-per-epoch", type=int, default=2,
                    help="random views of each training patch per epoch")
    ap.add_argument("--drawn-per-value", type=int, default=150)
    ap.add_argument("--drawn-look", choices=sorted(DRAWN_LOOKS), default="plain",
                    help="how the drawn dice look: 'plain' (dark pips on light bodies and the "
                    "reverse) or 'varied' (pips of either shade on mid-grey bodies, rims, light "
                    "gradients; lab notebook)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--renders", type=Path, action="append", default=[],
                    help="a manifest of tools.render.detector_renders output (repeatable)")
    ap.add_argument("--render-dice", type=int, default=1500,
                    help="dice taken from each renders manifest")
    ap.add_argument("--no-photos", action="store_true",
                    help="train on the renders and drawn dice only (the held-out photos still "
                    "score it): a look that does not share the photos' labelling")
    ap.add_argument("--sources", nargs="+", default=None, metavar="SOURCE",
                    help="train on the photos of these manifest sources only (default: all)")
    ap.add_argument("--upright", action="store_true",
                    help="train an upright look: crops keep the photo's up instead of turning "
                    "all the way round (lab notebook)")
    ap.add_argument("--any-angle", type=float, default=0.0,
                    help="share of upright views turned anywhere within 45 degrees rather than "
                    "12 (0 draws exactly as before)")
    ap.add_argument("--any-angle-sources", nargs="+", default=None, metavar="SOURCE",
                    help="turn only these sources' views anywhere (default: every source; "
                    "'drawn' names the drawn dice): a crop of a die shot at a slant, turned, "
                    "puts its side faces beside the top face rather than below it")
    ap.add_argument("--tone", type=float, default=0.0,
                    help="share of views given a random tone curve, for light pips on light "
                    "coloured dice (0 draws exactly as before)")
    ap.add_argument("--motion-blur", type=float, default=0.0,
                    help="share of training views smeared by a straight motion blur "
                    "(0 draws exactly as before)")
    ap.add_argument("--occlude", type=float, default=0.0,
                    help="share of die views partly covered by a round-edged flat shape (a "
                         "cup's rim beside its dice)")
    ap.add_argument("--detector-crops", action="store_true",
                    help="also train on each labelled die cut where the shipped detector "
                    "proposes it, at the size it gives (the photos network's recipe since "
                    "lab notebook)")
    ap.add_argument("--widths", type=int, nargs=4, default=list(WIDTHS),
                    help="channels of the three conv blocks and the last conv (lab notebook)")
    ap.add_argument("--checkpoint", type=Path, default=None,
                    help="save the run here after every epoch")
    ap.add_argument("--patches", type=Path, default=None,
                    help="the run's patches: read from this .npz where it exists, else cut "
                    "and saved there (legs and reruns of one recipe need not cut them again)")
    ap.add_argument("--resume", action="store_true",
                    help="go on from --checkpoint (the same settings)")
    ap.add_argument("--stop-after", type=int, default=None, metavar="EPOCHS",
                    help="end this leg after this many epochs of the run (needs --checkpoint); "
                    "the network is exported only when the run is done")
    ap.add_argument("--init", type=Path, default=None, metavar="ONNX",
                    help="go on training this classifier (of the same widths) rather than "
                    "start anew; its batch norms stay as folded (init_from_onnx)")
    ap.add_argument("--lr", type=float, default=3e-3,
                    help="the one-cycle schedule's highest learning rate")
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    args = ap.parse_args()
    if (args.resume or args.stop_after is not None) and args.checkpoint is None:
        ap.error("--resume and --stop-after need --checkpoint")

    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    root, entries = load_manifest(args.manifest)
    held = split_holdout(entries, HOLDOUT_SEED)
    cache = args.patches
    t0 = time.time()
    if cache is not None and cache.exists():
        train, test = load_patches(cache)
    else:
        train, test = [], []
        for entry in entries:
            if entry.image in held:
                test.extend(photo_patches(root, entry, rng))
            elif not args.no_photos and (args.sources is None or entry.source in args.sources):
                train.extend(photo_patches(root, entry, rng, args.detector_crops))
        for value in range(1, 7):
            train.extend(Patch(DRAWN_LOOKS[args.drawn_look](value, rng), value, "drawn")
                         for _ in range(args.drawn_per_value))
        for renders in args.renders:
            train.extend(render_patches(renders, args.render_dice, rng))
        if cache is not None:
            save_patches(cache, train, test)
    print(f"{len(train)} training and {len(test)} held-out patches "
          f"({time.time() - t0:.0f}s)", flush=True)

    # a checkpoint names the file its run began from: a resumed leg must begin from it too
    init_name = None if args.init is None else str(args.init)
    net = build_net(tuple(args.widths))
    if args.init is not None:
        init_from_onnx(net, args.init)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    per_epoch = (args.views_per_epoch * len(train)) // 128 + 1
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr,
                                                total_steps=args.epochs * per_epoch)
    first_epoch = 0
    if args.resume:
        state = torch.load(args.checkpoint, weights_only=False)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        rng.bit_generator.state = state["rng"]
        torch.set_rng_state(state["torch_rng"])
        if state.get("init") != init_name:
            ap.error(f"--resume: the run began with --init {state.get('init')}, "
                     f"not {args.init} (its batch norms are kept only with it)")
        first_epoch = state["epoch"]
        print(f"resumed after epoch {first_epoch}", flush=True)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    labels = np.array([p.label for p in train])
    turned_anywhere = [args.any_angle_sources is None or p.source in args.any_angle_sources
                       for p in train]
    last = args.epochs if args.stop_after is None else min(args.epochs, args.stop_after)
    for epoch in range(first_epoch, last):
        net.train()
        if args.init is not None:
            freeze_batch_norms(net)
        order = rng.permutation(np.concatenate([np.arange(len(train))] * args.views_per_epoch))
        total, correct = 0.0, 0
        for start in range(0, len(order), 128):
            idx = order[start:start + 128]
            views = [augment(train[k].pixels, rng, args.upright, args.motion_blur,
                             args.any_angle if turned_anywhere[k] else 0.0, args.tone,
                             args.occlude if labels[k] > 0 else 0.0)
                     for k in idx]
            x = torch.from_numpy(normalise(np.stack(views)))
            y = torch.from_numpy(labels[idx])
            out = net(x)
            loss = loss_fn(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            correct += int((out.argmax(1) == y).sum())
        print(f"epoch {epoch + 1}: loss {total / len(order):.3f} "
              f"train acc {correct / len(order):.3f} held-out {evaluate(net, test, rng)} "
              f"({time.time() - t0:.0f}s)", flush=True)
        if args.checkpoint is not None:
            torch.save({"net": net.state_dict(), "opt": opt.state_dict(),
                        "sched": sched.state_dict(), "rng": rng.bit_generator.state,
                        "torch_rng": torch.get_rng_state(), "epoch": epoch + 1,
                        "init": init_name},
                       args.checkpoint)
    if last < args.epochs:
        print(f"leg ends after epoch {last} of {args.epochs}: go on with --resume")
        return

    net.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, (torch.zeros(1, 1, CROP_PX, CROP_PX),), str(args.out),
                      input_names=["crop"], output_names=["logits"], opset_version=17,
                      dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}}, dynamo=False)
    store_half(args.out)
    give_output(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    if args.out == MODEL_PATH:
        HOLDOUT_PATH.write_text(json.dumps(sorted(held), indent=0) + "\n")
        print(f"wrote {HOLDOUT_PATH}")


if __name__ == "__main__":
    main()
