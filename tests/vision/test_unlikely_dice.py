"""A die the looks doubt is dropped where the die verifier is nearly sure it is none
(``ReaderParams.verifier_drop_odds``, ``vision.dice.detected``); a die read as sure never is.

What it gains on real photos (print, labels and board pieces the detector proposed) is
measured in BENCHMARKS.md, "Unlikely dice", and held by tests/vision/test_dataset_floors.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vision.dice.detected as detected
from tests.vision.test_detector import rendered
from vision import ReaderParams, read_dice

KEEP_ALL = ReaderParams(verifier_drop_odds=0)


def verifier_saying(odds: float, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the verifier give every proposal ``odds``; returns how many it was asked about,
    call by call."""
    asked: list[int] = []

    def fixed(image: np.ndarray, proposals: list[Any]) -> np.ndarray:
        asked.append(len(proposals))
        return np.full(len(proposals), odds, np.float32)

    monkeypatch.setattr(detected, "die_odds", fixed)
    return asked


def test_doubted_dice_the_verifier_calls_none_are_dropped_and_sure_ones_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    image, _ = rendered("reveal/count_mismatch")
    before = read_dice(image, KEEP_ALL)
    doubted = before.uncertain
    assert doubted and len(doubted) < len(before.dice), "the scene is no longer a test of it"
    verifier_saying(0.01, monkeypatch)
    after = read_dice(image, ReaderParams())
    sure = [d for d in before.dice if d.confidence >= before.min_confidence]
    assert sorted((d.value, d.x, d.y) for d in after.dice) == sorted(
        (d.value, d.x, d.y) for d in sure)


def test_doubted_dice_the_verifier_may_take_for_dice_are_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    image, _ = rendered("reveal/count_mismatch")
    before = read_dice(image, KEEP_ALL)
    verifier_saying(ReaderParams().verifier_drop_odds, monkeypatch)  # not under the bar
    assert read_dice(image, ReaderParams()) == before


def test_the_verifier_is_asked_about_doubted_dice_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame whose dice are all sure costs no verifier read for them."""
    image, _ = rendered("tables/cloth")
    before = read_dice(image, KEEP_ALL)
    assert not before.uncertain, "the scene is no longer a test of it"
    asked = verifier_saying(1.0, monkeypatch)
    read_dice(image, ReaderParams())
    # the faint proposals are still checked; nothing more
    assert len(asked) == 1


@pytest.mark.parametrize("name", ["tables/board", "tables/wood", "touching/touching_2",
                                  "oblique/oblique_1", "reveal/ok", "sizes/tiny_board"])
def test_no_rendered_die_is_dropped(name: str) -> None:
    """On the project's renders the real verifier drops nothing the reader found."""
    image, _ = rendered(name)
    assert read_dice(image, ReaderParams()) == read_dice(image, KEEP_ALL)


def test_the_bar_stays_under_the_faint_proposals_bar() -> None:
    assert 0 < ReaderParams().verifier_drop_odds < ReaderParams().verifier_min_odds
    assert ReaderParams.from_dict({"verifier_drop_odds": 0.0}).verifier_drop_odds == 0.0
    with pytest.raises(ValueError, match="verifier_drop_odds"):
        ReaderParams(verifier_drop_odds=0.9)
    with pytest.raises(ValueError, match="verifier_drop_odds"):
        ReaderParams(verifier_drop_odds=-0.1)
