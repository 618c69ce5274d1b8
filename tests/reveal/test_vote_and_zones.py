"""Reveal logic with a stand-in reader: voting, seat assignment, problems. No pixels read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from calibration import profile_from_dict
from engine.game import ExpectedHand
from vision.reveal import capture_reveal, read_set_aside, unanimous, vote
from vision.types import Die, Reading
from vision.zones import PolygonZones

SQUARE = np.array([[-10, -10], [10, -10], [10, 10], [-10, 10]], dtype=np.float64)


def die(value: int, x: float, y: float, confidence: float = 0.95) -> Die:
    return Die(value, x, y, confidence, SQUARE + [x, y])


def reading(*dice: Die) -> Reading:
    return Reading(dice=tuple(dice), width=300, height=200)


class ScriptedReader:
    """Returns the i-th scripted reading for the frame whose first pixel is i."""

    def __init__(self, readings: Sequence[Reading]) -> None:
        self.readings = list(readings)
        self.calls = 0

    def frames(self) -> list[np.ndarray]:
        out = []
        for i in range(len(self.readings)):
            f = np.zeros((200, 300, 3), dtype=np.uint8)
            f[0, 0, 0] = i
            out.append(f)
        return out

    def __call__(self, frame: np.ndarray, params: Any) -> Reading:
        self.calls += 1
        return self.readings[int(frame[0, 0, 0])]


# two seats side by side; each has a front-of-cup strip along the table's middle
ZONES = PolygonZones(
    ("Seat 1", "Seat 2", "Seat 3"),
    (
        ((0, 0), (140, 0), (140, 200), (0, 200)),
        ((160, 0), (300, 0), (300, 200), (160, 200)),
        ((0, 300), (10, 300), (10, 310)),  # a third seat nobody sits at in most tests
    ),
    (
        ((100, 0), (140, 0), (140, 60), (100, 60)),
        ((160, 0), (200, 0), (200, 60), (160, 60)),
        None,
    ),
)


def test_vote_matches_jittered_dice_and_takes_the_majority() -> None:
    readings = [
        reading(die(4, 50, 100), die(2, 220, 120)),
        reading(die(4, 52, 101), die(2, 221, 118)),
        reading(die(5, 49, 99, 0.8), die(2, 219, 121)),  # one misread of the first die
        reading(die(4, 51, 100), die(2, 220, 120)),
        reading(die(4, 50, 102), die(2, 222, 119)),
    ]
    voted = vote(readings)
    assert [(d.value, round(d.x), round(d.y)) for d in voted] == [(4, 50, 100), (2, 220, 120)]
    first = voted[0]
    assert first.confidence == pytest.approx(4 / 5 * 0.95)  # agreement × reader confidence
    assert voted[1].confidence == pytest.approx(0.95)


def test_vote_drops_a_one_frame_flicker_and_keeps_close_dice_apart() -> None:
    readings = [reading(die(3, 50, 50), die(6, 72, 50)) for _ in range(4)]
    readings.append(reading(die(3, 50, 50), die(6, 72, 50), die(1, 200, 150)))
    voted = vote(readings)
    assert sorted(d.value for d in voted) == [3, 6]  # 22 px apart: two dice, not one


def test_vote_keeps_a_die_seen_in_two_of_five_frames_with_low_confidence() -> None:
    readings = [reading(die(3, 50, 50)) for _ in range(5)]
    readings[0] = reading(die(3, 50, 50), die(5, 120, 120))
    readings[1] = reading(die(3, 50, 50), die(5, 121, 120))
    voted = vote(readings)
    assert [(d.value, d.confidence) for d in voted if d.value == 5] == [(5, pytest.approx(0.38))]


def test_vote_of_nothing_is_empty() -> None:
    assert vote([]) == [] and vote([reading(), reading()]) == []


def reveal(readings: Sequence[Reading], expected: dict[str, Any], **kwargs: Any) -> Any:
    reader = ScriptedReader(readings)
    return capture_reveal(
        reader.frames(), ZONES, expected, None, stillness=None, reader=reader, **kwargs
    )


def test_sure_reveal_assigns_dice_to_seats_and_front_areas() -> None:
    frame_dice = reading(
        die(4, 30, 150), die(1, 60, 150), die(6, 120, 30), die(2, 250, 150), die(3, 280, 100)
    )
    result = reveal([frame_dice] * 3, {"Ann": ExpectedHand(3, (6,)), "Ben": ExpectedHand(2, ())})
    assert not result.needs_review and result.problems == []
    assert result.values() == {"Ann": [1, 4], "Ben": [2, 3]}
    assert [d.value for d in result.set_aside["Ann"]] == [6]
    assert result.frames_voted == 3
    assert result.annotated.shape == result.frame.shape
    assert not np.array_equal(result.annotated, result.frame)  # zones and dice drawn


def test_count_mismatch_names_the_seat() -> None:
    frame_dice = reading(die(4, 30, 150), die(2, 250, 150))
    result = reveal([frame_dice] * 3, {"Ann": 1, "Ben": 2})
    assert result.needs_review
    [problem] = result.problems
    assert (problem.kind, problem.seat) == ("count_mismatch", "Ben")
    assert problem.message == "Ben: expected 2 dice, the camera sees 1"


def test_one_die_too_many_points_at_the_least_sure_die_of_the_seat() -> None:
    # Ben has 2 dice; the camera also takes a side face (0.45) for a third one
    frame_dice = reading(die(4, 30, 150), die(2, 250, 150), die(5, 220, 120, 0.45),
                         die(3, 280, 100, 0.8))
    result = reveal([frame_dice] * 3, {"Ann": 1, "Ben": 2})
    counts = [p for p in result.problems if p.kind == "count_mismatch"]
    assert [(p.seat, p.x, p.y) for p in counts] == [("Ben", 220, 120)]
    assert counts[0].message == ("Ben: expected 2 dice, the camera sees 3; the least sure is "
                                 "a 5 at (220, 120), 45% sure")
    assert counts[0].to_json()["x"] == 220.0  # the review page circles it


def test_a_die_outside_every_zone_is_reported_with_its_position() -> None:
    frame_dice = reading(die(4, 30, 150), die(5, 150, 180), die(2, 250, 150))
    result = reveal([frame_dice] * 3, {"Ann": 1, "Ben": 1})
    [problem] = result.problems
    assert problem.kind == "outside_zones" and problem.seat is None
    assert (round(problem.x or 0), round(problem.y or 0)) == (150, 180)
    assert "outside every seat zone" in problem.message
    assert [d.value for d in result.outside] == [5]


def test_a_die_in_an_empty_seats_zone_is_not_given_to_anyone() -> None:
    frame_dice = reading(die(4, 30, 150), die(2, 250, 150))
    result = reveal([frame_dice] * 3, {"Ann": 1})  # nobody plays at Seat 2
    assert [p.kind for p in result.problems] == ["outside_zones"]
    assert "Seat 2, where nobody plays" in result.problems[0].message


def test_a_player_keeps_their_zone_when_a_neighbour_is_out() -> None:
    """Ann (zone 1) is out: Ben's dice are still read in zone 2, not in Ann's empty zone."""
    frame_dice = reading(die(2, 250, 150), die(6, 280, 150))
    result = reveal([frame_dice] * 3, {"Ben": 2}, seating=["Ann", "Ben"])
    assert result.problems == []
    assert {p: [d.value for d in ds] for p, ds in result.seats.items()} == {"Ben": [2, 6]}
    # without the seating Ben would sit at zone 1, Ann's: his dice outside his zone
    shifted = reveal([frame_dice] * 3, {"Ben": 2})
    assert [p.kind for p in shifted.problems][:2] == ["outside_zones", "outside_zones"]


def test_a_die_in_the_zone_of_a_player_who_is_out_is_a_problem() -> None:
    frame_dice = reading(die(4, 30, 150), die(2, 250, 150))
    result = reveal([frame_dice] * 3, {"Ben": 1}, seating=["Ann", "Ben"])
    [problem] = result.problems
    assert problem.kind == "outside_zones" and problem.seat is None
    assert "in the zone of Ann, who is out of the game" in problem.message
    assert [d.value for d in result.outside] == [4]
    assert [d.value for d in result.seats["Ben"]] == [2]


def test_a_player_missing_from_the_seating_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="Cho not in the seating"):
        reveal([reading()] * 3, {"Ben": 1, "Cho": 1}, seating=["Ann", "Ben"])


def test_uncertain_dice_need_review_and_are_never_dropped() -> None:
    readings = [reading(die(4, 30, 150), die(2, 250, 150, 0.4)) for _ in range(3)]
    result = reveal(readings, {"Ann": 1, "Ben": 1})
    [problem] = result.problems
    assert (problem.kind, problem.seat) == ("uncertain", "Ben")
    assert (round(problem.x or 0), round(problem.y or 0)) == (250, 150)  # marked on the photo
    assert problem.message == "Ben: a die looks like a 2, but the camera is only 40% sure"
    assert result.values() == {"Ann": [4], "Ben": [2]}  # shown, flagged — not guessed away


def test_disagreeing_frames_make_a_die_uncertain() -> None:
    readings = [reading(die(4, 30, 150), die(v, 250, 150)) for v in (2, 3, 2, 3, 5)]
    result = reveal(readings, {"Ann": 1, "Ben": 1})
    assert [(p.kind, p.seat) for p in result.problems] == [("uncertain", "Ben")]


def test_set_aside_mismatch() -> None:
    frame_dice = reading(die(4, 30, 150), die(5, 120, 30))
    result = reveal([frame_dice] * 3, {"Ann": ExpectedHand(2, (6,)), "Ben": 0})
    assert [p.kind for p in result.problems] == ["set_aside_mismatch"]
    assert result.problems[0].message == (
        "Ann: the dice set aside were 6; in front of the cup the camera sees 5")
    two = reveal([reading(die(4, 30, 150), die(5, 120, 30), die(3, 130, 40))] * 3,
                 {"Ann": ExpectedHand(3, (4, 6)), "Ben": 0})
    assert two.problems[0].message == (
        "Ann: the dice set aside were 4 and 6; in front of the cup the camera sees 3 and 5")


def test_more_players_than_zones_is_an_error() -> None:
    with pytest.raises(ValueError, match="4 players but only 3 seat zones"):
        reveal([reading()], {"A": 1, "B": 1, "C": 1, "D": 1})


def test_frames_that_never_settle_give_a_not_still_review() -> None:
    frames = [np.full((50, 50, 3), 60 * (i % 2), dtype=np.uint8) for i in range(10)]
    result = capture_reveal(frames, ZONES, {"Ann": 1}, None, reader=lambda f, p: reading())
    assert result.needs_review and [p.kind for p in result.problems] == ["not_still"]
    assert "frames ended" in result.problems[0].message


def test_read_set_aside_reads_only_that_seats_front_area() -> None:
    frame_dice = reading(die(4, 30, 150), die(6, 120, 30), die(6, 125, 50), die(3, 180, 30))
    reader = ScriptedReader([frame_dice] * 3)
    result = read_set_aside(reader.frames(), 0, ZONES, stillness=None, reader=reader)
    assert result.values == [6, 6] and not result.needs_review
    empty = read_set_aside(
        ScriptedReader([reading()]).frames(),
        1,
        ZONES,
        stillness=None,
        reader=lambda f, p: reading(),
    )
    assert empty.needs_review and "no dice seen in front of the cup" in empty.problems[0].message
    with pytest.raises(ValueError, match="Seat 3 has no front-of-cup area"):
        read_set_aside([], 2, ZONES, reader=reader)


def test_calibration_zones_work_directly() -> None:
    profile = profile_from_dict(
        {
            "camera": {"spec": "files:x", "resolution": [300, 200]},
            "table": {"area": [[0, 0], [300, 0], [300, 200], [0, 200]]},
            "seats": [
                {"name": "Left", "zone": [[0, 0], [140, 0], [140, 200], [0, 200]]},
                {
                    "name": "Right",
                    "zone": [[160, 0], [300, 0], [300, 200], [160, 200]],
                    "front": [[160, 0], [200, 0], [200, 60], [160, 60]],
                },
            ],
        }
    )
    reader = ScriptedReader([reading(die(4, 30, 150), die(2, 250, 150), die(6, 180, 30))] * 2)
    result = capture_reveal(
        reader.frames(),
        profile.zones,
        {"Ann": 1, "Ben": ExpectedHand(2, (6,))},
        None,
        stillness=None,
        reader=reader,
    )
    assert not result.needs_review
    assert result.values() == {"Ann": [4], "Ben": [2]}


def test_a_bare_count_includes_set_aside_dice_but_does_not_check_their_faces() -> None:
    frame_dice = reading(die(4, 30, 150), die(5, 120, 30))
    result = reveal([frame_dice] * 3, {"Ann": 2, "Ben": 0})
    assert result.problems == []
    assert [d.value for d in result.set_aside["Ann"]] == [5]


def test_reading_stops_early_only_when_the_first_frames_agree_on_every_die() -> None:
    agreeing = ScriptedReader([reading(die(4, 30, 150), die(2, 250, 150))] * 5)
    result = capture_reveal(
        agreeing.frames(), ZONES, {"Ann": 1, "Ben": 1}, None, stillness=None, reader=agreeing
    )
    assert agreeing.calls == 3 and result.frames_voted == 3 and not result.needs_review
    flickering = ScriptedReader(
        [reading(die(4, 30, 150), die(v, 250, 150)) for v in (2, 2, 3, 2, 2)]
    )
    result = capture_reveal(
        flickering.frames(), ZONES, {"Ann": 1, "Ben": 1}, None, stillness=None, reader=flickering
    )
    assert flickering.calls == 5 and result.frames_voted == 5
    assert result.values() == {"Ann": [4], "Ben": [2]}
    assert result.seats["Ben"][0].confidence == pytest.approx(0.8 * 0.95)
    assert result.needs_review is False  # 4 of 5 agree: 0.76 clears min_confidence 0.6


def test_unanimous() -> None:
    same = [reading(die(4, 30, 150)), reading(die(4, 31, 151))]
    assert unanimous(same)
    assert not unanimous([reading(die(4, 30, 150)), reading(die(5, 30, 150))])
    assert not unanimous([reading(die(4, 30, 150)), reading()])


def test_each_seats_label_is_drawn_inside_its_own_zone() -> None:
    """Sector zones (what calibration fits): the label drawn at a zone's bounding-box corner
    sat in a neighbour's zone, on a neighbour's dice."""
    import cv2

    from calibration.fit import fit_table
    from vision.draw import label_anchor

    centre = np.array([640.0, 480.0])
    positions = [tuple(centre + 300 * np.array([np.cos(a), np.sin(a)]) + offset)
                 for a in (0.5, 2.6, 4.7) for offset in ((0, 0), (45, 10), (10, 45))]
    zones = fit_table(positions, 3, frame_size=(1280, 960)).zones
    polygons = [np.asarray(z.zone, dtype=np.float32) for z in zones]

    def inside(polygon: Any, x: float, y: float) -> bool:
        return cv2.pointPolygonTest(polygon, (float(x), float(y)), False) >= 0

    corners_elsewhere = 0
    for index, polygon in enumerate(polygons):
        left, top = polygon.min(axis=0)
        corners_elsewhere += not inside(polygon, left + 5, top + 5)
        spot = label_anchor(polygon, (960, 1280, 3), (120, 30))
        assert spot is not None
        x, y = spot
        for cx, cy in ((x, y), (x + 120, y), (x, y + 30), (x + 120, y + 30)):
            assert inside(polygon, cx, cy), (index, spot)
            assert 0 <= cx < 1280 and 0 <= cy < 960
            assert not any(inside(other, cx, cy) for j, other in enumerate(polygons)
                           if j != index)
    assert corners_elsewhere > 0  # the old place was wrong for some seat here


def _counted(frames: Sequence[np.ndarray], taken: list[int]) -> Any:
    """The frames as a camera gives them, counting each one taken (a frame period's wait)."""
    for frame in frames:
        taken.append(1)
        yield frame


@pytest.mark.parametrize("expected, frames_taken", [
    (1, 3),  # one sure die, as expected: the run's first three frames settle it
    (2, 6),  # a die missing: the whole still window (the first, then still_frames more)
])
def test_no_camera_frame_is_taken_to_be_thrown_away_once_the_scene_is_still(
        expected: int, frames_taken: int) -> None:
    """Once the scene was still, one more camera frame was taken and never read: a frame
    period (a tenth of a second at 10 frames a second) added to every reveal."""
    from vision.reveal import DEFAULT_STILLNESS

    assert DEFAULT_STILLNESS.still_frames + 1 == 6
    still = np.full((200, 300, 3), 90, dtype=np.uint8)
    taken: list[int] = []
    result = capture_reveal(_counted([still] * 20, taken), ZONES, {"Ann": expected}, None,
                            reader=lambda f, p: reading(die(4, 30, 150)))
    assert result.seats["Ann"] and result.needs_review is (expected != 1)
    assert len(taken) == frames_taken


def test_frames_known_still_are_taken_only_as_far_as_the_vote_needs() -> None:
    taken: list[int] = []
    frames = [np.full((200, 300, 3), 90, dtype=np.uint8)] * 8
    capture_reveal(_counted(frames, taken), ZONES, {"Ann": 1}, None, stillness=None,
                   reader=lambda f, p: reading(die(4, 30, 150)))
    assert len(taken) == 3  # three agreeing readings end the vote


def _logged(events: list[str], count: int = 20) -> Any:
    for _ in range(count):
        events.append("frame")
        yield np.full((200, 300, 3), 90, dtype=np.uint8)


def test_a_clean_reveal_is_settled_by_the_still_runs_first_three_frames() -> None:
    """Every die sure, the counts as expected, three frames agreeing: the verdict comes as
    the third still frame is read, not after the whole still window (at 10 frames a second,
    0.3 s after the last motion instead of 0.6 s). The run's first frame is read once the
    second has joined it, and each later one as it comes."""
    events: list[str] = []

    def reader(frame: np.ndarray, params: Any) -> Reading:
        events.append("read")
        return reading(die(4, 30, 150), die(2, 250, 150))

    result = capture_reveal(_logged(events), ZONES, {"Ann": 1, "Ben": 1}, None, reader=reader)
    assert result.values() == {"Ann": [4], "Ben": [2]} and not result.needs_review
    assert result.frames_voted == 3
    assert events == ["frame", "frame", "read", "read", "frame", "read"]


@pytest.mark.parametrize("readings, reads, why", [
    ([reading(die(4, 30, 150, 0.4))], 4, "a die read unsure"),
    ([reading(die(4, 150, 100))], 4, "a die outside every zone"),
    ([reading()], 4, "a die missing"),
    ([reading(die(4, 30, 150)), reading(die(5, 30, 150))], 6, "frames that disagree"),
])
def test_a_reveal_with_anything_to_check_waits_for_the_whole_still_window(
        readings: list[Reading], reads: int, why: str) -> None:
    """Anything short of clean goes the old way: the whole still window, then the vote (its
    first frames read while the wait goes on: 4 reads for 6 frames where they agree; frames
    that disagree are all read)."""
    from vision.reveal import DEFAULT_STILLNESS

    events: list[str] = []
    calls = iter(range(100))

    def reader(frame: np.ndarray, params: Any) -> Reading:
        events.append("read")
        return readings[next(calls) % len(readings)]

    capture_reveal(_logged(events), ZONES, {"Ann": 1}, None, reader=reader)
    assert events.count("frame") == DEFAULT_STILLNESS.still_frames + 1, why
    assert events.count("read") == reads, why
    if reads == 4:
        assert events[-1] == "frame", why  # the vote's frames were read during the wait


def test_readings_made_during_a_run_that_motion_breaks_are_not_used() -> None:
    """A hand comes back after the first still frames: the reveal is read from the frames
    of the run that lasted, never from the one before it (readings are kept by the frame
    they were made of, not by their place in a run)."""
    table = np.full((200, 300, 3), 90, dtype=np.uint8)
    moved = np.full((200, 300, 3), 200, dtype=np.uint8)
    frames = [table] * 2 + [moved] * 10  # still for a moment, then a different scene
    frames = [f.copy() for f in frames]

    def reader(frame: np.ndarray, params: Any) -> Reading:
        return reading(die(4 if frame[0, 0, 0] == 90 else 6, 30, 150))

    result = capture_reveal(frames, ZONES, {"Ann": 1}, None, reader=reader)
    assert [d.value for d in result.seats["Ann"]] == [6]


def test_while_the_scene_moves_no_frame_is_read_early() -> None:
    """Every frame starts a run while a hand moves: none is worth a read until one holds."""
    reads: list[int] = []
    frames = [np.full((200, 300, 3), 60 * (i % 2), dtype=np.uint8) for i in range(12)]
    capture_reveal(frames, ZONES, {"Ann": 1}, None, vote_frames=8,
                   reader=lambda f, p: reads.append(1) or reading())
    assert reads == []
