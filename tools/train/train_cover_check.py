"""Train the cover check behind ``vision.cover_check`` and export it to ONNX.

Dev-time only (needs PyTorch, like the other training tools). Seeded; run from the
repository root:

    .venv/bin/python -m tools.train.train_cover_check ../shared/datasets/manifest.json \
        --renders .cache/renders_a/manifest.json --renders .cache/renders_b/manifest.json \
        --scenes 240 --scene-weight 8

A finger resting over half a die, a sleeve or a cup's rim across it, leaves a face whose
visible pips the reader may count surely and wrongly (a 5 half hidden reads as a 2). The
cover check is a small colour network that looks at each die the reader reports, at twice
its size, and says how likely it is that something lies over part of it. It learns from the
training photos and renders with occluders drawn over them (``tools.render.occluders``): the reader
is run on each such photo, and each die it reports is labelled by how much of the labelled
die's face the drawn mask hides (covered from ``COVERED`` up, whole up to ``WHOLE``, the
rest skipped). Unedited photos give the whole dice their own look. With ``--scenes`` it
also learns from rendered reveals whose cups stand against the dice or hang over them
(``mine_scenes``), labelled by the renderer's own count of each top face seen. The held-out
photos (``vision/models/dice_value_holdout.json``) are edited the same way with other draws, only
to report how the check sorts dice it never saw.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tools.render.cover_scenes import cached_cover_scene, rendered_die
from tools.render.occluders import KINDS, hidden_share, occlude
from tools.train.cli import trainer_parser
from tools.train.train_dice_detector import _face
from tools.train.train_dice_verifier import augment as verifier_augment
from tools.train.train_dice_verifier import build_net, centre_crops, export, fit
from vision import Die, ReaderParams, read_dice, verifier
from vision.cover_check import CROP_PX, CROP_SPAN, MODEL_PATH
from vision.detector import normalise
from vision.io import load_image
from vision.learned import die_crop, held_out_photos

#: patches are mined at this size and span (die sizes), then cropped and jittered
PATCH_PX = 64
PATCH_SPAN = CROP_SPAN * PATCH_PX / CROP_PX
# the verifier's network, crops and export serve here too: the same crop size and span
assert (CROP_PX, CROP_SPAN) == (verifier.CROP_PX, verifier.CROP_SPAN)

#: a die is "covered" where at least this share of its labelled face is hidden ...
COVERED = 0.2
#: ... and "whole" where at most this share is (in between: not used)
WHOLE = 0.02
#: where ``--scenes`` renders are kept (``tools.bench.bench_cover_scenes`` uses seeds from 50,000)
SCENE_CACHE = Path(".cache/cover_scenes")
#: the ``kind`` of a patch from a rendered reveal (its own cups and hands, no drawing)
SCENE_KIND = len(KINDS)


@dataclass(frozen=True, slots=True)
class Mined:
    """Patches around the dice the reader reported; label 1 = something lies over it."""

    pixels: NDArray[np.uint8]  # (n, PATCH_PX, PATCH_PX, 3)
    labels: NDArray[np.int64]
    hidden: NDArray[np.float32]  # the share of the labelled face hidden
    sure: NDArray[np.bool_]  # whether the reader reported the die as sure
    right: NDArray[np.bool_]  # whether the reader named the labelled value
    kind: NDArray[np.int64]  # index in KINDS of the occluder drawn (-1: the photo as shot,
    #                          SCENE_KIND: a rendered reveal)


class _Rows:
    """:class:`Mined`'s columns as the patches are gathered."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {f: [] for f in Mined.__slots__}

    def add(self, image: NDArray[np.uint8], die: Die, hidden: float, right: bool, kind: int,
            params: ReaderParams) -> None:
        """One reported die's patch, unless the share of its face hidden is in between
        (over ``WHOLE``, under ``COVERED``)."""
        if WHOLE < hidden < COVERED:
            return
        row = {"pixels": die_crop(image, die.x, die.y, PATCH_SPAN * die.side_px,
                                  out_px=PATCH_PX),
               "labels": int(hidden >= COVERED), "hidden": hidden,
               "sure": die.confidence >= params.min_confidence, "right": right, "kind": kind}
        for field, value in row.items():
            self.columns[field].append(value)

    def mined(self) -> Mined:
        c = self.columns
        return Mined(np.stack(c["pixels"]), np.array(c["labels"]),
                     np.array(c["hidden"], np.float32), np.array(c["sure"]),
                     np.array(c["right"]), np.array(c["kind"]))


def _labelled(item: dict[str, Any]) -> list[tuple[float, float, float, int, list[float]]]:
    """Each labelled die's face centre, face size, value and box."""
    out = []
    for d in item["dice"]:
        x, y, w, h = d["box"]
        cx, cy = d.get("centre") or (x + w / 2, y + h / 2)
        face, _ = _face(item["source"], item["subset"], d["value"], d["box"])
        out.append((float(cx), float(cy), float(face), int(d["value"]), d["box"]))
    return out


def _match(x: float, y: float, dice: list[tuple[float, float, float, int, list[float]]]
           ) -> int | None:
    """The labelled die whose box (grown by 25% each side) holds (x, y), nearest first."""
    best, found = np.inf, None
    for i, (cx, cy, _, _, (bx, by, bw, bh)) in enumerate(dice):
        if bx - 0.25 * bw <= x <= bx + 1.25 * bw and by - 0.25 * bh <= y <= by + 1.25 * bh:
            dist = float(np.hypot(x - cx, y - cy))
            if dist < best:
                best, found = dist, i
    return found


def _reach(rng: np.random.Generator) -> float:
    """Where an occluder's edge lies, in faces from the die's centre: over half the dice
    partly or mostly hidden, the rest just clear of the face, the near misses a check must
    not doubt (a finger or a cup beside a die, not over it)."""
    return float(rng.uniform(-0.5, 0.3) if rng.random() < 0.55 else rng.uniform(0.5, 1.0))


def mine(manifest: Path, keep: Any, variants: int, rng: np.random.Generator,
         params: ReaderParams) -> Mined:
    """Patches of the dice the reader reports on each kept photo as shot and on ``variants``
    copies with an occluder drawn near one of its dice."""
    root = manifest.parent
    rows = _Rows()
    for item in json.loads(manifest.read_text()):
        if not keep(item) or not item.get("complete", True) or item.get("subset") != "table":
            continue
        if not item["dice"] or any(d.get("box") is None for d in item["dice"]):
            continue
        photo = load_image(root / item["image"])
        dice = _labelled(item)
        for v in range(variants + 1):
            mask = np.zeros(photo.shape[:2], np.float32)
            image, kind = photo, -1
            if v:
                cx, cy, face, _, _ = dice[int(rng.integers(len(dice)))]
                kind = int(rng.integers(len(KINDS)))
                image, mask = occlude(photo, cx, cy, face, KINDS[kind], rng, reach=_reach(rng))
            for die in read_dice(image, params).dice:
                i = _match(die.x, die.y, dice)
                if i is None:
                    continue
                cx, cy, face, value, _ = dice[i]
                hidden = hidden_share(mask, cx, cy, face)
                rows.add(image, die, hidden, die.value == value, kind, params)
    return rows.mined()


def _render_scene(seed: int) -> None:
    cached_cover_scene(seed, SCENE_CACHE)


def mine_scenes(seeds: range, params: ReaderParams, workers: int) -> Mined:
    """Patches of the dice the reader reports on rendered reveals whose cups stand beside
    the dice or are held over them (``tools.render.cover_scenes``), labelled by how much of
    each die's top face the renderer saw hidden: rendered cups' rims and shadows along dice
    in plain view, which the drawn occluders hardly give."""
    from multiprocessing import Pool

    with Pool(workers) as pool:  # rendering is the slow part: fill the cache first
        pool.map(_render_scene, seeds)
    rows = _Rows()
    for seed in seeds:
        image, truth = cached_cover_scene(seed, SCENE_CACHE)
        for die in read_dice(image, params).dice:
            near = rendered_die(die.x, die.y, truth["dice"])
            if near is None:
                continue
            rows.add(image, die, 1.0 - float(near["visible"]), die.value == near["value"],
                     SCENE_KIND, params)
    return rows.mined()


def augment(patch: NDArray[np.uint8], rng: np.random.Generator) -> NDArray[np.uint8]:
    """The verifier's augmentation, with the die's size misjudged by up to 20% either way
    and its centre off by up to 10%: the reveal crops round the voted dice, not faint
    proposals."""
    return verifier_augment(patch, rng, sizes=(0.83, 1.2), shift=0.1)


def odds(net: Any, patches: NDArray[np.uint8]) -> NDArray[np.float64]:
    """The network's probability that something covers each patch's die."""
    import torch

    net.eval()
    with torch.no_grad():
        logits = net(torch.from_numpy(normalise(centre_crops(patches)))).numpy()[:, 0]
    net.train()
    return np.asarray(1 / (1 + np.exp(-logits)), np.float64)


def report(p: NDArray[np.float64], held: Mined) -> None:
    """How the check sorts the held-out dice: whole sure dice it would doubt (a needless
    review each), covered dice it catches, and covered dice read sure and wrong (the silent
    misreads it is for) it catches."""
    whole = (held.labels == 0) & held.sure
    covered = held.labels == 1
    wrong = covered & held.sure & ~held.right
    for t in (0.3, 0.5, 0.7, 0.9):
        flag = p >= t
        print(f"  at {t}: whole sure dice doubted {int((flag & whole).sum())}/{int(whole.sum())}"
              f", covered caught {int((flag & covered).sum())}/{int(covered.sum())}"
              f", covered sure and wrong caught {int((flag & wrong).sum())}/{int(wrong.sum())}",
              flush=True)


def main() -> None:
    ap = trainer_parser(__doc__.splitlines()[0], steps=8000, batch=64)
    ap.add_argument("--variants", type=int, default=3,
                    help="copies of each training photo with an occluder drawn over it")
    ap.add_argument("--cache", type=Path, default=Path(".cache/cover_patches.npz"),
                    help="mined patches, reused when present: delete it after changing the "
                    "reader, the occluders or the photos")
    ap.add_argument("--scenes", type=int, default=0,
                    help="also learn from this many rendered reveals with cups beside and "
                    "over the dice (seeds from 0; rendered once into .cache/cover_scenes)")
    ap.add_argument("--scene-weight", type=int, default=1,
                    help="draw the rendered reveals' patches this many times as often as "
                    "one photo's (they are few beside the photos' tens of thousands)")
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    args = ap.parse_args()

    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    params = ReaderParams()
    held_paths = held_out_photos()
    fields = Mined.__slots__
    t0 = time.time()
    if args.cache.exists():
        z = np.load(args.cache)
        train = Mined(*(z["t_" + f] for f in fields))
        held = Mined(*(z["h_" + f] for f in fields))
    else:
        parts = [mine(args.manifest, lambda it: it["image"] not in held_paths, args.variants,
                      rng, params)]
        parts += [mine(path, lambda it: True, args.variants, rng, params)
                  for path in args.renders]
        train = Mined(*(np.concatenate([getattr(m, f) for m in parts]) for f in fields))
        held = mine(args.manifest, lambda it: it["image"] in held_paths, 4,
                    np.random.default_rng(args.seed + 1000), params)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(args.cache, **{"t_" + f: getattr(train, f) for f in fields},
                 **{"h_" + f: getattr(held, f) for f in fields})
    if args.scenes:
        scene_cache = args.cache.with_name(f"cover_scene_patches_{args.scenes}.npz")
        if scene_cache.exists():
            z = np.load(scene_cache)
            scenes = Mined(*(z[f] for f in fields))
        else:
            scenes = mine_scenes(range(args.scenes), params, args.threads)
            np.savez(scene_cache, **{f: getattr(scenes, f) for f in fields})
        print(f"{len(scenes.labels)} patches from {args.scenes} rendered reveals "
              f"({int(scenes.labels.sum())} covered)", flush=True)
        train = Mined(*(np.concatenate([getattr(train, f)] + [getattr(scenes, f)]
                                       * args.scene_weight) for f in fields))
    misread = int((held.sure & ~held.right & (held.labels == 1)).sum())
    print(f"{len(train.labels)} training patches ({int(train.labels.sum())} covered), "
          f"{len(held.labels)} held-out ({int(held.labels.sum())} covered, {misread} of them "
          f"read sure and wrong) ({time.time() - t0:.0f}s)", flush=True)

    net = build_net()
    fit(net, train.pixels, train.labels, augment, rng, args.steps, args.batch, t0,
        lambda: report(odds(net, held.pixels), held))
    export(net, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")



if __name__ == "__main__":
    main()
