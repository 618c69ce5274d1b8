"""The Table with the real reader (vision.reveal + read_dice) on a rendered reveal photo.

Whatever the reader's current quality, the table must never adjudicate on a misread: a
reveal either applies exactly the dice the renderer placed, or waits for review.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import pytest

from bluffcam.labelled_photos import export_reveals
from bluffcam.table import Table
from vision import ReaderParams
from vision.bench import in_grown_box, load_manifest
from vision.zones import PolygonZones

CASE = Path(__file__).resolve().parents[1] / "data" / "reveal" / "ok.json"
#: round 1 leaves Cho with 4 dice; round 2 Ben sets aside [5, 5]: the photo's situation
ACTIONS: list[dict[str, Any]] = [
    {"player": "Ann", "bid": "1x2"},
    {"player": "Ben", "bid": "1x3"},
    {"player": "Cho", "challenge": True},
    {"reveal": {"Ann": [2, 2, 2, 2, 3], "Ben": [2, 2, 2, 2, 1], "Cho": [2, 2, 4, 5, 6]}},
    {"player": "Ben", "bid": "2x5", "set_aside": [5, 5]},
    {"player": "Cho", "challenge": True},
]


class PhotoCamera:
    spec = "photo:"
    status = "ok"

    def __init__(self, image: Any) -> None:
        self.image = image

    def frames(self) -> Iterator[Any]:
        for _ in range(12):
            yield self.image


def _truth() -> dict[str, Any]:
    if not CASE.is_file():
        pytest.skip(f"rendered test data not found: {CASE} (python -m tools.render testdata)")
    truth: dict[str, Any] = json.loads(CASE.read_text())
    return truth


def _table_at_the_reveal(tmp_path: Path, truth: dict[str, Any]) -> tuple[Table, Any]:
    """A table whose camera sees the rendered photo, played to round 2's reveal."""
    image = cv2.imread(str(CASE.with_name(truth["image"])))
    seats = truth["layout"]["seats"]
    zones = PolygonZones(
        tuple(s["name"] for s in seats),
        tuple(tuple((float(x), float(y)) for x, y in s["zone"]) for s in seats),
        tuple(tuple((float(x), float(y)) for x, y in s["front"]) if s.get("front") else None
              for s in seats),
    )
    profile = SimpleNamespace(zones=zones, reader_params=ReaderParams())
    table = Table(tmp_path / "journal.sqlite", camera=PhotoCamera(image), profile=profile)
    table.new_game({"game": "bluff", "players": ["Ann", "Ben", "Cho"]})
    for action in ACTIONS:
        table.submit(action)
    return table, image


@pytest.mark.slow
def test_real_reader_applies_the_truth_or_asks_for_review(tmp_path: Path) -> None:
    truth = _truth()
    table, image = _table_at_the_reveal(tmp_path, truth)
    try:
        state = table.capture_reveal()
    finally:
        table.close()
    placed: dict[str, list[int]] = {"Ann": [], "Ben": [], "Cho": []}
    for die in truth["dice"]:
        placed[["Ann", "Ben", "Cho"][die["seat"]]].append(die["value"])
    assert (tmp_path / "reveals" / "r1.jpg").is_file()
    # the frame is kept unmarked as well: the camera's picture, not the reading drawn on it
    unmarked = cv2.imread(str(tmp_path / "reveals" / "r1.photo.jpg"))
    marked = cv2.imread(str(tmp_path / "reveals" / "r1.jpg"))
    assert unmarked.shape == marked.shape == image.shape
    assert cv2.absdiff(unmarked, image).mean() < 2.0 < cv2.absdiff(marked, image).mean()
    if state["review"] is None:
        applied = state["last_reveal"]["seats"]
        assert {n: sorted(v) for n, v in applied.items()} == {n: sorted(v)
                                                              for n, v in placed.items()}
    else:
        assert state["review"]["problems"]
        assert len(state["history"]) == 1  # round 2 not adjudicated


@pytest.mark.slow
def test_a_settled_reveal_exports_its_photo_labelled_where_the_dice_lie(tmp_path: Path) -> None:
    truth = _truth()
    table, image = _table_at_the_reveal(tmp_path, truth)
    names = ["Ann", "Ben", "Cho"]
    try:
        state = table.capture_reveal()
        if state["review"] is not None:  # confirmed as the review page sends it: with places
            seats: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
            for die in truth["dice"]:
                seats[names[die["seat"]]].append(
                    {"value": die["value"], "x": die["x"], "y": die["y"]})
            table.confirm_review(state["review"]["id"], seats)
    finally:
        table.close()
    export_reveals(tmp_path / "reveals", tmp_path / "out", with_accepted=True)
    root, (entry,) = load_manifest(tmp_path / "out" / "manifest.json")
    assert cv2.imread(str(root / entry.image)).shape == image.shape
    assert len(entry.dice) == len(truth["dice"])
    for die in truth["dice"]:  # each rendered die lies in a label's box of its value
        assert any(label.value == die["value"] and label.box is not None
                   and in_grown_box(label.box, die["x"], die["y"])
                   for label in entry.dice), die



def test_a_camera_giving_another_size_than_the_zones_is_named_not_read(tmp_path: Path) -> None:
    """A webcam that ignored the size asked of it: the profile's zones (pixels of 1280 × 960)
    would put the dice of a 640 × 480 frame in the wrong seats. The capture says so instead."""
    from bluffcam.table import TableError
    from calibration import load_profile

    repo = Path(__file__).resolve().parents[2]
    profile = load_profile(repo / "calibration" / "demo.toml")
    assert profile.resolution == (1280, 960)
    frame = cv2.imread(str(sorted((repo / "bluffcam/recordings/demo/frames").rglob("*.jpg"))[0]))
    assert frame.shape[:2] == (960, 1280)
    table = Table(tmp_path / "journal.sqlite", camera=PhotoCamera(cv2.resize(frame, (640, 480))),
                  profile=profile)
    try:
        table.new_game({"game": "bluff", "players": ["Ann", "Ben", "Cho"], "starter": "Ann"})
        table.submit({"player": "Ann", "bid": "1x2"})
        table.submit({"player": "Ben", "challenge": True})
        with pytest.raises(TableError) as refused:
            table.capture_reveal()
        assert "the camera gives 640×480 frames, but this table's zones were fitted on " \
               "1280×960 ones: set the camera to 1280×960 or fit the zones again" \
               in refused.value.message
        assert table.state()["game"]["phase"] == "reveal"
    finally:
        table.close()
