"""Seated-game scenes: dice rolled under each seat's cup, set-aside dice in front of cups,
cups covering, lifting or put aside, and hands coming and going.

Used by both the reveal test scenes and the demo recording, so the two look alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from tools.render.camera import Camera
from tools.render.dice import Die
from tools.render.generate import DIE_MM, cocked_against, scatter_dice
from tools.render.layout import Layout
from tools.render.props import Cup, Hand
from tools.render.scene import Effects, Light, Scene

CUP_COLOURS = [(40, 52, 92), (30, 30, 34), (36, 36, 140), (70, 90, 60)]


def layout_camera(width: int, height: int, radius: float, *, tilt_deg: float = 12.0,
                  hfov_deg: float = 58.0, azimuth_deg: float = -90.0, roll_deg: float = 0.0,
                  margin: float = 1.3) -> Camera:
    """A camera that fits the round table of `radius` mm into the frame's height."""
    focal = (width / 2.0) / np.tan(np.radians(hfov_deg) / 2.0)
    distance = margin * radius * focal / (height / 2.0)
    return Camera.looking_at(width, height, target=(0.0, 0.0), distance=float(distance),
                             tilt_deg=tilt_deg, azimuth_deg=azimuth_deg, roll_deg=roll_deg,
                             hfov_deg=hfov_deg)


@dataclass
class SeatDice:
    """One seat's dice: `cup` values lie where the cup was, `set_aside` in front of it."""

    cup: list[int]
    set_aside: list[int] = field(default_factory=list)
    style: str = "white"


def place_table_dice(
    rng: np.random.Generator,
    layout: Layout,
    seats: Mapping[int, SeatDice],
    *,
    size: float = DIE_MM,
    cup_radius: float = 52.0,
) -> list[Die]:
    """Dice for every seat, tagged with their seat index and area ("zone" or "front")."""
    dice: list[Die] = []
    for index, seat_dice in seats.items():
        area = layout.seats[index]
        spot = area.cup_spot
        reach = min(cup_radius - 0.45 * size, 0.26 * float(np.linalg.norm(spot)) / 0.72)
        disc = np.array([spot + reach * np.array([np.cos(a), np.sin(a)])
                         for a in np.linspace(0, 2 * np.pi, 24, endpoint=False)])
        rolled = scatter_dice(rng, disc, seat_dice.cup, size=size, styles=[seat_dice.style],
                              placed=dice, touching=0.5, gap=1.0)
        for d in rolled:
            d.tags.update(seat_index=index, placed_in="zone")
        dice += rolled
        if seat_dice.set_aside:
            aside = scatter_dice(rng, area.front, seat_dice.set_aside, size=size,
                                 styles=[seat_dice.style], placed=dice, gap=3.0)
            for d in aside:
                d.tags.update(seat_index=index, placed_in="front", set_aside=True)
            dice += aside
    return dice


def cock_one_die(rng: np.random.Generator, dice: list[Die], seat: int, *,
                 tilt_deg: float = 28.0) -> list[Die]:
    """Replace one die of `seat`'s cup dice by a die leaning against another of them."""
    own = [i for i, d in enumerate(dice) if d.tags.get("seat_index") == seat
           and d.tags.get("placed_in") == "zone"]
    if len(own) < 2:
        raise ValueError("cocking a die needs two dice in the seat's zone")
    victim, anchor = own[0], own[1]
    others = [d for i, d in enumerate(dice) if i not in (victim, anchor)]
    for _ in range(30):
        cocked = cocked_against(rng, dice[anchor], dice[victim].value, dice[victim].style,
                                tilt_deg)
        from tools.render.generate import _fits, _footprint

        if _fits(_footprint(cocked), others, 0.5):
            cocked.tags.update(dice[victim].tags)
            cocked.tags["cocked"] = True
            out = list(dice)
            out[victim] = cocked
            return out
    raise ValueError("no room to cock a die")


def cup_for(layout: Layout, seat: int, state: str, rng: np.random.Generator,
            colour: tuple[int, int, int]) -> Cup:
    """A seat's cup: "covering" its dice, "lifting" above them, or "aside" out of the way."""
    area = layout.seats[seat]
    out = np.array([np.cos(np.radians(area.angle_deg)), np.sin(np.radians(area.angle_deg))])
    spot = area.cup_spot
    if state == "covering":
        return Cup(np.array([spot[0], spot[1], 0.0]), colour=colour)
    if state == "lifting":
        lift = float(rng.uniform(50, 90))
        pos = spot + out * rng.uniform(10, 30)
        return Cup(np.array([pos[0], pos[1], lift]), tilt_deg=float(rng.uniform(15, 35)),
                   tilt_axis_deg=area.angle_deg + 90, colour=colour)
    if state == "aside":
        side = np.array([-out[1], out[0]]) * rng.choice([-1, 1])
        radius = float(np.linalg.norm(spot)) / 0.72
        pos = out * radius * 1.12 + side * rng.uniform(40, 80)
        return Cup(np.array([pos[0], pos[1], 0.0]), colour=colour)
    raise ValueError(f"unknown cup state {state!r}")


def hand_near(layout: Layout, seat: int, cam: Camera, rng: np.random.Generator, *,
              reach: float, blur: float) -> Hand:
    """A hand coming from the seat's side of the table; `reach` 0 (at the edge) .. 1 (cup)."""
    area = layout.seats[seat]
    out = np.array([np.cos(np.radians(area.angle_deg)), np.sin(np.radians(area.angle_deg))])
    radius = float(np.linalg.norm(area.cup_spot)) / 0.72
    point = out * radius * (1.35 - 0.55 * reach)
    p = cam.project(np.array([point[0], point[1], 60.0]))
    inward = cam.project(np.array([0.0, 0.0, 60.0])) - p
    angle = float(np.degrees(np.arctan2(inward[1], inward[0]))) + float(rng.uniform(-15, 15))
    return Hand(u=float(p[0] / cam.width), v=float(p[1] / cam.height), angle_deg=angle,
                scale=float(rng.uniform(0.16, 0.2)), blur=blur,
                skin=skin_tone(rng))


def skin_tone(rng: np.random.Generator) -> tuple[int, int, int]:
    """A BGR skin colour from light to dark (R > G > B, as in real skin)."""
    red = float(rng.uniform(110, 230))
    return int(red * rng.uniform(0.55, 0.68)), int(red * rng.uniform(0.72, 0.82)), int(red)


def seat_scene(
    cam: Camera, layout: Layout, dice: Sequence[Die], cups: Sequence[Cup], hands: Sequence[Hand],
    *, table: str, table_seed: int, light: Light, effects: Effects, noise_seed: int,
    supersample: int = 2,
) -> Scene:
    return Scene(cam, light, table, table_seed, list(dice), list(cups), list(hands), effects,
                 noise_seed, supersample, layout)
