"""One die from 15 px to 400 px across is read at the default settings (issue #3's range).

Real webcam photos of one die (matteo, faces 4-6, whose labelled box is the top face) are
rescaled so that the face has a given size: shrunk whole for small dice, enlarged and cut
around the die for big ones. The photos are read from ../shared/datasets (skipped where
absent), never copied into the project.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import read_dice
from vision.bench import Entry, load_manifest
from vision.io import load_image

pytestmark = [pytest.mark.dataset]

#: how many photos each size is tried on
PHOTOS = 12


def single_dice(root_entries: tuple[Path, list[Entry]]) -> list[Entry]:
    _, entries = root_entries
    return [e for e in entries if e.source == "matteo" and len(e.dice) == 1
            and e.dice[0].value >= 4 and e.dice[0].box is not None][:PHOTOS]


def at_face_size(image: np.ndarray, box: tuple[float, float, float, float], face_px: float
                 ) -> np.ndarray:
    """``image`` scaled so that the die's face is ``face_px`` across; a big result is cut to
    1000×800 around the die (a camera frame, not a 10k-px one)."""
    x, y, w, h = box
    f = face_px / max(w, h)
    interp = cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC
    scaled = cv2.resize(image, None, fx=f, fy=f, interpolation=interp)
    cx, cy = int((x + w / 2) * f), int((y + h / 2) * f)
    return scaled[max(0, cy - 400):cy + 400, max(0, cx - 500):cx + 500]


@pytest.mark.parametrize("face_px", [15, 28, 200, 400])
def test_one_die_is_read_at_every_size(shared_datasets: Path, face_px: int) -> None:
    chosen = single_dice(load_manifest(shared_datasets / "manifest.json"))
    assert len(chosen) == PHOTOS
    right = sure_wrong = 0
    for entry in chosen:
        die = entry.dice[0]
        assert die.box is not None
        frame = at_face_size(load_image(shared_datasets / entry.image), die.box, face_px)
        reading = read_dice(frame)
        right += reading.values == [die.value]
        sure_wrong += sum(d.confidence >= reading.min_confidence and d.value != die.value
                          for d in reading.dice)
    assert sure_wrong == 0, f"{sure_wrong} dice of {face_px} px reported sure and wrong"
    assert right >= PHOTOS - 1, f"{right} of {PHOTOS} dice of {face_px} px read right"
