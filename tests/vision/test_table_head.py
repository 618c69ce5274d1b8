"""A table's own head (vision.table_head) and its fitting (vision.adapt), on made-up looks:
what makes a die sure, what the file keeps, what a bad file is told, and how a table scores a
reading (vision.table_score)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import looks as lk
from vision.adapt import GENERAL_BARS, ReadPhoto, fit_head, fit_values
from vision.bench import Entry, LabelledDie
from vision.table_head import (
    TableHead,
    TableHeadError,
    decide,
    features,
    load_head,
)
from vision.table_score import NOT_A_DIE, UNKNOWN, die_labels, outcome
from vision.types import Die, Reading


def looks_of(value: int, detector: int | None = None, odds: float = 0.97, score: float = 0.9,
             kind: int = lk.STRONG, size: float = 40.0,
             detector_odds: float | None = None, confidence: float = 0.95) -> np.ndarray:
    """Looks whose classifier favours ``value`` at ``odds``, the detector ``detector`` (or
    ``value``) at ``detector_odds`` (or ``odds``); ``confidence`` is the reader's own."""
    def probs(v: int, k: int, at: float) -> np.ndarray:
        p = np.full(k, (1 - at) / (k - 1), np.float32)
        p[v - (7 - k)] = at
        return p

    pooled = probs(value, 7, odds)
    first = probs(detector or value, 6, odds if detector_odds is None else detector_odds)
    return lk.looks_vector(first, pooled, np.stack([pooled, pooled]),
                           score, kind, 1.0, size, confidence)


def die(value: int, x: float, confidence: float, looks: np.ndarray | None) -> Die:
    outline = np.array([[x - 20, 80], [x + 20, 80], [x + 20, 120], [x - 20, 120]], float)
    return Die(value, x, 100.0, confidence, outline, looks=looks)


def head(**bars: float) -> TableHead:
    values = {"min_value_odds": 0.8, "min_score": 0.5, "min_balance": 0.2}
    values.update(bars)
    return TableHead(np.array([0.3, 0.5, 0.5]), np.zeros(6), values["min_value_odds"],
                     values["min_score"], values["min_balance"], 40.0, photos=3, dice=9)


def test_a_die_the_general_reader_was_sure_of_stays_sure_when_every_bar_is_passed() -> None:
    reading = Reading((die(4, 100, 0.95, looks_of(4)),), 640, 480, 0.6)
    adapted = decide(reading, head(), np.array([0.9]), 60)
    assert [(d.value, d.confidence >= 0.6) for d in adapted.dice] == [(4, True)]


@pytest.mark.parametrize(("looks", "balance", "why"), [
    (looks_of(4, score=0.45), 0.9, "detector score under the table's bar"),
    (looks_of(4), 0.1, "smeared by this table's bar"),
    (looks_of(4, kind=lk.FAINT), 0.9, "a faint proposal"),
    (looks_of(4, odds=0.5, confidence=0.5), 0.9, "reader unsure, head short of promoting it"),
])
def test_a_die_failing_one_bar_is_doubtful(looks: np.ndarray, balance: float, why: str) -> None:
    reading = Reading((die(4, 100, 0.95, looks),), 640, 480, 0.6)
    adapted = decide(reading, head(), np.array([balance]), 60)
    assert adapted.dice[0].confidence < 0.6, why


def test_the_heads_value_bar_holds_back_no_die_the_reader_was_sure_of_at_the_same_value(
        ) -> None:
    # the classifier only leans to 4 (0.5) but the reader was sure of it: the head's odds of
    # 4 are under its bar of 0.8, it names 4 too, so the die stays sure
    leaning = looks_of(4, odds=0.5, confidence=0.95)
    assert head().value_odds(leaning[None])[0].max() < 0.8
    reading = Reading((die(4, 100, 0.95, leaning),), 640, 480, 0.6)
    assert decide(reading, head(), np.array([0.9]), 60).dice[0].confidence >= 0.6
    # where the head names another value than the reader's, its bar decides: doubtful
    biased = TableHead(np.array([0.3, 0.5, 0.5]), np.array([0, 0, 0, 0, 3.0, 0]), 0.8, 0.5,
                       0.2, 40.0, photos=3, dice=9)
    assert int(biased.value_odds(leaning[None])[0].argmax()) + 1 == 5
    adapted = decide(reading, biased, np.array([0.9]), 60).dice[0]
    assert adapted.value == 5 and adapted.confidence < 0.6


def test_a_doubted_die_is_made_sure_only_where_every_look_names_its_value() -> None:
    agreed = die(5, 100, 0.54, looks_of(5, odds=0.995, confidence=0.54))
    disputed = die(5, 200, 0.54, looks_of(5, detector=6, odds=0.995, confidence=0.54))
    reading = Reading((agreed, disputed), 640, 480, 0.6)
    adapted = decide(reading, head(), np.array([0.9, 0.9]), 60)
    assert [d.confidence >= 0.6 for d in adapted.dice] == [True, False]


def test_this_tables_smear_bar_takes_over_from_the_readers() -> None:
    # the reader's smear check doubted it (balance 0.3 under its 0.35); this table's bar is 0.2
    smeared_by_the_reader = die(4, 100, 0.54, looks_of(4, confidence=0.95))
    reading = Reading((smeared_by_the_reader,), 640, 480, 0.6)
    assert decide(reading, head(), np.array([0.3]), 60).dice[0].confidence >= 0.6
    assert decide(reading, head(min_balance=0.35), np.array([0.3]), 60).dice[0].confidence < 0.6


def test_a_die_without_looks_is_left_as_the_reader_gave_it() -> None:
    classical = die(3, 100, 0.8, None)
    reading = Reading((classical,), 640, 480, 0.6)
    assert decide(reading, head(), np.array([0.9]), 60).dice == (classical,)


def test_the_head_file_keeps_every_number_and_holds_no_pickle(tmp_path: Path) -> None:
    made = head(min_value_odds=0.95)
    path = tmp_path / "t.adapt.npz"
    made.save(path)
    loaded = load_head(path)
    assert loaded.min_value_odds == 0.95 and loaded.die_px == 40.0
    np.testing.assert_allclose(loaded.weights, made.weights)
    with np.load(path, allow_pickle=False) as data:  # plain arrays only
        assert "weights" in data.files


def test_a_missing_or_damaged_head_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(TableHeadError, match="no such table head file"):
        load_head(tmp_path / "gone.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(TableHeadError, match=r"bad\.npz: not a table head file"):
        load_head(bad)
    other = tmp_path / "other.npz"
    arrays = head().to_arrays()
    arrays["version"] = np.array(99)
    np.savez(other, **arrays)
    with pytest.raises(TableHeadError, match="version 99"):
        load_head(other)


def test_the_value_model_learns_which_look_to_trust_on_this_table() -> None:
    # on this table the classifier leans to 6 on the 5s, the detector names them surely
    rows = [looks_of(6, detector=5, odds=0.55, detector_odds=0.95) for _ in range(40)]
    rows += [looks_of(6, odds=0.95) for _ in range(40)]
    values = np.array([5] * 40 + [6] * 40)
    w, b = fit_values(features(np.stack(rows)), values)
    fitted = TableHead(w, b, 0.8, 0.5, 0.2, 40.0, 1, 1)
    untaught = head()
    probe = np.stack([looks_of(6, detector=5, odds=0.55, detector_odds=0.95)])
    assert int(fitted.value_odds(probe).argmax()) + 1 == 5
    assert int(untaught.value_odds(probe).argmax()) + 1 == 6


def labelled(values_and_x: list[tuple[int, float]], complete: bool = True) -> Entry:
    dice = tuple(LabelledDie(v, (x - 20, 80.0, 40.0, 40.0)) for v, x in values_and_x)
    return Entry("a.jpg", dice, complete, "s", "table")


def test_a_table_applies_a_photo_only_when_every_die_is_sure_and_all_are_there() -> None:
    entry = labelled([(4, 100), (2, 200)])
    both = Reading((die(4, 100, 0.9, None), die(2, 200, 0.9, None)), 640, 480, 0.6)
    assert outcome(entry, both).auto_right
    one_doubtful = Reading((die(4, 100, 0.9, None), die(2, 200, 0.5, None)), 640, 480, 0.6)
    assert not outcome(entry, one_doubtful).auto
    extra = Reading((*both.dice, die(1, 400, 0.3, None)), 640, 480, 0.6)
    assert not outcome(entry, extra).auto
    wrong = Reading((die(4, 100, 0.9, None), die(3, 200, 0.9, None)), 640, 480, 0.6)
    result = outcome(entry, wrong)
    assert result.silent_misread and result.sure_wrong == 1


def test_a_photo_is_within_a_heads_reach_when_every_die_is_found_and_none_is_extra() -> None:
    """``all_found``: what a head, which decides values and sureness and finds no die, could
    at best apply (the adaptation bench's "reach")."""
    entry = labelled([(4, 100), (2, 200)])
    doubtful_wrong = Reading((die(4, 100, 0.9, None), die(3, 200, 0.5, None)), 640, 480, 0.6)
    found = outcome(entry, doubtful_wrong)
    assert found.all_found and not found.auto
    missing = Reading((die(4, 100, 0.9, None),), 640, 480, 0.6)
    assert not outcome(entry, missing).all_found
    extra = Reading((die(4, 100, 0.9, None), die(2, 200, 0.9, None), die(1, 400, 0.9, None)),
                    640, 480, 0.6)
    assert not outcome(entry, extra).all_found
    # an extra die the manifest cannot judge (an incomplete photo) is no extra
    assert outcome(labelled([(4, 100), (2, 200)], complete=False), extra).all_found
    no_boxes = Entry("a.jpg", (LabelledDie(4, None), LabelledDie(2, None)), True, "s", "table")
    assert outcome(no_boxes, doubtful_wrong).all_found
    assert not outcome(no_boxes, extra).all_found


def test_read_dice_get_their_labels_extras_and_unknowns() -> None:
    reading = Reading((die(4, 100, 0.9, None), die(1, 400, 0.3, None)), 640, 480, 0.6)
    assert list(die_labels(labelled([(4, 100)]), reading)) == [4, NOT_A_DIE]
    incomplete = labelled([(4, 100)], complete=False)
    assert list(die_labels(incomplete, reading)) == [4, UNKNOWN]
    no_boxes = Entry("a.jpg", (LabelledDie(4, None),), True, "s", "table")
    assert list(die_labels(no_boxes, reading)) == [4, NOT_A_DIE]


def test_fit_head_refuses_photos_without_dice() -> None:
    empty = ReadPhoto(Entry("a.jpg", (), True, "s", "table"), Reading((), 640, 480, 0.6),
                      np.zeros(0), 1.0)
    with pytest.raises(ValueError, match="no labelled die"):
        fit_head([empty])


def test_a_die_read_in_an_ignore_box_is_not_judged() -> None:
    entry = Entry("a.jpg", (LabelledDie(4, (80.0, 80.0, 40.0, 40.0)),), True, "s", "table",
                  ignore=((380.0, 80.0, 40.0, 40.0),))
    reading = Reading((die(4, 100, 0.9, None), die(2, 400, 0.3, None)), 640, 480, 0.6)
    assert list(die_labels(entry, reading)) == [4, UNKNOWN]
    assert outcome(entry, reading).auto_right


def test_the_manifest_names_a_bad_ignore_box(tmp_path: Path) -> None:
    from vision.bench import load_manifest

    manifest = tmp_path / "m.json"
    manifest.write_text('[{"image": "a.jpg", "dice": [], "ignore": [[1, 2, 0, 4]]}]')
    with pytest.raises(ValueError, match=r"entry 0 \(a\.jpg\): ignore\[0\]: must be \[x, y"):
        load_manifest(manifest)
    manifest.write_text('[{"image": "a.jpg", "dice": [], "ignore": [[1, 2, 3, 4]]}]')
    assert load_manifest(manifest)[1][0].ignore == ((1.0, 2.0, 3.0, 4.0),)


def test_where_many_bars_serve_a_table_alike_the_head_keeps_the_general_readers() -> None:
    """Twenty easy photos (every die plain, sharp and read right) are applied unasked under
    the strictest bars as under the general reader's; a head that took the strictest sent
    the table's next, harder photos to review more often than the general reader did."""
    photos = []
    for k in range(20):
        value = 1 + k % 6
        entry = Entry(f"p{k}.jpg", (LabelledDie(value, (80.0, 80.0, 40.0, 40.0)),), True,
                      "table", "table")
        reading = Reading((die(value, 100, 0.99, looks_of(value, odds=0.999)),), 640, 480, 0.6)
        photos.append(ReadPhoto(entry, reading, np.array([0.9]), 10.0))
    made = fit_head(photos)
    assert (made.min_value_odds, made.min_score, made.min_balance) == GENERAL_BARS
