"""The camera's failures read from the messages picamera2, simplejpeg, libcamera and OpenCV
really give (copied from their reports), and the fix each names."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from camera_fakes import GivesNothing

from hardware.camera_errors import (
    device_holders,
    is_camera_busy,
    is_numpy_abi_mismatch,
    opencv_open_problem,
    picamera2_import_problem,
    picamera2_open_problem,
)
from hardware.cameras import CameraError, open_camera

#: what apt's simplejpeg (built for numpy 1.24) raises when imported under numpy 2
SIMPLEJPEG_UNDER_NUMPY2 = ("numpy.dtype size changed, may indicate binary incompatibility. "
                           "Expected 96 from C header, got 88 from PyObject")


def _raised_from(outer: BaseException, inner: BaseException) -> BaseException:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise outer from exc
    except BaseException as exc:
        return exc


def test_simplejpeg_built_for_numpy_1_names_the_pypi_simplejpeg_fix() -> None:
    exc = ValueError(SIMPLEJPEG_UNDER_NUMPY2)
    assert is_numpy_abi_mismatch(exc)
    message = picamera2_import_problem(exc)
    assert "pip install --upgrade simplejpeg" in message and "numpy 2" in message
    assert SIMPLEJPEG_UNDER_NUMPY2 in message  # the original words stay, for a search


def test_numpy_mismatch_is_found_inside_a_wrapping_error() -> None:
    exc = _raised_from(ImportError("cannot import picamera2"), ValueError(SIMPLEJPEG_UNDER_NUMPY2))
    assert "pip install --upgrade simplejpeg" in picamera2_import_problem(exc)


def test_import_failures_that_are_not_numpy_name_their_own_fix() -> None:
    no_libcamera = ModuleNotFoundError("No module named 'libcamera'", name="libcamera")
    assert "python3-libcamera" in picamera2_import_problem(no_libcamera)
    assert not is_numpy_abi_mismatch(no_libcamera)
    no_picamera2 = ModuleNotFoundError("No module named 'picamera2'", name="picamera2")
    message = picamera2_import_problem(no_picamera2)
    assert "sudo apt install python3-picamera2" in message and "simplejpeg" not in message


def test_open_camera_turns_the_numpy_valueerror_into_a_camera_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_import(name: str) -> types.ModuleType:
        raise ValueError(SIMPLEJPEG_UNDER_NUMPY2)

    monkeypatch.setattr("hardware.cameras.importlib.import_module", failing_import)
    with pytest.raises(CameraError, match="pip install --upgrade simplejpeg"):
        open_camera("picamera2")


@pytest.mark.parametrize("message", [
    "Failed to acquire camera: Device or resource busy",  # picamera2 on Bookworm
    "Failed to acquire camera",  # older picamera2
    "camera.acquire() returned unexpected code: -16",
    "Camera in use",
])
def test_a_camera_held_elsewhere_says_stop_the_service(message: str) -> None:
    exc = _raised_from(RuntimeError("Camera __init__ sequence did not complete."),
                       RuntimeError(message))
    assert is_camera_busy(exc)
    text = picamera2_open_problem("picamera2", exc)
    assert "sudo systemctl stop bluffcam" in text and "no camera found" not in text


def test_ebusy_from_the_os_is_busy() -> None:
    assert is_camera_busy(OSError(16, os.strerror(16)))


def test_no_camera_is_not_busy() -> None:
    exc = IndexError("list index out of range")  # picamera2 with no camera attached
    assert not is_camera_busy(exc)
    text = picamera2_open_problem("picamera2", exc)
    assert "no camera found" in text and "systemctl" not in text


def test_picamera2_busy_at_open_reaches_the_player(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("picamera2")

    def held() -> None:
        raise RuntimeError("Failed to acquire camera: Device or resource busy")

    module.Picamera2 = held  # type: ignore[attr-defined]
    with pytest.raises(CameraError, match="sudo systemctl stop bluffcam"):
        open_camera("picamera2", picamera2_module=module)


def test_device_holders_finds_another_process_with_the_file_open(tmp_path: Path) -> None:
    device = tmp_path / "video7"
    device.write_bytes(b"")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; f = open(sys.argv[1]); print(flush=True); "
         "time.sleep(30)", str(device)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None
        holder.stdout.readline()  # the file is open now
        found = device_holders(device)
        assert any(f"(pid {holder.pid})" in entry for entry in found), found
    finally:
        holder.kill()
        holder.wait()
    assert device_holders(device) == []


def test_opencv_open_problem_names_the_holder_or_the_plug() -> None:
    busy = opencv_open_problem("opencv:0", 0, ["python3 (pid 812)"])
    assert "python3 (pid 812)" in busy and "sudo systemctl stop bluffcam" in busy
    missing = opencv_open_problem("opencv:0", 0, [])
    assert "plugged in" in missing and "systemctl" not in missing


def test_calibrate_while_the_service_holds_the_camera_says_stop_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from bluffcam.cli import main

    module = types.ModuleType("picamera2")

    def held() -> None:
        try:
            raise RuntimeError("Failed to acquire camera: Device or resource busy")
        except RuntimeError as exc:
            raise RuntimeError("Camera __init__ sequence did not complete.") from exc

    module.Picamera2 = held  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    out = tmp_path / "t.toml"
    assert main(["calibrate", "--camera", "picamera2:2304x1296", "--seats", "2",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("calibrate: picamera2:2304x1296: the camera is in use")
    assert "sudo systemctl stop bluffcam" in err and "no camera found" not in err
    assert not out.exists()


def test_a_webcam_that_opens_but_gives_nothing_while_held_names_the_holder(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import hardware.cameras as cameras

    monkeypatch.setattr(cameras.cv2, "VideoCapture", GivesNothing)
    held: list[str] = []
    monkeypatch.setattr(cameras, "device_holders", lambda device: list(held))
    camera = open_camera("opencv:3")
    with pytest.raises(CameraError, match="no frame"):
        camera.read()  # nobody else has it: unplugged
    held.append("bluffcam (pid 4242)")
    with pytest.raises(CameraError, match=r"/dev/video3 is held by bluffcam \(pid 4242\)"):
        camera.read()
