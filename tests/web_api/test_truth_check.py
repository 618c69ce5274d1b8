"""`check_against_truth`: a recorded game's camera reading checked against the dice really
there (the demo's and the tests' recordings carry their ground truth)."""

from __future__ import annotations

import cv2
import numpy as np

from bluffcam.table.vision_bridge import RevealReading, check_against_truth


def _reading(seats: dict[str, list[int]]) -> RevealReading:
    photo = np.full((120, 160, 3), 90, np.uint8)
    ok, jpeg = cv2.imencode(".jpg", photo)
    assert ok
    return RevealReading(
        seats={s: [{"value": v, "x": 10.0, "y": 10.0, "confidence": 0.97} for v in values]
               for s, values in seats.items()},
        set_aside={}, problems=[], needs_review=False, annotated_jpeg=jpeg.tobytes())


def test_a_reading_that_matches_the_recording_is_left_as_it_is() -> None:
    reading = _reading({"Ann": [3, 1], "Ben": [6]})
    photo = reading.annotated_jpeg
    check_against_truth(reading, {"Ann": [1, 3], "Ben": [6]})  # order does not matter
    assert reading.problems == [] and not reading.needs_review
    assert reading.annotated_jpeg == photo


def test_a_seat_read_otherwise_goes_to_review_and_its_photo_says_so() -> None:
    reading = _reading({"Ann": [3, 1], "Ben": [6]})
    photo = reading.annotated_jpeg
    check_against_truth(reading, {"Ann": [3, 1], "Ben": [5]})
    assert reading.needs_review
    [problem] = reading.problems
    said = problem.pop("said")  # its words, for a page in another language
    assert problem == {"kind": "ground_truth", "seat": "Ben", "x": None, "y": None,
                       "message": "Ben: read [6], recorded [5]"}
    assert said == {"msgid": "{seat}: read {read}, recorded {recorded}",
                    "params": {"seat": "Ben", "read": "[6]", "recorded": "[5]"}}
    assert reading.annotated_jpeg is not None and reading.annotated_jpeg != photo
    marked = cv2.imdecode(np.frombuffer(reading.annotated_jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert marked.shape == (120, 160, 3)
    assert (marked[..., 2].astype(int) - marked[..., 1] > 80).any()  # red words on the photo
