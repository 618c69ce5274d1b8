"""The detector's training colour changes: ``recolour`` scales how often hues are turned,
shuffled, greyed or inverted (real photos' at a third of the renders' rate was tried:
docs/lab-notebook.md, 2026-11-25)."""

from __future__ import annotations

import numpy as np

from tools.train.train_dice_detector import _colour

RED = np.zeros((32, 32, 3), np.uint8)
RED[..., 2] = 200  # BGR


def _still_red(out: np.ndarray) -> bool:
    b, g, r = (float(out[..., c].mean()) for c in range(3))
    return r > max(b, g) + 40


def test_without_recolouring_a_red_window_stays_red() -> None:
    for seed in range(60):
        assert _still_red(_colour(RED.copy(), np.random.default_rng(seed), 0.0, recolour=0.0))


def test_at_the_full_rate_some_windows_change_hue() -> None:
    changed = sum(not _still_red(_colour(RED.copy(), np.random.default_rng(seed), 0.0))
                  for seed in range(60))
    assert 10 <= changed <= 50
