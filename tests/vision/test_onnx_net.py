"""vision.onnx_net: the networks are read with OpenCV's classic dnn engine, which gives the
same outputs as the default one, about twice as fast (BENCHMARKS.md, session 9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision import onnx_net
from vision.detector import MODEL_PATH as DETECTOR
from vision.learned import MODEL_PATH as CLASSIFIER
from vision.verifier import MODEL_PATH as VERIFIER

needs_engines = pytest.mark.skipif(onnx_net.CLASSIC_ENGINE is None,
                                   reason="OpenCV 4 has one dnn engine and no choice of it")


@needs_engines
def test_networks_are_read_with_the_classic_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    real = cv2.dnn.readNetFromONNX

    def spy(path: str, **kwargs: Any) -> Any:
        seen.append(kwargs)
        return real(path, **kwargs)

    monkeypatch.setattr(cv2.dnn, "readNetFromONNX", spy)
    onnx_net.read_onnx(DETECTOR, "die detector", "x")
    assert seen == [{"engine": cv2.dnn.ENGINE_CLASSIC}]


@needs_engines
@pytest.mark.parametrize(("path", "shape"), [(DETECTOR, (1, 3, 160, 224)),
                                             (CLASSIFIER, (5, 1, 48, 48)),
                                             (VERIFIER, (5, 3, 40, 40))])
def test_the_classic_engine_gives_the_default_engines_outputs(
        path: Path, shape: tuple[int, ...]) -> None:
    blob = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    ours = onnx_net.LazyNet(path, "network", "x").run(blob)
    default = cv2.dnn.readNetFromONNX(str(path))
    default.setInput(blob)
    assert np.allclose(ours, np.asarray(default.forward()), atol=1e-4)


def test_a_net_keeps_one_copy_per_input_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame read at two sizes in turn (the closer look) must not set the net up again each
    time: one copy per input size, read once, the least recently used dropped past
    ``MAX_SHAPES``."""
    reads: list[Path] = []
    real = onnx_net.read_onnx

    def counting(path: Path, what: str, script: str) -> Any:
        reads.append(path)
        return real(path, what, script)

    monkeypatch.setattr(onnx_net, "read_onnx", counting)
    net = onnx_net.LazyNet(DETECTOR, "die detector", "tools/train_dice_detector.py")
    small = np.random.default_rng(1).normal(size=(1, 3, 64, 64)).astype(np.float32)
    big = np.zeros((2, 3, 128, 96), np.float32)
    first = net.run(small)
    for _ in range(3):
        net.run(big)
        assert np.array_equal(net.run(small), first)
    assert len(reads) == 2
    net.run(small[:, :, :32])  # shapes 3 and 4: still no copy dropped
    net.run(big[:, :, :64])
    net.run(small)
    assert len(reads) == 4
    net.run(big[:, :, :32])  # a fifth: the least recently used (128x96) goes
    net.run(small)
    assert len(reads) == 5
    net.run(big)
    assert len(reads) == 6
