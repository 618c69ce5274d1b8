"""The rendered reveals the cover check trains and is measured on (`tools.render.cover_scenes`)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tools.render.cover_scenes import (
    CUT_REACH_MM,
    cover_reveal,
    cup_beside,
    rendered_die,
    write_manifest,
)
from tools.render.generate import DIE_MM
from tools.render.layout import seat_layout
from tools.render.table_scenes import SeatDice, place_table_dice


@pytest.mark.parametrize("gap", [0.0, 5.0])
def test_a_cup_set_down_beside_the_dice_clears_each_by_the_gap(gap: float) -> None:
    rng = np.random.default_rng(3)
    layout = seat_layout(3, radius=150.0)
    dice = place_table_dice(rng, layout, {i: SeatDice([1, 2, 3, 4]) for i in range(3)})
    for seat in range(3):
        cup = cup_beside(layout, seat, dice, rng, (40, 52, 92), gap)
        assert cup.tilt_deg == 0 and cup.base[2] == 0
        rim_to_centre = min(float(np.hypot(*(d.centre[:2] - cup.base[:2]))) for d in dice)
        # the rim clears each die's centre by its half diagonal (0.7 of a side) and the gap,
        # to within the one-millimetre step the cup is moved by
        assert cup.r_wide + 0.7 * DIE_MM + gap <= rim_to_centre <= \
            cup.r_wide + 0.7 * DIE_MM + gap + 1.0


def test_scenes_differ_by_seed_and_repeat_by_seed() -> None:
    a, b = cover_reveal(1), cover_reveal(1)
    assert [d.value for d in a.dice] == [d.value for d in b.dice]
    assert [c.base.tolist() for c in a.cups] == [c.base.tolist() for c in b.cups]
    assert [c.base.tolist() for c in cover_reveal(2).cups] != [c.base.tolist() for c in a.cups]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_cut_scene_sets_every_cup_down_over_the_edge_of_a_die(seed: int) -> None:
    scene = cover_reveal(seed, cut=True)
    assert scene.hands == [] and scene.cups
    low, high = CUT_REACH_MM
    for cup in scene.cups:
        nearest = min(float(np.hypot(*(d.centre[:2] - cup.base[:2]))) for d in scene.dice)
        # the rim lies past the clearance that would keep it off every die (the corners'
        # half diagonal), by the reach drawn, to within the one-millimetre step
        assert cup.r_wide + 0.7 * DIE_MM - high <= nearest <= cup.r_wide + 0.7 * DIE_MM - low + 1
        assert nearest < cup.r_wide + 0.7 * DIE_MM  # within a die's corner: the rim is over it
    plain = cover_reveal(seed)
    assert [d.value for d in plain.dice] == [d.value for d in scene.dice]


def test_a_reading_is_matched_to_the_nearest_rendered_die_within_reach() -> None:
    dice = [{"x": 100.0, "y": 100.0, "size_px": 30.0}, {"x": 140.0, "y": 100.0, "size_px": 30.0}]
    assert rendered_die(125.0, 100.0, dice) is dice[1]
    assert rendered_die(100.0, 117.0, dice) is dice[0]
    assert rendered_die(100.0, 119.0, dice) is None  # over 0.6 of a die from any centre
    assert rendered_die(0.0, 0.0, []) is None


def _die(value: int, x: float, visible: float) -> dict[str, object]:
    return {"value": value, "x": x, "y": 50.0, "size_px": 20.0, "visible": visible,
            "uncertain": visible < 0.7,
            "outline": [[x - 10, 40.0], [x + 10, 40.0], [x + 10, 60.0], [x - 10, 60.0]]}


def test_the_manifest_names_each_scene_and_leaves_dice_a_cup_hides_to_no_one(
        tmp_path: Path) -> None:
    # a scene already rendered into the folder is read back, not rendered again
    cv2.imwrite(str(tmp_path / "7.png"), np.zeros((100, 200, 3), np.uint8))
    truth = {"width": 200, "height": 100, "table": "felt",
             "dice": [_die(5, 30.0, 0.82), _die(6, 90.0, 0.53), _die(2, 150.0, 0.2)]}
    (tmp_path / "7.json").write_text(json.dumps(truth))
    path = write_manifest(tmp_path, range(7, 8))
    [entry] = json.loads(path.read_text())
    assert entry["image"] == "7.png" and entry["source"] == "render"
    # the 82% die is a value to learn; the 53% one, which the renderer calls uncertain (under
    # 70% in sight), is not; the 20% one is left out
    assert [(d["value"], d["ignore"]) for d in entry["dice"]] == [(5, False), (6, True)]
    assert entry["dice"][0]["box"] == [20.0, 40.0, 20.0, 20.0]
