"""Write 8-bit copies of the reader's networks, for a table profile's faster reading.

Dev-time only (needs ``onnx`` and ONNX Runtime's quantisation tools). ONNX Runtime runs a
network whose convolutions take 8-bit integers (weights per output channel, activations per
tensor, the QDQ form) about twice as fast on a CPU as the float32 file; each activation's
range is set from the tensors the reader itself feeds the network while it reads
calibration photos: the photos of the sources the networks trained on that are *not*
held out (``vision/models/dice_value_holdout.json``), and the demo recording's frames read
with its profile. Which copies the reader uses, and what they cost in accuracy, is measured,
not assumed: BENCHMARKS.md, "Reading with a table profile".

    .venv/bin/python -m tools.train.quantise ../shared/datasets/manifest.json [--photos 60]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.learned import HOLDOUT_PATH, TRAINED_SOURCES
from vision.models_int8 import INT8_SUFFIX, QUANTISED, SOURCE_KEY, file_hash

#: how many of the recorded input batches of each network calibrate its activations' ranges
BATCHES_PER_NET = 120
#: the first and last convolution of each network stay float32: the image's own levels in,
#: the heat map and the value odds out, where rounding shows most (with every convolution at
#: 8 bits the demo's round 5 went to review)
KEEP_FLOAT = 1
#: each activation's range is its 0.001st to 99.999th percentile: a few extreme values do not
#: stretch the range for all the others (with the extremes, min to max, the held-out photos
#: read 1.2 points fewer fully right)
METHOD = "percentile"
#: the side of the middle square of each frame the histogram methods calibrate a detector on
FIXED_SIDE = 384


def calibration_photos(manifest: Path, count: int, seed: int) -> list[Path]:
    """``count`` photos of the sources every network trained on (``TRAINED_SOURCES``), none
    of them held out: the same photos for every copy, so that a network retrained alone
    leaves the other copies byte for byte as they were."""
    held = set(json.loads(HOLDOUT_PATH.read_text()))
    entries = json.loads(manifest.read_text())
    usable = [e["image"] for e in entries
              if e.get("source") in TRAINED_SOURCES and e["image"] not in held]
    random.Random(seed).shuffle(usable)
    return [manifest.parent / image for image in usable[:count]]


def record_inputs(photos: list[Path]) -> dict[Path, list[np.ndarray]]:
    """Every input batch each network is given while the reader reads ``photos`` (without a
    profile) and the demo's frames (with its profile), by the network's file."""
    from bluffcam.demo_player import load_recording
    from calibration import load_profile
    from hardware.cameras import list_frame_files
    from vision import ReaderParams, read_dice
    from vision.onnx_net import LazyNet

    seen: dict[Path, list[np.ndarray]] = defaultdict(list)
    original = LazyNet.run_outputs

    def recording_run(net: LazyNet, blob: Any) -> Any:
        seen[net.path].append(np.array(blob, dtype=np.float32))
        return original(net, blob)

    # every run goes through run_outputs (LazyNet.run too)
    LazyNet.run_outputs = recording_run  # type: ignore[method-assign,assignment]
    try:
        plain = ReaderParams()
        for photo in photos:
            image = cv2.imread(str(photo))
            if image is not None:
                read_dice(np.asarray(image, np.uint8), plain)
        recording = load_recording()
        if recording.profile_path is not None:
            # the float networks, whatever the profile reads with: theirs are the inputs
            profiled = replace(load_profile(recording.profile_path).reader_params,
                               int8_networks=False)
            for reveal in recording.reveals:
                for frame_file in list_frame_files(reveal.folder)[-3:]:
                    read_dice(np.asarray(cv2.imread(str(frame_file))), profiled)
    finally:
        LazyNet.run_outputs = original  # type: ignore[method-assign]
    return seen


class _Batches:
    """ONNX Runtime's calibration reader (its ``get_next``) over recorded input batches (one
    image at a time for a graph that takes one)."""

    def __init__(self, name: str, batches: list[np.ndarray], one_at_a_time: bool,
                 side: int | None = None) -> None:
        items = [b[k:k + 1] for b in batches for k in range(len(b))] if one_at_a_time \
            else batches
        if side is not None:  # the histogram methods need inputs of one shape
            items = [_middle(item, side) for item in items]
        self._items: Iterator[np.ndarray] = iter(items)
        self._name = name

    def get_next(self) -> dict[str, np.ndarray] | None:
        item = next(self._items, None)
        return None if item is None else {self._name: item}


def _middle(batch: np.ndarray, side: int) -> np.ndarray:
    """The middle ``side`` x ``side`` of an (n, c, h, w) batch, edge-padded where smaller."""
    h, w = batch.shape[2:]
    pad = ((0, 0), (0, 0), (0, max(0, side - h)), (0, max(0, side - w)))
    padded = np.pad(batch, pad, mode="edge")
    top, left = (padded.shape[2] - side) // 2, (padded.shape[3] - side) // 2
    return np.ascontiguousarray(padded[:, :, top:top + side, left:left + side])


def quantise(model: Path, batches: list[np.ndarray], out: Path, *, keep_float: int = 0,
             method: str = "minmax") -> None:
    """Write ``model`` with 8-bit weights and activations to ``out``, its activations'
    ranges calibrated on ``batches``."""
    import onnxruntime  # type: ignore[import-untyped]
    from onnxruntime.quantization import (  # type: ignore[import-untyped]
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import (  # type: ignore[import-untyped]
        quant_pre_process,
    )

    session = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    graph_input = session.get_inputs()[0]
    histogram = method != "minmax"  # needs every input (and so activation) of one shape
    sized = histogram and isinstance(graph_input.shape[2], str)
    reader: Any = _Batches(graph_input.name, batches, graph_input.shape[0] == 1 or histogram,
                           side=FIXED_SIDE if sized else None)
    with tempfile.TemporaryDirectory() as folder:
        prepared = Path(folder) / "prepared.onnx"
        # folds the half-precision weights' casts into float32 constants first
        with contextlib.chdir(folder):  # it leaves scratch files where it runs
            quant_pre_process(str(model.resolve()), str(prepared), skip_symbolic_shape=True)
        import onnx

        convs = [n.name for n in onnx.load(str(prepared)).graph.node if n.op_type == "Conv"]
        exclude = convs[:keep_float] + convs[len(convs) - keep_float:] if keep_float else []
        quantize_static(str(prepared), str(out), reader, quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, nodes_to_exclude=exclude,
                        calibrate_method={"minmax": CalibrationMethod.MinMax,
                                          "entropy": CalibrationMethod.Entropy,
                                          "percentile": CalibrationMethod.Percentile}[method])
    _name_source(out, model)


def _name_source(copy: Path, model: Path) -> None:
    """Write the float file's SHA-256 into the copy's metadata: a copy left behind when its
    network is trained again is found by the tests (``tests/vision/test_int8_networks.py``)."""
    import onnx

    graph = onnx.load(str(copy))
    del graph.metadata_props[:]
    entry = graph.metadata_props.add()
    entry.key, entry.value = SOURCE_KEY, file_hash(model)
    onnx.save(graph, str(copy))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("manifest", type=Path, help="../shared/datasets/manifest.json")
    ap.add_argument("--photos", type=int, default=60,
                    help="calibration photos of the trained sources, none held out (60)")
    ap.add_argument("--seed", type=int, default=7, help="which photos (7)")
    ap.add_argument("--keep-float", type=int, default=KEEP_FLOAT,
                    help=f"convolutions left in float32 at each end of a network "
                         f"({KEEP_FLOAT})")
    ap.add_argument("--method", choices=("minmax", "entropy", "percentile"), default=METHOD,
                    help=f"how the activations' ranges are set ({METHOD})")
    args = ap.parse_args(argv)
    photos = calibration_photos(args.manifest, args.photos, args.seed)
    seen = record_inputs(photos)
    rng = random.Random(args.seed)
    for model in QUANTISED:
        batches = seen.get(model, [])
        if not batches:
            raise SystemExit(f"{model}: the reader never ran it on the calibration photos")
        chosen = batches if len(batches) <= BATCHES_PER_NET else rng.sample(batches,
                                                                            BATCHES_PER_NET)
        out = model.with_name(model.stem + INT8_SUFFIX + model.suffix)
        quantise(model, chosen, out, keep_float=args.keep_float, method=args.method)
        print(f"{out}: {out.stat().st_size / 1e6:.2f} MB, calibrated on {len(chosen)} "
              f"input batches of {len(photos)} photos and the demo's frames")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
