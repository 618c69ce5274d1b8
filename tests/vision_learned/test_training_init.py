"""Going on training a shipped classifier (``train_dice_classifier --init``): the network
built from the file computes what the file does, and training it leaves its folded batch
norms as they are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.learned import CROP_PX, MODEL_PATH, classifier_net

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from tools.train.train_dice_classifier import (  # noqa: E402
    build_net,
    freeze_batch_norms,
    init_from_onnx,
)


def _crops(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(6, 1, CROP_PX, CROP_PX)).astype(np.float32)


def test_the_network_built_from_the_shipped_file_computes_what_the_file_does() -> None:
    net = build_net()
    init_from_onnx(net, MODEL_PATH)
    net.eval()
    crops = _crops(1)
    with torch.no_grad():
        ours = net(torch.from_numpy(crops)).numpy()
    shipped = classifier_net(MODEL_PATH)
    theirs = np.asarray(shipped.run(crops))
    assert ours.shape == theirs.shape == (6, 7)
    assert np.allclose(ours, theirs, atol=1e-3), np.abs(ours - theirs).max()


def test_frozen_batch_norms_keep_the_folding_while_training() -> None:
    net = build_net()
    init_from_onnx(net, MODEL_PATH)
    crops = torch.from_numpy(_crops(2))
    net.eval()
    with torch.no_grad():
        before = net(crops).numpy()
    net.train()
    freeze_batch_norms(net)
    net[-2].eval()  # the dropout aside, a training step's forward pass is the file's
    with torch.no_grad():
        during = net(crops).numpy()
    net.train()  # without freezing, the batch's own statistics undo the folding
    net[-2].eval()
    with torch.no_grad():
        unfrozen = net(crops).numpy()
    assert np.allclose(before, during, atol=1e-5)
    assert not np.allclose(before, unfrozen, atol=1e-2)


def test_a_file_of_other_widths_is_refused_by_name() -> None:
    net = build_net((8, 16, 32, 48))
    with pytest.raises(ValueError, match=str(Path(MODEL_PATH).name)):
        init_from_onnx(net, MODEL_PATH)


def test_a_file_whose_batch_norms_were_not_folded_is_refused_by_name(tmp_path: Path) -> None:
    from onnx import TensorProto, helper, save

    nodes = [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, 1, 4, 4])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [1, 1, 4, 4])])
    path = tmp_path / "unfolded.onnx"
    save(helper.make_model(graph), str(path))
    with pytest.raises(ValueError, match="BatchNormalization"):
        init_from_onnx(build_net(), path)
