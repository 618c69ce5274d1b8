"""Store an ONNX network's weights at half precision, to halve the file the project ships.

Dev-time only (needs ``onnx``). Each weight tensor (two or more dimensions: the convolutions'
and linear layers' weights, nearly all of a file) is stored as float16 and turned back into
float32 by a ``Cast`` node at the head of the graph; biases and scalars stay float32. The
network still computes in float32: ONNX Runtime folds the casts away when it opens the file
and OpenCV's dnn reads them as constants, so a read costs the same time and memory as before
and only the weights' rounding changes (outputs within about 1e-2 of the float32 file's on
logits of up to 8; BENCHMARKS.md, "Weights stored at half precision"). The trainers call
:func:`store_half` on every export; ``load_export`` reads such a file back with
:func:`weights_by_name`.

    .venv/bin/python -m tools.train.half_weights vision/models/*.onnx
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: the name a half-precision copy of weight ``w`` is stored under (the Cast's output is ``w``)
HALF_SUFFIX = "_f16"
#: float16's largest finite value: a weight beyond it stays float32
HALF_MAX = 65504.0


def store_half(path: Path) -> int:
    """Rewrite ``path`` with its float32 weight tensors stored as float16; the number of
    tensors converted (0 for a file already stored so, which is left as it is)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    casts, kept = [], []
    for tensor in graph.initializer:
        array = numpy_helper.to_array(tensor)
        if (array.dtype == np.float32 and array.ndim >= 2
                and float(np.abs(array).max(initial=0.0)) <= HALF_MAX):
            kept.append(numpy_helper.from_array(array.astype(np.float16),
                                                tensor.name + HALF_SUFFIX))
            casts.append(helper.make_node("Cast", [tensor.name + HALF_SUFFIX], [tensor.name],
                                          to=TensorProto.FLOAT))
        else:
            kept.append(tensor)
    if not casts:
        return 0
    nodes = list(graph.node)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    del graph.node[:]
    graph.node.extend(casts + nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return len(casts)


def weights_by_name(model: Any) -> dict[str, NDArray[np.float32]]:
    """Every initializer of an ONNX ``model`` as float32, under the name the graph's layers
    use: a weight stored at half precision is found under its Cast's output name."""
    from onnx import numpy_helper

    arrays = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Cast" and node.input[0] in arrays:
            arrays[node.output[0]] = arrays.pop(node.input[0])
    return {name: np.asarray(a, dtype=np.float32) if a.dtype == np.float16 else a
            for name, a in arrays.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", type=Path, help="ONNX files, rewritten in place")
    for path in parser.parse_args().models:
        before = path.stat().st_size
        count = store_half(path)
        print(f"{path}: {count} weight tensors stored as float16, "
              f"{before} -> {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
