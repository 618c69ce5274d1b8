"""From card readings to an Impus reveal, or to review (never a silent misread)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine import new_game
from vision.card_library import CardLibrary
from vision.card_reveal import check_card_reveal
from vision.card_types import CardReading, SeenCard
from vision.cards import read_cards
from vision.io import load_image

DATA = Path(__file__).resolve().parents[1] / "data" / "cards"
TRUTH = json.loads((DATA / "truth.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def library() -> CardLibrary:
    return CardLibrary.from_directory(DATA / "register")


def reading_of(name: str, library: CardLibrary) -> CardReading:
    return read_cards(load_image(DATA / TRUTH["scenes"][name]["file"]), library)


def test_I4_a_sure_reading_becomes_the_reveal_the_engine_applies(library: CardLibrary) -> None:
    game = new_game("impus", ["Ann", "Ben"])
    game.apply_json({"player": "Ann", "play": 2, "claim": "orc"})
    game.apply_json({"player": "Ben", "doubt": True})
    reading = reading_of("reveal_orc_imp", library)
    check = check_card_reveal([reading, reading], expected=2)
    assert not check.needs_review
    action = check.action()
    assert action is not None and sorted(action["reveal"]) == ["imp", "orc"]
    game.apply_json(action)
    assert game.history[-1].to_json()["taker"] == "Ann"  # an imp among "orcs": Ann lied


def test_wrong_count_and_face_down_cards_go_to_review(library: CardLibrary) -> None:
    reading = reading_of("face_down_among", library)
    check = check_card_reveal([reading], expected=2)
    kinds = [p.kind for p in check.problems]
    assert kinds.count("uncertain") == 1 and "count_mismatch" in kinds
    assert check.action() is None and check.to_json()["needs_review"] is True


def test_frames_that_disagree_go_to_review() -> None:
    outline = np.array([[0.0, 0.0], [63.0, 0.0], [63.0, 88.0], [0.0, 88.0]])
    orc = CardReading((SeenCard("orc", 30.0, 40.0, 0.9, outline, 40),), 100, 100)
    elf = CardReading((SeenCard("elf", 30.0, 40.0, 0.9, outline, 40),), 100, 100)
    check = check_card_reveal([elf, orc], expected=1)
    assert [p.kind for p in check.problems] == ["not_still"]
    assert check_card_reveal([orc, orc], expected=1).action() == {"reveal": ["orc"]}


def test_check_refuses_nonsense_input() -> None:
    with pytest.raises(ValueError, match="no card readings"):
        check_card_reveal([], expected=1)
    with pytest.raises(ValueError, match="at least one card"):
        check_card_reveal([CardReading()], expected=0)
