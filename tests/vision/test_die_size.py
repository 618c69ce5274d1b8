"""The profile's die size refined from labelled dice when the profile is learned again
(`bluffcam.die_size`, `bluffcam adapt`): the confirmed dice's median where there are enough
and the change is plausible, else the calibrated size kept and the summary saying why."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from test_adapt import DATA, copied_renders, rendered_entries

from bluffcam.adaptation import adapt_profile
from bluffcam.die_size import MAX_RATIO, MIN_DICE, refine_size
from calibration import load_profile
from vision.adapt import read_photos
from vision.dice.measure import die_size
from vision.params import ReaderParams

WHOLE = "[[0, 0], [640, 0], [640, 480], [0, 480]]"


def test_enough_dice_of_a_plausible_size_give_their_median() -> None:
    sizes = [40.0] * 5 + [44.0] * 6 + [90.0]  # one heap read as a die does not move it
    refined = refine_size(38.0, sizes)
    assert refined.size == 44.0 and refined.changed and refined.dice == 12
    assert "38 -> 44 px" in refined.note


def test_too_few_dice_keep_the_calibrated_size() -> None:
    refined = refine_size(38.0, [44.0] * (MIN_DICE - 1))
    assert refined.size == 38.0 and not refined.changed
    assert f"{MIN_DICE - 1} confirmed dice, {MIN_DICE} needed" in refined.note


@pytest.mark.parametrize("measured", [38.0 * MAX_RATIO * 1.05, 38.0 / MAX_RATIO / 1.05])
def test_a_size_far_off_the_calibrated_one_is_kept_and_said(measured: float) -> None:
    refined = refine_size(38.0, [measured] * MIN_DICE)
    assert refined.size == 38.0 and not refined.changed
    assert "kept at 38 px" in refined.note and "calibrate again" in refined.note


def test_a_profile_without_a_size_gets_the_median_of_dice_of_one_size() -> None:
    """Nobody calibrated it: the labelled dice give the size where nearly all measure alike
    (one camera that does not move), and none where they measure many sizes."""
    steady = [40.0] * 19 + [90.0]  # 95% within 1.5 times the median: one heap aside
    first = refine_size(None, steady)
    assert first.size == 40.0 and first.changed and "die size set to 40 px" in first.note
    varied = [20.0] * 6 + [40.0] * 8 + [80.0] * 6  # a phone held near and far
    none = refine_size(None, varied)
    assert none.size is None and not none.changed
    assert "measure many sizes: 40% within 1.5 times their median, 95% needed" in none.note
    few = refine_size(None, [40.0] * (MIN_DICE - 1))
    assert few.size is None and f"{MIN_DICE - 1} confirmed dice, {MIN_DICE} needed" in few.note


def test_a_bad_size_is_refused() -> None:
    for bad in (0.0, -3.0, float("nan")):
        with pytest.raises(ValueError, match="positive number of pixels"):
            refine_size(38.0, [40.0] * 10 + [bad])


def base_profile(path: Path, size_px: float, resolution: str = "[640, 480]") -> Path:
    path.write_text(f'name = "t"\n[camera]\nspec = "photo:"\nresolution = {resolution}\n'
                    f'[table]\narea = {WHOLE}\n[[seats]]\nname = "A"\nzone = {WHOLE}\n'
                    f'[dice]\nsize_px = {size_px}\nup = 0\n')
    return path


@pytest.fixture
def renders(tmp_path: Path) -> Path:
    if not (DATA / "tables" / "felt.json").is_file():
        pytest.skip("rendered test data not found (python -m tools.render testdata)")
    return copied_renders(tmp_path / "photos", ("tables",))


def test_adapt_sets_the_die_size_calibrate_would_measure(renders: Path, tmp_path: Path) -> None:
    base = base_profile(tmp_path / "base.toml", 40.0)
    adapted = adapt_profile([renders], tmp_path / "out.toml", base)
    learned = load_profile(tmp_path / "out.toml")
    assert learned.dice is not None and learned.dice.up == 0  # the rest of [dice] kept
    # calibrate's own measure of the same photos: the median size of the sure dice read
    # without a profile
    plain = read_photos(DATA, rendered_entries(("tables",)), ReaderParams())
    calibrated = statistics.median(die_size(p.reading.sure) or 0.0 for p in plain)
    assert abs(learned.dice.size_px - calibrated) < 0.1 * calibrated
    assert adapted.size is not None and adapted.size.dice == 48
    assert f"die size 40 -> {learned.dice.size_px:.0f} px" in adapted.summary()


def test_adapt_keeps_the_size_where_too_few_dice_measure_it(renders: Path,
                                                            tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    entries = json.loads(renders.read_text())[:1]  # one photo: 8 dice
    one.write_text(json.dumps(entries))
    (tmp_path / "tables").mkdir()
    (tmp_path / entries[0]["image"]).write_bytes((DATA / entries[0]["image"]).read_bytes())
    base = base_profile(tmp_path / "base.toml", 40.0)
    adapted = adapt_profile([one], tmp_path / "out.toml", base)
    assert load_profile(tmp_path / "out.toml").dice.size_px == 40.0  # type: ignore[union-attr]
    assert "die size kept at 40 px (8 confirmed dice, 10 needed)" in adapted.summary()


def test_photos_of_another_size_than_the_profiles_measure_nothing(
        renders: Path, tmp_path: Path) -> None:
    """Another camera setting: its dice are another size in pixels."""
    base = base_profile(tmp_path / "base.toml", 40.0, "[1280, 960]")
    adapted = adapt_profile([renders], tmp_path / "out.toml", base)
    assert load_profile(tmp_path / "out.toml").dice.size_px == 40.0  # type: ignore[union-attr]
    assert "(0 confirmed dice, 10 needed)" in adapted.summary()


def test_adapt_gives_a_profile_without_a_size_the_size_of_its_dice_and_reads_at_it(
        renders: Path, tmp_path: Path) -> None:
    """The renders of tests/data/tables: one camera distance, so one die size. The head is
    fitted on the photos read at that size, as the table's reader will read them."""
    reads: list[int] = []
    adapted = adapt_profile([renders], tmp_path / "out.toml",
                            before_each=lambda: reads.append(1))
    assert len(reads) == 2 * len(json.loads(renders.read_text()))  # read again at the size
    learned = load_profile(tmp_path / "out.toml")
    assert learned.dice is not None and adapted.size is not None
    assert learned.dice.size_px == adapted.size.size and adapted.size.old is None
    assert f"die size set to {learned.dice.size_px:.0f} px" in adapted.summary()
    assert learned.reader_params.die_size_px == learned.dice.size_px
    plain = read_photos(DATA, rendered_entries(("tables",)), ReaderParams())
    assert abs(learned.dice.size_px - statistics.median(
        die_size(p.reading.sure) or 0.0 for p in plain)) < 0.1 * learned.dice.size_px
