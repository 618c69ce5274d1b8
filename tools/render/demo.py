"""The recorded demo game: a complete 3-player Bluff game whose reveals were "filmed".

The game is written here as data (each round's dice, bids, re-rolls and challenge), checked
by hand against ../shared/RULES.md. From it come `game.json` (the replay script), one frame
folder per reveal and per re-roll, `manifest.json` (action index -> frames + ground truth),
and calibration/demo.toml (the seat zones of the camera that "filmed" it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tools.render.camera import Camera
from tools.render.dice import Die
from tools.render.layout import Layout, seat_layout
from tools.render.output import write_jpeg, write_json
from tools.render.renderer import Rendered, finish, render_clean
from tools.render.scene import Effects, Light, Scene
from tools.render.table_scenes import (
    SeatDice,
    cock_one_die,
    cup_for,
    hand_near,
    layout_camera,
    place_table_dice,
    seat_scene,
)

PLAYERS = ("Ann", "Ben", "Cho")
STYLES = {"Ann": "white", "Ben": "red", "Cho": "blue"}
CUPS = {"Ann": (40, 52, 92), "Ben": (30, 30, 34), "Cho": (60, 80, 40)}
WIDTH, HEIGHT = 1280, 960
RADIUS = 160.0
SEED = 4242
STILL_FRAMES = 4


@dataclass(frozen=True)
class Bid:
    player: str
    bid: str
    set_aside: tuple[int, ...] = ()
    rerolled: tuple[int, ...] = ()  # what the re-rolled cup dice came up as


@dataclass(frozen=True)
class Round:
    """Dice as rolled at the start of the round, the bids, and who challenged."""

    dice: dict[str, tuple[int, ...]]
    bids: tuple[Bid, ...]
    challenger: str
    cocked: str | None = None  # this player's first cup die leans on their second
    note: str = ""
    revealed: dict[str, dict[str, list[int]]] = field(default_factory=dict)


# The game, round by round (A = matching dice, N = bid count; joker_face 1):
#  1 Ann 7x4, Ben doubts: A=6 < 7, Ann loses 1 (B11). Ben starts.        Ann 4 Ben 5 Cho 5
#  2 Ann re-rolls (5, 1 aside); Ben 6x5, Cho doubts: A=6 exact, Ann and Cho lose 1 (B13).
#    Ben starts.                                                          Ann 3 Ben 5 Cho 4
#  3 Ben re-rolls (6, 6, 1 aside) to 6x6, Cho doubts: A=5 < 6, Ben loses 1. Cho starts.
#                                                                         Ann 3 Ben 4 Cho 4
#  4 Ben 3*, Cho doubts: two jokers < 3, Ben loses 1. Cho starts.        Ann 3 Ben 3 Cho 4
#    (Ann's 1 lies cocked against her 5: the hard reveal.)
#  5 Cho jumps 5x3 -> 7x3, Ann doubts: A=5, Cho loses 2. Ann starts.     Ann 3 Ben 3 Cho 2
#  6 Ben 2* after 3x4, Cho 4x4, Ann doubts: A=4 exact, Ann and Ben lose 1. Cho starts.
#                                                                         Ann 2 Ben 2 Cho 2
#  7 Ann re-rolls (2 aside) to 3x2; Cho 4x6, Ann doubts: A=4 exact, Ann and Ben lose 1.
#    Cho starts.                                                          Ann 1 Ben 1 Cho 2
#  8 Cho 2x5, Ann doubts: A=2 exact, Ann and Ben lose their last die. Cho wins (B16).
ROUNDS: tuple[Round, ...] = (
    Round({"Ann": (2, 4, 4, 1, 6), "Ben": (3, 4, 5, 5, 2), "Cho": (4, 6, 6, 1, 3)},
          (Bid("Ann", "3x4"), Bid("Ben", "4x5"), Bid("Cho", "5x6"), Bid("Ann", "7x4")), "Ben"),
    Round({"Ann": (5, 1, 3, 3), "Ben": (5, 5, 2, 6, 3), "Cho": (1, 4, 4, 2, 6)},
          (Bid("Ben", "3x5"), Bid("Cho", "4x5"), Bid("Ann", "5x5", (5, 1), (2, 5)),
           Bid("Ben", "6x5")), "Cho"),
    Round({"Ann": (4, 2, 3), "Ben": (6, 6, 3, 1, 2), "Cho": (6, 5, 5, 3)},
          (Bid("Ben", "3x6"), Bid("Cho", "4x6"), Bid("Ann", "5x6"),
           Bid("Ben", "6x6", (6, 6, 1), (6, 4))), "Cho"),
    Round({"Ann": (1, 5, 2), "Ben": (3, 2, 6, 6), "Cho": (2, 2, 4, 1)},
          (Bid("Cho", "3x2"), Bid("Ann", "4x2"), Bid("Ben", "3*")), "Cho", cocked="Ann",
          note="hard: Ann's 1 lies cocked against her 5, so the reader should ask for review"),
    Round({"Ann": (3, 4, 4), "Ben": (1, 3, 5), "Cho": (5, 3, 3, 6)},
          (Bid("Cho", "3x3"), Bid("Ann", "4x3"), Bid("Ben", "5x3"), Bid("Cho", "7x3")), "Ann"),
    Round({"Ann": (4, 4, 2), "Ben": (6, 1, 5), "Cho": (4, 3)},
          (Bid("Ann", "3x4"), Bid("Ben", "2*"), Bid("Cho", "4x4")), "Ann"),
    Round({"Ann": (2, 3), "Ben": (6, 5), "Cho": (6, 6)},
          (Bid("Cho", "2x6"), Bid("Ann", "3x2", (2,), (1,)), Bid("Ben", "3x6"),
           Bid("Cho", "4x6")), "Ann"),
    Round({"Ann": (5,), "Ben": (2,), "Cho": (3, 5)}, (Bid("Cho", "2x5"),), "Ann"),
)


def final_hands(rnd: Round) -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Per player: (dice set aside in front of the cup, dice under the cup) at the reveal."""
    hands: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
        p: ((), tuple(d)) for p, d in rnd.dice.items()}
    for bid in rnd.bids:
        if not bid.set_aside:
            continue
        aside, cup = hands[bid.player]
        remaining = list(cup)
        for face in bid.set_aside:
            remaining.remove(face)  # the faces set aside must come from the cup
        if len(bid.rerolled) != len(remaining):
            raise ValueError(f"{bid.player} re-rolls {len(remaining)} dice, not "
                             f"{len(bid.rerolled)}")
        hands[bid.player] = (aside + bid.set_aside, bid.rerolled)
    return hands


def reveal_of(rnd: Round) -> dict[str, list[int]]:
    """The reveal action's dice per player: set-aside faces first, then the cup's."""
    return {p: [*aside, *cup] for p, (aside, cup) in final_hands(rnd).items()}


def game_script() -> dict[str, Any]:
    actions: list[dict[str, Any]] = []
    for rnd in ROUNDS:
        for bid in rnd.bids:
            action: dict[str, Any] = {"player": bid.player, "bid": bid.bid}
            if bid.set_aside:
                action["set_aside"] = list(bid.set_aside)
            actions.append(action)
        actions.append({"player": rnd.challenger, "challenge": True})
        actions.append({"reveal": reveal_of(rnd)})
    return {"game": "bluff", "players": list(PLAYERS), "starter": "Ann",
            "options": {"dice_per_player": 5, "joker_face": 1}, "actions": actions}


# -- rendering -------------------------------------------------------------------------------
@dataclass
class Table:
    camera: Camera
    layout: Layout
    light: Light
    effects: Effects
    table: str = "wood"


def demo_table() -> Table:
    layout = seat_layout(3, radius=RADIUS, names=[f"Seat {i + 1}" for i in range(3)])
    camera = layout_camera(WIDTH, HEIGHT, RADIUS, tilt_deg=14.0, hfov_deg=60.0, roll_deg=1.5)
    light = Light(azimuth_deg=125.0, elevation_deg=58.0, intensity=1.0, ambient=0.36,
                  softness=0.18, tint=(0.96, 1.0, 1.05), falloff=0.22, glare=0.3)
    return Table(camera, layout, light, Effects(defocus=0.5, noise=1.6, vignette=0.18))


def _round_dice(rnd: Round, number: int, table: Table) -> list[Die]:
    """Every die of the round as it lies at the reveal, tagged with its player."""
    rng = np.random.default_rng(SEED + 100 * number)
    seats = {}
    for player, (aside, cup) in final_hands(rnd).items():
        seats[PLAYERS.index(player)] = SeatDice(list(cup), list(aside), style=STYLES[player])
    dice = place_table_dice(rng, table.layout, seats)
    if rnd.cocked is not None:
        dice = cock_one_die(np.random.default_rng(SEED + 100 * number + 1), dice,
                            PLAYERS.index(rnd.cocked), tilt_deg=33.0)
    for die in dice:
        die.tags["player"] = PLAYERS[int(die.tags["seat_index"])]  # type: ignore[call-overload]
    return dice


def _scene(table: Table, dice: list[Die], cup_state: dict[str, str], hands: list[Any],
           number: int, noise_seed: int) -> Scene:
    cups = [cup_for(table.layout, PLAYERS.index(p), state, np.random.default_rng(
        SEED + 100 * number + 10 + PLAYERS.index(p)), CUPS[p]) for p, state in cup_state.items()]
    return seat_scene(table.camera, table.layout, dice, cups, hands, table=table.table,
                      table_seed=SEED, light=table.light, effects=table.effects,
                      noise_seed=noise_seed)


def _hands(table: Table, players: list[str], number: int, step: int, *, reach: float,
           blur: float) -> list[Any]:
    return [hand_near(table.layout, PLAYERS.index(p), table.camera,
                      np.random.default_rng(SEED + 1000 * number + 10 * step + PLAYERS.index(p)),
                      reach=reach, blur=blur) for p in players]


def _write_frames(folder: Path, shots: list[tuple[Scene, int]]) -> list[dict[str, Any]]:
    """Render each (scene, how many frames of it) once and write its frames with fresh noise."""
    truths = []
    k = 0
    for scene, count in shots:
        rendered: Rendered = render_clean(scene)
        for _ in range(count):
            image = finish(rendered, scene.effects, scene.noise_seed + 7919 * k)
            k += 1
            name = f"{k:04d}.jpg"
            write_jpeg(folder / name, image)
            truth = dict(rendered.truth)
            truth.pop("camera", None)
            truth.pop("layout", None)  # the layout is in manifest.json once
            truths.append({"image": name, **truth})
    return truths


def _dice_truth(truth: dict[str, Any]) -> list[dict[str, Any]]:
    keep = ("player", "value", "x", "y", "outline", "size_px", "seat", "area", "set_aside",
            "uncertain", "cocked", "visible", "touching")
    return [{k: d[k] for k in keep if k in d} for d in truth["dice"]]


def write_demo(out: Path, *, calibration: Path) -> None:
    """Render every frame and write game.json, manifest.json and the calibration profile."""
    from tools.render.profile import write_profile

    table = demo_table()
    script = game_script()
    write_json(out / "game.json", script)
    reveals: list[dict[str, Any]] = []
    rerolls: list[dict[str, Any]] = []
    index = 0
    for number, rnd in enumerate(ROUNDS, start=1):
        alive = list(rnd.dice)
        all_dice = _round_dice(rnd, number, table)
        rerolled: set[str] = set()
        for bid in rnd.bids:
            if bid.set_aside:
                rerolled.add(bid.player)
                name = f"frames/r{number:02d}a_reroll_{bid.player.lower()}"
                aside = [d for d in all_dice
                         if d.tags.get("placed_in") == "front" and d.tags["player"] in rerolled]
                covering = {p: "covering" for p in alive}
                hand = _hands(table, [bid.player], number, 0, reach=0.5, blur=22)
                shots = [(_scene(table, aside, covering, hand, number, SEED + 10 * number), 1),
                         (_scene(table, aside, covering, [], number, SEED + 10 * number + 1), 2)]
                truths = _write_frames(out / name, shots)
                write_json(out / name / "truth.json", {"still_from": 1, "frames": truths})
                mine = [d for d in _dice_truth(truths[-1]) if d["player"] == bid.player]
                rerolls.append({"action_index": index, "round": number, "player": bid.player,
                                "frames": name, "still_from": 1,
                                "set_aside": list(bid.set_aside), "dice": mine})
            index += 1
        index += 1  # the challenge
        name = f"frames/r{number:02d}b_reveal"
        lifted = {p: "aside" for p in alive}
        shots = [
            (_scene(table, all_dice, {p: "covering" for p in alive},
                    _hands(table, alive, number, 1, reach=0.9, blur=8), number, SEED + 7), 1),
            (_scene(table, all_dice, {p: "lifting" for p in alive},
                    _hands(table, alive, number, 2, reach=0.75, blur=28), number, SEED + 8), 1),
            (_scene(table, all_dice, lifted,
                    _hands(table, alive[:2], number, 3, reach=0.25, blur=35), number, SEED + 9), 1),
            (_scene(table, all_dice, lifted, [], number, SEED + 20 * number), STILL_FRAMES),
        ]
        truths = _write_frames(out / name, shots)
        still_from = len(truths) - STILL_FRAMES
        write_json(out / name / "truth.json", {"still_from": still_from, "frames": truths})
        reveals.append({
            "action_index": index, "round": number, "frames": name, "still_from": still_from,
            "truth": reveal_of(rnd),
            "set_aside": {p: list(a) for p, (a, _) in final_hands(rnd).items() if a},
            "hard": rnd.cocked is not None, "note": rnd.note,
            "dice": _dice_truth(truths[-1]),
        })
        index += 1
    layout_px = table.layout.to_image(table.camera)
    write_json(out / "manifest.json", {
        "about": "synthetic frames rendered by tools/render (python -m tools.render demo); "
                 "see README.md here and docs/recordings.md",
        "game": "game.json", "calibration": str(calibration), "resolution": [WIDTH, HEIGHT],
        "players": {p: {"seat": PLAYERS.index(p), "dice": STYLES[p]} for p in PLAYERS},
        "layout": layout_px, "reveals": reveals, "rerolls": rerolls,
    })
    write_profile(calibration, layout_px, frames=out / "frames", resolution=(WIDTH, HEIGHT))
