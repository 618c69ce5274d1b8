"""Which of the reader's networks have 8-bit copies, and where those lie.

An 8-bit copy (``tools/train/quantise.py``) runs about twice as fast on a CPU under ONNX
Runtime; a profile asks for them with ``[reader] int8_networks = true``. OpenCV's dnn module
(the fallback where ONNX Runtime is not installed) reads the float files only.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

MODELS = Path(__file__).with_name("models")
#: a copy's file name is its network's with this before the suffix
INT8_SUFFIX = "_int8"
#: the networks with 8-bit copies: the two detectors and the two crop classifiers, nearly
#: all of a read's network time
QUANTISED = tuple(MODELS / name for name in (
    "dice_detector.onnx", "dice_detector_wide.onnx", "dice_value.onnx",
    "dice_value_renders.onnx"))


def int8_path(path: Path) -> Path:
    """The 8-bit copy's file for the network in ``path``."""
    return path.with_name(path.stem + INT8_SUFFIX + path.suffix)


#: the key of a copy's metadata that holds its float file's SHA-256
SOURCE_KEY = "bluffcam.float_sha256"


def file_hash(path: Path) -> str:
    """A file's SHA-256, as a copy names the float file it was made from."""
    return hashlib.sha256(path.read_bytes()).hexdigest()
