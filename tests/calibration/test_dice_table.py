"""A profile's ``[dice]``: loaded, checked, saved, and handed to the reader with the table's box;
an older profile without it loads and reads as before."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from calibration import ProfileError, load_profile, profile_from_dict, save_profile
from calibration.profile import DiceConfig
from vision import ReaderParams

BASE: dict[str, Any] = {
    "name": "den",
    "camera": {"spec": "opencv:0", "resolution": [1280, 960]},
    "table": {"area": [[300, 200], [1000, 200], [1000, 800], [300, 800]]},
    "seats": [
        {"name": "A", "zone": [[280, 180], [640, 180], [640, 820], [280, 820]]},
        {"name": "B", "zone": [[640, 180], [1010, 180], [1010, 820], [640, 820]],
         "front": [[700, 400], [760, 400], [760, 460], [700, 460]]},
    ],
}


def with_dice(**dice: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data["dice"] = dice
    return data


def test_a_profile_without_dice_loads_and_reads_as_without_a_profile() -> None:
    profile = profile_from_dict(copy.deepcopy(BASE))
    assert profile.dice is None
    assert profile.reader_params == ReaderParams()


def test_the_dice_table_reaches_the_reader_with_the_box_around_table_and_zones() -> None:
    profile = profile_from_dict(with_dice(size_px=46, up=0, colours=["#F0F0F0", "#b02020"]))
    assert profile.dice == DiceConfig(46.0, ("#f0f0f0", "#b02020"), 0)
    params = profile.reader_params
    assert params.die_size_px == 46.0 and params.camera_up == 0
    # the seats' zones reach past the table area: the box holds them all
    assert params.table_box == (280.0, 180.0, 1010.0, 820.0)
    assert params.table_resolution == (1280, 960)


def test_the_dice_table_survives_a_save_and_load(tmp_path: Path) -> None:
    profile = profile_from_dict(with_dice(size_px=46.25, up=2))
    again = load_profile(save_profile(profile, tmp_path / "den.toml"))
    assert again.dice == DiceConfig(46.2, (), 2)  # a tenth of a pixel is kept
    assert "[dice]" in (tmp_path / "den.toml").read_text()


@pytest.mark.parametrize(("dice", "named"), [
    ({"size_px": -3}, "dice.size_px"),
    ({"size_px": "big"}, "dice.size_px"),
    ({"size_px": float("nan")}, "dice.size_px"),
    ({"size_px": True}, "dice.size_px"),
    ({}, "dice.size_px"),
    ({"size_px": 40, "up": 4}, "dice.up"),
    ({"size_px": 40, "up": True}, "dice.up"),
    ({"size_px": 40, "colours": ["red"]}, "dice.colours"),
    ({"size_px": 40, "colours": "#ffffff"}, "dice.colours"),
    ({"size_px": 40, "sise": 3}, "dice.sise"),
])
def test_a_bad_dice_table_is_refused_by_name(dice: dict[str, Any], named: str) -> None:
    with pytest.raises(ProfileError, match=named.replace(".", r"\.")):
        profile_from_dict(with_dice(**dice))


def test_a_dice_table_that_is_no_table_is_refused() -> None:
    data = copy.deepcopy(BASE)
    data["dice"] = 40
    with pytest.raises(ProfileError, match="dice: must be a \\[dice\\] table"):
        profile_from_dict(data)


@pytest.mark.parametrize("key", ["die_size_px", "table_box", "camera_up"])
def test_what_the_profile_measures_is_no_reader_setting(key: str) -> None:
    data = copy.deepcopy(BASE)
    data["reader"] = {key: 40}
    with pytest.raises(ProfileError, match=f"{key}: not a \\[reader\\] setting"):
        profile_from_dict(data)


def test_reader_settings_round_trip_without_what_the_profile_measures() -> None:
    params = ReaderParams(die_size_px=40.0, table_box=(0.0, 0.0, 10.0, 10.0), camera_up=1,
                          table_resolution=(20, 20))
    stored = params.to_dict()
    assert not {"die_size_px", "table_box", "camera_up", "table_resolution"} & set(stored)
    assert ReaderParams.from_dict(stored) == ReaderParams()


@pytest.mark.parametrize(("bad", "error"), [
    ({"table_box": (10.0, 0.0, 5.0, 10.0)}, ValueError),
    ({"table_box": (0.0, 0.0, float("inf"), 10.0)}, ValueError),
    ({"table_box": [0, 0, 5, 5]}, TypeError),
    ({"table_resolution": (640, 0)}, ValueError),
    ({"die_size_px": 2.0}, ValueError),
    ({"camera_up": 4}, ValueError),
])
def test_measured_settings_out_of_range_are_refused(bad: dict[str, Any],
                                                    error: type[Exception]) -> None:
    with pytest.raises(error, match=next(iter(bad))):
        ReaderParams(**bad)
