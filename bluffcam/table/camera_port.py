"""The table's camera: the frames one reading takes, the thread readings run on, its status.

A reading takes a second or two and runs outside the table's lock, on one long-lived thread
(`reading_thread`); meanwhile the state says the camera is reading, since a press that shows
nothing for that long looks lost. A camera or reader that fails is a refusal said on the
board, never a crash: the reveal is still due and can be entered by hand.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from bluffcam.camera_light import hold_light
from bluffcam.camera_news import without_commands_said
from bluffcam.table.errors import TableError
from bluffcam.table.news import News
from bluffcam.table.reading_thread import ReadingThread, T
from engine.words import Said, said

#: how many frames one reveal may read from the camera (the still-scene wait votes over them)
REVEAL_MAX_FRAMES = 120


class Camera(Protocol):
    """What the table needs from a camera: `hardware.cameras.ResilientCamera` fits."""

    spec: str

    def frames(self) -> Iterator[Any]: ...


#: what `CameraPort.frames` gets from a camera that has no more frames
_NO_FRAME = object()


class CameraPort:
    """The camera (swappable: the demo points it at each recorded reveal) and its readings."""

    def __init__(self, camera: Camera | None, lock: threading.RLock, news: News) -> None:
        self.camera = camera
        self._lock = lock
        self._news = news
        #: every camera reading runs on this one long-lived thread
        self._reading = ReadingThread()
        #: set by `close`: a reading under way then runs out of frames at once
        self._closed = threading.Event()
        #: readings under way or waiting for the reading thread (the boards say so)
        self.readings = 0

    def status(self) -> str:
        if self.camera is None:
            return "none"
        return str(getattr(self.camera, "status", "ok"))

    def to_json(self) -> dict[str, Any]:
        """The state's ``camera``: which, how it is, and whether it is reading now."""
        return {"spec": getattr(self.camera, "spec", None), "status": self.status(),
                "reading": self.readings > 0}

    def snapshot(self) -> Any:
        """One frame for the calibration page, or None when the camera is offline/absent."""
        if self.camera is None:
            return None
        read = getattr(self.camera, "read", None)
        try:
            return read() if read is not None else next(iter(self.camera.frames()), None)
        except Exception:
            return None

    def frames(self) -> Iterator[Any]:
        """The camera's frames for one reading: at most `REVEAL_MAX_FRAMES`, and none once
        the table is closed (a reading under way then ends, rather than the camera being
        read, or opened again, after it was closed)."""
        assert self.camera is not None
        frames = iter(self.camera.frames())
        # exposure and white balance held for the reading's frames: the hands leaving the
        # table must not swing them between the frames that vote (a Pi camera; others no-op)
        hold_light(self.camera, True)
        try:
            for _ in range(REVEAL_MAX_FRAMES):
                if self._closed.is_set():  # asked before the camera is: a closed one reopens
                    return
                frame = next(frames, _NO_FRAME)
                if frame is _NO_FRAME:
                    return
                yield frame
        finally:
            hold_light(self.camera, False)

    def on_reading_thread(self, read: Callable[..., T], *args: Any) -> T:
        """``read(*args)`` on the camera-reading thread, waited for (its exception raised
        here), the state saying meanwhile that the camera is reading."""
        with self._lock:  # counted: two may overlap (a re-roll's set-aside read and a capture)
            self.readings += 1
            self._news.changed()
        try:
            return self._reading.run(read, *args)
        finally:
            with self._lock:
                self.readings -= 1
                self._news.changed()

    def raised(self, exc: Exception) -> TableError:
        """`failed` for a camera or reader that raised (dice or cards)."""
        error = str(exc) or type(exc).__name__  # an exception may carry no words
        return self.failed(said("the camera's reading failed ({error})", error=error))

    def failed(self, what: Said) -> TableError:
        """A capture that gave no reading: said on the board, and the refusal to raise for
        whoever asked (a phone, the OK button), so none of them reports a reveal taken. The
        game is as it was: the reveal is still due."""
        message = said("{what} — capture again, or enter the reveal by hand", what=what)
        with self._lock:
            self._news.post(without_commands_said(message), "warning")
            self._news.changed()
        return TableError(str(message), rule="camera", said=message)

    def close(self) -> None:
        self._closed.set()
