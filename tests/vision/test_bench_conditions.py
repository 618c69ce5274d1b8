"""tools.bench.bench_conditions: the conditions it makes from a photo, and its labels kept in
step."""

from __future__ import annotations

import numpy as np

from tools.bench.bench_conditions import CONDITIONS, ramp, scaled, shadow
from vision.bench import Entry, LabelledDie


def _entry() -> Entry:
    return Entry(image="a.jpg", source="s", subset="table", complete=True,
                 dice=(LabelledDie(3, (10.0, 20.0, 30.0, 40.0)), LabelledDie(5, None)))


def test_labels_follow_a_resized_photo() -> None:
    entry = _entry()
    assert scaled(entry, 1.0) is entry
    half = scaled(entry, 0.5)
    assert [d.box for d in half.dice] == [(5.0, 10.0, 15.0, 20.0), None]
    assert [d.value for d in half.dice] == [3, 5]


def test_every_condition_keeps_a_frame_a_frame() -> None:
    rng = np.random.default_rng(0)
    photo = rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)
    for name, (make, factor) in CONDITIONS.items():
        out = make(photo, np.random.default_rng(1))
        assert out.dtype == np.uint8, name
        assert out.shape == (round(60 * factor), round(80 * factor), 3), name
        assert not np.array_equal(out, photo), name


def test_light_falls_off_across_the_frame() -> None:
    r = ramp((40, 50), 0.0)
    assert r.min() == 0.0 and r.max() == 1.0
    assert np.all(np.diff(r, axis=1) > 0) and np.all(np.diff(r, axis=0) == 0)
    grey = np.full((40, 50, 3), 200, np.uint8)
    shaded = shadow(grey, np.random.default_rng(3)).astype(int)
    assert shaded.min() < 100 < 180 < shaded.max()
