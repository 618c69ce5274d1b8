"""tools.bench_misses: each die not read right lands in the category of the last stage that
saw it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tools.bench_misses import box_heat, loss_category, photo_losses
from vision import ReaderParams, load_image
from vision.bench import Entry, LabelledDie

BOX = (100.0, 100.0, 40.0, 40.0)
PARAMS = ReaderParams()
DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize(("predicted", "other", "heat", "expected"), [
    (4, False, 0.9, None),
    (2, False, 0.9, "wrong value"),
    (None, True, 0.9, "shares a neighbour's prediction"),
    (None, False, 0.5, "dropped after a strong peak"),
    (None, False, 0.3, "faint peak turned down"),
    (None, False, 0.15, "weak peak"),
    (None, False, 0.02, "not seen"),
])
def test_a_die_falls_in_the_category_of_the_last_stage_that_saw_it(
        predicted: int | None, other: bool, heat: float, expected: str | None) -> None:
    assert loss_category(predicted, other, heat, PARAMS, 4) == expected


def test_box_heat_is_the_highest_heat_over_the_box_only() -> None:
    heat = np.zeros((120, 160), np.float32)  # a map at a quarter of a 480x640 frame
    heat[30, 30] = 0.7  # over the box (pixels 100-140 at scale 1: cells 25-35)
    assert box_heat(heat, 1.0, BOX) == pytest.approx(0.7)
    heat[30, 30] = 0.0
    heat[100, 150] = 0.9  # far from it
    assert box_heat(heat, 1.0, BOX) == 0.0


def test_on_a_committed_render_every_miss_is_counted_once() -> None:
    truth = json.loads((DATA / "touching" / "touching_1.json").read_text())
    dice = tuple(LabelledDie(d["value"], (d["x"] - d["size_px"] / 2, d["y"] - d["size_px"] / 2,
                                          d["size_px"], d["size_px"]))
                 for d in truth["dice"])
    entry = Entry("touching_1.jpg", dice, True, "render", "table")
    image = load_image(DATA / "touching" / "touching_1.jpg")
    losses = photo_losses(entry, image, PARAMS)
    assert sum(losses.values()) <= len(dice)
    # with every label's value changed, every die matched becomes a wrong value
    wrong = Entry("touching_1.jpg", tuple(LabelledDie(d.value % 6 + 1, d.box) for d in dice),
                  True, "render", "table")
    wrong_losses = photo_losses(wrong, image, PARAMS)
    assert sum(wrong_losses.values()) == len(dice)
    assert wrong_losses["wrong value"] >= len(dice) - sum(losses.values())
