"""Loading the project's small ONNX networks with OpenCV's dnn module (no other runtime)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2


def read_onnx(path: Path, what: str, script: str) -> Any:
    """The network in ``path``, or a clear error naming the model and the script that makes it."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: the {what} model is missing; run {script} to make it")
    return cv2.dnn.readNetFromONNX(str(path))
