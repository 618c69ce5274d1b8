"""One long-lived thread for the table's camera readings.

OpenCV and the reader's networks set themselves up once per thread (some 25 ms: a font's
sizes, the networks' first runs), and each web request comes on a thread of its own, so a
reveal read on the request's thread paid it every time. The thread is a daemon, as the
request threads are: stopping the server (Ctrl+C, systemd) never waits for a reading.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class ReadingThread:
    """Runs one call at a time on its own daemon thread, started at the first call."""

    def __init__(self, name: str = "camera-reading") -> None:
        self.name = name
        self._calls: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]]
        self._calls = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    def run(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` on the thread, waited for; its exception is raised here."""
        done: Future[T] = Future()
        with self._start:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                self._thread.start()
        self._calls.put((done, call, args))
        return done.result()

    def _serve(self) -> None:
        while True:
            done, call, args = self._calls.get()
            if not done.set_running_or_notify_cancel():
                continue
            try:
                done.set_result(call(*args))
            except BaseException as exc:  # handed to the caller, who raises it
                done.set_exception(exc)
