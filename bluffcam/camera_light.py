"""Exposure and white balance held still while a reading's frames are taken.

The frames that vote on a reveal should differ only where the dice do: a Pi camera left on
auto follows the hands leaving the table and brightens or tints frame after frame. Cameras
that can hold them (`hardware.cameras.Picamera2Camera`, through `ResilientCamera`) have
``lock_exposure``/``unlock_exposure``; for any other camera this does nothing.
"""

from __future__ import annotations

import contextlib
from typing import Any


def hold_light(camera: Any, hold: bool) -> None:
    """Lock (``hold``) or release the camera's exposure and white balance, where it can;
    a camera that fails at it is read as it is, and its next read says what is wrong."""
    method = getattr(camera, "lock_exposure" if hold else "unlock_exposure", None)
    if callable(method):
        with contextlib.suppress(Exception):
            method()
