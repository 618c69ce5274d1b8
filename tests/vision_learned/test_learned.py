"""The die classifier on the project's own rendered dice (never used for training), and the
rules refine_reading follows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import vision.learned as learned
from vision.learned import (
    CROP_SCALE,
    MODEL_PATH,
    MODEL_PATHS,
    NOT_A_DIE,
    _probs_by_net,
    classify_crops,
    classify_crops_by_net,
    classify_views_and_up,
    classify_views_by_net,
    die_crop,
    face_size,
    photo_up,
    pool,
    refine_reading,
)
from vision.types import Die, Reading

SINGLE = Path(__file__).resolve().parents[1] / "data" / "single"


def _rendered(style: str, value: int) -> tuple[np.ndarray, dict[str, Any]]:
    truth = json.loads((SINGLE / f"{style}_{value}.json").read_text())
    image = cv2.imread(str(SINGLE / f"{style}_{value}.jpg"), cv2.IMREAD_COLOR)
    assert image is not None
    return image, truth["dice"][0]


def _die_from_truth(d: dict[str, Any], value: int, confidence: float) -> Die:
    return Die(value, d["x"], d["y"], confidence, np.array(d["outline"], dtype=np.float64))


def test_model_files_are_small_and_load() -> None:
    assert MODEL_PATH in MODEL_PATHS and len(set(MODEL_PATHS)) == len(MODEL_PATHS) >= 1
    for path in MODEL_PATHS:
        assert path.exists(), path
        assert path.stat().st_size < 2_000_000
    values, probs = classify_crops(np.full((64, 64), 128, np.uint8), [(32, 32, 30)])
    assert probs.shape == (1, 7)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)


@pytest.mark.parametrize("value", range(1, 7))
def test_names_each_value_of_a_rendered_white_die(value: int) -> None:
    image, d = _rendered("white", value)
    die = _die_from_truth(d, value, 0.9)
    values, probs = classify_crops(image, [(die.x, die.y, face_size(die))])
    assert values == [value], f"probabilities {np.round(probs, 3)}"


def test_names_most_rendered_dice_of_every_style() -> None:
    styles = sorted({p.stem.rsplit("_", 1)[0] for p in SINGLE.glob("*_1.jpg")})
    assert styles, "no rendered single dice in tests/data/single"
    right = total = 0
    for style in styles:
        for value in range(1, 7):
            image, d = _rendered(style, value)
            die = _die_from_truth(d, value, 0.9)
            (got,), _ = classify_crops(image, [(die.x, die.y, face_size(die))])
            right += int(got == value)
            total += 1
    assert right / total >= 0.85, f"{right}/{total} rendered dice named right"


def test_each_network_reads_apart_and_their_pool_is_the_classifier() -> None:
    image, d = _rendered("red", 6)
    die = _die_from_truth(d, 6, 0.9)
    boxes = [(die.x, die.y, face_size(die)), (10.0, 10.0, 20.0)]
    by_net = classify_crops_by_net(image, boxes)
    assert by_net.shape == (len(MODEL_PATHS), 2, 7)
    assert np.allclose(by_net.sum(axis=2), 1.0, atol=1e-4)
    assert [int(p[0, 1:].argmax()) + 1 for p in by_net] == [6] * len(MODEL_PATHS)
    _, pooled = classify_crops(image, boxes)
    assert np.allclose(pool(by_net), pooled, atol=1e-5)
    assert classify_crops_by_net(image, []).shape == (len(MODEL_PATHS), 0, 7)


@pytest.mark.parametrize("grey", [0, 90, 200, 255])
def test_blank_crop_is_not_a_die(grey: int) -> None:
    frame = np.full((120, 160, 3), grey, np.uint8)
    values, probs = classify_crops(frame, [(80, 60, 40)])
    assert values == [NOT_A_DIE], f"probabilities {np.round(probs, 3)}"


def test_empty_reading_stays_empty() -> None:
    frame = np.zeros((100, 100, 3), np.uint8)
    reading = Reading((), 100, 100, 0.6)
    assert refine_reading(frame, reading) == reading


def test_agreement_keeps_value_and_confidence() -> None:
    image, d = _rendered("white", 5)
    reading = Reading((_die_from_truth(d, 5, 0.8),), 320, 240, 0.6)
    refined = refine_reading(image, reading)
    assert [x.value for x in refined.dice] == [5]
    assert refined.dice[0].confidence >= 0.8


def test_disagreement_lowers_confidence_below_threshold() -> None:
    image, d = _rendered("white", 5)
    reading = Reading((_die_from_truth(d, 2, 0.95),), 320, 240, 0.6)
    refined = refine_reading(image, reading)
    assert len(refined.dice) == 1
    assert refined.dice[0].confidence < reading.min_confidence
    assert not refined.is_certain


def test_confident_not_a_die_is_dropped() -> None:
    frame = np.full((240, 320, 3), 120, np.uint8)
    outline = np.array([[140, 100], [180, 100], [180, 140], [140, 140]], np.float64)
    reading = Reading((Die(3, 160, 120, 0.9, outline),), 320, 240, 0.6)
    assert refine_reading(frame, reading).dice == ()


def test_pooled_views_do_not_depend_on_how_the_die_is_turned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crop is read in all four quarter turns and the surest turn kept (then read mirrored
    too): turning the crop only reorders those reads, so, with no preference for the turn
    as shot, the read of a die must not change. Mirrored, the turn is picked from other
    reads, so only the value must stay."""
    monkeypatch.setattr(learned, "AS_SHOT_MARGIN", 0.0)
    image, d = _rendered("white", 5)
    die = _die_from_truth(d, 5, 0.9)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    crop = die_crop(grey, die.x, die.y, CROP_SCALE * face_size(die))[None]
    pooled = pool(classify_views_by_net(crop))
    for k in (1, 2, 3):
        turned = np.ascontiguousarray(np.rot90(crop, k, axes=(1, 2)))
        assert np.allclose(pool(classify_views_by_net(turned)), pooled, atol=1e-4)
    mirrored = np.ascontiguousarray(crop[:, :, ::-1])
    assert int(pool(classify_views_by_net(mirrored)).argmax()) == 5
    assert np.allclose(pooled.sum(axis=1), 1.0, atol=1e-4)
    assert int(pooled.argmax()) == 5
    as_is_and_mirrored = np.stack([_probs_by_net(crop), _probs_by_net(mirrored)])
    one_turn = classify_views_by_net(crop, turns=1)
    for m in range(len(MODEL_PATHS)):
        assert np.allclose(one_turn[m], pool(as_is_and_mirrored[:, m]), atol=1e-5)


def test_crops_read_in_a_given_up_skip_the_search() -> None:
    """The reader's closer look reads a few more crops of a photo in the up the first read
    found: given ``up``, the crops are read in that turn (and mirrored), the same as when the
    search picks it, and no other turn is read."""
    image, d = _rendered("white", 5)
    die = _die_from_truth(d, 5, 0.9)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    crop = die_crop(grey, die.x, die.y, CROP_SCALE * face_size(die))[None]
    searched, up = classify_views_and_up(crop)
    assert up in range(4)
    given, kept = classify_views_and_up(crop, up=up)
    assert kept == up and np.allclose(given, searched, atol=1e-5)
    turned = np.ascontiguousarray(np.rot90(crop, 1, axes=(1, 2)))
    # the crop turned a quarter back, read in its own up turned a quarter on: the same read
    assert np.allclose(classify_views_and_up(turned, up=(up - 1) % 4)[0], searched, atol=1e-4)
    assert classify_views_and_up(np.zeros((0, 48, 48), np.uint8), up=2)[1] == 2
    with pytest.raises(ValueError, match="quarter turn"):
        classify_views_and_up(crop, up=4)


def test_photo_up_is_the_turn_the_dice_read_surest_in() -> None:
    """Every crop of a photo is read in the same turn: the one whose value reads, summed over
    the crops taken for dice, are surest; a crop called no die has no say."""
    def probs(not_a_die: float, best: float) -> list[float]:
        rest = (1.0 - not_a_die - best) / 5
        return [not_a_die, best, rest, rest, rest, rest, rest]

    sure, torn = probs(0.0, 0.95), probs(0.0, 0.4)
    # (turns, networks, crops, 7): turn 2 is surest of both dice
    by_turn = np.array([[[torn, torn]], [[sure, torn]], [[sure, sure]], [[torn, sure]]],
                       np.float32)
    assert photo_up(by_turn) == 2
    # a "no die" crop sure in turn 0 does not outvote two dice sure in turn 1
    background = probs(0.9, 0.1)
    by_turn = np.array([[[torn, torn, background]], [[sure, sure, torn]]], np.float32)
    assert photo_up(by_turn) == 1
    assert photo_up(by_turn[:1]) == 0
    # the photo as shot keeps its up unless another turn is surer by AS_SHOT_MARGIN
    slightly = probs(0.0, 0.4 * np.exp(learned.AS_SHOT_MARGIN / 2))
    assert photo_up(np.array([[[torn]], [[slightly]]], np.float32)) == 0
    clearly = probs(0.0, 0.4 * np.exp(learned.AS_SHOT_MARGIN * 1.5))
    assert photo_up(np.array([[[torn]], [[clearly]]], np.float32)) == 1
    assert photo_up(np.zeros((4, 2, 0, 7), np.float32)) == 0
    assert classify_views_by_net(np.zeros((0, 48, 48), np.uint8)).shape == (
        len(MODEL_PATHS), 0, 7)


def test_pooling_keeps_only_what_every_look_finds_likely() -> None:
    sure_six = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.02, 0.98]], np.float32)
    torn = np.array([[0.0, 0.0, 0.0, 0.0, 0.49, 0.02, 0.49]], np.float32)
    pooled = pool(np.stack([sure_six, torn]))
    assert np.allclose(pooled.sum(axis=1), 1.0, atol=1e-5)
    assert int(pooled.argmax()) == 6
    assert pooled[0, 6] < sure_six[0, 6]  # the torn look lowers the odds
    assert pooled[0, 4] < 0.05  # a class one look rules out stays unlikely
    assert np.allclose(pool(sure_six[None]), sure_six)
