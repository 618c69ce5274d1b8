"""The scene renderer (tools/render) and the committed images it made (tests/data)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tools.render.camera import Camera
from tools.render.dice import FACE_OF_VALUE, VALUE_OF_FACE, Die
from tools.render.renderer import render
from tools.render.scene import Effects, Light, Scene
from tools.render.testdata import build, cases

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def _top_down(width: int, height: int, distance: float) -> Camera:
    return Camera.looking_at(width, height, target=(0.0, 0.0), distance=distance, tilt_deg=0.0,
                             azimuth_deg=-90.0, roll_deg=0.0, hfov_deg=50.0)


def _small_scene(noise_seed: int = 3) -> Scene:
    cam = _top_down(160, 120, 180.0)
    dice = [Die.lying(5, -15.0, 0.0, 20.0, 16.0, "red"),
            Die.lying(2, 12.0, 5.0, 60.0, 16.0, "wood")]
    return Scene(cam, Light(), "cloth", 42, dice, effects=Effects(noise=3.0, jpeg_quality=70),
                 noise_seed=noise_seed, supersample=1)


def _all_truths() -> list[tuple[str, dict[str, Any]]]:
    """Every frame's truth among the renderer's cases (other folders may hold other data)."""
    out = []
    index = json.loads((DATA / "index.json").read_text())
    for case in index["cases"]:
        single = DATA / f"{case['case']}.json"
        path = single if single.exists() else DATA / case["case"] / "truth.json"
        data = json.loads(path.read_text())
        for frame in data.get("frames", [data]):
            out.append((str(path.relative_to(DATA)), frame))
    return out


def test_same_scene_same_image() -> None:
    a, truth_a = render(_small_scene())
    b, truth_b = render(_small_scene())
    assert np.array_equal(a, b)
    assert truth_a == truth_b


def test_noise_seed_changes_only_the_noise() -> None:
    a, _ = render(_small_scene(noise_seed=1))
    b, _ = render(_small_scene(noise_seed=2))
    diff = np.abs(a.astype(int) - b.astype(int))
    assert diff.max() > 0
    assert diff.mean() < 6


@pytest.mark.parametrize("value", range(1, 7))
def test_opposite_faces_sum_to_seven(value: int) -> None:
    die = Die.lying(value, 0.0, 0.0, 33.0, 16.0, "white")
    axis, sign = FACE_OF_VALUE[value]
    up = die.rotation[:, axis] * sign
    assert np.allclose(up, [0, 0, 1])
    assert die.top_value() == value
    bottom = int(VALUE_OF_FACE[axis, 1 if sign > 0 else 0])
    assert bottom == 7 - value


@pytest.mark.parametrize("value", range(1, 7))
def test_rendered_top_face_shows_the_ground_truth_pips(value: int) -> None:
    cam = _top_down(200, 200, 90.0)
    scene = Scene(cam, Light(elevation_deg=80.0, glare=0.0), "paper", 5,
                  [Die.lying(value, 0.0, 0.0, 17.0, 16.0, "white")], effects=Effects(noise=0.0),
                  supersample=1)
    image, truth = render(scene)
    (die,) = truth["dice"]
    assert die["value"] == value
    mask = np.zeros(image.shape[:2], np.uint8)
    outline = np.array(die["outline"], np.float32)
    centre = outline.mean(axis=0)
    cv2.fillConvexPoly(mask, ((outline - centre) * 0.85 + centre).astype(np.int32), 1)
    dark = ((cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) < 90) & (mask > 0)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    blobs = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 20]
    assert len(blobs) == value


def test_committed_truth_is_consistent() -> None:
    truths = _all_truths()
    assert len(truths) > 60
    for name, truth in truths:
        w, h = truth["width"], truth["height"]
        for die in truth["dice"]:
            assert 1 <= die["value"] <= 6, name
            outline = np.array(die["outline"])
            assert outline.shape == (4, 2), name
            assert (outline >= -1).all() and (outline[:, 0] <= w).all(), name
            assert (outline[:, 1] <= h).all(), name
            inside = cv2.pointPolygonTest(outline.astype(np.float32), (die["x"], die["y"]), False)
            assert inside > 0, name
            assert 0.0 <= die["visible"] <= 1.0
            if "seat_index" in die and die["visible"] > 0.5:
                assert die["seat"] == die["seat_index"], name
                assert die["area"] == die["placed_in"], name


def test_committed_images_exist_and_match_truth_size() -> None:
    index = json.loads((DATA / "index.json").read_text())
    for case in index["cases"]:
        for rel in case["files"]:
            image = cv2.imread(str(DATA / rel))
            assert image is not None, rel
            truth_path = DATA / (rel[:-4] + ".json")
            if truth_path.exists():
                truth = json.loads(truth_path.read_text())
                assert image.shape[:2] == (truth["height"], truth["width"])


def test_special_cases_are_what_they_say() -> None:
    empty = json.loads((DATA / "empty" / "felt.json").read_text())
    assert empty["dice"] == []
    mismatch = json.loads((DATA / "reveal" / "count_mismatch.json").read_text())
    counts: dict[int, int] = {}
    for die in mismatch["dice"]:
        counts[die["seat"]] = counts.get(die["seat"], 0) + 1
    names = [s["name"] for s in mismatch["layout"]["seats"]]
    short = [n for i, n in enumerate(names) if counts.get(i, 0) != mismatch["expected_counts"][n]]
    assert short == ["Seat 3"]
    uncertain = json.loads((DATA / "reveal" / "uncertain.json").read_text())
    assert sum(d["uncertain"] for d in uncertain["dice"]) == 1
    tiny = json.loads((DATA / "sizes" / "tiny_dice.json").read_text())
    assert max(d["size_px"] for d in tiny["dice"]) < 22
    huge = json.loads((DATA / "sizes" / "huge_die.json").read_text())
    assert huge["dice"][0]["size_px"] > 300


@pytest.mark.parametrize("name", ["single/white_3", "empty/wood", "touching/touching_1"])
def test_regenerating_gives_the_committed_truth(name: str) -> None:
    (case,) = [c for c in cases() if c.name == name]
    (frame,) = list(build(case))
    committed = json.loads((DATA / f"{name}.json").read_text())
    committed.pop("image")
    assert [d["value"] for d in frame.truth["dice"]] == [d["value"] for d in committed["dice"]]
    for new, old in zip(frame.truth["dice"], committed["dice"], strict=True):
        assert new["x"] == pytest.approx(old["x"], abs=0.05)
        assert new["y"] == pytest.approx(old["y"], abs=0.05)
        assert np.allclose(new["outline"], old["outline"], atol=0.05)
    stored = cv2.imread(str(DATA / f"{name}.jpg")).astype(int)
    assert np.abs(stored - frame.image.astype(int)).mean() < 3.0


DEMO = Path(__file__).resolve().parents[2] / "bluffcam" / "recordings" / "demo"


def test_demo_game_replays_to_one_winner() -> None:
    from engine import run_script

    output, code = run_script(json.loads((DEMO / "game.json").read_text()))
    assert code == 0
    assert output["winner"] == "Cho"


def test_demo_frames_match_the_reveals() -> None:
    script = json.loads((DEMO / "game.json").read_text())
    manifest = json.loads((DEMO / "manifest.json").read_text())
    for entry in manifest["reveals"]:
        action = script["actions"][entry["action_index"]]
        assert action["reveal"] == entry["truth"]
        seen: dict[str, list[int]] = {}
        for die in entry["dice"]:
            seen.setdefault(die["player"], []).append(die["value"])
        assert {p: sorted(v) for p, v in seen.items()} == {
            p: sorted(v) for p, v in entry["truth"].items()}
        frames = sorted((DEMO / entry["frames"]).glob("*.jpg"))
        assert len(frames) - entry["still_from"] >= 4
    assert sum(e["hard"] for e in manifest["reveals"]) == 1
    for entry in manifest["rerolls"]:
        action = script["actions"][entry["action_index"]]
        assert sorted(action["set_aside"]) == sorted(d["value"] for d in entry["dice"])
        assert all(d["area"] == "front" for d in entry["dice"])
