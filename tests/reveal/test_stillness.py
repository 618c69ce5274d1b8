"""wait_for_still: frame differencing until nothing moves for k frames."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from drawn_dice import DrawnDie, frame, hand_leaves

from vision.reveal import SceneNotStillError, wait_for_still
from vision.stillness import StillnessParams, moving_fraction, prepare

DICE = [DrawnDie(150, 150, 3), DrawnDie(400, 300, 5, 0.3)]


def test_waits_until_the_hand_has_gone_and_k_frames_are_still() -> None:
    frames = hand_leaves(DICE, moving=6, still=8)
    consumed = []

    def counted():
        for f in frames:
            consumed.append(f)
            yield f

    params = StillnessParams(still_frames=5)
    window = wait_for_still(counted(), params)
    assert len(window) == 6
    # the first hand-free frame (index 6) starts the still run; 5 still pairs end at index 11
    assert len(consumed) == 12
    assert all(f is consumed[6 + i] for i, f in enumerate(window))


def test_sensor_noise_alone_is_still() -> None:
    frames = [frame(DICE, noise_seed=i, noise_sigma=4.0) for i in range(4)]
    assert len(wait_for_still(frames, StillnessParams(still_frames=3))) == 4


def test_a_moving_hand_is_not_still() -> None:
    params = StillnessParams()
    a = prepare(frame(DICE, hand=(100, 200)), params)
    b = prepare(frame(DICE, hand=(170, 200)), params)
    assert moving_fraction(a, b, params) > 0.01


def test_never_still_within_the_budget_raises() -> None:
    frames = (frame(DICE, hand=(50 + 10 * i, 250)) for i in range(100))
    with pytest.raises(SceneNotStillError, match="not still after 20 frames"):
        wait_for_still(frames, StillnessParams(max_frames=20))


def test_frames_ending_before_stillness_raises() -> None:
    with pytest.raises(SceneNotStillError, match="frames ended after 3 .*keep hands out"):
        wait_for_still(hand_leaves(DICE, moving=2, still=1), StillnessParams(still_frames=5))
    with pytest.raises(SceneNotStillError, match="no frames"):
        wait_for_still([], StillnessParams())


def test_resolution_change_counts_as_movement() -> None:
    params = StillnessParams()
    a = prepare(np.zeros((100, 200, 3), np.uint8), params)
    b = prepare(np.zeros((120, 200, 3), np.uint8), params)
    assert moving_fraction(a, b, params) == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"still_frames": 0}, "still_frames"),
        ({"blur_px": 4}, "blur_px"),
        ({"max_moving_fraction": 2.0}, "max_moving_fraction"),
        ({"work_width": 8}, "work_width"),
    ],
)
def test_bad_params_are_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        StillnessParams(**kwargs)  # type: ignore[arg-type]


def test_a_hand_creeping_a_little_each_frame_is_not_still() -> None:
    """Two frames in a row barely differ, but the hand's path adds up over the run."""
    frames = [frame(DICE, hand=(100 + 3 * i, 200)) for i in range(40)]
    with pytest.raises(SceneNotStillError, match="not still after 30 frames"):
        wait_for_still(frames, StillnessParams(max_frames=30))


def test_motion_in_colour_alone_counts() -> None:
    """Something over the table of the same grey level as the wood differs in hue only."""
    params = StillnessParams()
    table = np.full((240, 320, 3), (90, 170, 200), np.uint8)  # warm wood (BGR), grey 170
    covered = table.copy()
    covered[60:180, 100:220] = (200, 170, 158)  # a cool cloth, grey 170 too
    grey = cv2.cvtColor(np.stack([table[0, :1], covered[100, 150:151]]), cv2.COLOR_BGR2GRAY)
    assert abs(int(grey[0, 0]) - int(grey[1, 0])) <= 1
    assert moving_fraction(prepare(table, params), prepare(covered, params), params) > 0.1
