"""The learned detector and the learned reading path, on the project's own renders.

The committed renders in tests/data come from the same generator (tools/render) as part of
the detector's training renders, but from other seeds: these tests check that the network,
its preprocessing and the decoding fit together, not how it generalises (the held-out real
photos in tests/vision/test_dataset_floors.py do that).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import vision.detector as detector
from vision import ReaderParams, read_dice
from vision.detector import (
    ALIGN,
    MAX_UPSCALE,
    Candidate,
    cell_to_pixel,
    find_candidates,
    heat_maps,
    input_scale,
    merge_candidates,
    normalise,
    pixel_to_cell,
    prepare,
    working_side,
)
from vision.onnx_net import LazyNet
from vision.types import Reading

DATA = Path(__file__).resolve().parents[1] / "data"


def rendered(name: str) -> tuple[np.ndarray, dict[str, Any]]:
    truth_path = DATA / f"{name}.json"
    if not truth_path.exists():
        pytest.skip(f"rendered test data not found: {truth_path} (python -m tools.render testdata)")
    truth = json.loads(truth_path.read_text())
    image = cv2.imread(str(truth_path.with_suffix(".jpg")))
    assert image is not None
    return image, truth


def plain_dice(truth: dict[str, Any]) -> list[dict[str, Any]]:
    """The dice a reader must report: lying flat and in plain view."""
    return [d for d in truth["dice"] if not d["uncertain"] and d["visible"] >= 0.9]


def test_prepare_pads_to_the_network_grid_and_keeps_the_picture() -> None:
    image = np.random.default_rng(1).integers(0, 255, (301, 437, 3), dtype=np.uint8)
    scale = input_scale(301, 437, 320)
    assert scale == pytest.approx(320 / 437)
    ready = prepare(image, scale)
    assert ready.shape[0] % ALIGN == 0 and ready.shape[1] % ALIGN == 0
    assert ready.shape[1] == 320 and ready.shape[0] >= round(301 * scale)


def test_normalise_centres_each_channel_and_scales_each_image_to_unit_spread() -> None:
    rng = np.random.default_rng(4)
    batch = rng.integers(0, 256, (3, 24, 40, 3), dtype=np.uint8)
    batch[1, ..., 2] //= 4  # a colour cast: one channel much darker
    out = normalise(batch)
    assert out.shape == (3, 3, 24, 40) and out.dtype == np.float32 and out.flags.c_contiguous
    assert np.allclose(out.mean(axis=(2, 3)), 0.0, atol=1e-4)
    assert np.allclose(out.std(axis=(1, 2, 3)), 1.0, atol=1e-4)
    # each channel stays in its place: brighter than its channel's mean is above zero
    above = batch[1, ..., 2] > batch[1, ..., 2].mean()
    assert ((out[1, 2] > 0) == above).all()
    flat = normalise(np.full((1, 8, 8, 3), 90, np.uint8))
    assert np.allclose(flat, 0.0)  # a flat image has no spread to scale up
    assert normalise(np.zeros((0, 8, 8, 3), np.uint8)).shape == (0, 3, 8, 8)


def test_small_frames_are_enlarged_at_most_twice() -> None:
    assert input_scale(60, 70, 320) == MAX_UPSCALE
    assert input_scale(4000, 3000, 320) == pytest.approx(0.08)


@pytest.mark.parametrize("pixel", [0.0, 1.5, 17.25, 319.0])
def test_cell_and_pixel_coordinates_are_inverse(pixel: float) -> None:
    assert cell_to_pixel(pixel_to_cell(pixel)) == pytest.approx(pixel)


#: sizes/tiny_dice holds two touching 17-px dice that must stay two candidates at half a size
#: apart (``vision.detector.SAME_SPOT``); tables/felt a green die touching another on green
#: felt, which an earlier detector missed (presence 0.38; the long-trained one proposes it)
@pytest.mark.parametrize("name", ["tables/wood", "tables/felt", "tables/board",
                                  "touching/touching_1", "sizes/tiny_dice"])
def test_candidates_sit_on_the_rendered_dice(name: str) -> None:
    """Every plain die is proposed at the reader's own settings (a faint one is then
    reported as uncertain, never dropped)."""
    image, truth = rendered(name)
    params = ReaderParams()
    found = find_candidates(image, side=params.detector_side, min_score=params.detector_min_score)
    want = plain_dice(truth)
    assert want
    for die in want:
        near = [c for c in found if np.hypot(c.x - die["x"], c.y - die["y"]) < 0.4 * die["size_px"]]
        assert near, f"{name}: no candidate near the {die['value']} at ({die['x']}, {die['y']})"
        assert 0.5 < near[0].size / die["size_px"] < 2.0


@pytest.mark.parametrize("name", ["empty/wood", "empty/felt", "empty/board"])
def test_an_empty_table_gives_no_sure_die(name: str) -> None:
    image, _ = rendered(name)
    reading = read_dice(image)
    assert [d for d in reading.dice if d.confidence >= reading.min_confidence] == []


def test_rendered_singles_are_read_with_their_values() -> None:
    right = total = 0
    for path in sorted((DATA / "single").glob("*.json")):
        image, truth = rendered(f"single/{path.stem}")
        reading = read_dice(image)
        total += 1
        right += reading.values == [d["value"] for d in plain_dice(truth)]
    if total == 0:
        pytest.skip("no rendered singles in tests/data")
    assert right / total >= 0.9, f"{right} of {total} single dice read right"


def sure_and_wrong(reading: Reading, dice: list[dict[str, Any]]) -> tuple[int, int]:
    """(dice reported as sure, those of them not on a rendered die of their value)."""
    sure = wrong = 0
    for die in reading.dice:
        if die.confidence < reading.min_confidence:
            continue
        sure += 1
        match = min(dice, key=lambda d: np.hypot(d["x"] - die.x, d["y"] - die.y))
        close = np.hypot(match["x"] - die.x, match["y"] - die.y) < 0.5 * match["size_px"]
        wrong += not (close and match["value"] == die.value)
    return sure, wrong


def test_sure_dice_on_rendered_tables_are_right() -> None:
    """Never a silent misread: every die reported as sure matches a rendered die's value."""
    sure = wrong = 0
    for name in ["tables/wood", "tables/dark_wood", "tables/felt", "tables/paper",
                 "tables/cloth", "tables/board", "touching/touching_1", "touching/touching_2",
                 "touching/touching_3", "oblique/oblique_1", "oblique/oblique_2"]:
        image, truth = rendered(name)
        reading = read_dice(image)
        assert reading.min_confidence == 0.6
        found, misread = sure_and_wrong(reading, truth["dice"])
        sure, wrong = sure + found, wrong + misread
    assert sure > 40
    assert wrong <= 0.02 * sure, f"{wrong} of {sure} sure dice wrong"


def test_a_missing_model_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    absent = LazyNet(tmp_path / "absent.onnx", "die detector", "tools/train/train_dice_detector.py")
    monkeypatch.setattr(detector, "NET", absent)
    with pytest.raises(FileNotFoundError, match="train_dice_detector"):
        find_candidates(np.zeros((64, 64, 3), np.uint8), side=320, min_score=0.2)


def test_a_missing_wide_model_is_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    absent = LazyNet(tmp_path / "absent.onnx", "wide die detector",
                     "tools/train/train_dice_detector.py")
    monkeypatch.setattr(detector, "WIDE_NET", absent)
    image = np.zeros((64, 64, 3), np.uint8)
    with pytest.raises(FileNotFoundError, match="absent.onnx"):
        find_candidates(image, side=320, min_score=0.2)
    find_candidates(image, side=320, min_score=0.2, nets=1)  # the first network alone reads


def test_two_networks_give_the_mean_of_their_maps(monkeypatch: pytest.MonkeyPatch) -> None:
    image, _ = rendered("tables/felt")
    both, scale = heat_maps(image, 320, nets=2)
    first, _ = heat_maps(image, 320, nets=1)
    monkeypatch.setattr(detector, "NET", detector.WIDE_NET)
    wide, wide_scale = heat_maps(image, 320, nets=1)
    assert scale == wide_scale
    assert not np.allclose(first, wide, atol=1e-3)  # two networks, two opinions
    assert np.allclose(both, (first + wide) / 2, atol=1e-5)
    for nets in (0, 3):
        with pytest.raises(ValueError, match="detector networks must be 1..2"):
            heat_maps(image, 320, nets=nets)


def test_the_reader_reads_with_one_network_when_told(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    image, truth = rendered("tables/felt")
    monkeypatch.setattr(detector, "WIDE_NET", LazyNet(tmp_path / "absent.onnx", "x", "x"))
    reading = read_dice(image, ReaderParams(detector_networks=1))
    sure, misread = sure_and_wrong(reading, truth["dice"])  # the wide model was never read
    assert sure >= len(truth["dice"]) - 1 and misread == 0


def test_the_classical_method_is_still_there() -> None:
    image, truth = rendered("tables/felt")
    reading = read_dice(image, ReaderParams(method="classical"))
    assert reading.width == image.shape[1]


@pytest.mark.parametrize("bad", [{"method": "magic"}, {"detector_side": 10},
                                 {"detector_min_score": 0.5, "detector_sure": 0.4},
                                 {"detector_faint_score": 0.0}, {"verifier_min_odds": 1.5},
                                 {"detector_views": 0}, {"detector_views": 5},
                                 {"detector_networks": 0}, {"detector_networks": 3}])
def test_bad_detector_settings_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        ReaderParams(**bad)


def test_more_dice_than_max_dice_makes_every_die_uncertain() -> None:
    image, _ = rendered("tables/felt")
    crowded = read_dice(image, ReaderParams(max_dice=1))
    assert len(crowded.dice) > 1
    assert crowded.uncertain == crowded.dice
    assert [d.value for d in crowded.dice] == [d.value for d in read_dice(image).dice]


def test_working_side_grows_only_for_frames_over_twice_the_working_size() -> None:
    assert working_side(480, 640, 320) == 320  # a dataset photo: read as always
    assert working_side(960, 1280, 320) == 640  # a camera frame: shrunk 2x, not 4x
    assert working_side(1520, 2028, 320) == 960  # capped for time
    assert working_side(3024, 4032, 320) == 960
    assert working_side(960, 1280, 800) == 800  # a profile's larger side is kept
    assert working_side(1520, 2028, 320, max_side=640) == 640  # a slow board's cap
    assert working_side(1520, 2028, 320, max_side=320) == 320  # never grows


def test_a_profile_can_cap_the_working_side() -> None:
    assert ReaderParams().detector_max_side == 960
    with pytest.raises(ValueError, match="detector_max_side"):
        ReaderParams(detector_max_side=10)


def camera_frame(name: str, tiles: int) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A render tiled ``tiles`` x ``tiles``: the same dice, in a frame as big as a camera's."""
    image, truth = rendered(name)
    h, w = image.shape[:2]
    big = np.tile(image, (tiles, tiles, 1))
    dice = [dict(d, x=d["x"] + i * w, y=d["y"] + j * h)
            for i in range(tiles) for j in range(tiles) for d in plain_dice(truth)]
    return big, dice


def count_read_right(image: np.ndarray, dice: list[dict[str, Any]],
                     params: ReaderParams | None = None) -> tuple[int, int]:
    """(dice read with their value, dice reported sure with a wrong value)."""
    reading = read_dice(image, params)
    right = 0
    for die in dice:
        near = [d for d in reading.dice
                if np.hypot(d.x - die["x"], d.y - die["y"]) < 0.5 * die["size_px"]]
        right += bool(near) and near[0].value == die["value"]
    return right, sure_and_wrong(reading, dice)[1]


def test_a_camera_sized_frame_is_read_as_well_as_the_photo_it_is_made_of(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image, truth = rendered("tables/wood")
    single_right, _ = count_read_right(image, plain_dice(truth))
    big, dice = camera_frame("tables/wood", 3)
    assert max(big.shape[:2]) >= 3 * 320
    right, wrong = count_read_right(big, dice)
    assert wrong == 0
    assert right >= 9 * single_right - 2, f"{right} of {len(dice)} read right in the big frame"
    # shrunk to the usual 320 px, the same frame loses most of its dice (without the closer
    # look, which would read it at 640 where its dice look small: tests/vision/test_closer_look.py)
    monkeypatch.setattr(detector, "MAX_SHRINK", 1e9)
    shrunk_right, _ = count_read_right(big, dice, ReaderParams(closer_look_below=0))
    assert shrunk_right < right - len(dice) // 4, (shrunk_right, right)


def test_one_view_is_the_frame_as_it_is() -> None:
    image, _ = rendered("tables/wood")
    one, scale = heat_maps(image, 320)
    assert np.array_equal(one, heat_maps(image, 320, views=1)[0])
    assert one.shape[0] == 8 and scale == pytest.approx(0.5)


@pytest.mark.parametrize("views", [2, 4])
def test_averaged_views_turn_with_the_frame(views: int) -> None:
    """The views are the frame's half turn and mirror images mapped back, so their mean
    turns with the frame exactly (the padding aside: a 640x640 frame has none at 320)."""
    image, _ = rendered("tables/wood")
    square = np.ascontiguousarray(cv2.resize(image, (640, 640)))
    maps, _ = heat_maps(square, 320, views=views)
    turned, _ = heat_maps(np.ascontiguousarray(square[::-1, ::-1]), 320, views=views)
    assert np.allclose(turned, maps[:, ::-1, ::-1], atol=1e-4)
    # ... which one read alone does not: how pixels fall on the stride grid matters to it
    single, _ = heat_maps(square, 320)
    single_turned, _ = heat_maps(np.ascontiguousarray(square[::-1, ::-1]), 320)
    assert not np.allclose(single_turned, single[:, ::-1, ::-1], atol=1e-4)


def test_more_views_still_find_the_rendered_dice() -> None:
    image, truth = rendered("tables/wood")
    found = find_candidates(image, side=320, min_score=0.4, views=4)
    for die in plain_dice(truth):
        assert any(np.hypot(c.x - die["x"], c.y - die["y"]) < 0.4 * die["size_px"] for c in found)
    with pytest.raises(ValueError, match="views"):
        heat_maps(image, 320, views=5)


def _candidate(x: float, y: float, size: float, score: float) -> Candidate:
    return Candidate(x, y, size, score, np.full(6, 1 / 6, np.float32))


def test_merging_keeps_one_candidate_per_die_strongest_first() -> None:
    strong, echo = _candidate(100, 100, 30, 0.9), _candidate(106, 104, 28, 0.5)
    assert merge_candidates([echo, strong]) == [strong]


def test_merging_keeps_touching_dice_whose_sizes_run_large() -> None:
    """Dice in a heap get sizes that take in their sides (40 px for 28-px faces): two such
    dice 18 px apart are two dice, not one (they were merged at half a size)."""
    left, right = _candidate(100, 100, 40, 0.9), _candidate(118, 100, 40, 0.8)
    assert merge_candidates([right, left]) == [left, right]


def test_merging_drops_a_pip_on_a_die_and_a_heap_seen_as_one_die() -> None:
    die, pip = _candidate(100, 100, 40, 0.9), _candidate(110, 108, 10, 0.5)
    assert merge_candidates([pip, die]) == [die]
    small, heap = _candidate(100, 100, 20, 0.9), _candidate(105, 100, 60, 0.6)
    assert merge_candidates([heap, small]) == [small]
