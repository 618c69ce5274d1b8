"""tools.bench.bench_misses: each die not read right lands in the category of the last stage that
saw it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tools.bench.bench_misses import (
    TILE,
    Loss,
    box_heat,
    contact_sheet,
    loss_category,
    loss_tile,
    photo_losses,
)
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
    losses = Counter(loss.category for loss in photo_losses(entry, image, PARAMS))
    assert sum(losses.values()) <= len(dice)
    # with every label's value changed, every die matched becomes a wrong value
    wrong = Entry("touching_1.jpg", tuple(LabelledDie(d.value % 6 + 1, d.box) for d in dice),
                  True, "render", "table")
    wrong_losses = Counter(loss.category for loss in photo_losses(wrong, image, PARAMS))
    assert sum(wrong_losses.values()) == len(dice)
    assert wrong_losses["wrong value"] >= len(dice) - sum(losses.values())


def test_each_lost_die_gets_a_captioned_tile_of_its_neighbourhood() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    image[100:140, 100:140] = 255  # the labelled box, white on black
    loss = Loss("wrong value", LabelledDie(4, BOX), 2)
    tile = loss_tile(image, loss)
    assert tile.shape == (TILE, TILE, 3)
    # the box and 1.2 of its size again each side: the box fills the middle 40/136 of it
    middle = tile[TILE // 2 - 10:TILE // 2 + 10, TILE // 2 - 10:TILE // 2 + 10]
    assert middle.min() == 255
    assert tile[TILE - 5, TILE - 5].max() == 0  # the black around it, past the caption
    assert (tile[:40, :, 2] > tile[:40, :, 1]).any()  # the caption, in red, at the top


def test_the_contact_sheet_lays_tiles_out_in_rows_padding_the_last() -> None:
    tiles = [np.full((TILE, TILE, 3), k + 1, np.uint8) for k in range(7)]
    sheet = contact_sheet(tiles, columns=6)
    assert sheet.shape == (2 * TILE, 6 * TILE, 3)
    assert (sheet[:TILE, :TILE] == 1).all() and (sheet[TILE:, :TILE] == 7).all()
    assert (sheet[TILE:, TILE:] == 0).all()
    assert contact_sheet([]).shape == (TILE, TILE, 3)
