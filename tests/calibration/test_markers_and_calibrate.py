"""ArUco mat markers (generated marker images) and `bluffcam calibrate` end to end.

The frames are drawn here: a mat with a marker at each corner and the players' dice, seen
through a perspective warp (a camera at an angle), then the same mat from a bumped camera.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from bluffcam.commands import calibrate
from calibration import Profile, SeatZones, load_profile, save_profile
from calibration.geometry import apply_homography, homography_from_points
from calibration.markers import (
    detect_marker_quads,
    detect_markers,
    find_mat_homography,
    marker_footprints,
    on_a_marker,
    quad_centre,
    render_marker,
)
from vision.reveal import capture_reveal
from vision.types import Die, Reading

_spec = importlib.util.spec_from_file_location(
    "drawn_dice", Path(__file__).resolve().parents[1] / "reveal" / "drawn_dice.py"
)
assert _spec and _spec.loader
drawn_dice = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("drawn_dice", drawn_dice)
_spec.loader.exec_module(drawn_dice)

MAT_W, MAT_H, MARGIN = 600, 400, 70
MAT_CORNERS = [(0.0, 0.0), (600.0, 0.0), (600.0, 400.0), (0.0, 400.0)]
# three players' dice, in mat millimetres: bottom, top-left, top-right
CLUSTERS = {
    "bottom": [(270, 330, 4), (320, 335, 2), (300, 290, 6)],
    "top-left": [(110, 90, 3), (160, 110, 5)],
    "top-right": [(450, 90, 1), (500, 120, 6), (460, 140, 2)],
}


def mat_canvas(with_markers: bool = True) -> NDArray[np.uint8]:
    """The mat drawn at 1 px per mm with a margin, markers centred on its corners."""
    canvas = np.full((MAT_H + 2 * MARGIN, MAT_W + 2 * MARGIN, 3), (40, 110, 40), np.uint8)
    for dice in CLUSTERS.values():
        for x, y, v in dice:
            drawn_dice.draw_die(canvas, drawn_dice.DrawnDie(x + MARGIN, y + MARGIN, v), size=34)
    if with_markers:
        for marker_id, (u, v) in enumerate(MAT_CORNERS):
            marker = cv2.cvtColor(render_marker(marker_id, 60), cv2.COLOR_GRAY2BGR)
            size = marker.shape[0]
            x0, y0 = round(u + MARGIN - size / 2), round(v + MARGIN - size / 2)
            canvas[y0 : y0 + size, x0 : x0 + size] = marker
    return canvas


def camera_view(
    canvas: NDArray[np.uint8], quad: list[tuple[float, float]]
) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """Warp the canvas so its corners land on ``quad``; also return mat -> image."""
    h, w = canvas.shape[:2]
    canvas_corners = [(0.0, 0.0), (w - 1.0, 0.0), (w - 1.0, h - 1.0), (0.0, h - 1.0)]
    canvas_to_image = homography_from_points(canvas_corners, quad)
    frame = cv2.warpPerspective(canvas, canvas_to_image, (800, 600), borderValue=(30, 30, 30))
    mat_to_canvas = np.array([[1, 0, MARGIN], [0, 1, MARGIN], [0, 0, 1]], dtype=np.float64)
    return frame, canvas_to_image @ mat_to_canvas


STRAIGHT = [(40.0, 40.0), (760.0, 50.0), (770.0, 560.0), (30.0, 550.0)]
BUMPED = [(70.0, 20.0), (780.0, 70.0), (740.0, 585.0), (15.0, 520.0)]
# a hard knock: the mat now fills only the top-left of the picture
KNOCKED = [(10.0, 10.0), (500.0, 30.0), (520.0, 380.0), (20.0, 360.0)]


def test_detect_generated_markers_and_recover_the_homography() -> None:
    frame, truth = camera_view(mat_canvas(), STRAIGHT)
    seen = detect_markers(frame, "DICT_4X4_50")
    assert sorted(seen) == [0, 1, 2, 3]
    from calibration import MarkerConfig

    config = MarkerConfig(
        "DICT_4X4_50", (0, 1, 2, 3), tuple(MAT_CORNERS), tuple(seen[i] for i in range(4))
    )
    found = find_mat_homography(frame, config)
    assert found is not None
    probe = ((300.0, 200.0), (100.0, 350.0))
    np.testing.assert_allclose(
        apply_homography(found, probe), apply_homography(truth, probe), atol=2.0
    )


def test_no_markers_no_homography() -> None:
    from calibration import MarkerConfig

    frame, _ = camera_view(mat_canvas(with_markers=False), STRAIGHT)
    config = MarkerConfig("DICT_4X4_50", (0, 1, 2, 3), tuple(MAT_CORNERS), tuple(MAT_CORNERS))
    assert find_mat_homography(frame, config) is None


def test_marker_footprints_cover_each_marker_and_its_quiet_zone_but_not_a_die_beside_it() -> None:
    frame, mat_to_image = camera_view(mat_canvas(), STRAIGHT)
    quads = detect_marker_quads(frame, "DICT_4X4_50")
    assert sorted(quads) == [0, 1, 2, 3]
    centres = detect_markers(frame, "DICT_4X4_50")
    assert all(quad_centre(quads[i]) == centres[i] for i in quads)
    footprints = marker_footprints(quads.values())
    # the printed marker is a 60 mm square in a 10 mm white border: all of it is covered,
    # and a die lying against the border (34 mm, so its centre is 57 mm out) is not
    for u, v in MAT_CORNERS:
        on_marker = apply_homography(
            mat_to_image, tuple((u + du, v + dv) for du in (-38, 0, 38) for dv in (-38, 0, 38))
        )
        assert all(on_a_marker(footprints, x, y) for x, y in on_marker)
        beside = apply_homography(
            mat_to_image, ((u + 57 if u == 0 else u - 57, v), (u, v + 57 if v == 0 else v - 57))
        )
        assert not any(on_a_marker(footprints, x, y) for x, y in beside)
    # every die on the mat is clear of them
    points = [p for pts in dice_in_image(mat_to_image).values() for p in pts]
    assert not any(on_a_marker(footprints, x, y) for x, y in points)


def args_for(tmp_path: Path, frames: Path, **extra: object) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    calibrate.add_arguments(parser)
    argv = [
        "--camera",
        f"files:{frames}",
        "--seats",
        "3",
        "--out",
        str(tmp_path / "t.toml"),
        "--frames",
        "1",
    ]
    for key, value in extra.items():
        argv += [f"--{key.replace('_', '-')}"] + ([] if value is True else [str(value)])
    return parser.parse_args(argv)


def write_frame(folder: Path, image: NDArray[np.uint8]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "000.png"), image)
    return folder


def dice_in_image(mat_to_image: NDArray[np.float64]) -> dict[str, list[tuple[float, float]]]:
    return {
        name: list(apply_homography(mat_to_image, tuple((x, y) for x, y, _ in dice)))
        for name, dice in CLUSTERS.items()
    }


def test_calibrate_fits_one_zone_per_cluster_clockwise_from_the_bottom(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame, mat_to_image = camera_view(mat_canvas(with_markers=False), STRAIGHT)
    args = args_for(tmp_path, write_frame(tmp_path / "frames", frame), names="Ann,Ben,Cho")
    assert calibrate.run(args) == 0
    assert "px across: the reader reads this table at that scale" in capsys.readouterr().out
    profile = load_profile(tmp_path / "t.toml")
    assert (tmp_path / "t.png").is_file()
    assert profile.zones.names == ["Ann", "Ben", "Cho"]
    assert profile.resolution == (800, 600) and profile.markers is None
    # the dice's size, the camera's up and colours are measured from the dice read
    # (the drawn dice are 34 px, white, upright; the reader's extent holds a little border)
    assert profile.dice is not None and profile.dice.up == 0
    assert 34 <= profile.dice.size_px <= 1.3 * 34
    assert len(profile.dice.colours) == 1 and int(profile.dice.colours[0][1:3], 16) > 200
    seats = {
        name: {profile.zones.seat_of(x, y) for x, y in points}
        for name, points in dice_in_image(mat_to_image).items()
    }
    # bottom first, then clockwise on screen: left-top, right-top
    assert seats == {"bottom": {0}, "top-left": {1}, "top-right": {2}}
    # the front-of-cup area lies between each seat's dice and the table centre
    fitted = profile.zones
    for index in range(3):
        front = fitted.front_of_cup(index)
        assert front is not None
        cx, cy = np.asarray(front).mean(axis=0)
        assert fitted.front_seat_of(cx, cy) == index or fitted.seat_of(cx, cy) is None


def test_calibrate_says_when_the_picture_is_too_dark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame, _ = camera_view(mat_canvas(with_markers=False), STRAIGHT)
    args = args_for(tmp_path, write_frame(tmp_path / "frames", frame))
    assert calibrate.run(args) == 0
    assert "the camera's picture" not in capsys.readouterr().out
    dim = (frame.astype(np.float32) ** 1.6 / 255 ** 0.6 * 0.5).astype(np.uint8)
    args = args_for(tmp_path, write_frame(tmp_path / "dim", dim))
    assert calibrate.run(args) == 0  # the dice are still found, and the picture is named
    assert "the camera's picture: The picture is dark" in capsys.readouterr().out


def test_calibrate_says_when_the_dice_are_small_in_the_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame, _ = camera_view(mat_canvas(with_markers=False), STRAIGHT)
    # the same dice in a frame four times as wide (a camera further up): a 3200-px frame is
    # read at 960 px, 0.3 of its size, where the 800-px frame was read at 0.48 of its own
    h, w = frame.shape[:2]
    felt = [int(c) for c in np.median(frame.reshape(-1, 3), axis=0)]
    wide = cv2.copyMakeBorder(frame, h * 3 // 2, h * 3 // 2, w * 3 // 2, w * 3 // 2,
                              cv2.BORDER_CONSTANT, value=felt)
    args = args_for(tmp_path, write_frame(tmp_path / "wide", wide))
    assert calibrate.run(args) == 0
    out = capsys.readouterr().out
    assert "the camera's picture: The dice are small in the picture" in out
    assert "3200×2400 picture" in out and "Move the camera closer to the table" in out
    assert "resolution" not in out  # a bigger frame would be shrunk the more


def test_calibrate_with_markers_keeps_zones_on_the_mat_when_the_camera_moves(
    tmp_path: Path,
) -> None:
    frame, _ = camera_view(mat_canvas(), STRAIGHT)
    args = args_for(
        tmp_path, write_frame(tmp_path / "frames", frame), markers=True, mat_size="600x400"
    )
    assert calibrate.run(args) == 0
    profile = load_profile(tmp_path / "t.toml")
    assert profile.markers is not None and profile.markers.ids == (0, 1, 2, 3)
    # stored in mat millimetres: the bottom seat's zone lies within the 600×400 mat's reach
    bottom_zone = np.asarray(profile.seat_zones.zone(0))
    assert bottom_zone[:, 1].max() < 700
    bumped, mat_to_bumped = camera_view(mat_canvas(), BUMPED)
    zones_now = profile.zones_for_frame(bumped)
    for seat, points in enumerate(dice_in_image(mat_to_bumped).values()):
        assert {zones_now.seat_of(x, y) for x, y in points} == {seat}
    # the zones moved with the mat: they match the true mat -> bumped-image mapping
    mat_zone = profile.seat_zones.zone(0)
    expected = np.asarray(apply_homography(mat_to_bumped, mat_zone))
    np.testing.assert_allclose(np.asarray(zones_now.zone(0)), expected, atol=4.0)
    stale = np.asarray(profile.zones.zone(0))  # where they were at calibration time
    assert np.abs(stale - expected).max() > 20.0


def reading_the_markers_as_dice(read: object) -> object:
    """A reader that also takes every mat marker for a sure die (as a detector may)."""
    def reader(image: NDArray[np.uint8], params: object = None) -> Reading:
        reading: Reading = read(image, params)  # type: ignore[operator]
        square = np.array([[-15, -15], [15, -15], [15, 15], [-15, 15]], dtype=np.float64)
        fakes = tuple(
            Die(6, x, y, 0.9, square + [x, y])
            for x, y in detect_markers(image, "DICT_4X4_50").values()
        )
        return Reading(dice=reading.dice + fakes, width=reading.width, height=reading.height)

    return reader


def test_calibrate_ignores_readings_on_the_markers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision

    monkeypatch.setattr(vision, "read_dice", reading_the_markers_as_dice(vision.read_dice))
    frame, mat_to_image = camera_view(mat_canvas(), STRAIGHT)
    args = args_for(tmp_path, write_frame(tmp_path / "frames", frame), markers=True)
    profile, _, dice, _ = calibrate.calibrate(args)
    assert len(dice) == sum(len(c) for c in CLUSTERS.values())
    zones = profile.zones
    for seat, points in enumerate(dice_in_image(mat_to_image).values()):
        assert {zones.seat_of(x, y) for x, y in points} == {seat}
    # the zones hug the dice: the mat's corners (the markers) lie in none of them
    corners = apply_homography(mat_to_image, tuple(MAT_CORNERS))
    assert all(zones.seat_of(x, y) is None for x, y in corners)


def test_calibrate_reports_problems_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = np.full((480, 640, 3), (40, 110, 40), np.uint8)
    args = args_for(tmp_path, write_frame(tmp_path / "empty", empty))
    assert calibrate.run(args) == 2
    assert "no dice seen" in capsys.readouterr().err
    frame, _ = camera_view(mat_canvas(with_markers=False), STRAIGHT)
    args = args_for(tmp_path, write_frame(tmp_path / "nomarkers", frame), markers=True)
    assert calibrate.run(args) == 2
    assert "markers: ids [0, 1, 2, 3] not found" in capsys.readouterr().err
    args = args_for(tmp_path, tmp_path / "nomarkers", names="Ann,Ben")
    assert calibrate.run(args) == 2
    assert "--names: give 3 non-empty names, got 'Ann,Ben'" in capsys.readouterr().err
    args = args_for(tmp_path, tmp_path / "nowhere")
    assert calibrate.run(args) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert not (tmp_path / "t.toml").exists()


def test_calibrate_refuses_bad_names_and_out_before_opening_the_camera(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nowhere = tmp_path / "nowhere"  # no such camera: a check after opening it would say so
    args = args_for(tmp_path, nowhere, names="Ann,Ben,Ann")
    assert calibrate.run(args) == 2
    assert capsys.readouterr().err == (
        "calibrate: --names: seat names must differ; repeated: Ann\n"
    )
    folder = tmp_path / "profiles"
    folder.mkdir()
    args = args_for(tmp_path, nowhere)
    args.out = folder
    assert calibrate.run(args) == 2
    assert capsys.readouterr().err == (
        f"calibrate: --out: {folder} is a folder; give a file in it, e.g. {folder / 'table.toml'}\n"
    )
    args.out = tmp_path / "t.png"  # the picture's name: the picture would overwrite it
    assert calibrate.run(args) == 2
    assert "is where the picture goes; give a .toml file" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["profiles"]


def test_calibrate_refuses_bad_seats_marker_ids_and_a_non_profile_out_before_the_camera(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nowhere = tmp_path / "nowhere"
    for extra, words in (({"seats": 0}, "--seats: give 1 to 6 seats, got 0"),
                         ({"seats": 7}, "--seats: give 1 to 6 seats, got 7"),
                         ({"markers": True, "marker_ids": "a,b,c,d"},
                          "--marker-ids: give 4 whole numbers"),
                         ({"markers": True, "mat_size": "600"},
                          "--mat-size: give the spacing of the markers' centres in mm"),
                         ({"frames": 0}, "--frames: give 1 or more frames to vote over, got 0")):
        args = args_for(tmp_path, nowhere)
        for key, value in extra.items():
            setattr(args, key, value)
        assert calibrate.run(args) == 2
        assert words in capsys.readouterr().err
    notes = tmp_path / "t.toml"
    notes.write_text("my notes, not a profile")
    assert calibrate.run(args_for(tmp_path, nowhere)) == 2
    assert "exists and is not a profile" in capsys.readouterr().err
    assert notes.read_text() == "my notes, not a profile"


def test_calibrating_again_keeps_the_profiles_reader_and_panel_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame, _ = camera_view(mat_canvas(with_markers=False), STRAIGHT)
    frames = write_frame(tmp_path / "frames", frame)
    assert calibrate.run(args_for(tmp_path, frames)) == 0
    first = load_profile(tmp_path / "t.toml")
    save_profile(dataclasses.replace(first, reader={"min_confidence": 0.9},
                                     panel={"encoder": True}, path=None), tmp_path / "t.toml")
    capsys.readouterr()
    assert calibrate.run(args_for(tmp_path, frames)) == 0
    again = load_profile(tmp_path / "t.toml")
    assert again.reader == {"min_confidence": 0.9} and again.panel == {"encoder": True}
    assert "kept the [reader] and [panel] settings" in capsys.readouterr().out
    # a misspelt panel key is not carried into the new file unseen
    path = tmp_path / "t.toml"
    path.write_text(path.read_text().replace("encoder = true", "encodr = true"))
    before = path.read_text()
    assert calibrate.run(args_for(tmp_path, frames)) == 2
    assert "panel.encodr: unknown key" in capsys.readouterr().err
    assert path.read_text() == before


def test_calibrate_says_when_the_profile_cannot_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame, _ = camera_view(mat_canvas(with_markers=False), STRAIGHT)
    args = args_for(tmp_path, write_frame(tmp_path / "frames", frame))
    (tmp_path / "file").write_text("not a folder")
    args.out = tmp_path / "file" / "t.toml"
    assert calibrate.run(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"calibrate: cannot write the profile {args.out}: ")
    assert err.count("\n") == 1


def test_calibrate_says_when_the_picture_cannot_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame, _ = camera_view(mat_canvas(with_markers=False), STRAIGHT)
    args = args_for(tmp_path, write_frame(tmp_path / "frames", frame))
    (tmp_path / "t.png").mkdir()  # where the picture would go
    assert calibrate.run(args) == 0
    captured = capsys.readouterr()
    assert load_profile(tmp_path / "t.toml").seat_zones
    assert f"could not write the picture {tmp_path / 't.png'}" in captured.err
    assert "and " not in captured.out.splitlines()[0]


def calibrated_with_markers(tmp_path: Path) -> Profile:
    """A profile calibrated with markers on the straight view of the mat."""
    frame, _ = camera_view(mat_canvas(), STRAIGHT)
    args = args_for(tmp_path, write_frame(tmp_path / "frames", frame), markers=True)
    assert calibrate.run(args) == 0
    return load_profile(tmp_path / "t.toml")


def reader_of_truth(mat_to_image: NDArray[np.float64]) -> Callable[..., Reading]:
    """A reader that reports exactly the drawn dice, where ``mat_to_image`` puts them."""
    square = np.array([[-10, -10], [10, -10], [10, 10], [-10, 10]], dtype=np.float64)

    def reader(image: NDArray[np.uint8], params: object) -> Reading:
        points = [p for pts in dice_in_image(mat_to_image).values() for p in pts]
        values = [v for cluster in CLUSTERS.values() for _, _, v in cluster]
        pairs = zip(points, values, strict=True)
        dice = tuple(Die(v, x, y, 0.95, square + [x, y]) for (x, y), v in pairs)
        return Reading(dice=dice, width=800, height=600)

    return reader


def test_reveal_capture_follows_the_markers_in_the_frame_it_reads(tmp_path: Path) -> None:
    profile = calibrated_with_markers(tmp_path)
    bumped, mat_to_bumped = camera_view(mat_canvas(), KNOCKED)
    reader = reader_of_truth(mat_to_bumped)
    expected = {"Ann": 3, "Ben": 2, "Cho": 3}
    result = capture_reveal(
        bumped, profile.zones, expected, None, stillness=None, reader=reader
    )  # one photo is accepted as the frames
    assert result.problems == []
    assert result.values() == {"Ann": [2, 4, 6], "Ben": [3, 5], "Cho": [1, 2, 6]}
    # the calibration-time zones alone would have got it wrong
    fixed = SeatZones(profile.zones.seats)
    stale = capture_reveal(bumped, fixed, expected, None, stillness=None, reader=reader)
    assert stale.needs_review


def test_a_reveal_ignores_readings_on_the_markers_of_the_frame_it_reads(tmp_path: Path) -> None:
    profile = calibrated_with_markers(tmp_path)
    bumped, mat_to_bumped = camera_view(mat_canvas(), BUMPED)
    reader = reading_the_markers_as_dice(reader_of_truth(mat_to_bumped))
    expected = {"Ann": 3, "Ben": 2, "Cho": 3}
    result = capture_reveal(bumped, profile.zones, expected, None, stillness=None, reader=reader)
    assert result.problems == [] and result.outside == []
    assert result.values() == {"Ann": [2, 4, 6], "Ben": [3, 5], "Cho": [1, 2, 6]}
    # zones without the markers' footprints take the marker readings for stray dice
    fixed = SeatZones(profile.zones.seats)
    stray = capture_reveal(bumped, fixed, expected, None, stillness=None, reader=reader)
    assert any(p.kind == "outside_zones" for p in stray.problems)


def test_hidden_markers_fall_back_to_the_calibration_time_zones(tmp_path: Path) -> None:
    profile = calibrated_with_markers(tmp_path)
    covered, _ = camera_view(mat_canvas(with_markers=False), BUMPED)
    assert profile.zones_for_frame(covered) == profile.zones
    assert profile.zones.for_frame(covered) == profile.zones
