"""A Camera Module 3's lens position in the profile's [camera] table: calibrate stores where
the autofocus cycle put the lens, serve sets it again, a bad value is refused by name."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest

from calibration import ProfileError, load_profile, profile_from_dict, save_profile
from tests.calibration.test_markers_and_calibrate import (
    STRAIGHT,
    args_for,
    calibrate,
    camera_view,
    mat_canvas,
    write_frame,
)
from tests.calibration.test_profile import GOOD


def _with_lens(value: Any) -> dict[str, Any]:
    data = copy.deepcopy(GOOD)
    data["camera"]["lens_position"] = value
    return data


def test_the_lens_position_round_trips(tmp_path: Path) -> None:
    profile = profile_from_dict(_with_lens(1.4))
    assert profile.lens_position == 1.4
    again = load_profile(save_profile(profile, tmp_path / "kitchen.toml"))
    assert again.lens_position == 1.4
    assert profile_from_dict(copy.deepcopy(GOOD)).lens_position is None
    assert "lens_position" not in profile_from_dict(copy.deepcopy(GOOD)).to_toml_dict()["camera"]


@pytest.mark.parametrize("value", [-0.5, 40, "near", True, math.nan])
def test_a_lens_position_that_is_no_dioptres_is_refused_by_name(value: Any) -> None:
    with pytest.raises(ProfileError, match=r"camera\.lens_position: must be dioptres"):
        profile_from_dict(_with_lens(value))


def test_calibrate_stores_where_the_camera_focused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    frame, _ = camera_view(mat_canvas(with_markers=False), STRAIGHT)
    args = args_for(tmp_path, write_frame(tmp_path / "frames", frame))
    real_open = calibrate.open_camera

    def focused_camera(spec: str, **kwargs: Any) -> Any:
        camera = real_open(spec, **kwargs)
        camera.lens_position = 1.6  # as Picamera2Camera reports after its autofocus cycle
        return camera

    monkeypatch.setattr(calibrate, "open_camera", focused_camera)
    assert calibrate.run(args) == 0
    assert load_profile(tmp_path / "t.toml").lens_position == 1.6
    assert "the lens focused at 1.60 dioptres (about 62 cm)" in capsys.readouterr().out


def test_serve_opens_the_camera_at_the_profiles_lens_position(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import hardware.cameras as cameras
    from bluffcam.commands.serve import open_camera_for

    opened: list[dict[str, Any]] = []

    class Focused(cameras.FileCamera):
        def __init__(self, **kwargs: Any) -> None:
            opened.append(kwargs)
            self.spec = "picamera2"

        def read(self) -> Any:
            import numpy as np

            return np.zeros((4, 4, 3), np.uint8)

    monkeypatch.setattr(cameras, "Picamera2Camera", Focused)
    profile = profile_from_dict(_with_lens(2.0))
    camera, _ = open_camera_for("picamera2", profile.resolution,
                                lens_position=profile.lens_position)
    assert opened and opened[0]["lens_position"] == 2.0
    camera.close()
