"""tools.bench.bench_orientations: a photo's labelled boxes follow it when it is turned or
mirrored."""

from __future__ import annotations

import numpy as np
import pytest

from tools.bench.bench_orientations import ORIENTATIONS, oriented
from vision.bench import Entry, LabelledDie


@pytest.mark.parametrize(("turns", "mirrored"), sorted(ORIENTATIONS.values()))
def test_a_box_lands_where_its_pixels_go(turns: int, mirrored: bool) -> None:
    image = np.zeros((40, 60, 3), np.uint8)
    image[5:9, 10:20] = 255  # the box (x 10, y 5, w 10, h 4); the image is not square
    entry = Entry("x.jpg", (LabelledDie(3, (10.0, 5.0, 10.0, 4.0)), LabelledDie(5, None)),
                  True, "s", "table")
    out, labels = oriented(image, entry, turns, mirrored)
    ys, xs = np.nonzero(out[..., 0])
    box = labels.dice[0].box
    assert box == (xs.min(), ys.min(), xs.max() + 1 - xs.min(), ys.max() + 1 - ys.min())
    assert labels.dice[0].value == 3 and labels.dice[1] == LabelledDie(5, None)
    assert out.shape[:2] == ((60, 40) if turns % 2 else (40, 60))
