"""Reading with a table profile (``vision.dice.calibrated``): only the table's box, at the one
scale the die size implies, dice far from that size dropped, coordinates back in the frame's
pixels; and a frame is read as one cut-out die only where the caller says so."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import vision.dice.detected as detected
from vision import ReaderParams, read_dice
from vision.dice import calibrated
from vision.dice.detected import square_outline
from vision.dice.measure import dice_colours, die_size
from vision.types import Die, Reading

FRAME_W, FRAME_H = 1280, 960
PROFILE = ReaderParams(die_size_px=40.0, table_box=(300.0, 200.0, 1000.0, 760.0),
                       table_resolution=(FRAME_W, FRAME_H))


def die(x: float, y: float, size: float, value: int = 4, confidence: float = 0.95) -> Die:
    return Die(value, x, y, confidence, square_outline(x, y, size), extent=size)


class Planted:
    """A stand-in for the detected reader: reports a die of ``size`` at the centre of the
    white pixels of the image it is given (and any ``extra`` dice, in that image's pixels),
    and remembers the images' shapes and the settings."""

    def __init__(self, size: float, extra: tuple[Die, ...] = ()) -> None:
        self.size, self.extra = size, extra
        self.shapes: list[tuple[int, ...]] = []
        self.params: list[ReaderParams] = []

    def __call__(self, image: np.ndarray, params: ReaderParams, *, crop: bool = False) -> Reading:
        self.shapes.append(image.shape)
        self.params.append(params)
        ys, xs = np.nonzero(image[:, :, 0] > 128)
        found = (die(float(xs.mean()), float(ys.mean()), self.size),) if len(xs) else ()
        return Reading(found + self.extra, image.shape[1], image.shape[0])


def frame_with_spot(x: int, y: int) -> np.ndarray:
    frame = np.zeros((FRAME_H, FRAME_W, 3), np.uint8)
    frame[y - 5:y + 6, x - 5:x + 6] = 255  # centred on (x, y)
    return frame


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> Planted:
    stand_in = Planted(40.0, extra=(die(30.0, 30.0, 130.0, value=6),))  # 3x too big
    monkeypatch.setattr(detected, "read_detected", stand_in)
    return stand_in


def test_only_the_table_box_is_read_and_positions_come_back_exactly(planted: Planted) -> None:
    reading = read_dice(frame_with_spot(701, 433), PROFILE)
    x0, y0, x1, y1 = calibrated.read_box(PROFILE, FRAME_W, FRAME_H)
    assert (x0, y0) == (260, 160)  # the box grown by one die on each side
    assert planted.shapes == [(y1 - y0, x1 - x0, 3)]
    assert (reading.width, reading.height) == (FRAME_W, FRAME_H)
    (found,) = reading.dice
    assert (found.x, found.y) == (701.0, 433.0)
    assert np.allclose(found.outline.mean(axis=0), (701.0, 433.0))


def test_a_proposal_far_from_the_dice_size_is_dropped(planted: Planted) -> None:
    reading = read_dice(frame_with_spot(701, 433), PROFILE)
    assert [d.value for d in reading.dice] == [4]  # the 130-px "die" is gone
    without = read_dice(frame_with_spot(701, 433), replace(PROFILE, die_size_px=None))
    assert sorted(d.value for d in without.dice) == [4, 6]  # kept where no size is known


def test_the_scale_follows_the_dice_size(planted: Planted) -> None:
    read_dice(frame_with_spot(701, 433), PROFILE)
    read_dice(frame_with_spot(701, 433), replace(PROFILE, die_size_px=80.0))
    near, far = planted.params
    sides = [max(shape[:2]) for shape in planted.shapes]
    # dice twice as big are read at half the scale: the same size at the detector
    scales = [p.detector_side / side for p, side in zip(planted.params, sides, strict=True)]
    assert abs(scales[1] / scales[0] - 0.5) < 0.01
    assert abs(scales[0] - calibrated.WORKING_DIE_PX / 40.0) < 0.01
    assert near.detector_side == near.detector_max_side and near.closer_look_below == 0
    assert not near.reread_big_dice and far.die_size_px is None


def test_a_frame_of_another_size_is_read_whole_as_without_a_profile(planted: Planted) -> None:
    photo = np.zeros((480, 640, 3), np.uint8)
    read_dice(photo, PROFILE)
    assert planted.shapes == [(480, 640, 3)]
    assert planted.params[0].die_size_px is None and planted.params[0].table_box is None


def test_a_box_outside_the_frame_reads_the_whole_frame() -> None:
    params = replace(PROFILE, table_box=(5000.0, 5000.0, 6000.0, 6000.0), table_resolution=None)
    assert calibrated.read_box(params, 640, 480) == (0, 0, 640, 480)


def test_a_crop_is_read_as_one_die_only_when_the_caller_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[int, ...]] = []

    def whole(image: np.ndarray) -> Die:
        asked.append(image.shape)
        return die(59.5, 59.5, 94.0, value=3)

    monkeypatch.setattr(detected, "_whole_frame_die", whole)
    small = np.full((120, 120, 3), 128, np.uint8)  # a die-sized frame: no die in sight
    assert read_dice(small, ReaderParams()).dice == () and asked == []
    assert [d.value for d in read_dice(small, ReaderParams(), crop=True).dice] == [3]
    assert asked == [(120, 120, 3)]
    # nor does a profile's reader ever guess it
    assert read_dice(small, replace(PROFILE, table_resolution=None)).dice == ()
    assert len(asked) == 1


def test_the_dice_size_and_colours_are_measured_from_the_dice_read() -> None:
    frame = np.zeros((200, 400, 3), np.uint8)
    dice: list[Die] = []
    for k, (x, colour) in enumerate([(50, (30, 30, 200)), (150, (40, 35, 210)),
                                     (250, (200, 60, 20))]):
        frame[80:120, x - 20:x + 20] = colour
        dice.append(die(float(x), 100.0, 40.0 + 4 * k))
    assert die_size(dice) == 44.0 and die_size([]) is None
    red, blue = dice_colours(frame, dice)
    assert red.startswith("#c") and blue == "#143cc8"

