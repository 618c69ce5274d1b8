"""The calls the picamera2 adapter makes to focus, settle and lock, checked with a stand-in
Picamera2 (the real one runs only on a Pi: what the lens then does is not tested here)."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pytest

from hardware.cameras import VIDEO_BUFFERS, CameraError, Picamera2Camera, ResilientCamera


class FakePicamera2:
    """Records every call; ``autofocus`` says whether the camera has a focusable lens."""

    def __init__(self, *, autofocus: bool = True, lens_after_cycle: float = 1.4) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.camera_controls = {"ExposureTime": (1, 66666, None), "AeEnable": (False, True, True)}
        if autofocus:
            self.camera_controls["AfMode"] = (0, 2, 0)
            self.camera_controls["LensPosition"] = (0.0, 15.0, 1.0)
        self.lens = 1.0
        self.lens_after_cycle = lens_after_cycle
        self.fail_focus = False

    def create_video_configuration(self, main: dict[str, Any], buffer_count: int) -> Any:
        self.calls.append(("create_video_configuration", buffer_count))
        return {"main": main}

    def configure(self, config: Any) -> None:
        self.calls.append(("configure", None))

    def start(self) -> None:
        self.calls.append(("start", None))

    def autofocus_cycle(self) -> bool:
        self.calls.append(("autofocus_cycle", None))
        if self.fail_focus:
            raise RuntimeError("focus failed")
        self.lens = self.lens_after_cycle
        return True

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("set_controls", dict(controls)))

    def capture_metadata(self) -> dict[str, Any]:
        self.calls.append(("capture_metadata", None))
        return {"LensPosition": self.lens, "ExposureTime": 12000, "AnalogueGain": 2.5,
                "ColourGains": (1.8, 1.6)}

    def capture_array(self) -> Any:
        self.calls.append(("capture_array", None))
        return np.zeros((4, 4, 3), dtype=np.uint8)

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def close(self) -> None:
        self.calls.append(("close", None))


def _module(camera: FakePicamera2) -> types.ModuleType:
    module = types.ModuleType("picamera2")
    module.Picamera2 = lambda: camera  # type: ignore[attr-defined]
    return module


def _names(camera: FakePicamera2) -> list[str]:
    return [name for name, _ in camera.calls]


def _open(camera: FakePicamera2, **kwargs: Any) -> Picamera2Camera:
    return Picamera2Camera(module=_module(camera), sleep=lambda s: camera.calls.append(
        ("sleep", s)), **kwargs)


def test_without_a_lens_position_it_focuses_once_after_settling() -> None:
    camera = FakePicamera2(lens_after_cycle=1.4)
    cam = _open(camera)
    assert _names(camera) == ["create_video_configuration", "configure", "start", "sleep",
                              "autofocus_cycle", "capture_metadata"]
    assert camera.calls[0][1] == VIDEO_BUFFERS > 1
    assert cam.lens_position == 1.4  # what calibrate stores
    for _ in range(5):
        cam.read()
    assert _names(camera).count("autofocus_cycle") == 1  # never again: no hunting
    assert not any(name == "set_controls" and c.get("AfMode") == 2 for name, c in camera.calls)


def test_a_profiles_lens_position_is_set_by_hand_without_a_cycle() -> None:
    camera = FakePicamera2()
    cam = _open(camera, lens_position=1.6)
    assert "autofocus_cycle" not in _names(camera)
    assert ("set_controls", {"AfMode": 0, "LensPosition": 1.6}) in camera.calls
    assert cam.lens_position == 1.6


def test_libcamera_enums_are_used_where_there_are_any() -> None:
    camera = FakePicamera2()
    manual = object()
    controls = types.SimpleNamespace(AfModeEnum=types.SimpleNamespace(Manual=manual))
    Picamera2Camera(module=_module(camera), controls=controls, lens_position=2.0,
                    sleep=lambda s: None)
    assert ("set_controls", {"AfMode": manual, "LensPosition": 2.0}) in camera.calls


def test_a_fixed_focus_camera_is_not_focused() -> None:
    camera = FakePicamera2(autofocus=False)
    cam = _open(camera, lens_position=1.6)
    assert "autofocus_cycle" not in _names(camera) and "set_controls" not in _names(camera)
    assert cam.lens_position is None


def test_a_failed_focus_closes_the_camera_and_says_so() -> None:
    camera = FakePicamera2()
    camera.fail_focus = True
    with pytest.raises(CameraError, match="could not start the camera: focus failed"):
        _open(camera)
    assert _names(camera)[-1] == "close"


def test_exposure_and_white_balance_lock_at_their_settled_values_and_unlock() -> None:
    camera = FakePicamera2()
    cam = _open(camera)
    cam.lock_exposure()
    assert camera.calls[-1] == ("set_controls", {
        "AeEnable": False, "AwbEnable": False, "ExposureTime": 12000, "AnalogueGain": 2.5,
        "ColourGains": (1.8, 1.6)})
    cam.unlock_exposure()
    assert camera.calls[-1] == ("set_controls", {"AeEnable": True, "AwbEnable": True})


def test_the_resilient_camera_passes_the_lock_on() -> None:
    camera = FakePicamera2()
    resilient = ResilientCamera("picamera2", opener=lambda spec: _open(camera))
    resilient.lock_exposure()  # not opened yet: nothing to lock, no error
    assert resilient.read() is not None
    resilient.lock_exposure()
    assert camera.calls[-1][1]["AeEnable"] is False
    resilient.unlock_exposure()
    assert camera.calls[-1][1]["AeEnable"] is True
