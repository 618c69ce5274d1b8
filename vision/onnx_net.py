"""Loading the project's small ONNX networks with OpenCV's dnn module (no other runtime)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

#: OpenCV 5's classic dnn engine runs the project's small networks about twice as fast as the
#: engine it picks by default, with the same outputs (to 1e-5; BENCHMARKS.md, session 9);
#: OpenCV 4 has only that engine and no ``engine`` argument. It does not take every graph: a
#: trial detector with an edge-replicating Pad layer crashed it (session 9), so every shipped
#: network is run on it by tests/vision/test_onnx_net.py
CLASSIC_ENGINE: int | None = getattr(cv2.dnn, "ENGINE_CLASSIC", None)


def read_onnx(path: Path, what: str, script: str) -> Any:
    """The network in ``path``, or a clear error naming the model and the script that makes it."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: the {what} model is missing; run {script} to make it")
    if CLASSIC_ENGINE is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine=CLASSIC_ENGINE)


class LazyNet:
    """One network, read from ``path`` on first use (so importing the reader costs nothing)
    and run behind a lock: a cv2.dnn net is not safe to share mid-forward."""

    def __init__(self, path: Path, what: str, script: str) -> None:
        self.path, self.what, self.script = path, what, script
        self._net: Any = None
        self._lock = threading.Lock()

    def run(self, blob: NDArray[np.float32]) -> NDArray[np.float32]:
        """The network's output for an (n, c, h, w) input blob."""
        with self._lock:
            if self._net is None:
                self._net = read_onnx(self.path, self.what, self.script)
            self._net.setInput(blob)
            return np.asarray(self._net.forward(), dtype=np.float32)


def softmax(logits: NDArray[np.float32], axis: int) -> NDArray[np.float32]:
    """Probabilities from a network's logits along ``axis`` (shifted first: no overflow)."""
    e = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return np.asarray(e / e.sum(axis=axis, keepdims=True), dtype=np.float32)
