"""The table's bridge to `vision.reveal`: camera frames + profile zones -> plain JSON values.

Kept apart from the Table so the Table never imports OpenCV until a camera reveal happens,
and so tests can hand the Table a stand-in reader with the same shape.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from bluffcam.camera_news import problem_said
from bluffcam.table.reveal_records import RevealReading, disagreements
from engine.words import Said

#: quality of the stored annotated reveal photos
REVEAL_JPEG_QUALITY = 88


class NoProfileError(RuntimeError):
    """A camera reveal needs a calibration profile (the seat zones)."""


def encode_jpeg(image: Any, quality: int = REVEAL_JPEG_QUALITY) -> bytes | None:
    if image is None or getattr(image, "size", 0) <= 3:
        return None
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return bytes(buffer.tobytes()) if ok else None


def note_on_photo(jpeg: bytes, text: str) -> bytes:
    """The annotated photo with ``text`` (ASCII) written in red under the reader's own header
    line: a later check's word (a recorded game's ground truth), so the photo and the review
    list agree on what is wrong. The photo as it was where it cannot be decoded."""
    from vision.reveal import draw_header_line

    decoded = cv2.imdecode(np.frombuffer(jpeg, dtype=np.uint8), cv2.IMREAD_COLOR)
    if decoded is None:
        return jpeg
    image = np.ascontiguousarray(decoded, dtype=np.uint8)
    draw_header_line(image, text, 1)
    return encode_jpeg(image) or jpeg


def check_against_truth(reading: RevealReading, truth: Mapping[str, list[int]]) -> None:
    """A recorded game's reading checked against the dice really there: each seat read
    otherwise is a problem, the reading goes to review and its photo says so (a recording
    is never adjudicated on a misread)."""
    differ = disagreements(reading.values(), truth)
    reading.problems.extend(differ)
    reading.needs_review = reading.needs_review or bool(reading.problems)
    if differ and reading.annotated_jpeg is not None:
        seats = f"{len(differ)} seat{'s' * (len(differ) != 1)}"
        reading.annotated_jpeg = note_on_photo(reading.annotated_jpeg,
                                               f"RECORDED DICE DIFFER: {seats}")


def read_reveal(frames: Iterator[Any], expected: Mapping[str, Any], profile: Any,
                seating: Sequence[str | None] | None = None) -> RevealReading:
    """Run `vision.reveal.capture_reveal`: the game's players (``seating``, those out
    included) map to the profile's seats in order; ``expected`` holds those still in."""
    if profile is None:
        raise NoProfileError("no calibration profile: the camera cannot tell the seats apart")
    from vision.reveal import capture_reveal

    result = capture_reveal(frames, profile.zones, dict(expected), profile.reader_params,
                            seating=seating)
    seats: dict[str, list[dict[str, Any]]] = {}
    for name in expected:
        in_zone = [d.to_json() for d in result.seats.get(name, [])]
        in_front = [dict(d.to_json(), set_aside=True) for d in result.set_aside.get(name, [])]
        seats[name] = in_zone + in_front
    return RevealReading(
        seats=seats,
        set_aside={n: sorted(d.value for d in ds) for n, ds in result.set_aside.items() if ds},
        problems=[p.to_json() for p in result.problems],
        needs_review=result.needs_review,
        annotated_jpeg=encode_jpeg(result.annotated),
        advice=[a.to_json() for a in result.advice],
        frames_voted=result.frames_voted,
        photo_jpeg=encode_jpeg(result.frame),
    )


def read_front_of_cup(
    frames: Iterator[Any], seat: int, profile: Any
) -> tuple[list[int], list[Said]]:
    """The faces in front of one seat's cup, and the problems in words (empty when sure)."""
    if profile is None:
        raise NoProfileError("no calibration profile: the camera cannot find the front of the cup")
    from vision.reveal import read_set_aside

    result = read_set_aside(frames, seat, profile.zones, profile.reader_params)
    return result.values, [problem_said(p.to_json()) for p in result.problems]


__all__ = ["NoProfileError", "RevealReading", "check_against_truth", "encode_jpeg",
           "note_on_photo", "read_front_of_cup", "read_reveal"]
