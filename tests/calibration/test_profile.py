"""Profiles: TOML round trip, zones, sectors, and a clear error for every kind of bad profile."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration import Profile, ProfileError, load_profile, profile_from_dict, save_profile
from calibration.fit import FitError, fit_table
from calibration.geometry import area, contains, first_crossing, sector

GOOD: dict[str, Any] = {
    "name": "kitchen",
    "camera": {"spec": "picamera2:2028x1520", "resolution": [2028, 1520]},
    "table": {
        "area": [[0, 0], [2000, 0], [2000, 1500], [0, 1500]],
        "centre": [1000, 750],
        "radius": 700,
    },
    "seats": [
        {
            "name": "North",
            "zone": [[0, 0], [2000, 0], [2000, 500], [0, 500]],
            "front": [[800, 500], [1200, 500], [1200, 600], [800, 600]],
        },
        {"name": "South", "sector": {"start": 45, "end": 135, "inner": 200}},
    ],
    "reader": {"min_confidence": 0.7},
    "panel": {"bid": 22, "leds": [17, 27]},
}


def test_round_trip_keeps_everything(tmp_path: Path) -> None:
    profile = profile_from_dict(copy.deepcopy(GOOD))
    path = save_profile(profile, tmp_path / "sub" / "kitchen.toml")
    again = load_profile(path)
    assert again.name == "kitchen" and again.camera == "picamera2:2028x1520"
    assert again.resolution == (2028, 1520)
    assert again.zones.names == ["North", "South"]
    assert again.panel == {"bid": 22, "leds": [17, 27]}
    assert again.reader_params.min_confidence == 0.7
    for a, b in zip(profile.zones, again.zones, strict=True):
        np.testing.assert_allclose(a.zone, b.zone, atol=0.01)  # sectors saved as polygons


def test_a_profile_replaced_is_kept_beside_it_and_no_temporary_file_is_left(
        tmp_path: Path) -> None:
    path = tmp_path / "kitchen.toml"
    profile = profile_from_dict(copy.deepcopy(GOOD))
    save_profile(profile, path)
    assert not (tmp_path / "kitchen.toml.bak").exists()  # nothing was replaced
    save_profile(profile, path)
    assert not (tmp_path / "kitchen.toml.bak").exists()  # the same text: nothing to keep
    path.write_text("# by hand\n" + path.read_text())
    save_profile(dataclasses.replace(profile, reader={"min_confidence": 0.8}), path)
    assert (tmp_path / "kitchen.toml.bak").read_text().startswith("# by hand")
    assert load_profile(path).reader_params.min_confidence == 0.8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kitchen.toml", "kitchen.toml.bak"]


@pytest.mark.parametrize("had_backup", [True, False])
def test_a_save_the_disk_refuses_leaves_the_profile_and_its_backup_as_they_were(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, had_backup: bool) -> None:
    """The backup is written first: when the profile's own write then failed (a full disk),
    the backup of the profile before was gone though nothing else had changed."""
    import calibration.profile

    path = tmp_path / "kitchen.toml"
    profile = profile_from_dict(copy.deepcopy(GOOD))
    save_profile(profile, path)
    backup = tmp_path / "kitchen.toml.bak"
    if had_backup:
        backup.write_text("# the one before\n")
    path.write_text("# by hand\n" + path.read_text())
    profile_text = path.read_bytes()
    real = calibration.profile.replace_whole

    def full_disk_for_the_profile(target: Path, data: bytes, **kwargs: Any) -> None:
        if target == path.resolve():
            raise OSError(28, "No space left on device")
        real(target, data, **kwargs)

    monkeypatch.setattr(calibration.profile, "replace_whole", full_disk_for_the_profile)
    with pytest.raises(OSError, match="No space left"):
        save_profile(dataclasses.replace(profile, reader={"min_confidence": 0.8}), path)
    assert path.read_bytes() == profile_text
    if had_backup:
        assert backup.read_text() == "# the one before\n"
    else:
        assert not backup.exists()


def test_seat_of_and_front_of_cup() -> None:
    zones = profile_from_dict(copy.deepcopy(GOOD)).zones
    assert zones.seat_of(100, 100) == 0
    assert zones.seat_of(1000, 550) is None  # in North's front area, not its dice zone
    assert zones.front_seat_of(1000, 550) == 0
    assert zones.seat_of(1000, 1200) == 1  # South's sector: straight below the centre
    assert zones.seat_of(1000, 800) is None  # inside South's inner radius
    assert zones.seat_of(1900, 1400) is None  # outside the sector's radius
    assert zones.front_of_cup(0) is not None and zones.front_of_cup(1) is None


def test_default_reader_params_when_no_reader_table() -> None:
    data = copy.deepcopy(GOOD)
    del data["reader"]
    from vision import ReaderParams

    assert profile_from_dict(data).reader_params == ReaderParams()


def test_sector_geometry() -> None:
    wedge = sector((0, 0), 0, 90, 0, 10)
    assert contains(wedge, 5, 5) and not contains(wedge, -5, 5)
    ring = sector((0, 0), 350, 10, 5, 10)  # wraps through 0 degrees
    assert contains(ring, 7, 0) and not contains(ring, 3, 0) and not contains(ring, 0, 7)
    assert area(ring) == pytest.approx(3.14159 * (100 - 25) * 20 / 360, rel=0.02)


NAN, INF = float("nan"), float("inf")
MARKERS: dict[str, Any] = {
    "ids": [0, 1, 2, 3],
    "mat_points": [[0, 0], [600, 0], [600, 400], [0, 400]],
    "image_points": [[10, 10], [610, 10], [610, 410], [10, 410]],
}


def bad(path: str, value: Any) -> dict[str, Any]:
    """GOOD with one key changed (value ... = delete it)."""
    data = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    node: Any = data
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is ...:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (bad("camera", ...), r"camera: missing; add a \[camera\] table"),
        (bad("camera.spec", 5), "camera.spec: must be a camera spec string"),
        (bad("camera.resolution", [640]), r"camera.resolution: must be \[width, height\]"),
        (bad("table.area", [[0, 0], [1, 1]]), "table.area: must be a polygon of at least 3 points"),
        (bad("table.area", [[0, 0], [1, 1], [2, 2]]), "table.area: polygon has no area"),
        (bad("table.area", [[0, 0], [1, "x"], [2, 0]]), r"table.area\[1\]: must be a point"),
        (bad("seats", []), "seats: missing; add one"),
        (bad("seats.0.zone", ...), r"seats\[0\].zone: missing"),
        (bad("seats.0.colour", "red"), r"seats\[0\].colour: unknown key"),
        (bad("seats.0.zone", [[5000, 10], [5300, 10], [5300, 300]]),
         r"seats\[0\].zone: lies wholly outside the 2028 × 1520 picture \(x 5000 to 5300, "
         r"y 10 to 300\): the camera would never see a die in it"),
        (bad("seats.1.name", "North"), "seat names must differ; repeated: North"),
        (bad("seats.1.name", "  "), r"seats\[1\].name: must be a non-empty string"),
        (bad("name", " "), "name: must be a non-empty string"),
        (bad("seats.1.sector", {"start": 0}), r"seats\[1\].sector.end: must be a number"),
        (bad("table.centre", ...), r"seats\[1\].sector: a sector needs the table centre"),
        (bad("reader.min_confidence", 3.0), "reader: min_confidence must be in 0..1"),
        (bad("reader.bogus", 1), "reader: unknown reader setting"),
        (bad("panel.bid", 99), "panel.bid: must be a BCM pin"),
        (bad("colour", "red"), "colour: unknown key"),
        # a misspelt setting is named, not left at its default without a word
        (bad("camera.resoluton", [640, 480]),
         "camera.resoluton: unknown key; expected spec, resolution or lens_position"),
        (bad("table.radus", 700), "table.radus: unknown key; expected area, centre, center or "),
        (bad("markers", {**MARKERS, "id": [0, 1, 2, 3]}), "markers.id: unknown key; expected "),
        # corners listed out of order: a bow-tie, whose ray casting loses part of the zone
        (bad("seats.0.zone", [[0, 0], [2000, 500], [2000, 0], [0, 500]]),
         r"seats\[0\].zone: the outline crosses itself \(corners 0-1 cross 2-3, counting from 0"),
        (bad("table.area", [[0, 0], [2000, 0], [0, 1500], [2000, 1500]]),
         r"table.area: the outline crosses itself \(corners 1-2 cross 3-0"),
        (bad("markers", {"ids": [1, 2]}), "markers.ids: must list at least 4"),
        # nan passes every "no area" comparison, so non-finite numbers are refused by name
        (bad("table.area", [[0, 0], [NAN, 1], [2, 0]]), r"table.area\[1\]: must be a point of fin"),
        (bad("seats.0.zone", [[0, 0], [INF, 0], [0, 5]]), r"seats\[0\].zone\[1\]: .* finite"),
        (bad("seats.1.sector.inner", NAN), r"seats\[1\].sector.inner: must be a finite number"),
        (bad("table.radius", INF), r"seats\[1\].sector.outer: must be a finite number"),
        (bad("markers", {**MARKERS, "dictionary": "DICT_NOPE"}),
         "markers.dictionary: unknown ArUco dictionary 'DICT_NOPE'; known: .*DICT_4X4_50"),
        (bad("markers", {**MARKERS, "ids": [True, False, 2, 3]}), "markers.ids: must list"),
        (bad("markers", {**MARKERS, "image_points": [[5, 5]] * 4}),
         "markers: points give no homography: .* repeat or lie on a line"),
        (bad("markers", {**MARKERS, "mat_points": [[0, 0], [1, 1], [2, 2], [3, 3]]}),
         "markers: points give no homography"),
    ],
)
def test_bad_profiles_name_the_key_and_the_fault(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ProfileError, match=message):
        profile_from_dict(data)


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="no such calibration profile"):
        load_profile(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    with pytest.raises(ProfileError, match=r"broken.toml: not valid TOML"):
        load_profile(broken)
    bad_seat = tmp_path / "bad.toml"
    bad_seat.write_text(
        '[camera]\nspec = "opencv:0"\nresolution = [640, 480]\n[table]\n'
        "area = [[0, 0], [640, 0], [640, 480]]\n[[seats]]\nzone = [[0, 0]]\n"
    )
    with pytest.raises(ProfileError, match=r"bad.toml: seats\[0\].zone: must be a polygon"):
        load_profile(bad_seat)


def test_a_file_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    save_profile(profile_from_dict(copy.deepcopy(GOOD)), good)
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes(good.read_bytes() + "# Céline's table\n".encode("latin-1"))
    with pytest.raises(ProfileError, match=r"latin1.toml: not UTF-8 text"):
        load_profile(latin1)


def test_markers_with_a_known_dictionary_load() -> None:
    profile = profile_from_dict(bad("markers", {**MARKERS, "dictionary": "DICT_5X5_100"}))
    assert profile.markers is not None and profile.markers.dictionary == "DICT_5X5_100"


def test_a_bad_profile_is_never_saved(tmp_path: Path) -> None:
    profile = profile_from_dict(copy.deepcopy(GOOD))
    broken = Profile(**{**profile.__dict__, "reader": {"min_confidence": 5}})
    target = tmp_path / "never.toml"
    with pytest.raises(ProfileError, match="min_confidence"):
        save_profile(broken, target)
    assert not target.exists()


def test_demo_profile_loads_if_present() -> None:
    demo = Path(__file__).resolve().parents[2] / "calibration" / "demo.toml"
    if not demo.exists():
        pytest.skip("calibration/demo.toml not written yet (the renderer helper owns it)")
    profile = load_profile(demo)
    assert len(profile.zones) >= 2
    assert profile.camera.startswith("files:")


@pytest.mark.parametrize("seats", range(1, 7))
def test_fitted_zones_never_read_as_crossing_themselves(tmp_path: Path, seats: int) -> None:
    """The crossing check must not refuse what the zone fit writes: sectors, and for one seat
    a full circle whose seam runs back along itself, each saved rounded to 0.01 px."""
    rng = np.random.default_rng(seats)
    centre = np.array([640.0, 480.0])
    positions = [
        tuple(centre + 300 * np.array([np.cos(a), np.sin(a)]) + rng.normal(0, 15, 2))
        for k in range(seats) for a in [2 * np.pi * k / seats] * 5
    ]
    fitted = fit_table(positions, seats, frame_size=(1280, 960))
    for zone in fitted.zones:
        assert first_crossing(zone.zone) is None
        assert zone.front is None or first_crossing(zone.front) is None
    profile = Profile(name="fit", camera="opencv:0", resolution=(1280, 960),
                      table_area=fitted.table_area, seat_zones=fitted.zones)
    assert len(load_profile(save_profile(profile, tmp_path / "fit.toml")).zones) == seats


def test_fewer_groups_of_dice_than_seats_are_refused_not_split() -> None:
    """Three players' dice on a mat for four: k-means cut one player's dice in two, and the
    zones' border ran through that player's place."""
    rng = np.random.default_rng(3)
    centre = np.array([640.0, 480.0])
    positions = [  # five dice each at three places, a die (40 px) or two apart
        tuple(centre + 300 * np.array([np.cos(a), np.sin(a)]) + rng.normal(0, 30, 2))
        for a in (0.5, 2.6, 4.7) for _ in range(5)]
    assert len(fit_table(positions, 3, frame_size=(1280, 960)).zones) == 3
    with pytest.raises(FitError, match=r"one player's dice split in two.*or fit fewer seats"):
        fit_table(positions, 4, frame_size=(1280, 960))


def test_a_crossing_is_found_only_where_edges_really_cross() -> None:
    square = ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0))
    assert first_crossing(square) is None
    assert first_crossing(((0.0, 0.0), (10.0, 10.0), (10.0, 0.0), (0.0, 10.0))) == (0, 2)
    # a corner touching another edge is not a crossing, nor a slip under the tolerance
    assert first_crossing(((0.0, 0.0), (10.0, 0.0), (5.0, 0.0), (5.0, 10.0))) is None
    assert first_crossing(((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (4.0, -0.2), (0.0, 10.0))) \
        is None


def test_a_linked_profile_is_rewritten_where_it_lives(tmp_path: Path) -> None:
    """The new file was renamed over the link: the link became a file of its own, and the
    file it pointed at kept the old zones."""
    real = tmp_path / "real" / "table.toml"
    profile = profile_from_dict(copy.deepcopy(GOOD))
    save_profile(profile, real)
    real.chmod(0o644)
    link = tmp_path / "profile.toml"
    link.symlink_to(real)
    save_profile(dataclasses.replace(profile, reader={"min_confidence": 0.8}), link)
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert load_profile(real).reader_params.min_confidence == 0.8
    assert real.stat().st_mode & 0o777 == 0o644


def test_a_killed_writes_half_file_is_swept_once_surely_stale(tmp_path: Path) -> None:
    """A SIGKILL mid-write left `.table.toml.XXXX` beside the profile, one per kill."""
    import os
    import time

    from calibration.files import LEFTOVER_AGE_S

    path = tmp_path / "table.toml"
    profile = profile_from_dict(copy.deepcopy(GOOD))
    save_profile(profile, path)
    stale, fresh = tmp_path / ".table.toml.killed", tmp_path / ".table.toml.writing"
    for leftover in (stale, fresh):
        leftover.write_text("[seats")
    old = time.time() - LEFTOVER_AGE_S - 5
    os.utime(stale, (old, old))
    save_profile(dataclasses.replace(profile, reader={"min_confidence": 0.8}), path)
    assert not stale.exists() and fresh.exists()  # one being written now is no one's to take
    assert load_profile(path).reader_params.min_confidence == 0.8
