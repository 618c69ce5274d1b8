"""Reveal capture on the project's rendered test data (tests/data, made by tools/render).

Two kinds of test:
- with a *truth reader* (a stand-in that returns the renderer's ground-truth dice), the
  reveal logic — seat zones, front areas, counts, uncertain and stray dice, stillness — is
  checked against the renderer's own labels, whatever the dice reader's current quality;
- with the real `vision.read_dice`, the safety rule: a reveal that does not ask for review
  must agree with the ground truth exactly (never a silent misread).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision import read_dice
from vision.reveal import capture_reveal, wait_for_still
from vision.stillness import StillnessParams
from vision.types import Die, Reading
from vision.zones import PolygonZones

DATA = Path(__file__).resolve().parents[1] / "data"
REVEAL_CASES = ["ok", "count_mismatch", "uncertain"]


def need_data(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"rendered test data not found: {path} (python -m tools.render testdata)")
    return path


def zones_of(layout: dict[str, Any]) -> PolygonZones:
    seats = layout["seats"]
    return PolygonZones(
        tuple(s["name"] for s in seats),
        tuple(tuple((float(x), float(y)) for x, y in s["zone"]) for s in seats),
        tuple(
            tuple((float(x), float(y)) for x, y in s["front"]) if s.get("front") else None
            for s in seats
        ),
    )


def load_case(name: str) -> tuple[np.ndarray, dict[str, Any]]:
    truth_path = need_data(DATA / "reveal" / f"{name}.json")
    truth = json.loads(truth_path.read_text())
    image = cv2.imread(str(truth_path.parent / truth["image"]))
    assert image is not None
    return image, truth


def truth_reader(dice: list[dict[str, Any]]) -> Any:
    """A perfect reader: the ground truth, low confidence where the renderer says uncertain."""

    def read(frame: np.ndarray, params: Any) -> Reading:
        return Reading(
            dice=tuple(
                Die(
                    d["value"],
                    d["x"],
                    d["y"],
                    0.3 if d["uncertain"] else 0.95,
                    np.asarray(d["outline"], dtype=np.float64),
                )
                for d in dice
                if d["visible"] >= 0.5
            ),
            width=frame.shape[1],
            height=frame.shape[0],
        )

    return read


def truth_by_seat(truth: dict[str, Any], area: str) -> dict[str, list[int]]:
    names = [s["name"] for s in truth["layout"]["seats"]]
    out: dict[str, list[int]] = {n: [] for n in names}
    for die in truth["dice"]:
        if die["seat"] is not None and die["area"] == area and die["visible"] >= 0.5:
            out[names[die["seat"]]].append(die["value"])
    return {n: sorted(v) for n, v in out.items()}


@pytest.mark.parametrize("name", REVEAL_CASES)
def test_dice_land_in_the_seats_and_areas_the_renderer_put_them(name: str) -> None:
    image, truth = load_case(name)
    result = capture_reveal(
        [image] * 3,
        zones_of(truth["layout"]),
        truth["expected_counts"],
        None,
        stillness=None,
        reader=truth_reader(truth["dice"]),
    )
    assert result.values() == truth_by_seat(truth, "zone")
    set_aside = {n: sorted(d.value for d in dice) for n, dice in result.set_aside.items()}
    assert set_aside == truth_by_seat(truth, "front")


def test_ok_case_problems_are_only_the_dice_the_renderer_marks_uncertain() -> None:
    image, truth = load_case("ok")
    result = capture_reveal(
        [image] * 3,
        zones_of(truth["layout"]),
        truth["expected_counts"],
        None,
        stillness=None,
        reader=truth_reader(truth["dice"]),
    )
    flagged = sorted((round(p.x or 0), round(p.y or 0)) for p in result.problems)
    marked = sorted((round(d["x"]), round(d["y"])) for d in truth["dice"] if d["uncertain"])
    assert flagged == marked
    assert all(p.kind == "uncertain" for p in result.problems)


def test_count_mismatch_case_names_the_short_seat() -> None:
    image, truth = load_case("count_mismatch")
    perfect = [dict(d, uncertain=False) for d in truth["dice"]]
    result = capture_reveal(
        [image] * 3,
        zones_of(truth["layout"]),
        truth["expected_counts"],
        None,
        stillness=None,
        reader=truth_reader(perfect),
    )
    expected = truth["expected_counts"]
    seen = {n: len(result.seats[n]) + len(result.set_aside[n]) for n in expected}
    short = [n for n in expected if seen[n] != expected[n]]
    assert short  # the case is built with a die missing
    counts = [(p.kind, p.seat) for p in result.problems if p.kind != "covered"]
    assert counts == [("count_mismatch", n) for n in short]
    # the cup that hides the missing die lies over part of its neighbour (the renderer's
    # ``visible``): the cover check (vision.cover_check) names that one, and no other
    part_hidden = {(round(d["x"]), round(d["y"])) for d in truth["dice"] if d["visible"] < 0.9}
    assert part_hidden
    covered = {(round(p.x or 0), round(p.y or 0)) for p in result.problems if p.kind == "covered"}
    assert covered == part_hidden


def test_uncertain_case_flags_each_doubtful_die_where_it_lies() -> None:
    image, truth = load_case("uncertain")
    result = capture_reveal(
        [image] * 3,
        zones_of(truth["layout"]),
        truth["expected_counts"],
        None,
        stillness=None,
        reader=truth_reader(truth["dice"]),
    )
    assert result.needs_review
    for die in truth["dice"]:
        if not die["uncertain"] or die["visible"] < 0.5:
            continue
        near = [
            p
            for p in result.problems
            if p.x is not None and abs(p.x - die["x"]) < 1 and abs((p.y or 0) - die["y"]) < 1
        ]
        kinds = {p.kind for p in near}
        assert kinds == ({"outside_zones"} if die["seat"] is None else {"uncertain"}), die


def test_still_after_motion_sequence_waits_for_the_hands_to_leave() -> None:
    folder = need_data(DATA / "sequences" / "still_after_motion")
    truth = json.loads((folder / "truth.json").read_text())
    frames = [cv2.imread(str(folder / f["image"])) for f in truth["frames"]]
    params = StillnessParams(still_frames=3)
    window = wait_for_still(iter(frames), params)
    first = next(i for i, f in enumerate(frames) if f is window[0])
    assert first == truth["still_from"]
    assert all(truth["frames"][first + i]["hands"] == 0 for i in range(len(window)))


@pytest.mark.parametrize("name", REVEAL_CASES)
def test_real_reader_never_passes_a_wrong_reading(name: str) -> None:
    image, truth = load_case(name)
    result = capture_reveal(
        [image] * 3, zones_of(truth["layout"]), truth["expected_counts"], None, stillness=None
    )
    if not result.needs_review:
        assert result.values() == truth_by_seat(truth, "zone")
    if name == "count_mismatch":
        assert result.needs_review  # a die is missing: this scene can never be adjudicated unseen


def test_real_reader_reads_the_cocked_die_by_its_face_most_up() -> None:
    """The reader has no notion of a cocked die: it reads the face most up. The ``uncertain``
    scene's cocked die (tilted 28 degrees against a neighbour, which the renderer marks
    uncertain) is read as its true value, so where nothing else is in doubt the reveal is
    applied as read. (An earlier reader doubted a different die of the scene, which sent the
    reveal to review and hid this; docs/vision_detector.md, "Known weak spots".)"""
    image, truth = load_case("uncertain")
    reading = read_dice(image)
    cocked = [d for d in truth["dice"] if d.get("cocked")]
    assert cocked, "the scene is no longer a test of it"
    for die in cocked:
        near = [p for p in reading.dice if abs(p.x - die["x"]) < 0.3 * die["size_px"]
                and abs(p.y - die["y"]) < 0.3 * die["size_px"]]
        assert [p.value for p in near] == [die["value"]], die
