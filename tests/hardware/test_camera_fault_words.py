"""A camera's faults carry their words (a message id with parameters, hardware/camera_words.py)
beside their English, and `ResilientCamera` its status as words and its fault as data (the
words, the retry's seconds): what a board in another language says is never read back
from hardware's English. OpenCV is stood in for: no device is opened."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from camera_fakes import GivesNothing, NoCamera, SameFrame

import hardware.cameras as cameras
from hardware.camera_words import CLOSED, NOT_OPENED, CameraFault, Words, said
from hardware.cameras import FROZEN_AFTER_FRAMES, CameraError, CameraSource, ResilientCamera

WEBCAM_GONE = ("{camera}: could not open the camera; is the webcam plugged in, and is the index "
               "right?")
STREAM_GONE = ("{camera}: could not open the camera; is the stream URL right and reachable "
               "from here?")
NO_FRAME = "{camera}: no frame (camera disconnected or stream ended)"
FROZEN = ("{camera}: frozen: the last {n} frames were identical (a stuck driver or stream, or a "
          "lens covered in the dark)")
RETRYING = "camera offline: {fault} (retrying in {seconds} s)"


def raised(monkeypatch: pytest.MonkeyPatch, capture: type, spec: str, *,
           holders: tuple[str, ...] = ()) -> CameraError:
    """The `CameraError` hardware's own code raises for ``spec`` over a stood-in OpenCV."""
    monkeypatch.setattr("hardware.cameras.cv2.VideoCapture", capture)
    monkeypatch.setattr(cameras, "device_holders", lambda device: list(holders))
    with pytest.raises(CameraError) as failed:
        cameras.open_camera(spec).read()
    return failed.value


def test_each_fault_a_board_names_carries_its_words(monkeypatch: pytest.MonkeyPatch) -> None:
    webcam = raised(monkeypatch, NoCamera, "opencv:2")
    assert webcam.words == said(WEBCAM_GONE, camera="opencv:2")
    # the command is for whoever runs the table: in the English, not in the words
    assert str(webcam) == f"{webcam.words} (`ls /dev/video*`)"
    for capture, spec, msgid in [(NoCamera, "opencv:rtsp://phone.local/cam", STREAM_GONE),
                                 (GivesNothing, "opencv:3", NO_FRAME)]:
        error = raised(monkeypatch, capture, spec)
        assert error.words == said(msgid, camera=spec)
        assert str(error) == str(error.words)


def test_a_webcam_another_program_holds_is_said_in_its_english(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Only whoever runs the table can free it: its message names the program, no words."""
    for capture in (NoCamera, GivesNothing):
        held = raised(monkeypatch, capture, "opencv:0", holders=("bluffcam (pid 4242)",))
        assert held.words is None and "held by bluffcam (pid 4242)" in str(held)


class Moving(SameFrame):
    """A live camera: each frame differs."""

    def __init__(self) -> None:
        self.n = 0

    def read(self) -> Any:
        self.n += 1
        return np.full((8, 8, 3), self.n, np.uint8)


def test_the_status_is_its_words_english_and_the_fault_is_data() -> None:
    now = [0.0]
    sources: list[CameraSource] = [SameFrame(), Moving()]
    camera = ResilientCamera("opencv:0", opener=lambda spec: sources.pop(0),
                             clock=lambda: now[0])
    assert camera.status_words == NOT_OPENED and camera.fault is None
    assert camera.status == "camera offline: not opened yet"
    for _ in range(FROZEN_AFTER_FRAMES):
        camera.read()
    frozen = said(FROZEN, camera="opencv:0", n=FROZEN_AFTER_FRAMES)
    assert camera.fault == CameraFault(str(frozen), frozen, 1.0)
    assert camera.status_words == said(RETRYING, fault=frozen, seconds="1")
    assert camera.status == f"camera offline: {frozen} (retrying in 1 s)"
    now[0] = 1.0
    assert camera.read() is not None
    assert camera.status == "ok" and camera.status_words is None and camera.fault is None
    camera.close()
    assert camera.status_words == CLOSED and camera.status == "camera offline: closed"


def test_the_retry_seconds_are_data_and_grow_with_each_try() -> None:
    now = [0.0]

    def gone(spec: str) -> CameraSource:
        raise CameraError.saying(said(NO_FRAME, camera=spec))

    camera = ResilientCamera("opencv:1", opener=gone, first_retry_s=0.5, clock=lambda: now[0])
    seen = []
    for at in (0.0, 0.5, 1.5, 3.5):  # each time the next try is due
        now[0] = at
        camera.read()
        fault = camera.fault
        assert fault is not None and fault.words == said(NO_FRAME, camera="opencv:1")
        seen.append(fault.retry_s)
        assert str(camera.status_words) == camera.status  # the English is the words'
    assert seen == [0.5, 1.0, 2.0, 4.0]
    assert camera.status.endswith("(retrying in 4 s)")
    assert camera.status_words == said(RETRYING, fault=said(NO_FRAME, camera="opencv:1"),
                                       seconds="4")


@pytest.mark.parametrize("error", [
    CameraError("opencv:0: no frame (camera disconnected or stream ended)"),  # no words given
    OSError("opencv:0: no frame (camera disconnected or stream ended)"),  # not a CameraError
])
def test_a_fault_without_words_is_said_in_its_english_whatever_it_says(
        error: Exception) -> None:
    def failing(spec: str) -> CameraSource:
        raise error

    camera = ResilientCamera("opencv:0", opener=failing)
    camera.read()
    assert camera.fault == CameraFault(str(error), None, 1.0)
    assert camera.status_words == said(RETRYING, fault=str(error), seconds="1")


def test_words_that_do_not_say_all_of_the_english_leave_the_status_in_english() -> None:
    """A webcam's command, or English reworded: the whole status (the calibration page's)
    says the English; the fault's words stay in ``fault`` for the board."""
    words = said(WEBCAM_GONE, camera="opencv:0")

    def failing(spec: str) -> CameraSource:
        raise CameraError(f"{words} (`ls /dev/video*`)", words)

    camera = ResilientCamera("opencv:0", opener=failing)
    camera.read()
    assert camera.fault is not None and camera.fault.words == words
    status = camera.status_words
    assert isinstance(status, Words) and status.params["fault"] == f"{words} (`ls /dev/video*`)"
    assert str(status) == camera.status
