"""Give a crop classifier file a second output, ``features``: what its last layer weighs
(the global average of its last convolution, ``vision.looks.FEATURE_WIDTH`` wide in the
shipped networks), for a table's own head
(``vision.table_head``) to learn this table's dice from. The weights and the ``logits``
output stay as they were.

Dev-time only (needs ``onnx``). The trainer's export calls :func:`add_features_output`;
run as a module it gives the shipped classifiers and their 8-bit copies the output, each
copy then naming its float file's new SHA-256 (``vision.models_int8.SOURCE_KEY``: the
weights it was quantised from are unchanged):

    .venv/bin/python -m tools.train.features_output
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.learned import FEATURES_OUTPUT, MODEL_PATHS
from vision.models_int8 import SOURCE_KEY, file_hash, int8_path


def add_features_output(model: Any) -> bool:
    """Add ``features`` to an ONNX ``model`` (in place) as the input of its final ``Gemm``;
    False where it has that output already. ValueError where the graph has no ``Gemm``.
    (A network of other widths gets features of its own width, which the reader leaves
    unread: ``vision.looks.FEATURE_WIDTH``.)"""
    import onnx

    graph = model.graph
    if any(o.name == FEATURES_OUTPUT for o in graph.output):
        return False
    gemms = [n for n in graph.node if n.op_type == "Gemm"]
    if not gemms:
        raise ValueError("the graph has no Gemm: not a crop classifier")
    # an 8-bit copy dequantises the Gemm's input; the float tensor before that is the same
    source = gemms[-1].input[0]
    for node in graph.node:
        if node.output and node.output[0] == source and node.op_type == "DequantizeLinear":
            quantised = node.input[0]
            source = next(n.input[0] for n in graph.node
                          if n.output and n.output[0] == quantised)
    width = _width(model, gemms[-1])
    # before the final Gemm, so that the graph's last node still gives the logits (what
    # OpenCV's forward() without a name returns)
    at = list(graph.node).index(gemms[-1])
    graph.node.insert(at, onnx.helper.make_node("Identity", [source], [FEATURES_OUTPUT],
                                                name="features"))
    batch = graph.output[0].type.tensor_type.shape.dim[0]
    batch_dim: str | int = batch.dim_param or batch.dim_value or "n"
    graph.output.append(onnx.helper.make_tensor_value_info(
        FEATURES_OUTPUT, onnx.TensorProto.FLOAT, [batch_dim, width]))
    return True


def _width(model: Any, gemm: Any) -> int:
    """The number of inputs the final Gemm weighs (its weight's second or first axis)."""
    import onnx.numpy_helper

    weights = {i.name: i for i in model.graph.initializer}
    weight = weights.get(gemm.input[1])
    if weight is None:  # an 8-bit copy: the weight is dequantised from a stored tensor
        producer = next(n for n in model.graph.node if n.output[0] == gemm.input[1])
        weight = weights[producer.input[0]]
    shape = onnx.numpy_helper.to_array(weight).shape
    trans_b = next((a.i for a in gemm.attribute if a.name == "transB"), 0)
    return int(shape[1] if trans_b else shape[0])


def give_output(path: Path, source_hash: str | None = None) -> bool:
    """Add the output to the file at ``path`` (an 8-bit copy: and name ``source_hash`` as
    its float file's); False where it had it already."""
    import onnx

    model = onnx.load(str(path))
    added = add_features_output(model)
    if source_hash is not None:
        for entry in model.metadata_props:
            if entry.key == SOURCE_KEY:
                added = added or entry.value != source_hash
                entry.value = source_hash
    if added:
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
    return added


def main() -> None:
    """Give the shipped classifiers and their 8-bit copies the output."""
    for path in MODEL_PATHS:
        changed = give_output(path)
        copy = int8_path(path)
        changed_copy = copy.is_file() and give_output(copy, file_hash(path))
        print(f"{path.name}: {'features added' if changed else 'had features'}; "
              f"{copy.name}: {'updated' if changed_copy else 'unchanged'}")


if __name__ == "__main__":
    main()
