"""Train the die detector behind ``vision.detector`` and export it to ONNX.

Dev-time only (needs PyTorch: ``.venv/bin/pip install torch==2.13.0``; the runtime needs only
OpenCV). Seeded; run from the repository root:

    .venv/bin/python -m tools.render.detector_renders .cache/detector_renders --count 1500
    .venv/bin/python -m tools.train.train_dice_detector ../shared/datasets/manifest.json \
        --renders .cache/detector_renders/manifest.json

(docs/vision_detector.md gives the recipe of the committed model: a long
run on a GPU, ``--device cuda --workers 7 --batch 64 --steps 24000 --stop-after 20000``, its
batches made in worker processes; the defaults still train the model before it, about an hour
on 2 cores.)

Training photos: the shared photos except the held-out list the value classifier already
keeps (``vision/models/dice_value_holdout.json``, 20% of each source), read in place and never
copied, plus the project's own renders (exact truth, many dice colours, tables and sizes).
Each step sees random square windows, rescaled, rotated, recoloured, blurred, noised and
JPEG-compressed, so that the network learns dice rather than these tables.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.render.impulse_noise import salt_and_pepper, switching_median
from tools.train.cli import trainer_parser
from tools.train.half_weights import store_half, weights_by_name
from tools.train.train_dice_classifier import CROP_FACE_SHARE, WHOLE_DIE_FACE
from vision.bench import load_manifest
from vision.detector import (
    CLOSER_ZOOM,
    MODEL_PATH,
    STRIDE,
    input_scale,
    normalise,
    pixel_to_cell,
)
from vision.io import load_image
from vision.learned import held_out_photos  # one held-out list for every network
from vision.onnx_net import LazyNet

#: the working side the detector reads frames at (vision.params.ReaderParams.detector_side)
SIDE = 320
WINDOW = 256
#: images are kept in memory no larger than this multiple of their working size
KEEP = 1.6


@dataclass
class Sample:
    """One training photo, kept at ``factor`` times its original size."""

    image: NDArray[np.uint8]
    factor: float  # kept size / original size
    nominal: float  # the detector's working scale for the original photo
    dice: NDArray[np.float64]  # (n, 6): cx, cy, face size, value, size_ok, ignore (kept px)
    source: str
    #: every die in the photo is labelled; where not, only the cells near its labelled dice
    #: teach presence (:func:`targets`), since an unlabelled die is no background
    complete: bool = True


def _face(source: str, subset: str, value: int, box: list[float]) -> tuple[float, bool]:
    """The top face's extent a labelled box stands for, and whether it is trustworthy."""
    side = max(box[2], box[3])
    if source == "matteo":
        return max(side, 40.0), value >= 4  # boxes of faces 1-3 hug the pips
    if source in WHOLE_DIE_FACE:  # the box holds the whole visible die (the classifier's rule)
        return side * WHOLE_DIE_FACE[source], True
    if source in CROP_FACE_SHARE:  # a small die in a big crop
        return side * CROP_FACE_SHARE[source], True
    if subset == "crop":
        return side / 1.28, True  # the crop is the die and a little felt
    return side, True


def load_samples(manifest: Path, held: set[str], denoise: bool = False,
                 incomplete: bool = False) -> list[Sample]:
    """The training photos of a manifest (not held out, complete, boxed), shrunk where far
    bigger than the working size; with ``denoise``, their impulses removed
    (:func:`tools.render.impulse_noise.switching_median`, tried: lab notebook); with
    ``incomplete``, also the photos not every die of which is labelled (rune55: all of them),
    marked so (:attr:`Sample.complete`). The manifest's ``ignore`` boxes become dice to
    ignore, as a render's leaning dice are."""
    raw = json.loads(manifest.read_text())
    root = manifest.parent
    samples = []
    for item in raw:
        complete = bool(item.get("complete", True))
        if item["image"] in held or not (complete or incomplete):
            continue
        if any(d["box"] is None for d in item["dice"]):
            continue
        image = load_image(root / item["image"])
        if denoise:
            image = switching_median(image)
        h, w = image.shape[:2]
        nominal = input_scale(h, w, SIDE)
        factor = min(1.0, KEEP * nominal)
        if factor < 1.0:
            image = np.asarray(cv2.resize(image, (round(w * factor), round(h * factor)),
                                          interpolation=cv2.INTER_AREA), np.uint8)
        rows = []
        for d in item["dice"]:
            x, y, bw, bh = d["box"]
            cx, cy = d.get("centre") or (x + bw / 2, y + bh / 2)
            face, ok = _face(item["source"], item["subset"], d["value"], d["box"])
            rows.append([cx * factor, cy * factor, face * factor, d["value"], ok,
                         d.get("ignore", False)])
        for x, y, bw, bh in item.get("ignore", []):
            rows.append([(x + bw / 2) * factor, (y + bh / 2) * factor, max(bw, bh) * factor,
                         0, False, True])
        samples.append(Sample(np.asarray(image, np.uint8), factor, nominal,
                              np.array(rows, float).reshape(-1, 6), item["source"], complete))
    return samples


def _colour(
    img: NDArray[np.uint8], rng: np.random.Generator, degrade: float = 1.0,
    recolour: float = 1.0,
) -> NDArray[np.uint8]:
    """Colour and light changes, and at times blur, noise and JPEG (each with probability
    0.3 × ``degrade``); the hue turn, channel shuffle, grey and inversion at ``recolour``
    times their rate (at 1 the same random draws as before the option existed)."""
    if rng.random() < 0.5 * recolour:
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(int) + int(rng.integers(0, 180))) % 180).astype(np.uint8)
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.5, 1.4), 0, 255).astype(np.uint8)
        img = np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), np.uint8)
    if rng.random() < 0.15 * recolour:
        img = img[..., rng.permutation(3)]
    if rng.random() < 0.1 * recolour:
        grey = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        img = np.asarray(grey, np.uint8)
    if rng.random() < 0.08 * recolour:
        img = 255 - img
    x: NDArray[Any] = img.astype(np.float32)
    x = x * rng.uniform(0.6, 1.35) + rng.uniform(-35, 35)
    x = x * rng.uniform(0.85, 1.15, 3)
    if rng.random() < 0.3:  # uneven light across the window
        h, w = x.shape[:2]
        gx = np.linspace(-1, 1, w)[None, :, None] * rng.uniform(-0.3, 0.3)
        gy = np.linspace(-1, 1, h)[:, None, None] * rng.uniform(-0.3, 0.3)
        x = x * (1 + gx + gy)
    if rng.random() < 0.3 * degrade:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.6))
    if rng.random() < 0.3 * degrade:
        x = x + rng.normal(0, rng.uniform(2, 12), x.shape)
    out = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.3 * degrade:
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return out


def _offset(length: int, rng: np.random.Generator) -> int:
    """Where a window starts along one side: inside a long side, before a short one."""
    if length >= WINDOW:
        return int(rng.integers(0, length - WINDOW + 1))
    return -int(rng.integers(0, WINDOW - length + 1))


#: channels of the stride-16 and stride-32 stages
DEEP_WIDTHS = (64, 96)
#: channels of the stride-2 and stride-4 stages (where a small die's pips are still seen)
SHALLOW_WIDTHS = (16, 32)
#: how often real photos get the added blur, noise and JPEG, as a share of the renders' rate
#: (0 and 0.33 were tried: docs/lab-notebook.md)
REAL_DEGRADE = 0.33

#: share of windows whose scale is chosen by the size one of its dice should have
SIZE_DRAWN = 0.35
#: the face sizes (input px) such windows give a die: from pip-sized dice to dice that
#: fill most of the window, so that the network learns that a big die's pips are not dice
DRAWN_FACE_PX = (9.0, 200.0)
#: no window is read at more than this multiple of the photo's working scale (memory)
MAX_ZOOM = 3.0
#: the share of an impulse-noised photo's pixels set black, white or a random colour (log-uniform)
IMPULSE_AMOUNT = (0.002, 0.03)


def add_impulses(img: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """Salt-and-pepper noise at the photo's own resolution, then (mostly) JPEG, as a photo
    exported with a dataset tool's "noise" augmentation carries it (most of the shared phone
    photos have it: BENCHMARKS.md, "Impulse noise")."""
    amount = float(np.exp(rng.uniform(*np.log(IMPULSE_AMOUNT))))
    coloured = bool(rng.random() < 0.3)
    quality = int(rng.integers(70, 96)) if rng.random() < 0.7 else None
    return salt_and_pepper(img, amount, rng, coloured=coloured, jpeg_quality=quality)


def window_scale(sample: Sample, rng: np.random.Generator, at_reading_scale: float = 0.0) -> float:
    """How much the original photo is scaled for one window: mostly the working scale
    jittered 0.45-2x, sometimes the scale at which a random die gets a random face size
    (dice from about 15 to 400 px across must all be read at one working size), and with
    ``at_reading_scale`` that share of the jittered windows exactly at a scale the reader
    reads at (the working scale, or the closer look's twice it; tried: lab notebook)."""
    if len(sample.dice) and rng.random() < SIZE_DRAWN:
        face = sample.dice[int(rng.integers(len(sample.dice))), 2] / sample.factor
        want = float(np.exp(rng.uniform(*np.log(DRAWN_FACE_PX))))
        return float(np.clip(want / max(face, 1.0), 0.3 * sample.nominal,
                             MAX_ZOOM * sample.nominal))
    if at_reading_scale > 0 and rng.random() < at_reading_scale:  # no draw at 0 (the stream)
        return sample.nominal * (CLOSER_ZOOM if rng.random() < 1 / 3 else 1.0)
    return sample.nominal * float(np.exp(rng.uniform(np.log(0.45), np.log(2.0))))


def training_window(
    sample: Sample, rng: np.random.Generator, degrade: float = 1.0, impulse: float = 0.0,
    recolour: float = 1.0, at_reading_scale: float = 0.0,
) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """A WINDOW-square view of the sample at a jittered working scale, and its dice
    (``degrade``: how often it is blurred, noisy or compressed, see :func:`_colour`;
    ``impulse``: how often it gets salt-and-pepper noise first, :func:`add_impulses`;
    ``recolour``: how often its hues are turned, shuffled, greyed or inverted, as a share of
    the full rate; ``at_reading_scale``: :func:`window_scale`)."""
    scale = window_scale(sample, rng, at_reading_scale)
    rel = scale / sample.factor
    h, w = sample.image.shape[:2]
    nw, nh = max(1, round(w * rel)), max(1, round(h * rel))
    interp = cv2.INTER_AREA if rel < 1 else cv2.INTER_LINEAR
    source = sample.image
    if impulse > 0 and rng.random() < impulse:  # no draw at 0: the default recipe's stream
        source = add_impulses(source, rng)
    img = cv2.resize(source, (nw, nh), interpolation=interp)
    dice = sample.dice.copy()
    dice[:, :3] *= rel
    # choose the window: anywhere in a large image, the image anywhere in a small one
    x0, y0 = _offset(nw, rng), _offset(nh, rng)
    if len(dice) and rng.random() < 0.7 and (nw > WINDOW or nh > WINDOW):
        cx, cy = dice[int(rng.integers(len(dice))), :2]  # most windows hold a die
        if nw > WINDOW:
            x0 = int(np.clip(cx - rng.uniform(0.15, 0.85) * WINDOW, 0, nw - WINDOW))
        if nh > WINDOW:
            y0 = int(np.clip(cy - rng.uniform(0.15, 0.85) * WINDOW, 0, nh - WINDOW))
    pad = (max(0, -y0), max(0, y0 + WINDOW - nh), max(0, -x0), max(0, x0 + WINDOW - nw))
    if any(pad):
        img = cv2.copyMakeBorder(img, *pad, cv2.BORDER_REPLICATE)
    sx, sy = max(0, x0), max(0, y0)
    window = img[sy:sy + WINDOW, sx:sx + WINDOW]
    dice[:, 0] -= x0
    dice[:, 1] -= y0
    for _ in range(int(rng.integers(0, 4))):  # quarter turns: dice look the same
        window = np.rot90(window)
        dice[:, [0, 1]] = np.stack([dice[:, 1], WINDOW - 1 - dice[:, 0]], axis=1)
    if rng.random() < 0.5:
        window = window[:, ::-1]
        dice[:, 0] = WINDOW - 1 - dice[:, 0]
    return _colour(np.ascontiguousarray(window), rng, degrade, recolour), dice


#: on a photo not every die of which is labelled, presence is taught only on the cells
#: within this share of a labelled die's face of its centre (its top face and a rim around
#: it: the heat's spread and what lies just beside the die); an unlabelled die farther off
#: is then neither a die nor background. Touching dice lie a whole die apart, beyond it.
INCOMPLETE_REACH = 0.8


def targets(dice: NDArray[np.float64], value_reach: float = 0.0,
            complete: bool = True) -> tuple[NDArray[Any], ...]:
    """The presence heat map (n, n), every cell's weight (n, n) (0 near dice to ignore), the
    value label of the cells at each die's centre (n, n; -1 elsewhere), and the size target
    (n, n) with its mask (1 at each die's centre cell where its size is known).
    ``value_reach`` > 0 labels the value on every cell within that share of the face of the
    centre, and at least the 3x3 cells around it (tried: lab notebook); 0 labels the cells
    where the presence target is at least 0.6 (for a small die, the centre cell alone).
    ``complete`` false (some dice unlabelled): the weight is 0 beyond ``INCOMPLETE_REACH``
    of every labelled die, so the unlabelled ones are not taught as background."""
    n = WINDOW // STRIDE
    heat = np.zeros((n, n), np.float32)
    weight = np.ones((n, n), np.float32)
    value_label = np.full((n, n), -1, np.int64)
    size = np.zeros((n, n), np.float32)
    size_mask = np.zeros((n, n), np.float32)
    gy, gx = np.mgrid[0:n, 0:n].astype(np.float32)
    for cx, cy, face, value, size_ok, ignore in dice:
        u, v = pixel_to_cell(cx), pixel_to_cell(cy)
        if not (-0.5 <= u < n - 0.5 and -0.5 <= v < n - 0.5):
            continue
        ui, vi = int(round(u)), int(round(v))
        if ignore:
            r = max(1.0, face / STRIDE * 0.6)
            weight[(gx - u) ** 2 + (gy - v) ** 2 <= r * r] = 0.0
            continue
        sigma = max(0.7, face / STRIDE / 6)
        g = np.exp(-((gx - ui) ** 2 + (gy - vi) ** 2) / (2 * sigma * sigma))
        heat = np.maximum(heat, g)
        heat[vi, ui] = 1.0
        if value_reach > 0:
            reach = max(1.5, value_reach * face / STRIDE)
            value_label[(gx - ui) ** 2 + (gy - vi) ** 2 <= reach * reach] = int(value) - 1
        else:
            value_label[g >= 0.6] = int(value) - 1
        if size_ok:
            size[vi, ui] = np.log(max(face, 2.0))
            size_mask[vi, ui] = 1.0
    if not complete:
        near = np.zeros((n, n), bool)
        for cx, cy, face, _, _, ignore in dice:  # dice just outside the window count too
            if not ignore:
                reach = max(1.0, INCOMPLETE_REACH * face / STRIDE)
                near |= (gx - pixel_to_cell(cx)) ** 2 + (gy - pixel_to_cell(cy)) ** 2 <= reach ** 2
        weight[~near] = 0.0
    return heat, weight, value_label, size, size_mask


def build_net(deep: tuple[int, int] = DEEP_WIDTHS,
              shallow: tuple[int, int] = SHALLOW_WIDTHS, antialias: bool = False) -> Any:
    """The detector; ``deep`` gives the channels of its stride-16 and stride-32 stages
    (cheap to widen: they run on a 256th and a 1024th of the input's pixels), ``shallow``
    those of its stride-2 and stride-4 stages (dear: a quarter and a sixteenth). With
    ``antialias``, each stride-2 convolution is preceded by a fixed 3x3 binomial blur (a
    low-pass before subsampling: Zhang, "Making convolutional networks shift-invariant
    again", 2019), so that how a small die falls on the stride grid matters less."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Blur(nn.Module):
        def __init__(self, channels: int) -> None:
            super().__init__()
            k = torch.tensor([1.0, 2.0, 1.0])
            kernel = (k[:, None] * k[None, :]) / 16.0
            self.register_buffer("kernel", kernel.expand(channels, 1, 3, 3).clone())
            self.channels = channels

        def forward(self, x: Any) -> Any:
            return F.conv2d(x, self.kernel, padding=1, groups=self.channels)

    def conv(i: int, o: int, stride: int = 1) -> nn.Module:
        layers = [Blur(i)] if antialias and stride == 2 else []
        return nn.Sequential(*layers, nn.Conv2d(i, o, 3, stride, 1, bias=False),
                             nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class Detector(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            c1, c2 = shallow
            self.s2 = nn.Sequential(conv(3, c1, 2), conv(c1, c2, 2), conv(c2, c2))
            self.s3 = nn.Sequential(conv(c2, 48, 2), conv(48, 48))
            c4, c5 = deep
            self.s4 = nn.Sequential(conv(48, c4, 2), conv(c4, c4))
            self.s5 = nn.Sequential(conv(c4, c5, 2), conv(c5, c5), conv(c5, c5))
            self.p5 = nn.Conv2d(c5, 48, 1)
            self.l4 = nn.Conv2d(c4, 48, 1)
            self.l3 = nn.Conv2d(48, 48, 1)
            self.l2 = nn.Conv2d(c2, 48, 1)
            self.m4, self.m3, self.m2 = conv(48, 48), conv(48, 48), conv(48, 32)
            self.head = nn.Sequential(conv(32, 32), nn.Conv2d(32, 8, 1))
            self.up = nn.Upsample(scale_factor=2.0, mode="nearest")
            with torch.no_grad():
                self.head[-1].bias[0].fill_(-2.2)  # a die is rare: start every cell near 0.1
                self.head[-1].bias[7].fill_(3.0)

        def forward(self, x: Any) -> Any:
            c2 = self.s2(x)
            c3 = self.s3(c2)
            c4 = self.s4(c3)
            c5 = self.s5(c4)
            p = self.m4(self.up(self.p5(c5)) + self.l4(c4))
            p = self.m3(self.up(p) + self.l3(c3))
            p = self.m2(self.up(p) + self.l2(c2))
            return self.head(p)

    return Detector()


def load_export(net: Any, path: Path) -> None:
    """Start ``net`` from an ONNX export of the same network (``--init``), to train a shipped
    model further without its PyTorch weights (a lent machine's run once ended at 8% of
    its peak learning rate and only its ONNX export was kept).

    The export folds each batch norm into the convolution before it, so every batch norm is
    set to pass its input through (mean 0, variance 1 - eps, scale 1) with the folded bias as
    its shift: in eval mode the network then computes exactly what the export does (checked
    here by running the export as the reader does). Such a network must be trained with its
    batch norms in eval mode (:func:`freeze_batch_norms`): their statistics were folded away."""
    import onnx
    import torch

    model = onnx.load(str(path))
    weights = {name: torch.from_numpy(array.copy())
               for name, array in weights_by_name(model).items()}
    convs = [(n.input[1], n.input[2] if len(n.input) > 2 else None)
             for n in model.graph.node if n.op_type == "Conv"]
    # the exporter names a convolution's weights after its module unless it folded a batch
    # norm into them (then they are "onnx::Conv_N", in the graph's order)
    folded = [pair for pair in convs if pair[0].startswith("onnx::")]
    named = [w_name.rsplit(".", 1)[0] for w_name, _ in convs if not w_name.startswith("onnx::")]
    modules = list(net.named_modules())
    pairs = [(m, modules[i + 1][1]) for i, (_, m) in enumerate(modules[:-1])
             if isinstance(m, torch.nn.Conv2d) and isinstance(modules[i + 1][1],
                                                               torch.nn.BatchNorm2d)]
    if len(pairs) != len(folded):
        raise ValueError(f"{path}: {len(folded)} folded convolutions, the network has "
                         f"{len(pairs)} (another --deep-widths / --shallow-widths?)")
    with torch.no_grad():
        for (conv, norm), (w_name, b_name) in zip(pairs, folded, strict=True):
            w = weights[w_name]
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: {w_name} is {tuple(w.shape)}, the network's "
                                 f"convolution {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            norm.bias.copy_(weights[b_name] if b_name else torch.zeros_like(norm.bias))
        by_name = dict(net.named_modules())
        for name in named:
            by_name[name].weight.copy_(weights[f"{name}.weight"])
            by_name[name].bias.copy_(weights[f"{name}.bias"])
    probe = np.random.default_rng(0).standard_normal((1, 3, SIDE, SIDE)).astype(np.float32)
    expected = LazyNet(path, "die detector", "tools/train/train_dice_detector.py").run(probe)
    net.eval()
    with torch.no_grad():
        got = net(torch.from_numpy(probe)).numpy()
    gap = float(np.abs(got - expected).max())
    if gap > 1e-3:
        raise ValueError(f"{path}: the network started from it differs from it by {gap:.2g}")


def freeze_batch_norms(net: Any) -> None:
    """Put every batch norm in eval mode (its statistics fixed; its scale and shift still
    learn), after ``net.train()``."""
    import torch

    for module in net.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.eval()


def one_cycle_lr(progress: float, peak: float, warm: float = 0.1) -> float:
    """The learning rate PyTorch's ``OneCycleLR`` (default factors, cosine) gives at a share
    ``progress`` of the run, for a schedule set by time rather than steps (``--minutes``): on a
    lent GPU the device time, not the step count, is what is fixed, and steps per second are
    only known once the batch workers run there."""
    import math

    start, end = peak / 25.0, peak / 25.0 / 1e4
    progress = min(max(progress, 0.0), 1.0)
    if progress <= warm:
        lo, hi, pct = start, peak, progress / warm
    else:
        lo, hi, pct = peak, end, (progress - warm) / (1.0 - warm)
    return hi + (lo - hi) / 2.0 * (1.0 + math.cos(math.pi * pct))


def focal_loss(logits: Any, heat: Any, weight: Any) -> Any:
    """CenterNet's penalty-reduced focal loss over the presence heat map."""
    import torch

    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1.0).float()
    w = weight
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * (1 - pos) * w
    return -(pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1.0)


def batch_arrays(
    samples: list[Sample], picks: NDArray[np.int64], rng: np.random.Generator,
    real_degrade: float = REAL_DEGRADE, impulse: float = 0.0, value_reach: float = 0.0,
    real_recolour: float = 1.0, at_reading_scale: float = 0.0,
) -> tuple[NDArray[Any], ...]:
    """One training batch: the windows as they are (n, H, W, 3 uint8: a quarter of the bytes
    of normalised ones, for a worker process to hand back), then the five target maps."""
    windows, maps = [], []
    for k in picks:
        sample = samples[int(k)]
        rendered = sample.source == "render"
        degrade = 1.0 if rendered else real_degrade
        recolour = 1.0 if rendered else real_recolour
        window, dice = training_window(sample, rng, degrade, impulse, recolour,
                                       at_reading_scale)
        windows.append(window)
        maps.append(targets(dice, value_reach, sample.complete))
    return (np.stack(windows), *(np.stack([m[i] for m in maps]) for i in range(5)))


def normalise_on_device(windows: Any) -> Any:
    """:func:`vision.detector.normalise` in PyTorch, on the device the tensor lies on
    ((n, H, W, 3) uint8 in, (n, 3, H, W) float out, the same values to float rounding)."""
    x = windows.permute(0, 3, 1, 2).float()
    mean = x.mean(dim=(2, 3), keepdim=True)
    spread = x.var(dim=(2, 3), unbiased=False).mean(dim=1).sqrt() / 255.0
    gain = 1.0 / (255.0 * spread.clamp(min=0.02))
    return (x - mean) * gain[:, None, None, None]


@dataclass(frozen=True)
class BatchPlan:
    """What every batch of a run is drawn from, for batches made in worker processes."""

    pool: list[Sample]
    probs: NDArray[np.float64]
    size: int
    seed: int
    options: tuple[float, float, float, float, float]  # batch_arrays' keyword options


_PLAN: BatchPlan | None = None  # a worker's copy of the plan (inherited at fork)


def _set_plan(plan: BatchPlan | None) -> None:
    global _PLAN
    _PLAN = plan


def planned_batch(step: int) -> tuple[NDArray[Any], ...]:
    """Batch number ``step`` of the worker's plan, drawn from its own seed (the seed and the
    step), so that a run gives the same batches whatever the number of workers."""
    assert _PLAN is not None
    rng = np.random.default_rng([_PLAN.seed, step])
    picks = rng.choice(len(_PLAN.pool), size=_PLAN.size, p=_PLAN.probs)
    return batch_arrays(_PLAN.pool, picks, rng, *_PLAN.options)


def prefetched(workers: Any, steps: range, depth: int) -> Iterator[tuple[NDArray[Any], ...]]:
    """The planned batches of ``steps`` made by a process pool, in order, with at most
    ``depth`` of them made ahead. (``Pool.imap`` makes every batch ahead as fast as the
    workers can: where the network trains slower than they draw, as on a CPU, the waiting
    batches filled 24 GB within minutes and the run was killed.)"""
    pending: deque[Any] = deque()
    for step in steps:
        pending.append(workers.apply_async(planned_batch, (step,)))
        if len(pending) >= depth:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


def main() -> None:
    ap = trainer_parser(__doc__.splitlines()[0], steps=12000, batch=16)
    ap.add_argument("--real-share", type=float, default=0.5,
                    help="share of each batch drawn from the real photos (the rest: renders)")
    ap.add_argument("--value-weight", type=float, default=0.5,
                    help="weight of the value loss beside the presence loss")
    ap.add_argument("--deep-widths", type=int, nargs=2, default=DEEP_WIDTHS,
                    metavar=("C16", "C32"),
                    help="channels of the stride-16 and stride-32 stages")
    ap.add_argument("--shallow-widths", type=int, nargs=2, default=SHALLOW_WIDTHS,
                    metavar=("C2", "C4"), help="channels of the stride-2 and stride-4 stages")
    ap.add_argument("--real-degrade", type=float, default=REAL_DEGRADE,
                    help="how often real photos get added blur, noise or JPEG, as a share of "
                    "how often renders do (they carry their own)")
    ap.add_argument("--real-recolour", type=float, default=1.0,
                    help="how often real photos get their hues turned, shuffled, greyed or "
                    "inverted, as a share of how often renders do (tried: lab notebook; 1: "
                    "as before)")
    ap.add_argument("--source-weight", action="append", default=[], metavar="SOURCE=W",
                    help="draw the real photos of SOURCE W times as often as the others "
                    "(repeatable; the real share of each batch stays --real-share)")
    ap.add_argument("--antialias", action="store_true",
                    help="blur before every stride-2 convolution (tried: lab notebook)")
    ap.add_argument("--impulse", type=float, default=0.0,
                    help="share of windows given salt-and-pepper noise (tried: lab notebook)")
    ap.add_argument("--value-reach", type=float, default=0.0,
                    help="label the value on the cells within this share of the face of a "
                    "die's centre, at least its 3x3 (tried: lab notebook; 0: off)")
    ap.add_argument("--incomplete", action="store_true",
                    help="also train on photos not every die of which is labelled (rune55), "
                    "their presence taught only near the labelled dice")
    ap.add_argument("--denoise", action="store_true",
                    help="remove impulses from every training photo and render before use, "
                    "as a reader that does the same would (tried: lab notebook)")
    ap.add_argument("--at-reading-scale", type=float, default=0.0,
                    help="share of the jittered windows read exactly at the working scale or "
                         "twice it, the scales the reader reads at (tried: lab notebook)")
    ap.add_argument("--workers", type=int, default=0,
                    help="make the batches in this many processes, each batch from its own "
                    "seed (0: in the training process, one stream, as the shipped model was)")
    ap.add_argument("--device", default="cpu", help="where the network trains (cpu, cuda)")
    ap.add_argument("--lr", type=float, default=2e-3, help="the one-cycle schedule's peak")
    ap.add_argument("--state", type=Path, default=None,
                    help="also save the network's weights here (PyTorch) at each export")
    ap.add_argument("--stop-after", type=int, default=None, metavar="STEPS",
                    help="end after this many steps, the schedule still set by --steps (the "
                    "shipped model is the step-20,000 export of a 24,000-step run)")
    ap.add_argument("--minutes", type=float, default=None,
                    help="train for this long instead: the one-cycle schedule runs over the "
                    "wall time (--steps then only caps the steps), and the network is written "
                    "out when the time is up (for a lent GPU's fixed device time)")
    ap.add_argument("--checkpoint", type=Path, default=None,
                    help="at each export, and when the run ends or pauses, save all it needs "
                    "to go on (network, optimiser, schedule, step) here")
    ap.add_argument("--resume", type=Path, default=None, metavar="CHECKPOINT",
                    help="go on with the run saved in this checkpoint (the same settings; "
                    "needs --workers, whose batches are drawn by step)")
    ap.add_argument("--pause-after", type=float, default=None, metavar="MINUTES",
                    help="end after this many minutes of training, saving --checkpoint, the "
                    "schedule still set by --steps (to split a run over short GPU loans)")
    ap.add_argument("--export-every", type=int, default=500, metavar="STEPS",
                    help="how often the network so far is written out")
    ap.add_argument("--init", type=Path, default=None, metavar="ONNX",
                    help="start from this export of the same network (its batch norms then "
                    "stay in eval mode) instead of random weights; with a low --lr, to train "
                    "a shipped model further")
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    args = ap.parse_args()
    if args.resume is not None and args.workers < 1:
        ap.error("--resume needs --workers: only batches made by workers are drawn by their "
                 "step, so only they continue the same run")
    if args.minutes is not None and (args.resume or args.pause_after):
        ap.error("--minutes sets the schedule by time; --resume and --pause-after go with a "
                 "schedule set by --steps")
    if args.pause_after is not None and args.checkpoint is None:
        ap.error("--pause-after needs --checkpoint, to save the run it pauses")
    source_weights = {k: float(v) for k, v in (a.split("=", 1) for a in args.source_weight)}

    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    held = set(held_out_photos())
    t0 = time.time()
    load_manifest(args.manifest)  # validates the manifest's format before the long load
    real = load_samples(args.manifest, held, args.denoise, args.incomplete)
    renders = [s for path in args.renders for s in load_samples(path, set(), args.denoise)]
    print(f"{len(real)} real and {len(renders)} rendered training photos, {len(held)} held out "
          f"({time.time() - t0:.0f}s)", flush=True)

    net = build_net(tuple(args.deep_widths), tuple(args.shallow_widths), args.antialias)
    if args.init is not None:
        load_export(net, args.init)
        print(f"started from {args.init}", flush=True)
    net.to(args.device)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps,
                                                pct_start=0.1)
    recipe = run_recipe(args, len(real), len(renders))
    first, running = 1, 0.0
    if args.resume is not None:
        done, running = load_checkpoint(args.resume, recipe, net, opt, sched)
        first = done + 1
        print(f"resumed {args.resume} after step {done}", flush=True)
        if first > min(args.steps, args.stop_after or args.steps):
            print("the run had already ended: nothing to train", flush=True)
            return
    pool = real + renders
    real_weights = np.array([source_weights.get(s.source, 1.0) for s in real])
    real_probs = real_weights / real_weights.sum() * (args.real_share if renders else 1.0)
    p_render = (1 - args.real_share) / max(len(renders), 1) if renders else 0.0
    probs = np.concatenate([real_probs, [p_render] * len(renders)])
    probs /= probs.sum()
    last = min(args.steps, args.stop_after or args.steps)
    options = (args.real_degrade, args.impulse, args.value_reach, args.real_recolour,
               args.at_reading_scale)
    if args.workers > 0:
        import multiprocessing

        _set_plan(BatchPlan(pool, probs, args.batch, args.seed, options))
        workers = multiprocessing.get_context("fork").Pool(args.workers)
        batches = prefetched(workers, range(first, last + 1), depth=2 * args.workers + 2)
    else:
        def in_process() -> Any:
            while True:
                picks = rng.choice(len(pool), size=args.batch, p=probs)
                yield batch_arrays(pool, picks, rng, *options)

        batches = in_process()
    def write_out(done: int) -> None:
        """The network so far, and with --checkpoint the whole run after step ``done``."""
        export(net, args.out, args.state)
        if args.checkpoint is not None:
            save_checkpoint(args.checkpoint, done, running, recipe, net, opt, sched)

    t_train = time.time()
    for step in range(first, last + 1):
        if args.pause_after is not None and time.time() - t_train >= args.pause_after * 60:
            write_out(step - 1)
            print(f"paused after step {step - 1}: go on with --resume {args.checkpoint}",
                  flush=True)
            break
        if args.minutes is not None:
            progress = (time.time() - t_train) / (args.minutes * 60.0)
            for group in opt.param_groups:
                group["lr"] = one_cycle_lr(progress, args.lr)
            if progress >= 1.0:
                write_out(step - 1)
                print(f"time up after {step - 1} steps", flush=True)
                break
        net.train()
        if args.init is not None:
            freeze_batch_norms(net)
        windows, *maps = next(batches)
        if args.workers > 0:
            x = normalise_on_device(torch.from_numpy(windows).to(args.device))
        else:
            x = torch.from_numpy(normalise(windows))  # the shipped model's exact input
        heat, weight, value_label, size, size_mask = (
            torch.from_numpy(m).to(args.device) for m in maps)
        out = net(x)
        loss = focal_loss(out[:, 0], heat, weight)
        value_loss = torch.nn.functional.cross_entropy(out[:, 1:7], value_label, ignore_index=-1)
        if not bool((value_label >= 0).any()):
            value_loss = out[:, 1:7].sum() * 0.0
        size_loss = (torch.abs(out[:, 7] - size) * size_mask).sum() / size_mask.sum().clamp(min=1)
        total = loss + args.value_weight * value_loss + 0.2 * size_loss
        opt.zero_grad()
        total.backward()
        opt.step()
        if args.minutes is None:
            sched.step()
        running = 0.98 * running + 0.02 * total.item() if step > 1 else total.item()
        if step % 50 == 0:
            print(f"step {step}: loss {running:.3f} (heat {loss.item():.3f} value "
                  f"{value_loss.item():.3f} size {size_loss.item():.3f}) "
                  f"{time.time() - t0:.0f}s", flush=True)
        if step % args.export_every == 0 or step == last:
            write_out(step)
    if args.workers > 0:
        workers.terminate()
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


# The settings a run's batches, network and schedule depend on: a run resumed with other
# values would not be the run it continues (paths are left out: the same renders may lie
# elsewhere on another machine; the numbers of photos stand for them).
RESUME_KEYS = ("seed", "steps", "batch", "real_share", "value_weight", "deep_widths",
               "shallow_widths", "real_degrade", "real_recolour", "source_weight", "antialias",
               "impulse", "value_reach", "denoise", "at_reading_scale", "lr", "init",
               "incomplete")


def run_recipe(args: argparse.Namespace, n_real: int, n_renders: int) -> dict[str, str]:
    """What a checkpoint records of its run, to refuse resuming it as another."""
    recipe = {key: repr(getattr(args, key)) for key in RESUME_KEYS}
    recipe["init"] = repr(args.init is not None)
    recipe["photos"] = f"{n_real} real, {n_renders} rendered"
    return recipe


def save_checkpoint(path: Path, step: int, running: float, recipe: dict[str, str],
                    net: Any, opt: Any, sched: Any) -> None:
    """Everything a run needs to go on from ``step`` (``--resume``): the network, the
    optimiser's moments and the schedule, so that a long run can be split over several
    short loans of a GPU. Written whole or not at all."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    torch.save({"step": step, "running": running, "recipe": recipe, "net": net.state_dict(),
                "opt": opt.state_dict(), "sched": sched.state_dict()}, partial)
    partial.replace(path)


def load_checkpoint(path: Path, recipe: dict[str, str], net: Any, opt: Any,
                    sched: Any) -> tuple[int, float]:
    """Restore a run saved by :func:`save_checkpoint` into ``net``, ``opt`` and ``sched``;
    returns the step it had reached and its running loss. Refuses a checkpoint of a run with
    other settings, naming them."""
    import torch

    saved = torch.load(path, map_location="cpu", weights_only=True)
    differ = sorted(k for k in recipe.keys() | saved["recipe"].keys()
                    if recipe.get(k) != saved["recipe"].get(k))
    if differ:
        details = "; ".join(f"{k}: {saved['recipe'].get(k)} there, {recipe.get(k)} now"
                            for k in differ)
        raise SystemExit(f"{path}: saved by a run with other settings ({details}); resume "
                         "it with the settings it was started with")
    net.load_state_dict(saved["net"])
    opt.load_state_dict(saved["opt"])
    sched.load_state_dict(saved["sched"])
    return int(saved["step"]), float(saved["running"])


def export(net: Any, path: Path, state: Path | None = None) -> None:
    """Write the network as ONNX (exported from a CPU copy) and, if asked, its weights."""
    import copy

    import torch

    if state is not None:
        state.parent.mkdir(parents=True, exist_ok=True)
        torch.save(net.state_dict(), state)
    cpu = copy.deepcopy(net).cpu().eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(cpu, (torch.zeros(1, 3, SIDE, SIDE),), str(path), input_names=["image"],
                      output_names=["maps"], opset_version=17,
                      dynamic_axes={"image": {2: "h", 3: "w"}, "maps": {2: "mh", 3: "mw"}},
                      dynamo=False)
    store_half(path)


if __name__ == "__main__":
    main()
