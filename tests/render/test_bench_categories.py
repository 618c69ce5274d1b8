"""The per-category scoring of tools/bench/bench_categories on a hand-made scene and reading."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from tools.bench.common import categories, score_scene, view_tilt_deg
from vision.types import Die, Reading

CAMERA_DOWN = {"rotation": [[1, 0, 0], [0, -1, 0], [0, 0, -1]]}


def _truth_die(value: int, x: float, y: float, **extra: object) -> dict[str, object]:
    die = {"value": value, "x": x, "y": y, "size_px": 30.0, "style": "red", "visible": 1.0,
           "uncertain": False, "touching": False}
    die.update(extra)
    return die


def _die(value: int, x: float, y: float, confidence: float) -> Die:
    return Die(value, x, y, confidence, np.zeros((4, 2)))


def test_scores_found_right_sure_wrong_and_false_dice() -> None:
    truth = {"width": 640, "height": 480, "table": "felt", "camera": CAMERA_DOWN, "dice": [
        _truth_die(3, 100, 100),
        _truth_die(5, 300, 100, touching=True),
        _truth_die(2, 500, 100),  # missed
        _truth_die(6, 100, 300, uncertain=True),  # leaning: not scored, not a false die
    ]}
    reading = Reading(dice=(
        _die(3, 102, 98, 0.9),  # right
        _die(6, 301, 101, 0.8),  # sure and wrong
        _die(6, 100, 302, 0.3),  # on the leaning die
        _die(4, 400, 400, 0.7),  # nowhere near a die
    ), width=640, height=480, min_confidence=0.6)
    tally: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    false_dice = score_scene(reading, truth, tally)
    assert false_dice == 1
    assert tally["all"] == [3, 2, 1, 1]
    assert tally["touching"] == [1, 1, 0, 1]
    assert tally["apart"] == [2, 1, 1, 0]
    assert tally["table felt"] == [3, 2, 1, 1]


def test_categories_name_size_style_table_tilt_and_touching() -> None:
    tilted = {"rotation": [[1, 0, 0], [0, -0.866, -0.5], [0, 0.5, -0.866]]}
    truth = {"table": "wood", "camera": tilted}
    assert round(view_tilt_deg(truth)) == 30
    names = categories(_truth_die(4, 0, 0, size_px=150.0, touching=True), truth)
    assert names == ["all", "size 120+ px", "style red", "table wood", "view tilt 30+",
                     "touching"]
    assert round(view_tilt_deg({"camera": CAMERA_DOWN})) == 0


def test_touching_dice_score_the_same_in_any_listed_order() -> None:
    # one prediction, within half a die of both dice but nearer the second: listed first,
    # the first die must not take it (and be scored wrong) while the second goes unfound
    first, second = _truth_die(2, 100, 100), _truth_die(4, 120, 100)
    reading = Reading(dice=(_die(4, 111, 100, 0.9),), width=640, height=480,
                      min_confidence=0.6)
    for dice in ([first, second], [second, first]):
        truth = {"width": 640, "height": 480, "table": "felt", "camera": CAMERA_DOWN,
                 "dice": dice}
        tally: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        assert score_scene(reading, truth, tally) == 0
        assert tally["all"] == [2, 1, 1, 0]
