"""Camera sources: spec parsing, recorded files, the picamera2 adapter, resilience."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from hardware.cameras import (
    CameraError,
    CameraSource,
    EndOfFrames,
    FileCamera,
    ResilientCamera,
    open_camera,
    parse_resolution,
)


def _write_frame(path: Path, value: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = np.full((8, 12, 3), value, dtype=np.uint8)
    assert cv2.imwrite(str(path), image)


def _value(frame: np.ndarray) -> int:
    return int(frame[0, 0, 0])


@pytest.fixture()
def recorded(tmp_path: Path) -> Path:
    """Frames whose pixel value tells their place: sub-folders sort among files by name."""
    _write_frame(tmp_path / "b_002.png", 30)
    _write_frame(tmp_path / "a_001.png", 10)
    _write_frame(tmp_path / "c_sub" / "001.png", 40)
    _write_frame(tmp_path / "c_sub" / "000.jpg", 35)
    _write_frame(tmp_path / "b_001" / "x.png", 20)
    (tmp_path / "notes.txt").write_text("not a frame")
    return tmp_path


def test_files_play_in_name_order_recursing_into_subfolders(recorded: Path) -> None:
    with open_camera(f"files:{recorded}") as cam:
        values = [_value(f) for f in cam.frames()]
    # jpeg is lossy: allow a little
    assert [round(v / 5) * 5 for v in values] == [10, 20, 30, 35, 40]


def test_linked_sub_folders_are_not_entered(recorded: Path) -> None:
    """Two links to their own folder made the walk list about 2**40 folders (serve never
    started); one made every frame play 41 times."""
    (recorded / "x").symlink_to(".")
    (recorded / "y").symlink_to(recorded)
    (recorded / "z").symlink_to("/usr")
    with open_camera(f"files:{recorded}") as cam:
        assert len(cam.paths) == 5


def test_a_folder_with_too_many_entries_is_refused_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hardware.cameras as cameras

    monkeypatch.setattr(cameras, "MAX_LISTED", 3)
    for k in range(4):
        _write_frame(tmp_path / "deep" / f"{k}.png", k)
    with pytest.raises(CameraError, match=r"more than 3 entries under it; point files: at"):
        open_camera(f"files:{tmp_path}")


def test_frames_deleted_while_playing_are_named_as_gone(recorded: Path) -> None:
    cam = open_camera(f"files:{recorded}")
    cam.read()
    (recorded / "b_001" / "x.png").unlink()
    with pytest.raises(CameraError, match=r"b_001/x.png is gone \(moved or deleted while "):
        cam.read()
    assert cam.skipped == []  # not counted as a damaged frame


def test_held_files_keep_showing_the_last_frame_and_are_never_called_frozen(
        recorded: Path) -> None:
    camera = ResilientCamera(f"files:{recorded}",
                             opener=lambda spec: open_camera(spec, hold_last=True))
    values = [_value(camera.read()) for _ in range(12)]
    assert [round(v / 5) * 5 for v in values] == [10, 20, 30, 35] + [40] * 8
    assert camera.status == "ok"  # a still scene is not a stuck driver


def test_files_end_raises_end_of_frames_and_loop_starts_again(recorded: Path) -> None:
    cam = open_camera(f"files:{recorded}")
    for _ in range(5):
        cam.read()
    with pytest.raises(EndOfFrames, match="all 5 recorded frames played"):
        cam.read()
    looping = open_camera(f"files:{recorded}", loop=True)
    values = [_value(looping.read()) for _ in range(7)]
    assert values[5] == values[0] and values[6] == values[1]


def test_a_damaged_or_hidden_file_is_skipped_not_the_end_of_the_recording(
        recorded: Path) -> None:
    (recorded / "b_003.png").write_bytes(b"\x89PNG cut short")  # between 30 and 35
    (recorded / "._a_001.png").write_bytes(b"Mac metadata")  # hidden: not a frame at all
    cam = FileCamera(recorded)
    assert "._a_001.png" not in [p.name for p in cam.paths]
    values = [_value(f) for f in cam.frames()]
    assert [round(v / 5) * 5 for v in values] == [10, 20, 30, 35, 40]
    assert [p.name for p in cam.skipped] == ["b_003.png"]
    # through the resilient wrapper, every good frame still comes, in order
    resilient = ResilientCamera(f"files:{recorded}")
    seen = [resilient.read() for _ in range(5)]
    assert [round(_value(f) / 5) * 5 for f in seen if f is not None] == [10, 20, 30, 35, 40]


def test_a_folder_where_no_file_decodes_is_an_error(tmp_path: Path) -> None:
    for name in ("a.png", "b.jpg"):
        (tmp_path / name).write_bytes(b"not an image")
    for loop in (False, True):
        with pytest.raises(CameraError, match=r"could not decode .*a\.png nor 1 other file"):
            FileCamera(tmp_path, loop=loop).read()


def test_frames_are_bgr_uint8(recorded: Path) -> None:
    frame = FileCamera(recorded).read()
    assert frame.dtype == np.uint8 and frame.shape == (8, 12, 3)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("webcam:0", "unknown camera spec 'webcam:0'"),
        ("opencv:", "opencv needs an index or URL"),
        ("files:", "files needs a folder"),
        ("files:/no/such/folder", "is not a folder"),
        ("picamera2:big", "bad resolution 'big'"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(CameraError, match=message):
        open_camera(spec)


def test_empty_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no image files"):
        open_camera(f"files:{tmp_path}")


def test_parse_resolution() -> None:
    assert parse_resolution("2028x1520") == (2028, 1520)
    assert parse_resolution("640×480") == (640, 480)
    with pytest.raises(CameraError, match="positive"):
        parse_resolution("0x480")


def test_opencv_missing_device_is_a_clear_error() -> None:
    with pytest.raises(CameraError, match="could not open the camera"):
        open_camera("opencv:97")


def test_picamera2_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as off a Pi
    with pytest.raises(CameraError) as info:
        open_camera("picamera2")
    assert "sudo apt install python3-picamera2" in str(info.value)
    assert "--system-site-packages" in str(info.value)


class StandInPicamera2:
    """A stand-in mirroring the picamera2 calls the adapter makes.

    picamera2 itself only runs on a Raspberry Pi, so this records the calls and returns a
    4-channel XBGR-style frame (as some picamera2 formats do) to check the adapter's handling.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.fail_capture = False

    def create_video_configuration(self, main: dict[str, Any],
                                   buffer_count: int) -> dict[str, Any]:
        self.calls.append(("create_video_configuration", main))
        self.buffer_count = buffer_count
        return {"main": main}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append(("configure", config))

    def start(self) -> None:
        self.calls.append(("start", None))

    def capture_array(self) -> np.ndarray:
        self.calls.append(("capture_array", None))
        if self.fail_capture:
            raise RuntimeError("camera frontend timeout")
        size = self.calls[0][1].get("size", (16, 8))
        frame = np.zeros((size[1], size[0], 4), dtype=np.uint8)
        frame[..., 0] = 200  # blue, in RGB888 = OpenCV's BGR byte order
        return frame

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def close(self) -> None:
        self.calls.append(("close", None))


def _stand_in_module(camera: StandInPicamera2) -> types.ModuleType:
    module = types.ModuleType("picamera2")
    module.Picamera2 = lambda: camera  # type: ignore[attr-defined]
    return module


def test_picamera2_adapter_against_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    camera = StandInPicamera2()
    monkeypatch.setitem(sys.modules, "picamera2", _stand_in_module(camera))
    slept: list[float] = []
    monkeypatch.setattr("hardware.cameras.time.sleep", slept.append)
    with open_camera("picamera2:64x48") as cam:
        frame = cam.read()
    assert frame.shape == (48, 64, 3) and frame.dtype == np.uint8
    assert frame[0, 0, 0] == 200  # no channel swap: RGB888 is already BGR in memory
    assert camera.calls[0] == ("create_video_configuration", {"format": "RGB888", "size": (64, 48)})
    assert camera.buffer_count > 1  # frames read one after another do not wait on one buffer
    names = [name for name, _ in camera.calls]
    assert names == [  # no AfMode among its controls: a fixed-focus camera, never focused
        "create_video_configuration",
        "configure",
        "start",
        "capture_array",
        "stop",
        "close",
    ]
    assert slept == [2.0]  # exposure settles after start, before the first frame


def test_picamera2_capture_failure_is_a_camera_error(monkeypatch: pytest.MonkeyPatch) -> None:
    camera = StandInPicamera2()
    monkeypatch.setattr("hardware.cameras.time.sleep", lambda s: None)
    cam = open_camera("picamera2", picamera2_module=_stand_in_module(camera))
    camera.fail_capture = True
    with pytest.raises(CameraError, match="capture failed: camera frontend timeout"):
        cam.read()
    cam.close()
    cam.close()  # twice is fine
    assert [n for n, _ in camera.calls].count("close") == 1


class FlakySource(CameraSource):
    def __init__(self, script: list[str]) -> None:
        self.spec = "flaky"
        self.script = script

    def read(self) -> np.ndarray:
        step = self.script.pop(0) if self.script else "ok"
        if step == "fail":
            raise CameraError("flaky: USB disconnected")
        return np.zeros((2, 2, 3), dtype=np.uint8)

    def close(self) -> None:
        pass


def test_resilient_camera_reports_retries_with_backoff_and_recovers() -> None:
    now = [0.0]
    opens: list[float] = []
    sources = [FlakySource(["ok", "fail"]), FlakySource([])]

    def opener(spec: str) -> CameraSource:
        opens.append(now[0])
        if len(opens) in (2, 3):
            raise CameraError("opencv:0: could not open the camera")
        return sources.pop(0)

    cam = ResilientCamera("opencv:0", opener=opener, first_retry_s=1.0, clock=lambda: now[0])
    assert cam.read() is not None and cam.status == "ok"
    assert cam.read() is None  # disconnect: reported, not raised
    assert cam.status.startswith("camera offline: flaky: USB disconnected")
    assert cam.read() is None and len(opens) == 1  # waits before retrying
    now[0] = 1.0
    assert cam.read() is None and "could not open" in cam.status  # retry 1 fails
    now[0] = 2.5
    assert cam.read() is None and len(opens) == 2  # backoff doubled to 2 s
    now[0] = 3.0
    assert cam.read() is None and len(opens) == 3  # retry 2 fails; next wait 4 s
    now[0] = 6.9
    assert cam.read() is None and len(opens) == 3
    now[0] = 7.0
    assert cam.read() is not None and cam.status == "ok" and len(opens) == 4


def test_resilient_camera_survives_a_missing_file_source(tmp_path: Path) -> None:
    cam = ResilientCamera(f"files:{tmp_path / 'gone'}")
    assert cam.read() is None
    assert "camera offline" in cam.status and "is not a folder" in cam.status
    assert list(cam.frames()) == []


def test_frames_and_pictures_on_a_path_that_is_not_utf8_are_read_and_written(
        tmp_path: Path) -> None:
    """OpenCV's own imread and imwrite crashed the whole process (no message, exit 139) on
    a file name that is not valid UTF-8, as a camera card or an old USB stick may give."""
    import os

    from vision.io import load_image, write_image

    folder = tmp_path / os.fsdecode(b"frames-\xff")
    folder.mkdir()
    frame = np.full((24, 32, 3), 70, np.uint8)
    assert write_image(folder / os.fsdecode(b"f\xfe.png"), frame)
    assert load_image(folder / os.fsdecode(b"f\xfe.png"))[0, 0, 0] == 70
    with open_camera(f"files:{folder}") as cam:
        assert _value(next(iter(cam.frames()))) == 70
    assert not write_image(tmp_path / "no-folder" / "x.png", frame)  # False, not a raise
