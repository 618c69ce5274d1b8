"""The card reader on the project's rendered card photos (tests/data/cards, made by tools/cards).

Kinds and positions are checked against the renderer's ground truth; cards the library does
not know, and face-down cards, must be flagged unnamed, never guessed.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.card_library import CardLibrary, CardRegistrationError, extract_card_face
from vision.card_types import CardReaderParams, CardReading, SeenCard
from vision.cards import draw_card_reading, read_cards
from vision.io import load_image

DATA = Path(__file__).resolve().parents[1] / "data" / "cards"
TRUTH: dict[str, Any] = json.loads((DATA / "truth.json").read_text(encoding="utf-8"))
SCENES = sorted(TRUTH["scenes"])
POSITION_TOLERANCE_PX = 6.0
CORNER_TOLERANCE_PX = 10.0


@pytest.fixture(scope="module")
def library() -> CardLibrary:
    photos = {kind: load_image(DATA / r["file"]) for kind, r in TRUTH["registration"].items()}
    return CardLibrary.register(photos)


def scene(name: str) -> tuple[np.ndarray, list[dict[str, Any]]]:
    entry = TRUTH["scenes"][name]
    return load_image(DATA / entry["file"]), entry["cards"]


def nearest(reading: CardReading, truth_card: dict[str, Any]) -> SeenCard:
    x, y = truth_card["centre"]
    return min(reading.cards, key=lambda c: np.hypot(c.x - x, c.y - y))


def corner_error(seen: SeenCard, truth_card: dict[str, Any]) -> float:
    """Largest distance from a true corner to the nearest read corner (order-free)."""
    truth = np.array(truth_card["corners"])
    return float(max(np.hypot(*(seen.outline - corner).T).min() for corner in truth))


@pytest.mark.parametrize("name", SCENES)
def test_reads_every_turned_up_card_with_its_kind_and_position(
    library: CardLibrary, name: str
) -> None:
    frame, truth = scene(name)
    reading = read_cards(frame, library)
    assert (reading.width, reading.height) == (frame.shape[1], frame.shape[0])
    assert len(reading.cards) == len(truth)
    face_up = [c["kind"] for c in truth if c["face_up"]]
    assert Counter(reading.kinds()) == Counter(face_up)
    for card in truth:
        seen = nearest(reading, card)
        assert np.hypot(seen.x - card["centre"][0], seen.y - card["centre"][1]) < (
            POSITION_TOLERANCE_PX
        )
        assert corner_error(seen, card) < CORNER_TOLERANCE_PX
        assert seen.kind == card["kind"]
        if card["face_up"]:
            assert seen.confidence >= 0.6 and seen.problem is None
    assert reading.needs_review == (len(face_up) != len(truth))


def test_face_down_card_is_flagged_not_named(library: CardLibrary) -> None:
    frame, truth = scene("face_down_among")
    reading = read_cards(frame, library)
    back = next(c for c in truth if not c["face_up"])
    seen = nearest(reading, back)
    assert seen.kind is None and seen.problem == "unknown_face" and seen.candidate is None
    assert reading.needs_review and len(reading.unnamed) == 1


@pytest.mark.parametrize(
    "name, missing", [("reveal_five_dim", "troll"), ("reveal_dragons_goblin", "dragon")]
)
def test_unregistered_kind_is_flagged_never_guessed(
    library: CardLibrary, name: str, missing: str
) -> None:
    frame, truth = scene(name)
    reading = read_cards(frame, library.without(missing))
    for card in truth:
        seen = nearest(reading, card)
        if card["kind"] == missing:
            assert seen.kind is None and seen.problem is not None
            assert seen.candidate in (None, missing) or seen.confidence < 0.6
        else:
            assert seen.kind == card["kind"]
    assert missing not in reading.kinds()


def test_empty_library_names_nothing_but_still_sees_cards(library: CardLibrary) -> None:
    frame, truth = scene("reveal_orc_imp")
    reading = read_cards(frame, library.without(*library.kinds))
    assert reading.kinds() == [] and len(reading.unnamed) == len(truth)


def test_registration_from_flat_faces_reads_the_same(library: CardLibrary) -> None:
    from tools.cards.faces import CARD_KINDS, draw_face

    flat = CardLibrary.register({kind: draw_face(kind) for kind in CARD_KINDS})
    assert flat.kinds == library.kinds
    frame, truth = scene("reveal_four_tilted")
    assert Counter(read_cards(frame, flat).kinds()) == Counter(c["kind"] for c in truth)


def test_registration_crops_the_card_upright_from_a_table_photo() -> None:
    photo = load_image(DATA / TRUTH["registration"]["orc"]["file"])
    face = extract_card_face(photo, "orc")
    assert face.shape == (350, 250, 3)
    # the orc's green name band runs across the top or the bottom of the upright face
    bands = [
        face[8:45, 20:230].reshape(-1, 3).mean(axis=0),
        face[-45:-8, 20:230].reshape(-1, 3).mean(axis=0),
    ]
    assert all(band[1] > band[0] + 30 and band[1] > band[2] + 30 for band in bands)


def test_registration_refuses_a_photo_without_a_card() -> None:
    blank = np.full((480, 640, 3), 90, np.uint8)
    with pytest.raises(CardRegistrationError, match="orc: no card found"):
        CardLibrary.register({"orc": blank})
    with pytest.raises(CardRegistrationError, match="gnome: the card face has too little detail"):
        CardLibrary.register({"gnome": np.full((350, 250, 3), 200, np.uint8)})
    with pytest.raises(CardRegistrationError, match="no card photos"):
        CardLibrary.register({})


def test_library_from_directory_names_missing_kinds(tmp_path: Path) -> None:
    lib = CardLibrary.from_directory(DATA / "register", kinds=["orc", "imp"])
    assert lib.kinds == ("orc", "imp")
    with pytest.raises(CardRegistrationError, match="no photo for unicorn"):
        CardLibrary.from_directory(DATA / "register", kinds=["orc", "unicorn"])


def test_empty_table_gives_an_empty_reading(library: CardLibrary) -> None:
    frame, _ = scene("empty_table")
    reading = read_cards(frame, library)
    assert reading.cards == () and not reading.needs_review
    assert reading.to_json()["kinds"] == []


def test_too_many_cards_are_all_left_unnamed(library: CardLibrary) -> None:
    frame, _ = scene("reveal_five_dim")
    reading = read_cards(frame, library, CardReaderParams(max_cards=3))
    assert len(reading.cards) == 5 and reading.kinds() == []
    assert {c.candidate for c in reading.cards} == {"gnome", "troll", "harpy", "orc", "imp"}


def test_drawing_returns_an_annotated_copy(library: CardLibrary) -> None:
    frame, _ = scene("face_down_among")
    before = frame.copy()
    reading = read_cards(frame, library)
    drawn = draw_card_reading(frame, reading)
    assert np.array_equal(frame, before)
    assert drawn.shape == frame.shape and not np.array_equal(drawn, frame)


def test_reading_to_json_and_card_validation(library: CardLibrary) -> None:
    frame, _ = scene("reveal_orc_imp")
    data = read_cards(frame, library).to_json()
    assert sorted(data["kinds"]) == ["imp", "orc"] and data["needs_review"] is False
    assert all(len(card["outline"]) == 4 for card in data["cards"])
    with pytest.raises(ValueError, match="either a kind or a problem"):
        SeenCard("orc", 1.0, 1.0, 0.9, np.zeros((4, 2)), problem="weak_match")
    with pytest.raises(ValueError, match="outline"):
        SeenCard("orc", 1.0, 1.0, 0.9, np.zeros((3, 2)))


def test_params_round_trip_and_refuse_unknown_keys() -> None:
    params = CardReaderParams(min_inliers=12, template_widths=(300, 150))
    assert CardReaderParams.from_dict(params.to_dict()) == params
    with pytest.raises(ValueError, match="unknown card reader setting"):
        CardReaderParams.from_dict({"min_inlier": 3})
    with pytest.raises(ValueError, match="ratio"):
        CardReaderParams(ratio=1.5)


def test_read_cards_refuses_a_non_bgr_frame(library: CardLibrary) -> None:
    with pytest.raises(ValueError, match="BGR uint8"):
        read_cards(np.zeros((10, 10), np.uint8), library)


def test_saved_faces_register_again_and_read_the_same(library: CardLibrary, tmp_path: Path) -> None:
    written = library.save_faces(tmp_path / "faces")
    assert sorted(p.stem for p in written) == sorted(library.kinds)
    again = CardLibrary.from_directory(tmp_path / "faces")
    assert sorted(again.kinds) == sorted(library.kinds)
    frame, truth = scene("reveal_dragons_goblin")
    assert Counter(read_cards(frame, again).kinds()) == Counter(c["kind"] for c in truth)
