"""Stand-ins for a camera's driver, shared by the tests of hardware's camera faults and of
the words a board says for them: OpenCV's capture of a camera that is not there or gives
nothing, and a source that hands out the same frame. No device is opened."""

from __future__ import annotations

from typing import Any

import numpy as np

from hardware.cameras import CameraSource


class NoCamera:
    """OpenCV's capture of a camera that is not there: it never opens."""

    def __init__(self, *args: object) -> None:
        pass

    def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
        return False

    def release(self) -> None:
        pass


class GivesNothing(NoCamera):
    """OpenCV's capture of a camera that opens and then gives no frame (unplugged, ended)."""

    def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
        return True

    def read(self) -> tuple[bool, None]:
        return False, None


class SameFrame(CameraSource):
    """A source that hands out the very same frame: a stuck driver."""

    spec = "opencv:0"

    def read(self) -> Any:
        return np.zeros((8, 8, 3), np.uint8)

    def close(self) -> None:
        pass
