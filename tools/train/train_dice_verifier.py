"""Train the die verifier behind ``vision.verifier`` and export it to ONNX.

Dev-time only (needs PyTorch, like the other training tools). Seeded; run from the
repository root:

    .venv/bin/python -m tools.train.train_dice_verifier ../shared/datasets/manifest.json \
        --renders .cache/renders_a/manifest.json --renders .cache/renders_b/manifest.json

The detector (``vision.detector``) sees some real dice only faintly (small coloured dice on
printed boards: heat 0.1-0.4, under ``detector_min_score``) among many more faint things that
are not dice. The verifier is a small colour network that looks at each such proposal at
full resolution and says whether it is a die. It learns from the detector's own proposals on
the training photos and renders (hard negatives: what the detector itself mistakes for a
die), labelled by the manifests' boxes, plus every labelled die. The held-out photos
(``vision/models/dice_value_holdout.json``) are mined the same way only to report how well it
sorts proposals it never saw; it is never trained on them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tools.train.cli import trainer_parser
from tools.train.half_weights import store_half
from tools.train.train_dice_detector import _colour, _face
from vision.detector import find_candidates, normalise
from vision.io import load_image
from vision.learned import die_crop, held_out_photos
from vision.verifier import CROP_PX, CROP_SPAN, MODEL_PATH

#: patches are mined at this size and span (face sizes), then cropped and jittered
PATCH_PX = 64
PATCH_SPAN = CROP_SPAN * PATCH_PX / CROP_PX
#: proposals at least this strong are mined
MINE_SCORE = 0.1
#: the working side of the detector (``ReaderParams.detector_side``)
SIDE = 320


@dataclass(frozen=True, slots=True)
class Mined:
    """Patches around proposals and labelled dice; label 1 = a die."""

    pixels: NDArray[np.uint8]  # (n, PATCH_PX, PATCH_PX, 3)
    labels: NDArray[np.int64]
    scores: NDArray[np.float32]  # the detector's heat (-1 for a labelled die)
    photo: NDArray[np.int64]  # index of the photo each came from


def _inside(x: float, y: float, box: list[float], grow: float = 0.25) -> bool:
    bx, by, bw, bh = box
    return (bx - grow * bw <= x <= bx + (1 + grow) * bw
            and by - grow * bh <= y <= by + (1 + grow) * bh)


#: with exact top-face centres (``--side-faces``), a proposal this near a die's centre (in
#: faces) is that die, and one at least ``SIDE_FACE_FAR`` from every centre is none
SIDE_FACE_NEAR = 0.35
SIDE_FACE_FAR = 0.6


def _by_box(x: float, y: float, dice: list[dict[str, Any]], used: set[int]) -> int | None:
    """A proposal's label by the labelled boxes: 1 where it is the first to fall in a die's
    box (``used`` collects those dice), 0 where it is in none, ``None`` (skipped) where it
    falls only in boxes already taken or in a box marked to ignore."""
    hits = [i for i, d in enumerate(dice) if _inside(x, y, d["box"])]
    free = [i for i in hits if i not in used]
    if free and not dice[free[0]].get("ignore", False):
        used.add(free[0])
        return 1
    return None if hits else 0


def _by_centre(x: float, y: float, item: dict[str, Any]) -> int | None:
    """A proposal's label where the item's dice have exact top-face centres (renders): 1 on
    a die's face, 0 off every face (a side face, a gap, the table), ``None`` in between or on
    a die marked to ignore."""
    best, nearest = np.inf, None
    for d in item["dice"]:
        face, _ = _face(item["source"], item["subset"], d["value"], d["box"])
        ratio = float(np.hypot(x - d["centre"][0], y - d["centre"][1])) / max(face, 1.0)
        if ratio < best:
            best, nearest = ratio, d
    if nearest is None or best >= SIDE_FACE_FAR:
        return 0
    if best <= SIDE_FACE_NEAR and not nearest.get("ignore", False):
        return 1
    return None


def mine(manifest: Path, keep: Any, labelled_dice: bool, sides: tuple[int, ...] = (SIDE,),
         side_faces: bool = False) -> Mined:
    """Patches of one manifest's photos for which ``keep(item)`` holds: every detector
    proposal of heat ``MINE_SCORE`` and more (a die where it is the first to fall in a
    labelled box, not a die where it is in none; ambiguous ones are skipped) at each working
    side of ``sides`` and, with ``labelled_dice``, every labelled die at its box.

    With ``side_faces``, photos whose dice all have exact top-face centres (the renders) are
    labelled by those instead (:func:`_by_centre`): a proposal on a die's side face, which
    lies in the die's grown box, is then a "not a die" example rather than skipped or, where
    it came first, taken for the die."""
    root = manifest.parent
    pixels: list[NDArray[np.uint8]] = []
    labels: list[int] = []
    scores: list[float] = []
    photos: list[int] = []
    for k, item in enumerate(json.loads(manifest.read_text())):
        if not keep(item) or not item.get("complete", True):
            continue
        if any(d.get("box") is None for d in item["dice"]):
            continue
        image = load_image(root / item["image"])
        dice = item["dice"]
        used_at: dict[int, set[int]] = {}
        proposals = [(side, c) for side in sides
                     for c in find_candidates(image, side=side, min_score=MINE_SCORE)]
        exact = side_faces and all(d.get("centre") for d in dice)
        for side, c in proposals:
            used = used_at.setdefault(side, set())
            label = (_by_centre(c.x, c.y, item) if exact
                     else _by_box(c.x, c.y, dice, used))
            if label is None:
                continue
            pixels.append(die_crop(image, c.x, c.y, PATCH_SPAN * c.size, out_px=PATCH_PX))
            labels.append(label)
            scores.append(c.score)
            photos.append(k)
        if labelled_dice:
            for d in dice:
                if d.get("ignore", False):
                    continue
                x, y, w, h = d["box"]
                cx, cy = d.get("centre") or (x + w / 2, y + h / 2)
                face, _ = _face(item["source"], item["subset"], d["value"], d["box"])
                pixels.append(die_crop(image, cx, cy, PATCH_SPAN * face, out_px=PATCH_PX))
                labels.append(1)
                scores.append(-1.0)
                photos.append(k)
    return Mined(np.stack(pixels), np.array(labels), np.array(scores, np.float32),
                 np.array(photos))


def augment(patch: NDArray[np.uint8], rng: np.random.Generator, *,
            sizes: tuple[float, float] = (0.8, 1.25), shift: float = 0.15) -> NDArray[np.uint8]:
    """A CROP_PX crop of a mined patch: size misjudged by a factor in ``sizes``, centre off by
    up to ``shift`` of the face, quarter turns, mirror images, colour, light, blur, noise,
    JPEG."""
    face = PATCH_PX / PATCH_SPAN
    side = CROP_SPAN * face * float(np.exp(rng.uniform(np.log(sizes[0]), np.log(sizes[1]))))
    cx = (PATCH_PX - 1) / 2 + rng.uniform(-shift, shift) * face
    cy = (PATCH_PX - 1) / 2 + rng.uniform(-shift, shift) * face
    crop = die_crop(patch, cx, cy, side, out_px=CROP_PX)
    crop = np.rot90(crop, int(rng.integers(0, 4)))
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return _colour(np.ascontiguousarray(crop), rng)


def centre_crops(patches: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The crops the reader takes (no jitter)."""
    c = (PATCH_PX - 1) / 2
    side = CROP_SPAN * PATCH_PX / PATCH_SPAN
    return np.stack([die_crop(p, c, c, side, out_px=CROP_PX) for p in patches])


def build_net() -> Any:
    import torch.nn as nn

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    return nn.Sequential(
        *block(3, 24), *block(24, 24), nn.MaxPool2d(2),
        *block(24, 48), *block(48, 48), nn.MaxPool2d(2),
        *block(48, 64), nn.MaxPool2d(2),
        *block(64, 96), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(96, 1),
    )


def report(net: Any, held: Mined) -> None:
    """How the verifier sorts the held-out proposals the detector is unsure of."""
    import torch

    net.eval()
    with torch.no_grad():
        logits = net(torch.from_numpy(normalise(centre_crops(held.pixels)))).numpy()[:, 0]
    p = 1 / (1 + np.exp(-logits))
    for lo, hi in ((0.1, 0.2), (0.2, 0.3), (0.3, 0.4), (0.4, 0.6), (0.6, 1.01)):
        band = (held.scores >= lo) & (held.scores < hi)
        dice, other = band & (held.labels == 1), band & (held.labels == 0)
        kept = " ".join(f"p>={t}: {int((p[dice] >= t).sum())}/{int((p[other] >= t).sum())}"
                        for t in (0.5, 0.8, 0.9, 0.95))
        print(f"  heat {lo}-{hi}: {int(dice.sum())} dice, {int(other.sum())} not; "
              f"kept dice/not {kept}", flush=True)
    net.train()


def main() -> None:
    ap = trainer_parser(__doc__.splitlines()[0], steps=12000, batch=64)
    ap.add_argument("--cache", type=Path, default=Path(".cache/verifier_patches.npz"),
                    help="mined patches, reused when present: delete it after changing the "
                    "detector or the photos")
    ap.add_argument("--mine-sides", type=int, nargs="+", default=[SIDE], metavar="PX",
                    help="working sides the detector mines the training photos and renders at "
                    "(more sides: more, and more varied, hard negatives)")
    ap.add_argument("--side-faces", action="store_true",
                    help="label the renders' proposals by their dice's exact top-face centres, "
                    "side faces as not dice (tried: lab notebook)")
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    args = ap.parse_args()
    sides = tuple(args.mine_sides)

    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    held_paths = held_out_photos()
    t0 = time.time()
    if args.cache.exists():
        z = np.load(args.cache)
        train = Mined(z["tp"], z["tl"], z["ts"], z["tk"])
        held = Mined(z["hp"], z["hl"], z["hs"], z["hk"])
    else:
        parts = [mine(args.manifest, lambda it: it["image"] not in held_paths, True, sides)]
        parts += [mine(path, lambda it: True, True, sides, args.side_faces)
                  for path in args.renders]
        train = Mined(*(np.concatenate([getattr(m, f) for m in parts])
                        for f in ("pixels", "labels", "scores", "photo")))
        held = mine(args.manifest, lambda it: it["image"] in held_paths, False)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(args.cache, tp=train.pixels, tl=train.labels, ts=train.scores, tk=train.photo,
                 hp=held.pixels, hl=held.labels, hs=held.scores, hk=held.photo)
    print(f"{len(train.labels)} training patches ({int(train.labels.sum())} dice), "
          f"{len(held.labels)} held-out proposals ({time.time() - t0:.0f}s)", flush=True)

    net = build_net()
    fit(net, train.pixels, train.labels, augment, rng, args.steps, args.batch, t0,
        lambda: report(net, held))
    export(net, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


def fit(net: Any, pixels: NDArray[np.uint8], labels: NDArray[np.int64],
        augment: Callable[[NDArray[np.uint8], np.random.Generator], NDArray[np.uint8]],
        rng: np.random.Generator, steps: int, batch: int, t0: float,
        report: Callable[[], None]) -> None:
    """Train a one-logit network on ``augment``ed patches, each batch half label 1 and half
    label 0 (AdamW, one-cycle to 2e-3), calling ``report`` every 2,000 steps and at the end.
    Shared by the die verifier and the cover check (``tools.train.train_cover_check``)."""
    import torch

    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps,
                                                pct_start=0.1)
    ones = np.flatnonzero(labels == 1)
    zeros = np.flatnonzero(labels == 0)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    running = 0.0
    for step in range(1, steps + 1):
        half = batch // 2
        idx = np.concatenate([rng.choice(ones, half), rng.choice(zeros, batch - half)])
        x = torch.from_numpy(normalise(np.stack([augment(pixels[k], rng) for k in idx])))
        y = torch.from_numpy(labels[idx].astype(np.float32))
        loss = loss_fn(net(x)[:, 0], y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 200 == 0:
            print(f"step {step}: loss {running:.3f} {time.time() - t0:.0f}s", flush=True)
        if step % 2000 == 0 or step == steps:
            report()


def export(net: Any, path: Path) -> None:
    import torch

    net.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, (torch.zeros(1, 3, CROP_PX, CROP_PX),), str(path),
                      input_names=["crops"], output_names=["logit"], opset_version=17,
                      dynamic_axes={"crops": {0: "n"}, "logit": {0: "n"}}, dynamo=False)
    store_half(path)


if __name__ == "__main__":
    main()
