"""tools.bench.bench_dice_size: frames are bucketed by how big their dice are where the reader reads
them, and each bucket counts its labelled dice read right and read sure."""

from __future__ import annotations

import json
from pathlib import Path

from tools.bench.bench_dice_size import (
    NONE_FOUND,
    FrameScore,
    Tally,
    bucket_names,
    bucket_of,
    photo_frames,
    scored,
)
from vision import Die, ReaderParams, Reading
from vision.dice.detected import square_outline
from vision.frame_check import SMALL_DICE_PX

DATA = Path(__file__).resolve().parents[1] / "data"


def test_buckets_are_cut_at_the_edges_and_at_the_small_dice_bar() -> None:
    names = bucket_names((10.0, 20.0))
    assert names == ["0-10 px", f"10-{SMALL_DICE_PX:.0f} px", f"{SMALL_DICE_PX:.0f}-20 px",
                     "20+ px"]
    assert bucket_of(9.9, (10.0, 20.0)) == "0-10 px"
    assert bucket_of(SMALL_DICE_PX - 0.1, (10.0, 20.0)) == names[1]
    assert bucket_of(SMALL_DICE_PX, (10.0, 20.0)) == names[2]
    assert bucket_of(35.0, (10.0, 20.0)) == "20+ px"
    assert bucket_of(None) == NONE_FOUND


def test_dice_are_scored_right_and_sure_by_their_pairs() -> None:
    dice = tuple(Die(value=v, x=10.0 * k, y=0.0, confidence=c,
                     outline=square_outline(10.0 * k, 0.0, 8.0))
                 for k, (v, c) in enumerate([(3, 0.9), (5, 0.3), (2, 0.95)]))
    reading = Reading(dice=dice, width=100, height=100)
    # labelled 3 (paired with the sure 3), 5 (the unsure 5), 6 (paired with the sure 2: wrong)
    assert scored(reading, [3, 5, 6], {0: 0, 1: 1, 2: 2}) == (2, 1)
    assert scored(reading, [3, 5, 6], {}) == (0, 0)
    tally = Tally()
    tally.add(FrameScore("x", 12.0, 3, 2, 1))
    tally.add(FrameScore("x", 30.0, 1, 1, 1))
    assert tally.row("x") == "| x | 2 | 4 | 0.750 | 0.500 |"
    assert Tally().row("y") == "| y | 0 | 0 | - | - |"


def test_a_photo_manifest_is_read_and_measured_at_the_working_size(tmp_path: Path) -> None:
    truth = json.loads((DATA / "sizes" / "tiny_dice.json").read_text())
    boxes = [{"value": d["value"], "box": [d["x"] - d["size_px"] / 2, d["y"] - d["size_px"] / 2,
                                          d["size_px"], d["size_px"]]} for d in truth["dice"]]
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps([
        {"image": str(DATA / "sizes" / "tiny_dice.jpg"), "dice": boxes, "source": "renders",
         "subset": "table"},
        {"image": str(DATA / "tables" / "wood.jpg"), "dice": [{"value": 1, "box": None}],
         "source": "renders", "subset": "table"},  # a null box: not scored here
        {"image": str(DATA / "sizes" / "tiny_dice.jpg"), "dice": boxes, "source": "renders",
         "subset": "crop"},  # not a table photo
    ]))
    frames = list(photo_frames(manifest, ReaderParams()))
    assert len(frames) == 1
    source, face, labelled, right, sure = frames[0]
    assert source == "renders" and labelled == len(truth["dice"]) == frames[0].labelled
    # dice of about 16 px, read as faces of about 20 px, in a 640-px frame read at 320 px
    assert face is not None and 8.0 < face < SMALL_DICE_PX
    assert 0.6 * labelled <= right <= labelled and sure <= right
