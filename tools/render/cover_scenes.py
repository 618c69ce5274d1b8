"""Reveal scenes with cups and hands among the dice, for the cover check.

A lifted cup is usually set down right beside the dice it covered, or is still held just
above them, and a hand may reach in. From above, such a cup's rim runs along a die in plain
view (which the cover check must not doubt) or over part of one (which it must). The
renderer knows how much of each die's top face is seen (``visible``), so these scenes give
the check both kinds with exact truth: ``tools.bench.bench_cover_scenes`` measures it on them and
``tools.train.train_cover_check --scenes`` learns from them (other seeds). Run as a module it
renders scenes into a folder with a manifest of their dice (the format of
``tools.render.detector_renders``), for the crop classifier to learn dice beside and partly
under a cup (``train_dice_classifier --renders``; a die under 70% in sight is ``ignore``);
``--cut`` sets every cup down over the edge of a die, for the dice a person still reads past
a cup's rim:

    .venv/bin/python -m tools.render.cover_scenes .cache/cup_renders --first 0 --count 120
    .venv/bin/python -m tools.render.cover_scenes .cache/cut_renders --cut --count 120
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from tools.render.detector_renders import entry_for
from tools.render.dice import Die
from tools.render.generate import ALL_STYLES, DIE_MM, random_effects, random_light, random_table
from tools.render.layout import Layout, seat_layout
from tools.render.props import Cup
from tools.render.renderer import finish, render_clean
from tools.render.scene import Scene
from tools.render.table_scenes import (
    CUP_COLOURS,
    SeatDice,
    cup_for,
    hand_near,
    layout_camera,
    place_table_dice,
    seat_scene,
)

#: how a seat's cup is left in a scene, and how often (the rest: put aside, out of the way)
CUP_STATES = {"beside": 0.55, "lifting": 0.3}


def cup_beside(layout: Layout, seat: int, dice: list[Die], rng: np.random.Generator,
               colour: tuple[int, int, int], gap_mm: float) -> Cup:
    """A cup set down mouth first next to the seat's dice: its rim ``gap_mm`` from the
    nearest die (0: touching), toward a random side away from their middle."""
    own = np.array([d.centre[:2] for d in dice if d.tags.get("seat_index") == seat])
    others = np.array([d.centre[:2] for d in dice])
    middle = own.mean(axis=0) if len(own) else np.array(layout.seats[seat].cup_spot)
    angle = float(rng.uniform(0, 2 * np.pi))
    way = np.array([np.cos(angle), np.sin(angle)])
    cup = Cup(np.zeros(3), colour=colour)
    clearance = cup.r_wide + 0.7 * DIE_MM + gap_mm  # rim to a die's centre, corner and all
    step = 1.0
    spot = middle.copy()
    while np.min(np.hypot(*(others - spot).T)) < clearance:
        spot = spot + way * step
    return Cup(np.array([spot[0], spot[1], 0.0]), colour=colour)


#: how far (mm) a cut scene's cup reaches past the clearance that keeps it off every die: its
#: rim then runs over the nearest die's face, hiding up to about half of it
CUT_REACH_MM = (4.0, 12.0)


def cover_reveal(seed: int, width: int = 1280, height: int = 960, cut: bool = False) -> Scene:
    """A reveal of 2 to 4 seats, each cup beside its dice, held over them or put aside, and
    now and then a hand reaching in. ``cut``: every cup set down over the edge of its
    nearest die instead (``CUT_REACH_MM``), no hand: dice a person still reads past a cup."""
    rng = np.random.default_rng(seed)
    seats = int(rng.integers(2, 5))
    layout = seat_layout(seats, radius=150.0, first_angle_deg=float(rng.uniform(0, 360)))
    cam = layout_camera(width, height, 150.0, tilt_deg=float(rng.uniform(4, 18)))
    chosen = {i: SeatDice([int(v) for v in rng.integers(1, 7, int(rng.integers(2, 6)))],
                          style=str(rng.choice(ALL_STYLES)))
              for i in range(seats)}
    while True:
        try:
            dice = place_table_dice(rng, layout, chosen)
            break
        except ValueError:  # no room in a seat's zone: one die fewer in the fullest seat
            fullest = max(chosen.values(), key=lambda seat: len(seat.cup))
            fullest.cup.pop()
    cups = []
    for i in range(seats):
        colour = CUP_COLOURS[i % len(CUP_COLOURS)]
        if cut:
            reach = float(rng.uniform(*CUT_REACH_MM))
            cups.append(cup_beside(layout, i, dice, rng, colour, -reach))
            continue
        draw = rng.random()
        if draw < CUP_STATES["beside"]:
            cups.append(cup_beside(layout, i, dice, rng, colour, float(rng.uniform(0, 8))))
        elif draw < CUP_STATES["beside"] + CUP_STATES["lifting"]:
            cups.append(cup_for(layout, i, "lifting", rng, colour))
        else:
            cups.append(cup_for(layout, i, "aside", rng, colour))
    hands = [] if cut else [hand_near(layout, int(rng.integers(seats)), cam, rng,
                                      reach=float(rng.uniform(0.6, 1.0)), blur=0.0)
                            for _ in range(int(rng.random() < 0.3))]
    return seat_scene(cam, layout, dice, cups, hands, table=random_table(rng),
                      table_seed=seed, light=random_light(rng),
                      effects=random_effects(rng, mild=True), noise_seed=seed)


def cover_scene(seed: int, cut: bool = False) -> tuple[NDArray[np.uint8], dict[str, Any]]:
    """:func:`cover_reveal` rendered: (BGR frame, truth)."""
    scene = cover_reveal(seed, cut=cut)
    rendered = render_clean(scene)
    return finish(rendered, scene.effects, scene.noise_seed), dict(rendered.truth)


def cached_cover_scene(seed: int, folder: Path,
                       cut: bool = False) -> tuple[NDArray[np.uint8], dict[str, Any]]:
    """:func:`cover_scene`, rendered once into ``folder`` (a lossless PNG and its truth) and
    read back from there afterwards: a scene takes seconds to render."""
    image_path, truth_path = folder / f"{seed}.png", folder / f"{seed}.json"
    if image_path.exists() and truth_path.exists():
        stored = cv2.imread(str(image_path))
        if stored is not None:  # else a half-written file: render it again
            return np.asarray(stored, np.uint8), json.loads(truth_path.read_text())
    image, truth = cover_scene(seed, cut)
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(image_path), image)
    keep = {k: truth[k] for k in ("width", "height", "table", "dice")}
    truth_path.write_text(json.dumps(keep))
    return image, keep


def rendered_die(x: float, y: float, dice: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The rendered die (truth entry) a reading at (x, y) is of: the nearest whose centre
    lies within 0.6 of its size, if any."""
    near = min(dice, key=lambda t: np.hypot(t["x"] - x, t["y"] - y), default=None)
    if near is None or np.hypot(near["x"] - x, near["y"] - y) > 0.6 * near["size_px"]:
        return None
    return near


def write_manifest(folder: Path, seeds: range, cut: bool = False) -> Path:
    """Render (or read back) the scenes of ``seeds`` in ``folder`` (``cut``: as
    :func:`cover_reveal` says) and write their ``manifest.json`` there; its path."""
    entries = []
    for seed in seeds:
        _, truth = cached_cover_scene(seed, folder, cut)
        entries.append(entry_for(f"{seed}.png", truth))
    path = folder / "manifest.json"
    path.write_text(json.dumps(entries))
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--first", type=int, default=0,
                    help="the first seed (tools.bench.bench_cover_scenes reads from 50,000)")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--cut", action="store_true",
                    help="every cup set down over the edge of a die (keep these in a folder "
                    "of their own: a folder's scenes are known by seed)")
    args = ap.parse_args()
    path = write_manifest(args.out, range(args.first, args.first + args.count), args.cut)
    print(f"wrote {path} ({args.count} scenes)")


if __name__ == "__main__":
    main()
