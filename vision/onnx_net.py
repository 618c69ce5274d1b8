"""Loading the project's small ONNX networks with OpenCV's dnn module (no other runtime)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray


def read_onnx(path: Path, what: str, script: str) -> Any:
    """The network in ``path``, or a clear error naming the model and the script that makes it."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: the {what} model is missing; run {script} to make it")
    return cv2.dnn.readNetFromONNX(str(path))


def softmax(logits: NDArray[np.float32], axis: int) -> NDArray[np.float32]:
    """Probabilities from a network's logits along ``axis`` (shifted first: no overflow)."""
    e = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return np.asarray(e / e.sum(axis=axis, keepdims=True), dtype=np.float32)
