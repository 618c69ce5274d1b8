"""The committed card photos are what tools/cards renders, and stay small."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tools.cards.__main__ import SCENES, registration_spec
from tools.cards.faces import CARD_KINDS, draw_face
from tools.cards.scenes import SceneSpec, render_scene

DATA = Path(__file__).resolve().parents[1] / "data" / "cards"
TRUTH = json.loads((DATA / "truth.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("spec", SCENES[:3], ids=lambda s: s.name)
def test_generator_reproduces_the_committed_truth(spec: SceneSpec) -> None:
    _, cards = render_scene(spec)
    committed = TRUTH["scenes"][spec.name]["cards"]
    assert [c.to_json() for c in cards] == committed


def test_registration_truth_matches_the_generator() -> None:
    _, cards = render_scene(registration_spec("imp", CARD_KINDS.index("imp")))
    assert cards[0].to_json() == TRUTH["registration"]["imp"]["card"]


def test_every_kind_has_a_distinct_face_and_a_registration_photo() -> None:
    faces = [draw_face(kind) for kind in CARD_KINDS]
    for i in range(len(faces)):
        for j in range(i + 1, len(faces)):
            assert np.abs(faces[i].astype(int) - faces[j].astype(int)).mean() > 10
    assert sorted(TRUTH["registration"]) == sorted(CARD_KINDS)
    assert all((DATA / r["file"]).is_file() for r in TRUTH["registration"].values())


def test_card_data_stays_under_two_megabytes() -> None:
    total = sum(p.stat().st_size for p in DATA.rglob("*") if p.is_file())
    assert total < 2_000_000
