"""The benchmark's scoring rules (issue #3's definitions) and the bench-vision command."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.bench import (
    Entry,
    LabelledDie,
    count_correct,
    match,
    matched_pairs,
    score_frames,
    score_image,
    summarise,
)
from vision.params import ReaderParams
from vision.types import Die, Reading

ROOT = Path(__file__).resolve().parents[2]
BOX = (100.0, 100.0, 40.0, 40.0)


def entry(*dice: tuple[int, tuple[float, float, float, float] | None],
          complete: bool = True) -> Entry:
    return Entry("x.jpg", tuple(LabelledDie(v, b) for v, b in dice), complete, "s", "table")


def reading(*dice: tuple[int, float, float, float]) -> Reading:
    outline = np.zeros((4, 2))
    return Reading(tuple(Die(v, x, y, c, outline) for v, x, y, c in dice), 640, 480, 0.6)


def test_a_die_counts_inside_the_box_grown_by_a_quarter() -> None:
    labelled = entry((4, BOX)).dice
    assert count_correct(labelled, [(4, 91.0, 139.0)]) == 1  # 10 px grown each side
    assert count_correct(labelled, [(4, 89.0, 120.0)]) == 0
    assert count_correct(labelled, [(5, 120.0, 120.0)]) == 0


def test_one_prediction_matches_one_labelled_die_only() -> None:
    labelled = entry((4, BOX), (4, BOX)).dice
    assert count_correct(labelled, [(4, 120.0, 120.0)]) == 1


def test_touching_dice_each_get_the_prediction_nearest_them_whatever_the_label_order() -> None:
    # two touching dice: the left one's grown box also holds the right one's prediction,
    # 19 px from the right die's centre and 21 from the left one's, whose own prediction
    # sits 22 px off. Taken in listed order, the left die took the right one's prediction
    # and the right die went unmatched.
    left, right = (100.0, 100.0, 40.0, 40.0), (140.0, 100.0, 40.0, 40.0)
    predicted = [(3, 98.0, 120.0), (5, 141.0, 120.0)]
    for order in ([(3, left), (5, right)], [(5, right), (3, left)]):
        assert match(entry(*order).dice, predicted) == (2, 2)


def test_a_prediction_goes_to_the_die_it_is_nearest() -> None:
    left, right = (100.0, 100.0, 40.0, 40.0), (140.0, 100.0, 40.0, 40.0)
    # one prediction between two dice, nearer the right one: the right one is matched
    assert match(entry((2, left), (6, right)).dice, [(6, 145.0, 121.0)]) == (1, 1)
    assert match(entry((2, left), (6, right)).dice, [(2, 145.0, 121.0)]) == (0, 1)


boxes = st.tuples(st.integers(0, 300), st.integers(0, 300), st.integers(10, 60)).map(
    lambda t: (float(t[0]), float(t[1]), float(t[2]), float(t[2])))
labelled_dice = st.lists(st.tuples(st.integers(1, 6), boxes), min_size=1, max_size=8)
predictions = st.lists(st.tuples(st.integers(1, 6), st.floats(0, 360), st.floats(0, 360)),
                       max_size=10)


@given(labelled_dice, predictions, st.randoms(use_true_random=False))
def test_the_score_does_not_depend_on_the_order_labels_are_listed_in(
        dice: list[tuple[int, tuple[float, float, float, float]]],
        predicted: list[tuple[int, float, float]], rnd: random.Random) -> None:
    shuffled = dice[:]
    rnd.shuffle(shuffled)
    correct, matched = match(entry(*dice).dice, predicted)
    assert match(entry(*shuffled).dice, predicted) == (correct, matched)
    assert correct <= matched <= min(len(dice), len(predicted))


def test_matched_pairs_name_which_die_got_which_prediction() -> None:
    left, right = (100.0, 100.0, 40.0, 40.0), (140.0, 100.0, 40.0, 40.0)
    predicted = [(5, 141.0, 120.0), (3, 98.0, 120.0), (1, 400.0, 400.0)]
    assert sorted(matched_pairs(entry((3, left), (5, right)).dice, predicted)) == [(0, 1), (1, 0)]
    with pytest.raises(ValueError, match="box"):
        matched_pairs(entry((3, left), (5, None)).dice, predicted)


def test_without_boxes_the_value_multisets_are_compared() -> None:
    labelled = entry((2, None), (2, None), (6, None)).dice
    assert count_correct(labelled, [(2, 0, 0), (6, 0, 0), (6, 0, 0)]) == 2


def test_frames_in_memory_are_read_with_the_given_settings_and_scored() -> None:
    seen: list[tuple[tuple[int, ...], ReaderParams]] = []

    def reader(image: np.ndarray, params: ReaderParams) -> Reading:
        seen.append((image.shape, params))
        return reading((4, 120, 120, 0.9)) if image.mean() > 0 else reading()

    params = ReaderParams(min_confidence=0.7)
    bright, dark = np.full((48, 64, 3), 200, np.uint8), np.zeros((48, 64, 3), np.uint8)
    scores = score_frames([(entry((4, BOX)), bright), (entry((4, BOX)), dark)], params, reader)
    assert [s.correct for s in scores] == [1, 0]
    assert seen == [((48, 64, 3), params), ((48, 64, 3), params)]
    assert all(s.ms >= 0 for s in scores)


def test_summary_reports_accuracy_precision_exact_and_face_error() -> None:
    scores = [
        score_image(entry((4, BOX)), reading((4, 120, 120, 0.9)), 5.0),
        score_image(entry((4, BOX)), reading((4, 120, 120, 0.9), (6, 300, 300, 0.3)), 7.0),
    ]
    overall = summarise(scores)[-1].to_json()
    assert overall["accuracy"] == 1.0
    assert overall["precision"] == pytest.approx(2 / 3, abs=1e-3)
    assert overall["image_exact"] == 0.5
    assert overall["face_error"] == 0.5
    assert overall["median_ms"] == 6.0


def test_sure_dice_are_scored_apart_so_silent_misreads_show() -> None:
    scores = [score_image(entry((4, BOX), (2, (300, 300, 40, 40))),
                          reading((5, 120, 120, 0.95), (2, 320, 320, 0.4)), 1.0)]
    overall = summarise(scores)[-1].to_json()
    assert overall["sure_wrong"] == 1 and overall["sure_precision"] == 0.0


def test_the_share_of_dice_reported_sure_is_taken_on_complete_photos() -> None:
    scores = [score_image(entry((4, BOX), (2, (300, 300, 40, 40))),
                          reading((4, 120, 120, 0.95), (2, 320, 320, 0.4), (3, 500, 400, 0.7)),
                          1.0),
              score_image(entry((4, BOX), complete=False),
                          reading((4, 120, 120, 0.9), (3, 400, 400, 0.9)), 1.0)]
    overall = summarise(scores)[-1].to_json()
    assert overall["sure_share"] == pytest.approx(2 / 3, abs=1e-3)


def test_incomplete_photos_do_not_count_towards_sure_precision() -> None:
    scores = [score_image(entry((4, BOX), complete=False),
                          reading((4, 120, 120, 0.9), (3, 400, 400, 0.9)), 1.0)]
    overall = summarise(scores)[-1].to_json()
    assert overall["sure_wrong"] == 0 and overall["sure_precision"] is None


def test_extra_dice_on_an_incomplete_photo_are_not_judged_wrong() -> None:
    # the manifest's own definition: on a photo marked incomplete some dice are unlabelled,
    # so a detection matched to no label is neither right nor wrong there
    labelled = entry((4, BOX), (2, (300, 300, 40, 40)), complete=False)
    scores = [score_image(labelled, reading((4, 120, 120, 0.9), (5, 320, 320, 0.9),
                                            (3, 500, 400, 0.9)), 1.0)]
    overall = summarise(scores)[-1].to_json()
    assert overall["precision"] == 0.5 and overall["unjudged"] == 1
    complete = [score_image(entry((4, BOX), (2, (300, 300, 40, 40))),
                            reading((4, 120, 120, 0.9), (5, 320, 320, 0.9),
                                    (3, 500, 400, 0.9)), 1.0)]
    overall = summarise(complete)[-1].to_json()
    assert overall["precision"] == pytest.approx(1 / 3, abs=1e-3) and overall["unjudged"] == 0


def test_without_boxes_an_incomplete_photo_judges_as_many_dice_as_it_labels() -> None:
    labelled = entry((2, None), (6, None), complete=False)
    scores = [score_image(labelled, reading((2, 0, 0, 0.9), (5, 0, 0, 0.9), (5, 0, 0, 0.9)),
                          1.0)]
    overall = summarise(scores)[-1].to_json()
    assert overall["precision"] == 0.5 and overall["unjudged"] == 1


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bluffcam", "bench-vision", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_bench_vision_scores_a_manifest_of_rendered_photos(tmp_path: Path) -> None:
    truth_path = ROOT / "tests" / "data" / "tables" / "felt.json"
    if not truth_path.exists():
        pytest.skip("rendered test data not found (python -m tools.render testdata)")
    truth = json.loads(truth_path.read_text())
    shutil.copy(truth_path.with_suffix(".jpg"), tmp_path / "felt.jpg")
    dice = [{"value": d["value"],
             "box": [min(p[0] for p in d["outline"]), min(p[1] for p in d["outline"]),
                     d["size_px"], d["size_px"]]}
            for d in truth["dice"] if d["visible"] >= 0.9 and not d["uncertain"]]
    (tmp_path / "manifest.json").write_text(json.dumps(
        [{"image": "felt.jpg", "dice": dice, "complete": True, "source": "render",
          "subset": "table"}]))
    done = bench(str(tmp_path / "manifest.json"), "--json")
    assert done.returncode == 0, done.stderr
    groups = {g["name"]: g for g in map(json.loads, done.stdout.splitlines())}
    assert groups["render/table"]["labelled"] == len(dice)
    assert groups["overall"]["accuracy"] is not None


def test_bench_vision_names_a_broken_manifest(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{not json")
    done = bench(str(tmp_path / "manifest.json"))
    assert done.returncode == 2 and "cannot read the manifest" in done.stderr
    (tmp_path / "manifest.json").write_text("[" * 100_000)  # a RecursionError's traceback
    done = bench(str(tmp_path / "manifest.json"))
    assert done.returncode == 2 and "nested too deeply to be a manifest" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("die", "field"), [
    ({"value": 1, "box": [640, 190, 30]}, '"box"'),
    ({"value": 1, "box": [640, None, 30, 30]}, '"box"'),
    ({"value": 1, "box": [640, "190", 30, 30]}, '"box"'),
    ({"value": 1, "box": "abcd"}, '"box"'),
    ({"value": 1, "box": [640, 190, 0, 30]}, '"box"'),
    ({"value": 7, "box": None}, '"value"'),
    ({"value": 0, "box": None}, '"value"'),
    ({"value": "3", "box": None}, '"value"'),
    ({"value": True, "box": None}, '"value"'),
    ({"box": None}, '"value"'),
    ("3x5", "must be an object"),
])
def test_a_bad_label_is_named_with_its_photo_while_loading(
        tmp_path: Path, die: object, field: str) -> None:
    from vision.bench import load_manifest

    manifest = tmp_path / "manifest.json"
    good = {"value": 2, "box": [1, 2, 3, 4]}
    manifest.write_text(json.dumps([{"image": "ok.jpg", "dice": [good]},
                                    {"image": "sub/bad.jpg", "dice": [good, die]}]))
    with pytest.raises(ValueError, match=rf"entry 1 \(sub/bad.jpg\): dice\[1\]: {field}"):
        load_manifest(manifest)


@pytest.mark.parametrize(("entry_json", "field"), [
    ({"image": None, "dice": []}, '"image"'),
    ({"image": "a.jpg"}, '"dice"'),
    ({"image": "a.jpg", "dice": [], "complete": "no"}, '"complete"'),
    ({"image": "a.jpg", "dice": [], "source": 3}, '"source"'),
])
def test_a_bad_photo_entry_is_named_while_loading(
        tmp_path: Path, entry_json: dict[str, object], field: str) -> None:
    from vision.bench import load_manifest

    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps([entry_json]))
    with pytest.raises(ValueError, match=f"entry 0.*{field}"):
        load_manifest(manifest)


def test_a_good_manifest_loads_as_before(tmp_path: Path) -> None:
    from vision.bench import load_manifest

    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps([
        {"image": "a.jpg", "dice": [{"value": 6, "box": [1, 2.5, 3, 4]}, {"value": 1}],
         "complete": False, "source": "s", "subset": "table", "width": 9}]))
    root, entries = load_manifest(manifest)
    assert root == tmp_path
    assert entries == [Entry("a.jpg", (LabelledDie(6, (1.0, 2.5, 3.0, 4.0)),
                                       LabelledDie(1, None)), False, "s", "table")]


def test_bench_vision_refuses_a_bad_box_before_reading_any_photo(tmp_path: Path) -> None:
    # the photo does not exist: the box must be named before anything is read
    (tmp_path / "manifest.json").write_text(json.dumps(
        [{"image": "missing.jpg", "dice": [{"value": 1, "box": [640, 190, 30]}]}]))
    done = bench(str(tmp_path / "manifest.json"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "entry 0 (missing.jpg): dice[0]: \"box\"" in done.stderr


def test_bench_vision_says_when_no_photo_is_left(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps(
        [{"image": "a.jpg", "dice": [], "source": "elsewhere", "subset": "table"}]))
    done = bench(str(tmp_path / "manifest.json"), "--split", "held-out")
    assert done.returncode == 2 and "no photos match" in done.stderr


@pytest.mark.dataset
def test_held_out_table_photos_are_only_the_unseen_table_photos(shared_datasets: Path) -> None:
    from vision.bench import held_out_table_photos, load_manifest
    from vision.learned import held_out_photos

    photos = held_out_table_photos(shared_datasets / "manifest.json")
    held = held_out_photos()
    _, entries = load_manifest(shared_datasets / "manifest.json")
    assert len(photos) == sum(1 for e in entries if e.image in held and e.subset == "table") > 0
    for entry, image in photos:
        assert entry.image in held and entry.subset == "table"
        assert image.dtype == np.uint8 and image.ndim == 3
