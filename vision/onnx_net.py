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
    and run behind a lock: a cv2.dnn net is not safe to share mid-forward.

    A cv2.dnn net sets itself up again whenever its input changes size, which costs about a
    third of a detector read at 640 px; a frame read at two sizes in turn (the closer look
    of :mod:`vision.dice.detected`) would pay that twice a frame. So each input size (not
    counting the batch) gets its own copy of the net, up to ``MAX_SHAPES`` of them, the
    longest unused dropped first."""

    #: input sizes kept at once (each a copy of the net: the largest is 1.6 MB of weights)
    MAX_SHAPES = 4

    def __init__(self, path: Path, what: str, script: str) -> None:
        self.path, self.what, self.script = path, what, script
        self._nets: dict[tuple[int, ...], Any] = {}
        self._lock = threading.Lock()

    def run(self, blob: NDArray[np.float32]) -> NDArray[np.float32]:
        """The network's output for an (n, c, h, w) input blob."""
        shape = tuple(blob.shape[1:])
        with self._lock:
            net = self._nets.pop(shape, None)
            if net is None:
                net = read_onnx(self.path, self.what, self.script)
                while len(self._nets) >= self.MAX_SHAPES:
                    del self._nets[next(iter(self._nets))]
            self._nets[shape] = net  # most recently used last
            net.setInput(blob)
            return np.asarray(net.forward(), dtype=np.float32)

def softmax(logits: NDArray[np.float32], axis: int) -> NDArray[np.float32]:
    """Probabilities from a network's logits along ``axis`` (shifted first: no overflow)."""
    e = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return np.asarray(e / e.sum(axis=axis, keepdims=True), dtype=np.float32)
