"""Photos not every die of which is labelled (rune55, a few aws and kaggle_d6 photos) teach
the detector their labelled dice without teaching it that the unlabelled ones are background
(tools.train.train_dice_detector: ``targets(..., complete=False)``, ``--incomplete``)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from tools.train.train_dice_detector import (
    INCOMPLETE_REACH,
    load_samples,
    targets,
)
from vision.detector import STRIDE, pixel_to_cell

#: a labelled 40-px 5 at (60, 60) and an ignored box at (200, 60), in window pixels
LABELLED = np.array([[60.0, 60.0, 40.0, 5, True, False], [200.0, 60.0, 30.0, 0, False, True]])
#: where an unlabelled die lies in the photo (not in the labels)
UNLABELLED = (round(pixel_to_cell(180.0)), round(pixel_to_cell(200.0)))  # (u, v)


def test_an_incomplete_photo_teaches_presence_only_near_its_labelled_dice() -> None:
    heat, weight, values, size, size_mask = targets(LABELLED)
    heat_i, weight_i, values_i, size_i, mask_i = targets(LABELLED, complete=False)
    u, v = UNLABELLED
    assert weight[v, u] == 1.0  # a complete photo: background, taught as such
    assert weight_i[v, u] == 0.0  # an incomplete one: not taught at all
    # the labelled die is taught the same: its heat, value and size, and the cells around it
    for a, b in ((heat, heat_i), (values, values_i), (size, size_i), (size_mask, mask_i)):
        assert np.array_equal(a, b)
    gy, gx = np.mgrid[0:weight.shape[0], 0:weight.shape[1]]
    reach = INCOMPLETE_REACH * 40.0 / STRIDE
    near = (gx - pixel_to_cell(60.0)) ** 2 + (gy - pixel_to_cell(60.0)) ** 2 <= reach ** 2
    assert near.sum() > 9
    assert np.array_equal(weight_i[near], weight[near])
    assert not weight_i[~near].any()
    assert (heat_i[~near] < 0.01).all()  # the die's own heat lies inside the taught cells


def test_a_die_just_outside_the_window_keeps_its_rim_taught() -> None:
    outside = np.array([[-8.0, 60.0, 40.0, 2, True, False]])
    heat, weight, *_ = targets(outside, complete=False)
    assert not heat.any()  # its centre is not in the window
    assert weight[round(pixel_to_cell(60.0)), 0] == 1.0
    assert weight[round(pixel_to_cell(60.0)), 20] == 0.0


def _manifest(folder: Path) -> Path:
    cv2.imwrite(str(folder / "a.png"), np.full((240, 320, 3), 90, np.uint8))
    items = [
        {"image": "a.png", "complete": True, "width": 320, "height": 240, "source": "aws",
         "subset": "table", "dice": [{"value": 3, "box": [10, 20, 40, 30]}],
         "ignore": [[200, 100, 20, 30]]},
        {"image": "a.png", "complete": False, "width": 320, "height": 240,
         "source": "rune55", "subset": "table", "dice": [{"value": 6, "box": [50, 60, 40, 40]}]},
    ]
    (folder / "manifest.json").write_text(json.dumps(items))
    return folder / "manifest.json"


def test_incomplete_photos_are_loaded_only_when_asked_and_marked(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path)
    default = load_samples(manifest, set())
    assert [s.source for s in default] == ["aws"]
    both = load_samples(manifest, set(), incomplete=True)
    assert [(s.source, s.complete) for s in both] == [("aws", True), ("rune55", False)]
    aws, rune = both
    # the whole-die boxes stand for faces as the classifier's trainer reads them
    assert np.allclose(aws.dice[0, :3] / aws.factor, [30.0, 35.0, 40 * 0.85])
    assert np.allclose(rune.dice[0, :3] / rune.factor, [70.0, 80.0, 40 * 0.95])
    # the ignore box becomes a die to ignore: neither a die nor background
    assert np.allclose(aws.dice[1, :3] / aws.factor, [210.0, 115.0, 30.0])
    assert aws.dice[1, 5] == 1 and aws.dice[0, 5] == 0
