"""Running the project's small ONNX networks: with ONNX Runtime where it is installed, else
with OpenCV's dnn module.

ONNX Runtime runs them 1.4-1.9 times as fast as OpenCV's dnn on the development VM, with the
same outputs to 2e-5 (docs/lab-notebook.md, "ONNX Runtime"), and the networks' forward
passes are most of a read's time. It has no wheel for 32-bit ARM (Raspberry Pi OS 32-bit),
so the project depends on it everywhere else (pyproject.toml); on 32-bit ARM the reader
falls back to OpenCV, which it needs anyway (OpenCV 4 given each input size in the file:
:func:`read_onnx`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.models_int8 import int8_path
from vision.onnx_shape import with_input_size

try:
    import onnxruntime  # type: ignore[import-untyped]
except ImportError:  # 32-bit ARM, or a minimal install: OpenCV's dnn runs the networks
    onnxruntime = None

#: which library runs the networks: "onnxruntime" where it is installed, else "opencv"
RUNTIME = "opencv" if onnxruntime is None else "onnxruntime"

#: OpenCV 5's classic dnn engine runs the project's small networks about twice as fast as the
#: engine it picks by default, with the same outputs (to 1e-5; docs/lab-notebook.md);
#: OpenCV 4 has only that engine and no ``engine`` argument. It does not take every graph: a
#: trial detector with an edge-replicating Pad layer crashed it, so every shipped
#: network is run on it by tests/vision/test_onnx_net.py
CLASSIC_ENGINE: int | None = getattr(cv2.dnn, "ENGINE_CLASSIC", None)


#: the environment variable that sets how many threads ONNX Runtime runs each network on
#: (unset: ONNX Runtime's own choice, one per core). A Raspberry Pi's 4 cores share a read
#: with the camera, the web server and the board's browser: a table may want fewer
THREADS_VARIABLE = "BLUFFCAM_ONNX_THREADS"


def onnx_threads() -> int | None:
    """The thread count ``BLUFFCAM_ONNX_THREADS`` asks for, ``None`` where it is unset;
    ValueError naming it where it is not a whole number 1..64."""
    raw = os.environ.get(THREADS_VARIABLE, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= 64:
        raise ValueError(f"{THREADS_VARIABLE} must be a whole number of threads 1..64, "
                         f"got {raw!r}")
    return int(raw)


def _check(path: Path, what: str, script: str) -> None:
    if not path.exists():
        raise FileNotFoundError(f"{path}: the {what} model is missing; run {script} to make it")


#: OpenCV 4 works out every layer's shape as it imports a network and refuses the detectors'
#: feature pyramid with their input size left open (4.9 to 4.12 tried): it is
#: given each input size written into the file (`vision.onnx_shape`); OpenCV 5 reads them as
#: they are
OPENCV_NEEDS_SIZE = CLASSIC_ENGINE is None
#: the input size a network is read at only to check it (`LazyNet.load` on OpenCV 4)
CHECK_SIZE = (64, 64)


def read_onnx(path: Path, what: str, script: str, size: tuple[int, int] | None = None) -> Any:
    """The network in ``path`` as an OpenCV dnn net (for inputs of ``size``, height and
    width, where OpenCV needs to know it), or a clear error naming the model and the script
    that makes it, or what would read a graph OpenCV cannot."""
    _check(path, what, script)
    try:
        if OPENCV_NEEDS_SIZE and size is not None:
            sized = with_input_size(path.read_bytes(), *size)
            return cv2.dnn.readNetFromONNX(np.frombuffer(sized, np.uint8))
        if CLASSIC_ENGINE is None:
            return cv2.dnn.readNetFromONNX(str(path))
        return cv2.dnn.readNetFromONNX(str(path), engine=CLASSIC_ENGINE)
    except cv2.error as exc:
        raise RuntimeError(
            f"{path}: OpenCV {cv2.__version__} cannot read the {what} network "
            f"({str(exc).strip().splitlines()[-1].strip('> ')[:160]}); install onnxruntime "
            "(it has wheels for 64-bit systems: on a Raspberry Pi, the 64-bit OS) or a newer "
            "OpenCV"
        ) from None


def open_session(path: Path, what: str, script: str) -> Any:
    """The network in ``path`` as an ONNX Runtime session on the CPU (same errors as
    :func:`read_onnx`)."""
    _check(path, what, script)
    if onnxruntime is None:
        raise RuntimeError("onnxruntime is not installed")
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # warnings about unused initialisers are not the user's
    # idle worker threads sleep rather than spin: a read runs four networks in turn with other
    # work between them, and on two cores spinning threads starve it (held-out tables: a
    # median of 32 ms spinning, 17 ms not, against 28 ms with OpenCV)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    threads = onnx_threads()
    if threads is not None:
        options.intra_op_num_threads = threads
    # no memory arena: it keeps the largest frame's buffers for good. Without it a process
    # that read three 1280 x 960 frames holds 195 MB, not 241 (267, not 314, after a
    # 12-megapixel one), at the same speed (held-out tables, median 12.1-12.3 ms against
    # 12.7-17.4 ms, same hour): room that a Pi, sharing its memory with the board's browser,
    # needs
    options.enable_cpu_mem_arena = False
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class LazyNet:
    """One network, read from ``path`` on first use (so importing the reader costs nothing)
    and run behind a lock (a cv2.dnn net is not safe to share mid-forward), by
    :data:`RUNTIME`.

    With OpenCV, a net sets itself up again whenever its input changes size, which costs
    about a third of a detector read at 640 px; a frame read at two sizes in turn (the closer
    look of :mod:`vision.dice.detected`) would pay that twice a frame. So there each input
    size (not counting the batch) gets its own copy of the net, up to ``MAX_SHAPES`` of them,
    the longest unused dropped first. An ONNX Runtime session takes every size as it is."""

    #: input sizes kept at once (each a copy of the net: the largest is 4.9 MB of weights)
    MAX_SHAPES = 4

    def __init__(self, path: Path, what: str, script: str,
                 outputs: tuple[str, ...] | None = None) -> None:
        self.path, self.what, self.script = path, what, script
        #: the outputs :meth:`run_outputs` gives, in this order, those the file has (``None``:
        #: the file's first alone; with OpenCV, a file of several outputs needs their names)
        self.outputs = outputs
        self._nets: dict[tuple[int, ...], Any] = {}
        self._session: Any = None
        self._input, self._one_at_a_time = "", False
        self._names: list[str] = []
        self._lock = threading.Lock()
        self._int8: LazyNet | None = None

    def at_8_bits(self) -> LazyNet:
        """This network's 8-bit copy (``vision.models_int8``: about twice as fast under ONNX
        Runtime), read on first use like the network itself; the network itself where
        OpenCV runs the networks (it reads the float files only)."""
        if RUNTIME != "onnxruntime":
            return self
        with self._lock:
            if self._int8 is None:
                self._int8 = LazyNet(int8_path(self.path), f"{self.what} (8-bit copy)",
                                     "tools/train/quantise.py", self.outputs)
            return self._int8

    def load(self) -> None:
        """Read the network now rather than at its first run, so that a first read is not
        charged for opening it and a missing or unreadable model is found at once. With
        OpenCV each input size reads its own copy at its first run: there this reads the
        file once to check it, and keeps nothing."""
        with self._lock:
            if RUNTIME == "onnxruntime":
                self._open_session()
            else:
                read_onnx(self.path, self.what, self.script, size=CHECK_SIZE)

    def run(self, blob: NDArray[np.float32]) -> NDArray[np.float32]:
        """The network's (first) output for an (n, c, h, w) input blob."""
        return self.run_outputs(blob)[0]

    def run_outputs(self, blob: NDArray[np.float32]) -> list[NDArray[np.float32]]:
        """The network's ``outputs`` that its file has, in that order (without ``outputs``:
        its first), for an (n, c, h, w) input blob."""
        with self._lock:
            if RUNTIME == "onnxruntime":
                return self._run_session(blob)
            return self._run_opencv(blob)

    def _open_session(self) -> None:
        if self._session is None:
            self._session = open_session(self.path, self.what, self.script)
            graph_input = self._session.get_inputs()[0]
            # a graph exported for one image at a time takes a batch image by image
            self._input, self._one_at_a_time = graph_input.name, graph_input.shape[0] == 1
            names = [o.name for o in self._session.get_outputs()]
            self._names = self._present(names)

    def _run_session(self, blob: NDArray[np.float32]) -> list[NDArray[np.float32]]:
        self._open_session()
        blob = np.ascontiguousarray(blob, dtype=np.float32)
        if self._one_at_a_time and len(blob) > 1:
            parts = [self._session.run(self._names, {self._input: blob[k:k + 1]})
                     for k in range(len(blob))]
            return [np.concatenate(out).astype(np.float32) for out in zip(*parts, strict=True)]
        return [np.asarray(out, np.float32)
                for out in self._session.run(self._names, {self._input: blob})]

    def _run_opencv(self, blob: NDArray[np.float32]) -> list[NDArray[np.float32]]:
        shape = tuple(blob.shape[1:])
        net = self._nets.pop(shape, None)
        if net is None:
            net = read_onnx(self.path, self.what, self.script, size=blob.shape[2:4])
            while len(self._nets) >= self.MAX_SHAPES:
                del self._nets[next(iter(self._nets))]
        self._nets[shape] = net  # most recently used last
        net.setInput(blob)
        present = list(net.getUnconnectedOutLayersNames())
        if not self.outputs:
            # OpenCV's classic engine keeps no file's order of several outputs
            if len(present) > 1:
                raise ValueError(f"{self.path.name} has outputs {', '.join(present)}: name "
                                 "those to read (LazyNet's outputs)")
            return [np.asarray(net.forward(), dtype=np.float32)]
        return [np.asarray(out, dtype=np.float32) for out in net.forward(self._present(present))]

    def _present(self, names: list[str]) -> list[str]:
        """Of the file's outputs ``names``, those to read, in ``outputs``' order (without
        ``outputs``: the first); ValueError where the file has none of ``outputs``."""
        if not self.outputs:
            return names[:1]
        chosen = [n for n in self.outputs if n in names]
        if not chosen:
            raise ValueError(f"{self.path.name} has none of the outputs {', '.join(self.outputs)} "
                             f"(it has {', '.join(names)})")
        return chosen


def softmax(logits: NDArray[np.float32], axis: int) -> NDArray[np.float32]:
    """Probabilities from a network's logits along ``axis`` (shifted first: no overflow)."""
    e = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return np.asarray(e / e.sum(axis=axis, keepdims=True), dtype=np.float32)
