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
