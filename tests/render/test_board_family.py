"""The settlers-style board and the detector renders' board family
(tools.render.detector_renders)."""

from __future__ import annotations

import numpy as np
import pytest

from tools.render.detector_renders import board_scene, entry_for
from tools.render.generate import random_table
from tools.render.renderer import render
from tools.render.textures import EXTRA_KINDS, TABLE_KINDS, table_texture


def test_hex_board_is_busy_and_never_drawn_at_random() -> None:
    rng = np.random.default_rng(0)
    board = table_texture("hex_board", rng, (400, 400), 2.0)
    assert board.shape == (400, 400, 3)
    # fields, tokens and pieces: many distinct colours, strong local contrast
    assert len(np.unique((board // 32).reshape(-1, 3), axis=0)) > 20
    assert float(np.abs(np.diff(board, axis=1)).mean()) > 3.0
    picks = {random_table(np.random.default_rng(seed)) for seed in range(300)}
    assert picks <= set(TABLE_KINDS) and not picks & set(EXTRA_KINDS)


def test_unknown_table_kind_is_named_in_the_error() -> None:
    with pytest.raises(ValueError, match="'marble'.*hex_board"):
        table_texture("marble", np.random.default_rng(0), (10, 10), 1.0)


def test_board_family_renders_small_dice_on_the_board_with_their_truth() -> None:
    scene = board_scene(3)
    assert scene.table == "hex_board" and len(scene.dice) >= 3
    assert board_scene(3).dice[0].value == scene.dice[0].value  # seeded by index
    image, truth = render(scene)
    entry = entry_for("x.jpg", truth)
    assert image.shape[:2] == (entry["height"], entry["width"])
    sizes = [max(d["box"][2:]) for d in entry["dice"] if not d["ignore"]]
    assert sizes and max(sizes) < 80  # small dice (12-40 px, more where the view is steep)
    assert all(1 <= d["value"] <= 6 for d in entry["dice"])

