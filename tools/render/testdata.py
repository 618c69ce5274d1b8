"""The committed test scenes in tests/data: each case is a named, seeded recipe.

`cases()` lists them; `build(case)` turns one into frames (usually one) and ground truth.
Regenerating a case from its name and seed gives the same ground truth, which
tests/render checks against the committed JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from tools.render.cover_scenes import cover_reveal
from tools.render.dice import Die
from tools.render.generate import (
    DIE_MM,
    cocked_against,
    random_camera,
    random_effects,
    random_light,
    random_table,
    scatter_dice,
    visible_region,
)
from tools.render.layout import seat_layout
from tools.render.renderer import Rendered, finish, render_clean
from tools.render.scene import Scene
from tools.render.table_scenes import (
    CUP_COLOURS,
    SeatDice,
    cock_one_die,
    cup_for,
    hand_near,
    layout_camera,
    place_table_dice,
    seat_scene,
)
from tools.render.textures import TABLE_KINDS

SINGLE_STYLES = ("white", "red", "green", "blue", "black", "white_red", "translucent_blue", "wood")


@dataclass(frozen=True)
class Case:
    name: str  # relative path without extension, e.g. "single/white_4"
    seed: int
    recipe: Callable[[np.random.Generator, int], list[Scene]]
    still_from: int | None = None  # sequences: index of the first still frame


@dataclass
class Frame:
    image: np.ndarray  # BGR uint8
    truth: dict[str, Any]


def _single(style: str, value: int) -> Callable[[np.random.Generator, int], list[Scene]]:
    def recipe(rng: np.random.Generator, seed: int) -> list[Scene]:
        cam = random_camera(rng, 320, 240, die_px=float(rng.uniform(60, 90)), tilt=(5, 22))
        die = Die.lying(value, float(rng.uniform(-6, 6)), float(rng.uniform(-6, 6)),
                        float(rng.uniform(0, 90)), DIE_MM, style)
        return [Scene(cam, random_light(rng), random_table(rng), seed, [die],
                      effects=random_effects(rng, mild=True), noise_seed=seed)]
    return recipe


def _mixed(table: str | None, *, count: int, die_px: float, touching: float,
           tilt: tuple[float, float] = (5, 25), width: int = 640, height: int = 480,
           styles: tuple[str, ...] = SINGLE_STYLES, jitter: float = 0.1,
           ) -> Callable[[np.random.Generator, int], list[Scene]]:
    def recipe(rng: np.random.Generator, seed: int) -> list[Scene]:
        cam = random_camera(rng, width, height, die_px=die_px, tilt=tilt)
        region = visible_region(cam, margin_px=1.2 * die_px)
        values = [int(v) for v in rng.integers(1, 7, count)]
        chosen = [str(s) for s in rng.choice(np.array(styles), size=min(3, len(styles)),
                                               replace=False)]
        dice = scatter_dice(rng, region, values, styles=chosen, touching=touching,
                            size_jitter=jitter)
        return [Scene(cam, random_light(rng), table or random_table(rng), seed, dice,
                      effects=random_effects(rng), noise_seed=seed)]
    return recipe


def _huge(rng: np.random.Generator, seed: int) -> list[Scene]:
    cam = random_camera(rng, 640, 480, die_px=330, tilt=(3, 10))
    die = Die.lying(int(rng.integers(2, 7)), 0.0, 0.0, float(rng.uniform(0, 90)), DIE_MM, "white")
    return [Scene(cam, random_light(rng, glare=0.1), "felt", seed, [die],
                  effects=random_effects(rng, mild=True),
                  noise_seed=seed, supersample=1)]


def _empty(table: str) -> Callable[[np.random.Generator, int], list[Scene]]:
    def recipe(rng: np.random.Generator, seed: int) -> list[Scene]:
        cam = random_camera(rng, 640, 480, die_px=40)
        return [Scene(cam, random_light(rng), table, seed, [], effects=random_effects(rng),
                      noise_seed=seed)]
    return recipe


def _cocked(rng: np.random.Generator, seed: int) -> list[Scene]:
    cam = random_camera(rng, 640, 480, die_px=60, tilt=(10, 20))
    yaw = float(rng.uniform(0, 90))
    anchor = Die.lying(int(rng.integers(1, 7)), 0.0, 0.0, yaw, DIE_MM, "white")
    leaning = cocked_against(rng, anchor, int(rng.integers(1, 7)), "white")
    region = visible_region(cam, margin_px=80)
    values = [int(v) for v in rng.integers(1, 7, 3)]
    extra = scatter_dice(rng, region, values, placed=[anchor, leaning], gap=6.0)
    return [Scene(cam, random_light(rng, glare=0.2), "felt", seed, [anchor, leaning, *extra],
                  effects=random_effects(rng, mild=True), noise_seed=seed)]


REVEAL_SEATS = {0: SeatDice([2, 5, 5, 1, 3], style="white"),
                1: SeatDice([6, 4, 4], [5, 5], style="red"),
                2: SeatDice([1, 1, 2, 6], style="blue")}


def _reveal(kind: str) -> Callable[[np.random.Generator, int], list[Scene]]:
    """A 3-seat reveal at 800x600: "ok", "count_mismatch" (seat 3 one die short) or
    "uncertain" (one die of seat 1 cocked against another)."""
    def recipe(rng: np.random.Generator, seed: int) -> list[Scene]:
        layout = seat_layout(3, radius=150.0)
        cam = layout_camera(800, 600, 150.0, tilt_deg=float(rng.uniform(6, 16)))
        seats = dict(REVEAL_SEATS)
        if kind == "count_mismatch":
            seats[2] = SeatDice([1, 1, 2], style="blue")
        dice = place_table_dice(rng, layout, seats)
        if kind == "uncertain":
            dice = cock_one_die(rng, dice, 0)
        cups = [cup_for(layout, i, "aside", rng, CUP_COLOURS[i]) for i in range(3)]
        scene = seat_scene(cam, layout, dice, cups, [], table=random_table(rng), table_seed=seed,
                           light=random_light(rng), effects=random_effects(rng, mild=True),
                           noise_seed=seed)
        expected = {layout.seats[i].name: len(REVEAL_SEATS[i].cup) + len(REVEAL_SEATS[i].set_aside)
                    for i in range(3)}
        scene.tags["expected_counts"] = expected
        scene.tags["kind"] = kind
        return [scene]
    return recipe


def _still_sequence(rng: np.random.Generator, seed: int) -> list[Scene]:
    """Three motion frames (cups lifting, hands moving) then five still frames."""
    layout = seat_layout(2, radius=150.0, first_angle_deg=180.0)
    cam = layout_camera(640, 480, 150.0, tilt_deg=10.0)
    seats = {0: SeatDice([3, 3, 6, 2], style="white"), 1: SeatDice([5, 1, 4], [4], style="green")}
    dice = place_table_dice(rng, layout, seats)
    light, table = random_light(rng, glare=0.2), "wood"
    effects = random_effects(rng, mild=True)
    scenes = []
    states = [("covering", 0.9, 6.0), ("lifting", 0.7, 25.0), ("aside", 0.25, 30.0)]
    for k, (state, reach, blur) in enumerate(states):
        cups = [cup_for(layout, i, state, np.random.default_rng(seed + 7 * k + i), CUP_COLOURS[i])
                for i in range(2)]
        hands = [hand_near(layout, i, cam, np.random.default_rng(seed + 11 * k + i), reach=reach,
                           blur=blur) for i in range(2)]
        scenes.append(seat_scene(cam, layout, dice, cups, hands, table=table, table_seed=seed,
                                 light=light, effects=effects, noise_seed=seed + k))
    still_cups = [cup_for(layout, i, "aside", np.random.default_rng(seed + 99 + i), CUP_COLOURS[i])
                  for i in range(2)]
    for k in range(5):
        scenes.append(seat_scene(cam, layout, dice, still_cups, [], table=table, table_seed=seed,
                                 light=light, effects=effects, noise_seed=seed + 100 + k))
    return scenes


def cases() -> list[Case]:
    out: list[Case] = []
    seed = 1000
    for style in SINGLE_STYLES:
        for value in range(1, 7):
            seed += 1
            out.append(Case(f"single/{style}_{value}", seed, _single(style, value)))
    for k in range(3):
        out.append(Case(f"touching/touching_{k + 1}", 2000 + k,
                        _mixed(None, count=7, die_px=48, touching=0.9)))
    for k in range(2):
        out.append(Case(f"oblique/oblique_{k + 1}", 2100 + k,
                        _mixed(None, count=6, die_px=55, touching=0.3, tilt=(38, 48))))
    out.append(Case("sizes/tiny_dice", 2200, _mixed("felt", count=14, die_px=16, touching=0.2,
                                                   tilt=(3, 12), jitter=0.0)))
    out.append(Case("sizes/huge_die", 2201, _huge))
    # 12-px dice on a printed board: the detector's first read misses some (the closer look)
    out.append(Case("sizes/tiny_board", 2203, _mixed("board", count=10, die_px=12, touching=0.2,
                                                    tilt=(3, 15), jitter=0.0)))
    for k, table in enumerate(TABLE_KINDS):
        out.append(Case(f"tables/{table}", 2300 + k, _mixed(table, count=8, die_px=40,
                                                            touching=0.3)))
    for k, table in enumerate(("wood", "felt", "board")):
        out.append(Case(f"empty/{table}", 2400 + k, _empty(table)))
    out.append(Case("uncertain/cocked_die", 2500, _cocked))
    for k, kind in enumerate(("ok", "count_mismatch", "uncertain")):
        out.append(Case(f"reveal/{kind}", 2600 + k, _reveal(kind)))
    out.append(Case("sequences/still_after_motion", 2700, _still_sequence, still_from=3))
    # cups beside and over the dice (the cover check): scenes of tools.bench.bench_cover_scenes
    for name, seed in (("cup_over_dice", 50084), ("cups_beside_dice", 50158)):
        out.append(Case(f"reveal/{name}", seed, lambda rng, seed: [cover_reveal(seed)]))
    return out


def build(case: Case) -> Iterator[Frame]:
    """Render a case's frames (clean renders are reused between frames of one still scene)."""
    rng = np.random.default_rng(case.seed)
    scenes = case.recipe(rng, case.seed)
    cache: dict[int, Rendered] = {}
    for scene in scenes:
        key = _scene_key(scene)
        if key not in cache:
            cache[key] = render_clean(scene)
        rendered = cache[key]
        image = finish(rendered, scene.effects, scene.noise_seed)
        truth = dict(rendered.truth)
        truth.update({"case": case.name, "seed": case.seed})
        yield Frame(image, truth)


def _scene_key(scene: Scene) -> int:
    """Identity of the rendered content (everything but the sensor noise seed)."""
    return hash((id(scene.camera), tuple(id(d) for d in scene.dice),
                 tuple(id(c) for c in scene.cups), tuple(scene.hands), scene.table,
                 scene.table_seed, scene.light))
