"""The 8-bit copies of the detectors and crop classifiers (``vision.models_int8``, made by
``tools/train/quantise.py``), which a table profile reads with where it sets
``int8_networks``: each is shipped, holds 8-bit weights, computes nearly what its float
network computes, and the reader uses them only when asked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import ReaderParams, load_networks, onnx_net, read_dice
from vision.detector import networks
from vision.models_int8 import QUANTISED, SOURCE_KEY, file_hash, int8_path
from vision.onnx_net import LazyNet, softmax

needs_onnxruntime = pytest.mark.skipif(onnx_net.onnxruntime is None,
                                       reason="onnxruntime is not installed (32-bit ARM)")


@pytest.mark.parametrize("model", QUANTISED, ids=lambda p: p.stem)
def test_each_copy_is_shipped_with_8_bit_weights_and_is_smaller(model: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    copy = int8_path(model)
    assert copy.exists(), f"{copy.name} missing: run python -m tools.train.quantise"
    weights = [numpy_helper.to_array(t) for t in onnx.load(str(copy)).graph.initializer]
    assert sum(w.dtype == np.int8 and w.ndim == 4 for w in weights) >= 3, copy.name
    assert copy.stat().st_size < 1.3 * model.stat().st_size


@pytest.mark.parametrize("model", QUANTISED, ids=lambda p: p.stem)
def test_each_copy_was_made_from_the_float_file_shipped_beside_it(model: Path) -> None:
    """A network trained again leaves its old copy behind until the copies are made again
    (python -m tools.train.quantise ../shared/datasets/manifest.json)."""
    onnx = pytest.importorskip("onnx")

    meta = {p.key: p.value for p in onnx.load(str(int8_path(model))).metadata_props}
    assert meta.get(SOURCE_KEY) == file_hash(model), (
        f"{int8_path(model).name} was not made from today's {model.name}: run "
        "python -m tools.train.quantise ../shared/datasets/manifest.json")


def _frame() -> np.ndarray:
    from tests.vision.test_detector import rendered

    image, _ = rendered("tables/board")
    return image


@needs_onnxruntime
def test_the_detectors_copies_draw_nearly_the_same_heat_map() -> None:
    from vision.detector import input_scale, normalise, prepare

    image = _frame()
    blob = normalise(prepare(image, input_scale(*image.shape[:2], 320))[None])
    for plain in networks(2):
        heat = 1 / (1 + np.exp(-plain.run(blob)[0, 0]))
        copy = 1 / (1 + np.exp(-plain.at_8_bits().run(blob)[0, 0]))
        assert copy.shape == heat.shape
        assert float(np.abs(copy - heat).max()) < 0.15, plain.path.name
        assert np.array_equal(heat > 0.5, copy > 0.5) or \
            np.count_nonzero((heat > 0.5) != (copy > 0.5)) <= 2


@needs_onnxruntime
def test_the_classifiers_copies_name_the_same_faces() -> None:
    from vision.learned import CROP_PX, NETS

    rng = np.random.default_rng(3)
    crops = rng.normal(size=(6, 1, CROP_PX, CROP_PX)).astype(np.float32)
    for net in NETS:
        plain = softmax(net.run(crops), axis=1)
        copy = softmax(net.at_8_bits().run(crops), axis=1)
        assert float(np.abs(copy - plain).max()) < 0.1, net.path.name


@needs_onnxruntime
def test_the_reader_reads_the_same_dice_with_the_copies() -> None:
    image = _frame()
    plain = read_dice(image, ReaderParams())
    fast = read_dice(image, ReaderParams(int8_networks=True))
    assert len(plain.dice) == len(fast.dice) > 0
    for a, b in zip(sorted(plain.dice, key=lambda d: (d.y, d.x)),
                    sorted(fast.dice, key=lambda d: (d.y, d.x)), strict=True):
        assert a.value == b.value
        assert (a.x, a.y) == pytest.approx((b.x, b.y), abs=2.0)


@needs_onnxruntime
def test_the_copies_are_read_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[str] = []
    original = LazyNet.run_outputs  # every run goes through it

    def noting(net: LazyNet, blob: np.ndarray) -> list[np.ndarray]:
        ran.append(net.path.name)
        return original(net, blob)

    monkeypatch.setattr(LazyNet, "run_outputs", noting)
    image = _frame()
    read_dice(image, ReaderParams())
    assert ran and not any("_int8" in name for name in ran)
    ran.clear()
    read_dice(image, ReaderParams(int8_networks=True))
    copies = {int8_path(model).name for model in QUANTISED}
    assert copies <= set(ran)
    assert not {model.name for model in QUANTISED} & set(ran)


def test_load_networks_loads_the_copies_where_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[str] = []
    monkeypatch.setattr(onnx_net, "RUNTIME", "onnxruntime")
    monkeypatch.setattr(LazyNet, "load", lambda self: loaded.append(self.path.name))
    load_networks(ReaderParams(int8_networks=True, cover_doubt_odds=1.0))
    assert loaded == [int8_path(m).name for m in QUANTISED] + ["dice_verifier.onnx"]


def test_opencv_reads_the_float_files_whatever_the_setting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenCV's dnn (the reader's fallback where ONNX Runtime has no wheel) is not given
    the 8-bit graphs."""
    monkeypatch.setattr(onnx_net, "RUNTIME", "opencv")
    net = LazyNet(QUANTISED[0], "die detector", "x")
    assert net.at_8_bits() is net


def test_a_profile_turns_them_on_and_a_bad_value_is_refused() -> None:
    assert ReaderParams.from_dict({"int8_networks": True}).int8_networks
    assert not ReaderParams().int8_networks
    with pytest.raises(ValueError, match="int8_networks must be true or false"):
        ReaderParams.from_dict({"int8_networks": 1})


def test_a_missing_copy_is_named_with_the_script_that_makes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_net, "RUNTIME", "onnxruntime")
    float_file = tmp_path / "dice_detector.onnx"
    float_file.write_bytes(QUANTISED[0].read_bytes())
    with pytest.raises(FileNotFoundError, match="tools/train/quantise.py"):
        LazyNet(float_file, "die detector", "x").at_8_bits().load()
