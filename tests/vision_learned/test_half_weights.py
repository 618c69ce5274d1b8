"""The networks the project ships: within the size issue #3 allows the reader's learned part,
stored at half precision (tools/train/half_weights.py) and computing what their float32 exports
compute, to the weights' rounding."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.models_int8 import INT8_SUFFIX
from vision.onnx_net import LazyNet

MODELS = Path(__file__).resolve().parents[2] / "vision" / "models"
#: issue #3: "a learned part runs on the CPU ... is at most 10 MB"; held for all of them together
LEARNED_PART_LIMIT = 10_000_000


def test_the_shipped_networks_together_stay_within_ten_megabytes() -> None:
    networks = sorted(MODELS.glob("*.onnx"))
    assert len(networks) >= 5, networks
    total = sum(path.stat().st_size for path in networks)
    assert total <= LEARNED_PART_LIMIT, f"{total} bytes in {[p.name for p in networks]}"


def test_every_shipped_network_stores_its_weights_at_half_precision() -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    for path in sorted(MODELS.glob("*.onnx")):
        if path.stem.endswith(INT8_SUFFIX):
            continue  # an 8-bit copy (tests/vision/test_int8_networks.py)
        weights = [numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer]
        big = [w for w in weights if w.ndim >= 2]
        assert big and all(w.dtype == np.float16 for w in big), path.name


def _as_float32(source: Path, target: Path) -> None:
    """``source`` with its half-precision weights written back as float32 (the casts gone):
    the file a trainer's export was before :func:`store_half` rewrote it, to the rounding."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    from tools.train.half_weights import weights_by_name

    model = onnx.load(str(source))
    casts = [n for n in model.graph.node if n.op_type == "Cast"
             and n.input[0].endswith("_f16")]
    weights = weights_by_name(model)
    del model.graph.initializer[:]
    model.graph.initializer.extend(numpy_helper.from_array(w, name) for name, w in weights.items())
    for node in casts:
        model.graph.node.remove(node)
    onnx.save(model, str(target))


@pytest.mark.parametrize("name, shape", [("dice_detector.onnx", (1, 3, 128, 160)),
                                         ("dice_value.onnx", (3, 1, 48, 48)),
                                         ("dice_verifier.onnx", (2, 3, 40, 40))])
def test_storing_at_half_precision_halves_the_file_and_keeps_the_outputs(
        tmp_path: Path, name: str, shape: tuple[int, ...]) -> None:
    pytest.importorskip("onnx")
    from tools.train.half_weights import store_half

    full = tmp_path / "full.onnx"
    _as_float32(MODELS / name, full)
    half = tmp_path / "half.onnx"
    shutil.copy(full, half)
    converted = store_half(half)
    assert converted >= 4
    assert half.stat().st_size < 0.55 * full.stat().st_size
    # a second pass finds nothing left to convert and leaves the file alone
    before = half.read_bytes()
    assert store_half(half) == 0 and half.read_bytes() == before

    probe = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    expected = LazyNet(full, "full", "-").run(probe)
    got = LazyNet(half, "half", "-").run(probe)
    # the weights were half already: storing them so again changes no output
    assert np.allclose(got, expected, atol=1e-5), float(np.abs(got - expected).max())


def test_weights_by_name_gives_float32_under_the_layers_names(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from tools.train.half_weights import weights_by_name

    model = onnx.load(str(MODELS / "dice_verifier.onnx"))
    weights = weights_by_name(model)
    used = {name for node in model.graph.node if node.op_type in ("Conv", "Gemm")
            for name in node.input[1:]}
    assert used and used <= set(weights)
    assert all(weights[name].dtype == np.float32 for name in used)
    assert not any(name.endswith("_f16") for name in weights)
