"""Reveal capture end to end with the real `vision.read_dice` on frames the tests draw.

Frames come from `drawn_dice` (made by the project; the ground truth is the dice drawn):
a hand leaves the picture, the scene settles, the dice are read, voted and assigned.
The drawn dice are flat cartoons (no edges, no shading, no sides), which the learned reader
rightly doubts, so these tests read them with the classical pip reader; the learned
reader's end-to-end checks use the project's renders (test_rendered_data.py).
"""

from __future__ import annotations

from pathlib import Path

import cv2
from drawn_dice import DrawnDie, frame, hand_leaves

from calibration import SeatZones, load_profile
from hardware.cameras import open_camera
from vision.params import ReaderParams
from vision.reveal import capture_reveal
from vision.stillness import StillnessParams

PROFILE = """
name = "drawn"
[camera]
spec = "files:frames"
resolution = [640, 480]
[table]
area = [[0, 0], [639, 0], [639, 479], [0, 479]]
[[seats]]
name = "Seat 1"
zone = [[0, 240], [320, 240], [320, 479], [0, 479]]
front = [[240, 240], [320, 240], [320, 300], [240, 300]]
[[seats]]
name = "Seat 2"
zone = [[320, 240], [639, 240], [639, 479], [320, 479]]
[[seats]]
name = "Seat 3"
zone = [[0, 0], [639, 0], [639, 200], [0, 200]]
[reader]
min_confidence = 0.6
"""

ANN = [DrawnDie(60, 330, 4), DrawnDie(130, 400, 1, 0.4), DrawnDie(200, 340, 6, 0.8)]
ANN_ASIDE = [DrawnDie(280, 270, 5, 0.1)]
BEN = [DrawnDie(420, 330, 2, 0.2), DrawnDie(520, 400, 3, 1.1)]
CHO = [DrawnDie(100, 100, 5), DrawnDie(300, 90, 5, 0.7), DrawnDie(500, 110, 2, 0.3)]
EVERYONE = ANN + ANN_ASIDE + BEN + CHO
CLASSICAL = ReaderParams(method="classical")


def zones(tmp_path: Path) -> SeatZones:
    path = tmp_path / "drawn.toml"
    path.write_text(PROFILE)
    return load_profile(path).zones


def expected(ann: int = 4, ben: int = 2, cho: int = 3) -> dict[str, object]:
    from engine.game import ExpectedHand

    return {"Ann": ExpectedHand(ann, (5,)), "Ben": ExpectedHand(ben), "Cho": ExpectedHand(cho)}


def test_reveal_after_the_hand_leaves_reads_every_seat(tmp_path: Path) -> None:
    result = capture_reveal(
        hand_leaves(EVERYONE),
        zones(tmp_path),
        expected(),
        CLASSICAL,
        stillness=StillnessParams(still_frames=4),
    )
    assert result.problems == []
    assert result.values() == {"Ann": [1, 4, 6], "Ben": [2, 3], "Cho": [2, 5, 5]}
    assert [d.value for d in result.set_aside["Ann"]] == [5]
    assert all(d.confidence >= 0.6 for dice in result.seats.values() for d in dice)
    assert result.frames_voted == 3  # three frames agreed on every die: no need for more


def test_a_reveal_in_a_dark_room_says_so_and_a_well_lit_one_does_not(tmp_path: Path) -> None:
    lit = capture_reveal(frame(EVERYONE), zones(tmp_path), expected(), CLASSICAL,
                         stillness=None)
    assert lit.advice == [] and lit.to_json()["advice"] == []
    dim = (frame(EVERYONE).astype(float) * 0.2).astype("uint8")
    dark = capture_reveal(dim, zones(tmp_path), expected(), CLASSICAL, stillness=None)
    assert [a.kind for a in dark.advice] == ["dark"]
    assert dark.to_json()["advice"][0]["message"].startswith("The picture is dark")


def test_reveal_from_recorded_files_through_the_camera_source(tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, image in enumerate(hand_leaves(EVERYONE)):
        cv2.imwrite(str(folder / f"{i:03d}.png"), image)
    with open_camera(f"files:{folder}") as camera:
        result = capture_reveal(camera.frames(), zones(tmp_path), expected(), CLASSICAL)
    assert not result.needs_review
    assert result.values()["Cho"] == [2, 5, 5]


def test_a_missing_die_is_a_count_mismatch_for_that_seat(tmp_path: Path) -> None:
    scene = ANN + ANN_ASIDE + BEN[:1] + CHO
    result = capture_reveal(hand_leaves(scene), zones(tmp_path), expected(), CLASSICAL)
    assert result.needs_review
    assert [(p.kind, p.seat) for p in result.problems] == [("count_mismatch", "Ben")]


def test_a_die_that_reads_differently_frame_to_frame_is_uncertain(tmp_path: Path) -> None:
    # e.g. a die still wobbling under glare: half the frames show 3, half 5
    frames = [
        frame([*EVERYONE[:-1], DrawnDie(500, 110, 3 if i % 2 else 5, 0.3)], noise_seed=i)
        for i in range(8)
    ]
    result = capture_reveal(frames, zones(tmp_path), expected(), CLASSICAL, stillness=None)
    uncertain = [p for p in result.problems if p.kind == "uncertain"]
    assert [(p.seat, round(p.x or 0), round(p.y or 0)) for p in uncertain] == [("Cho", 500, 110)]
    assert result.needs_review


def test_a_die_between_the_zones_is_reported(tmp_path: Path) -> None:
    scene = [*EVERYONE, DrawnDie(320, 220, 6)]  # on the line between the seats, in no zone
    result = capture_reveal(hand_leaves(scene), zones(tmp_path), expected(), CLASSICAL)
    assert [p.kind for p in result.problems] == ["outside_zones"]
    problem = result.problems[0]
    assert problem.message == "a die showing 6 lies outside every seat zone"
    assert (round(problem.x or 0), round(problem.y or 0)) == (320, 220)  # marked on the photo
