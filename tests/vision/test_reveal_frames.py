"""What a reveal accepts as its frames: one grey photo is one frame (not a frame per row),
and an empty frame is refused by name rather than by an OpenCV assertion."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration import load_profile
from vision.reveal import capture_reveal, read_set_aside
from vision.types import Reading
from vision.zones import ZoneMap

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = {"Ann": 0, "Ben": 0, "Cho": 0}


@pytest.fixture(scope="module")
def zones() -> ZoneMap:
    loaded: ZoneMap = load_profile(ROOT / "calibration" / "demo.toml").zones
    return loaded


class Recorder:
    """A stand-in reader that reads no dice and remembers the frames it was given."""

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []

    def __call__(self, frame: np.ndarray, params: Any) -> Reading:
        self.shapes.append(frame.shape)
        return Reading((), frame.shape[1], frame.shape[0])


def test_one_grey_photo_is_one_frame(zones: ZoneMap) -> None:
    grey = np.full((960, 1280), 90, np.uint8)
    reader = Recorder()
    result = capture_reveal(grey, zones, PLAYERS, stillness=None, reader=reader)
    assert reader.shapes == [(960, 1280)]
    assert result.frames_voted == 1 and not result.needs_review


def test_one_grey_photo_is_one_frame_for_the_dice_set_aside(zones: ZoneMap) -> None:
    reader = Recorder()
    read_set_aside(np.full((960, 1280), 90, np.uint8), 0, zones, stillness=None, reader=reader)
    assert reader.shapes == [(960, 1280)]


@pytest.mark.parametrize("shape", [(0, 5, 3), (40, 0, 3), (0, 0)])
def test_empty_frames_are_refused_by_name(zones: ZoneMap, shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="frame is empty"):
        capture_reveal([np.zeros(shape, np.uint8)] * 8, zones, PLAYERS, reader=Recorder())
