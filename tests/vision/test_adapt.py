"""`bluffcam adapt` and a table head on the project's committed renders (tests/data): the
head taught on them applies more of them unasked and makes no die sure and wrong; the command
writes a profile `bluffcam read --profile` takes, and refuses bad input by name (exit 2)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bluffcam.adaptation import adapt_profile
from vision.adapt import ReadPhoto, fit_head, read_photos
from vision.bench import Entry, LabelledDie
from vision.params import ReaderParams
from vision.table_head import decide
from vision.table_score import die_labels, outcome

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
#: the rendered photos of dice on a table (not the cards')
FOLDERS = ("oblique", "reveal", "single", "sizes", "tables", "touching", "uncertain")


def rendered_entries(folders: tuple[str, ...] = FOLDERS) -> list[Entry]:
    """The renders' ground truth as manifest entries (box: the top face's outline's bounds)."""
    entries = []
    for folder in folders:
        for truth in sorted((DATA / folder).glob("*.json")):
            data = json.loads(truth.read_text())
            dice = tuple(
                LabelledDie(d["value"], (float(o[:, 0].min()), float(o[:, 1].min()),
                                         float(np.ptp(o[:, 0])), float(np.ptp(o[:, 1]))))
                for d in data["dice"] for o in [np.asarray(d["outline"], float)])
            entries.append(Entry(f"{folder}/{data['image']}", dice, True, "render", "table"))
    return entries


def manifest_json(entries: list[Entry]) -> list[dict[str, object]]:
    return [{"image": e.image, "complete": e.complete, "source": e.source, "subset": e.subset,
             "dice": [{"value": d.value, "box": list(d.box) if d.box else None}
                      for d in e.dice]} for e in entries]


@pytest.fixture(scope="module")
def rendered() -> list[ReadPhoto]:
    if not (DATA / "tables" / "felt.json").is_file():
        pytest.skip("rendered test data not found (python -m tools.render testdata)")
    return read_photos(DATA, rendered_entries(), ReaderParams())


def sure_and_wrong(photo: ReadPhoto, reading: object) -> set[tuple[str, float, float]]:
    from vision.types import Reading

    assert isinstance(reading, Reading)
    labels = die_labels(photo.entry, reading)
    return {(photo.entry.image, round(d.x), round(d.y)) for d, label in
            zip(reading.dice, labels, strict=True)
            if d.confidence >= reading.min_confidence and label >= 0 and label != d.value}


def test_a_head_taught_on_the_renders_applies_more_of_them_and_none_wrong(
        rendered: list[ReadPhoto]) -> None:
    head = fit_head(rendered)
    adapted = [decide(p.reading, head, p.balance, ReaderParams().max_dice) for p in rendered]
    before = [outcome(p.entry, p.reading) for p in rendered]
    after = [outcome(p.entry, r) for p, r in zip(rendered, adapted, strict=True)]
    assert sum(o.auto_right for o in after) > sum(o.auto_right for o in before)
    assert not any(o.silent_misread for o in after)
    for photo, reading in zip(rendered, adapted, strict=True):
        assert sure_and_wrong(photo, reading) <= sure_and_wrong(photo, photo.reading), \
            photo.entry.image


def run_bluffcam(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bluffcam", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=240)


def copied_renders(folder: Path, folders: tuple[str, ...] = ("tables", "touching")) -> Path:
    """A manifest of a few renders, their photos copied beside it."""
    entries = rendered_entries(folders)
    for e in entries:
        (folder / e.image).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / e.image, folder / e.image)
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps(manifest_json(entries)))
    return manifest


def test_adapt_writes_a_profile_that_read_takes_and_read_says_which_dice_are_sure(
        tmp_path: Path) -> None:
    if not (DATA / "tables" / "felt.json").is_file():
        pytest.skip("rendered test data not found (python -m tools.render testdata)")
    manifest = copied_renders(tmp_path / "photos")
    out = tmp_path / "table" / "felt.toml"
    done = run_bluffcam("adapt", str(manifest), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 1 and "from 9 photos" in done.stdout
    assert (tmp_path / "table" / "felt.adapt.npz").is_file()
    assert 'table_head = "felt.adapt.npz"' in out.read_text()
    read = run_bluffcam("read", str(DATA / "tables" / "felt.jpg"), "--profile", str(out))
    assert read.returncode == 0, read.stderr
    dice = json.loads(read.stdout)["dice"]
    assert dice and all(d["sure"] == (d["confidence"] >= 0.6) for d in dice)


def test_adapt_keeps_the_base_profiles_settings(tmp_path: Path) -> None:
    manifest = copied_renders(tmp_path / "photos", ("tables",))
    base = tmp_path / "base.toml"
    demo = (ROOT / "calibration" / "demo.toml").read_text()
    base.write_text(demo.replace("[reader]", "[reader]\nmin_gradient_balance = 0.3", 1))
    out = tmp_path / "adapted.toml"
    done = run_bluffcam("adapt", str(manifest), "--out", str(out), "--profile", str(base))
    assert done.returncode == 0, done.stderr
    from calibration import load_profile

    profile = load_profile(out)
    assert profile.reader["min_gradient_balance"] == 0.3
    assert profile.reader_params.table_head == str(tmp_path / "adapted.adapt.npz")
    assert profile.zones.seats == load_profile(base).zones.seats


@pytest.mark.parametrize(("write", "named"), [
    (lambda d: [{"image": "gone.jpg", "dice": [{"value": 3, "box": None}]}], "gone.jpg"),
    (lambda d: [{"image": "tables/felt.jpg", "dice": [{"value": 9, "box": None}]}],
     "entry 0 (tables/felt.jpg): dice[0]"),
    (lambda d: [{"image": "tables/felt.jpg", "dice": []}], "no labelled die"),
    (lambda d: "not a list", "a manifest is a JSON list"),
])
def test_adapt_refuses_bad_input_by_name_and_writes_nothing(
        tmp_path: Path, write: object, named: str) -> None:
    (tmp_path / "tables").mkdir()
    shutil.copy(DATA / "tables" / "felt.jpg", tmp_path / "tables" / "felt.jpg")
    manifest = tmp_path / "manifest.json"
    assert callable(write)
    manifest.write_text(json.dumps(write(tmp_path)))
    out = tmp_path / "out.toml"
    done = run_bluffcam("adapt", str(manifest), "--out", str(out))
    assert done.returncode == 2
    assert named in done.stderr and done.stderr.startswith("adapt: ")
    assert not out.exists() and not (tmp_path / "out.adapt.npz").exists()


def test_adapt_refuses_a_missing_manifest(tmp_path: Path) -> None:
    done = run_bluffcam("adapt", str(tmp_path / "none.json"), "--out", str(tmp_path / "o.toml"))
    assert done.returncode == 2 and "none.json" in done.stderr


def test_bench_vision_adapt_first_prints_each_source_before_and_after(tmp_path: Path) -> None:
    if not (DATA / "tables" / "felt.json").is_file():
        pytest.skip("rendered test data not found (python -m tools.render testdata)")
    tables = rendered_entries(("tables",))
    touching = rendered_entries(("touching",))
    entries = [*manifest_json(tables), *({**e, "source": "few"} for e in manifest_json(touching))]
    for e in [*tables, *touching]:
        (tmp_path / e.image).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / e.image, tmp_path / e.image)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(entries))
    done = run_bluffcam("bench-vision", str(manifest), "--adapt-first", "3", "--json")
    assert done.returncode == 0, done.stderr
    results = {r["source"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert results["render"]["taught"] == 3 and results["render"]["before"]["photos"] == 3
    after = results["render"]["after"]
    assert set(after) == {"photos", "accuracy", "auto_share", "silent_misreads",
                          "sure_wrong", "reach", "median_ms"}
    # the reader finds every die of the rendered tables, none extra: a head could apply all
    assert after["reach"] == 1.0
    assert "none left to read" in results["few"]["skipped"]
    # the rendered tables' dice measure one size: "after" reads at it, as the adapted profile
    size = results["render"]["die_size_px"]
    assert size is not None and 20 < size < 80
    table = run_bluffcam("bench-vision", str(manifest), "--adapt-first", "3")
    assert table.returncode == 0 and "before: acc" in table.stdout and "reach" in table.stdout
    refused = run_bluffcam("bench-vision", str(manifest), "--adapt-first", "0")
    assert refused.returncode == 2 and "--adapt-first must be at least 1" in refused.stderr
    # the split chooses the photos both taught and read: no render is among the shared
    # photos' held-out list
    unseen = run_bluffcam("bench-vision", str(manifest), "--adapt-first", "3", "--split",
                          "held-out")
    assert unseen.returncode == 2 and "no photos match" in unseen.stderr
    seen = run_bluffcam("bench-vision", str(manifest), "--adapt-first", "3", "--split",
                        "trained", "--json")
    assert seen.returncode == 0, seen.stderr
    assert json.loads(seen.stdout.splitlines()[-1])["before"]["photos"] == 3


def test_adapt_learns_from_photos_whose_dice_have_no_boxes(tmp_path: Path) -> None:
    """Reveals confirmed with values alone (bluffcam export-reveals) label no die's place."""
    if not (DATA / "tables" / "felt.json").is_file():
        pytest.skip("rendered test data not found (python -m tools.render testdata)")
    manifest = copied_renders(tmp_path, ("tables",))
    entries = json.loads(manifest.read_text())
    for e in entries:
        e["dice"] = [{"value": d["value"], "box": None} for d in e["dice"]]
    manifest.write_text(json.dumps(entries))
    done = run_bluffcam("adapt", str(manifest), "--out", str(tmp_path / "t.toml"))
    assert done.returncode == 0, done.stderr
    assert "from 6 photos" in done.stdout


def test_adapt_says_on_how_many_photos_the_reader_found_every_die(tmp_path: Path) -> None:
    """A photo with a die missed or one too many goes to review whatever the head learns:
    the summary counts the photos found whole, and a die left unlabelled (an extra one on a
    photo said to be complete) takes one away."""
    if not (DATA / "tables" / "felt.json").is_file():
        pytest.skip("rendered test data not found (python -m tools.render testdata)")
    manifest = copied_renders(tmp_path, ("tables",))
    whole = adapt_profile([manifest], tmp_path / "whole.toml")
    assert whole.found_whole == 6
    assert "every die found on 6 of 6;" in whole.summary()
    layer = whole.head.feature_layer
    said = f"feature layer {layer.min_odds:g}" if layer is not None else "no feature layer"
    assert f"smear balance {whole.head.min_balance:g}, {said};" in whole.summary()
    entries = json.loads(manifest.read_text())
    entries[0]["dice"] = entries[0]["dice"][1:]
    manifest.write_text(json.dumps(entries))
    short = adapt_profile([manifest], tmp_path / "short.toml")
    assert short.found_whole == 5
