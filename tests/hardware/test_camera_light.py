"""The table holds a camera's exposure and white balance for exactly one reading's frames."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from bluffcam.camera_light import hold_light


class LockingCamera:
    def __init__(self, frames: int = 3) -> None:
        self.events: list[str] = []
        self.left = frames

    def frames(self) -> Iterator[Any]:
        while self.left:
            self.left -= 1
            self.events.append("frame")
            yield np.zeros((2, 2, 3), np.uint8)

    def lock_exposure(self) -> None:
        self.events.append("lock")

    def unlock_exposure(self) -> None:
        self.events.append("unlock")


def test_hold_light_calls_the_camera_where_it_can_and_nothing_elsewhere() -> None:
    camera = LockingCamera()
    hold_light(camera, True)
    hold_light(camera, False)
    assert camera.events == ["lock", "unlock"]
    hold_light(object(), True)  # a camera without the methods: nothing to do, no error

    class Failing:
        def lock_exposure(self) -> None:
            raise RuntimeError("camera gone")

    hold_light(Failing(), True)  # the next read says what is wrong, not this


def test_a_tables_reading_locks_before_its_first_frame_and_unlocks_after_its_last() -> None:
    import threading

    from bluffcam.table.camera_port import CameraPort
    from bluffcam.table.news import News

    camera = LockingCamera(frames=3)
    # the table's camera part alone: no journal, no game
    port = CameraPort(camera, threading.RLock(), News(lambda: "{}"))
    assert len(list(port.frames())) == 3
    assert camera.events == ["lock", "frame", "frame", "frame", "unlock"]
    # a reading that stops early (the table closed, a reader done) still unlocks
    camera = LockingCamera(frames=5)
    port.camera = camera
    frames = port.frames()
    next(frames)
    frames.close()
    assert camera.events == ["lock", "frame", "unlock"]
