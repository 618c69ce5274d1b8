"""A die cut by the frame's edge, or one die read twice, goes to review: never a sure count
(``vision.dice.doubts``)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import ReaderParams, read_dice
from vision.dice import doubts
from vision.dice.detected import square_outline
from vision.dice.doubts import cut_by_edge, doubt_cut_and_twice, proposed_twice
from vision.types import Die, Reading

WOOD = Path(__file__).resolve().parents[1] / "data" / "tables" / "dark_wood.json"


def die(x: float, y: float, size: float = 40.0, confidence: float = 0.95) -> Die:
    return Die(4, x, y, confidence, square_outline(x, y, size), extent=size)


def test_a_die_cut_by_the_edge_is_doubted_and_one_inside_is_not() -> None:
    inside, cut = die(100.0, 100.0), die(8.0, 100.0)  # a quarter of 40 px is 10 px
    assert not cut_by_edge(inside, 640, 480) and cut_by_edge(cut, 640, 480)
    assert cut_by_edge(die(300.0, 475.0), 640, 480)  # the bottom edge too
    reading = doubt_cut_and_twice(Reading((inside, cut), 640, 480))
    assert reading.sure == (inside,)
    assert reading.dice[1].confidence < reading.min_confidence


def test_one_die_read_twice_is_doubted_and_touching_dice_are_not() -> None:
    top, side = die(200.0, 200.0), die(200.0, 218.0)  # 18 px apart: under half a die
    touching = (die(300.0, 200.0), die(340.0, 200.0))  # a whole die apart
    assert proposed_twice((top, side, *touching)) == {0, 1}
    reading = doubt_cut_and_twice(Reading((top, side, *touching), 640, 480))
    assert reading.sure == touching


def test_doubted_dice_keep_their_values_and_unsure_dice_stay_unsure() -> None:
    unsure = die(5.0, 5.0, confidence=0.3)
    reading = doubt_cut_and_twice(Reading((unsure,), 640, 480))
    assert reading.dice == (unsure,) and reading.dice[0].confidence == 0.3


@pytest.mark.parametrize("inside", [0.0, 0.15])
def test_a_rendered_die_cut_by_the_frame_is_never_read_sure(
        monkeypatch: pytest.MonkeyPatch, inside: float) -> None:
    if not WOOD.is_file():
        pytest.skip(f"rendered test data not found: {WOOD} (python -m tools.render testdata)")
    truth = json.loads(WOOD.read_text())
    image = cv2.imread(str(WOOD.with_suffix(".jpg")))
    six = truth["dice"][3]
    assert six["value"] == 6
    # the frame's right edge moved to the die's centre (or a little past it)
    cut = np.ascontiguousarray(image[:, :round(six["x"] + inside * six["size_px"])])

    def near(reading: Reading) -> list[Die]:
        return [d for d in reading.dice
                if np.hypot(d.x - six["x"], d.y - six["y"]) < six["size_px"]]

    read = near(read_dice(cut, ReaderParams()))
    assert read and all(d.confidence < 0.6 for d in read), read
    monkeypatch.setattr(doubts, "EDGE_CUT", 0.0)  # without the check: a sure 3
    assert [(d.value, d.confidence >= 0.6) for d in near(read_dice(cut, ReaderParams()))] \
        == [(3, True)]
