"""vision.onnx_net: the networks run with ONNX Runtime where it is installed, else with
OpenCV's classic dnn engine; all of them give the same outputs as OpenCV's default engine
(docs/lab-notebook.md: "Two looks" for OpenCV's engines, 2026-11-24; "ONNX Runtime",
2026-11-25)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision import onnx_net
from vision.cover_check import MODEL_PATH as COVER_CHECK
from vision.detector import MODEL_PATH as DETECTOR
from vision.detector import WIDE_MODEL_PATH as WIDE_DETECTOR
from vision.learned import FEATURES_OUTPUT
from vision.learned import MODEL_PATH as CLASSIFIER
from vision.looks import FEATURE_WIDTH
from vision.verifier import MODEL_PATH as VERIFIER

needs_engines = pytest.mark.skipif(onnx_net.CLASSIC_ENGINE is None,
                                   reason="OpenCV 4 has one dnn engine and no choice of it")
needs_onnxruntime = pytest.mark.skipif(onnx_net.onnxruntime is None,
                                       reason="onnxruntime is not installed (32-bit ARM)")
NETWORKS = [(DETECTOR, (1, 3, 160, 224)), (WIDE_DETECTOR, (1, 3, 160, 224)),
            (CLASSIFIER, (5, 1, 48, 48)), (VERIFIER, (5, 3, 40, 40)),
            (COVER_CHECK, (5, 3, 40, 40))]


def outputs(path: Path) -> tuple[str, ...] | None:
    """The outputs the reader reads from the network in ``path`` (the classifier's two)."""
    return ("logits", FEATURES_OUTPUT) if path == CLASSIFIER else None


def default_engine_output(path: Path, blob: np.ndarray) -> np.ndarray:
    net = cv2.dnn.readNetFromONNX(str(path))
    net.setInput(blob)
    names = outputs(path)
    found = [net.forward()] if names is None else net.forward(list(names))
    return np.concatenate([np.asarray(out).reshape(len(blob), -1) for out in found], axis=1)


def ours_output(path: Path, blob: np.ndarray) -> np.ndarray:
    """Every output the reader reads, side by side."""
    net = onnx_net.LazyNet(path, "network", "x", outputs(path))
    return np.concatenate([out.reshape(len(blob), -1) for out in net.run_outputs(blob)], axis=1)


@needs_onnxruntime
def test_onnxruntime_runs_the_networks_where_it_is_installed() -> None:
    assert onnx_net.RUNTIME == "onnxruntime"


@needs_onnxruntime
@pytest.mark.parametrize(("path", "shape"), NETWORKS)
def test_onnxruntime_gives_opencvs_outputs(path: Path, shape: tuple[int, ...]) -> None:
    blob = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    assert np.allclose(ours_output(path, blob), default_engine_output(path, blob), atol=1e-4)


def use_runtime(runtime: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the networks with ``runtime`` for this test (skipped where it is not installed)."""
    if runtime == "onnxruntime" and onnx_net.onnxruntime is None:
        pytest.skip("onnxruntime is not installed (32-bit ARM)")
    monkeypatch.setattr(onnx_net, "RUNTIME", runtime)


def loads(monkeypatch: pytest.MonkeyPatch, loader: str) -> list[Path]:
    """The paths ``onnx_net.<loader>`` (``read_onnx`` or ``open_session``) loads from now on."""
    loaded: list[Path] = []
    real = getattr(onnx_net, loader)

    def counting(path: Path, what: str, script: str, **options: Any) -> Any:
        loaded.append(path)
        return real(path, what, script, **options)

    monkeypatch.setattr(onnx_net, loader, counting)
    return loaded


@needs_onnxruntime
def test_one_session_serves_every_input_size(monkeypatch: pytest.MonkeyPatch) -> None:
    opened = loads(monkeypatch, "open_session")
    net = onnx_net.LazyNet(DETECTOR, "die detector", "tools/train/train_dice_detector.py")
    small = np.random.default_rng(1).normal(size=(1, 3, 64, 64)).astype(np.float32)
    first = net.run(small)
    net.run(np.zeros((2, 3, 128, 96), np.float32))
    assert np.array_equal(net.run(small), first)
    # the detector's graph takes one image: a batch (the detector's views) is run image by image
    assert np.allclose(net.run(np.concatenate([small, small])), np.concatenate([first, first]))
    assert opened == [DETECTOR]


@pytest.mark.parametrize("runtime", ["onnxruntime", "opencv"])
def test_a_missing_model_is_named_with_the_script_that_makes_it(
        runtime: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_runtime(runtime, monkeypatch)
    net = onnx_net.LazyNet(tmp_path / "gone.onnx", "die verifier",
                           "tools/train/train_dice_verifier.py")
    with pytest.raises(FileNotFoundError, match="verifier model is missing.*train_dice_verifier"):
        net.run(np.zeros((1, 3, 40, 40), np.float32))


def test_a_network_opencv_cannot_read_is_named_with_what_to_install(tmp_path: Path) -> None:
    """A graph OpenCV cannot parse: its error comes out in words that say what would read
    it."""
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"\x08\x07not a graph at all")
    with pytest.raises(RuntimeError, match=rf"broken.onnx: OpenCV {cv2.__version__} cannot "
                                           r"read the die detector network .*install "
                                           r"onnxruntime .* or a newer OpenCV"):
        onnx_net.read_onnx(broken, "die detector", "tools/train/train_dice_detector.py")


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
@pytest.mark.parametrize(("path", "shape"), NETWORKS)
def test_the_classic_engine_gives_the_default_engines_outputs(
        path: Path, shape: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_net, "RUNTIME", "opencv")
    blob = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    assert np.allclose(ours_output(path, blob), default_engine_output(path, blob), atol=1e-4)


def test_a_net_keeps_one_copy_per_input_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """With OpenCV, a frame read at two sizes in turn (the closer look) must not set the net
    up again each time: one copy per input size, read once, the least recently used dropped
    past ``MAX_SHAPES``."""
    monkeypatch.setattr(onnx_net, "RUNTIME", "opencv")
    reads = loads(monkeypatch, "read_onnx")
    net = onnx_net.LazyNet(DETECTOR, "die detector", "tools/train/train_dice_detector.py")
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


@needs_onnxruntime
def test_the_reader_reads_alike_with_either_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ONNX Runtime has no wheel the reader runs on OpenCV: same dice, same values,
    confidences to a thousandth (four views: the detector's batch of views too)."""
    from tests.vision.test_detector import rendered
    from vision import ReaderParams, read_dice

    image, _ = rendered("tables/board")
    params = ReaderParams(detector_views=4)
    fast = read_dice(image, params)
    monkeypatch.setattr(onnx_net, "RUNTIME", "opencv")
    slow = read_dice(image, params)
    assert len(fast.dice) == len(slow.dice) > 0
    for a, b in zip(fast.dice, slow.dice, strict=True):
        assert a.value == b.value
        assert (a.x, a.y) == pytest.approx((b.x, b.y), abs=0.05)
        assert a.confidence == pytest.approx(b.confidence, abs=1e-3)


@pytest.mark.parametrize("runtime", ["onnxruntime", "opencv"])
def test_load_reads_the_network_before_its_first_run(
        runtime: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    use_runtime(runtime, monkeypatch)
    opened = loads(monkeypatch, "open_session")
    net = onnx_net.LazyNet(VERIFIER, "die verifier", "tools/train/train_dice_verifier.py")
    net.load()
    net.run(np.zeros((1, 3, 40, 40), np.float32))
    assert opened == ([VERIFIER] if runtime == "onnxruntime" else [])  # once, at load
    gone = onnx_net.LazyNet(tmp_path / "gone.onnx", "die verifier",
                            "tools/train/train_dice_verifier.py")
    with pytest.raises(FileNotFoundError, match="verifier model is missing"):
        gone.load()  # a missing model is found at load, not at the first read
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a network")
    with pytest.raises(Exception):  # noqa: B017  (each runtime raises its own kind)
        onnx_net.LazyNet(broken, "die verifier", "x").load()  # nor is an unreadable one


@pytest.mark.parametrize(("method", "check", "detectors", "cover", "expected"), [
    ("learned", True, 2, 0.9, ["die detector", "wide die detector", "die classifier",
                               "die classifier", "die verifier", "cover check"]),
    ("learned", True, 1, 1.0, ["die detector", "die classifier", "die classifier",
                               "die verifier"]),
    ("classical", True, 2, 1.0, ["die classifier", "die classifier"]),
    ("classical", False, 2, 1.0, []),
    ("classical", False, 2, 0.5, ["cover check"]),
])
def test_load_networks_loads_what_the_settings_read_with(
        method: str, check: bool, detectors: int, cover: float, expected: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from vision import ReaderParams, load_networks

    loaded: list[str] = []
    monkeypatch.setattr(onnx_net.LazyNet, "load", lambda self: loaded.append(self.what))
    load_networks(ReaderParams(method=method, learned_check=check,
                               detector_networks=detectors, cover_doubt_odds=cover))
    assert loaded == expected


@needs_onnxruntime
def test_opencv_4s_way_each_input_size_written_into_the_file_reads_alike(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenCV 4 is given each input size written into the network's file (vision.onnx_shape);
    here OpenCV 5 runs those files, which must compute what ONNX Runtime does on the
    originals (OpenCV 4.12 itself read the held-out photos as ONNX Runtime does but for one
    phone die: docs/lab-notebook.md, 2026-11-26, "OpenCV 4 without ONNX Runtime")."""
    from tests.vision.test_detector import rendered
    from vision import ReaderParams, read_dice

    image, _ = rendered("tables/board")
    fast = read_dice(image, ReaderParams())
    sizes: list[tuple[int, int]] = []
    real = onnx_net.with_input_size

    def sized(model: bytes, height: int, width: int) -> bytes:
        sizes.append((height, width))
        return real(model, height, width)

    from vision import detector, learned, verifier

    monkeypatch.setattr(onnx_net, "RUNTIME", "opencv")
    monkeypatch.setattr(onnx_net, "OPENCV_NEEDS_SIZE", True)
    monkeypatch.setattr(onnx_net, "with_input_size", sized)
    for net in (detector.NET, detector.WIDE_NET, verifier.NET, *learned.NETS):
        monkeypatch.setattr(net, "_nets", {})  # no net an earlier test read as it is
    slow = read_dice(image, ReaderParams())
    assert sizes, "the files were read as they are"
    assert [d.value for d in slow.dice] == [d.value for d in fast.dice]
    assert np.allclose([d.confidence for d in slow.dice], [d.confidence for d in fast.dice],
                       atol=1e-3)


def test_an_open_input_size_is_written_into_the_file_and_nothing_else(tmp_path: Path) -> None:
    from vision.onnx_shape import with_input_size

    original = DETECTOR.read_bytes()
    sized = with_input_size(original, 160, 224)
    assert len(sized) == len(original) and sized != original
    # the classifier's input is numbered (48 x 48): it stays as it was
    assert with_input_size(CLASSIFIER.read_bytes(), 160, 224) == CLASSIFIER.read_bytes()
    onnx = pytest.importorskip("onnx")
    model = onnx.load_from_string(sized)
    dims = [d.dim_value or d.dim_param for d in model.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [1, 3, 160, 224]
    reference = onnx.load_from_string(original)
    for dim, size in zip(reference.graph.input[0].type.tensor_type.shape.dim[2:], (160, 224),
                         strict=True):
        dim.dim_value = size
    assert reference.SerializeToString() == sized


def test_a_file_that_is_not_onnx_is_refused_by_the_rewrite() -> None:
    from vision.onnx_shape import with_input_size

    with pytest.raises(ValueError, match="not an ONNX"):
        with_input_size(b"\x0f\xff\xff", 64, 64)


@pytest.mark.parametrize(("value", "threads"), [("", None), ("4", 4), (" 1 ", 1)])
def test_the_thread_count_is_set_from_the_environment(
        monkeypatch: pytest.MonkeyPatch, value: str, threads: int | None) -> None:
    monkeypatch.setenv(onnx_net.THREADS_VARIABLE, value)
    assert onnx_net.onnx_threads() == threads


@pytest.mark.parametrize("value", ["0", "four", "-2", "2.5", "100"])
def test_a_bad_thread_count_is_refused_by_name(monkeypatch: pytest.MonkeyPatch,
                                                value: str) -> None:
    monkeypatch.setenv(onnx_net.THREADS_VARIABLE, value)
    with pytest.raises(ValueError, match="BLUFFCAM_ONNX_THREADS must be a whole number"):
        onnx_net.onnx_threads()


@needs_onnxruntime
def test_a_session_runs_on_the_threads_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(onnx_net.THREADS_VARIABLE, "1")
    session = onnx_net.open_session(CLASSIFIER, "die classifier", "x")
    assert session.get_session_options().intra_op_num_threads == 1


@pytest.mark.parametrize("runtime", ["onnxruntime", "opencv"])
def test_a_classifier_gives_its_logits_then_its_features_in_either_runtime(
        runtime: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenCV's classic engine lists a file's outputs in no fixed order: the reader names
    them, and reading a file of several outputs without names is refused by name."""
    use_runtime(runtime, monkeypatch)
    blob = np.random.default_rng(2).normal(size=(3, 1, 48, 48)).astype(np.float32)
    logits, features = onnx_net.LazyNet(CLASSIFIER, "c", "x", outputs(CLASSIFIER)).run_outputs(blob)
    assert logits.shape == (3, 7) and features.shape == (3, FEATURE_WIDTH)
    unnamed = onnx_net.LazyNet(CLASSIFIER, "c", "x")
    if runtime == "opencv":
        with pytest.raises(ValueError, match="dice_value.onnx has outputs"):
            unnamed.run(blob)
    else:
        assert np.allclose(unnamed.run(blob), logits)
    with pytest.raises(ValueError, match="dice_value.onnx has none of the outputs nothing"):
        onnx_net.LazyNet(CLASSIFIER, "c", "x", ("nothing",)).run(blob)
