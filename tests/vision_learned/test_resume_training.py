"""A detector run split in two (``--stop-after`` / ``--pause-after`` with ``--checkpoint``,
then ``--resume``) trains the very network one unbroken run does: a long run can be spread
over several short loans of a GPU, each loan a fresh machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

pytestmark = pytest.mark.slow


def _photos(folder: Path) -> Path:
    """Two small labelled photos of drawn dice (the trainer needs boxes and values only)."""
    rng = np.random.default_rng(3)
    items = []
    for k in range(2):
        image = np.full((240, 320, 3), (40, 90, 40), np.uint8)
        dice = []
        for j in range(3):
            x, y, side = 40 + 90 * j, 60 + 40 * k, 36
            cv2.rectangle(image, (x, y), (x + side, y + side), (235, 235, 235), -1)
            value = int(rng.integers(1, 7))
            for p in range(value):
                cv2.circle(image, (x + 8 + (p % 3) * 10, y + 10 + (p // 3) * 14), 3, (0, 0, 0), -1)
            dice.append({"value": value, "box": [x, y, side, side]})
        name = f"photo_{k}.png"
        cv2.imwrite(str(folder / name), image)
        items.append({"image": name, "dice": dice, "complete": True, "width": 320,
                      "height": 240, "source": "drawn", "subset": "table"})
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps(items))
    return manifest


def _train(manifest: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    root = Path(__file__).resolve().parents[2]
    return subprocess.run(
        [sys.executable, "-m", "tools.train.train_dice_detector", str(manifest), "--steps", "6",
         "--batch", "2", "--workers", "1", "--threads", "1", "--export-every", "100",
         "--out", str(out / "net.onnx"), "--checkpoint", str(out / "run.pt"), *extra],
        cwd=root, capture_output=True, text=True, timeout=240)


def test_a_run_paused_and_resumed_ends_with_the_same_network(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    manifest = _photos(tmp_path)
    whole, split = tmp_path / "whole", tmp_path / "split"
    done = _train(manifest, whole)
    assert done.returncode == 0, done.stderr
    first = _train(manifest, split, "--stop-after", "3")
    assert first.returncode == 0, first.stderr
    halfway = torch.load(split / "run.pt", weights_only=True)
    assert halfway["step"] == 3
    second = _train(manifest, split, "--resume", str(split / "run.pt"))
    assert second.returncode == 0, second.stderr
    assert "resumed" in second.stdout and "after step 3" in second.stdout

    a = torch.load(whole / "run.pt", weights_only=True)
    b = torch.load(split / "run.pt", weights_only=True)
    assert a["step"] == b["step"] == 6
    for name, weights in a["net"].items():
        assert torch.equal(weights, b["net"][name]), name
    # the second half did train: the network moved on from where the first half left it
    assert any(not torch.equal(w, halfway["net"][n]) for n, w in b["net"].items())


def test_a_run_resumed_with_other_workers_is_the_same_run(tmp_path: Path) -> None:
    """A leg on the development machine's CPU draws batches with one worker, a GPU leg with
    fifteen (tools/borrowed/cpu_detector_leg.sh, tools/borrowed/gpu_detector_run.sh): batches
    are drawn by the step, so the legs continue one run whatever the number of workers."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    manifest = _photos(tmp_path)
    whole, split = tmp_path / "whole", tmp_path / "split"
    assert _train(manifest, whole).returncode == 0
    assert _train(manifest, split, "--stop-after", "3").returncode == 0
    second = _train(manifest, split, "--resume", str(split / "run.pt"), "--workers", "3")
    assert second.returncode == 0, second.stderr
    assert "after step 3" in second.stdout  # resumed, not a fresh run of its own
    a = torch.load(whole / "run.pt", weights_only=True)
    b = torch.load(split / "run.pt", weights_only=True)
    for name, weights in a["net"].items():
        assert torch.equal(weights, b["net"][name]), name


def test_a_checkpoint_of_other_settings_is_refused_by_name(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    manifest = _photos(tmp_path)
    first = _train(manifest, tmp_path, "--stop-after", "2")
    assert first.returncode == 0, first.stderr
    other = _train(manifest, tmp_path, "--resume", str(tmp_path / "run.pt"), "--lr", "1e-3")
    assert other.returncode != 0
    assert "other settings" in other.stderr and "lr: 0.002 there, 0.001 now" in other.stderr


def test_resuming_needs_batches_drawn_by_step(tmp_path: Path) -> None:
    manifest = _photos(tmp_path)
    refused = _train(manifest, tmp_path, "--resume", str(tmp_path / "run.pt"),
                     "--workers", "0")
    assert refused.returncode == 2
    assert "--resume needs --workers" in refused.stderr


def test_a_run_out_of_time_pauses_with_a_checkpoint(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    manifest = _photos(tmp_path)
    paused = _train(manifest, tmp_path, "--pause-after", "0")
    assert paused.returncode == 0, paused.stderr
    assert f"paused after step 0: go on with --resume {tmp_path / 'run.pt'}" in paused.stdout
    assert torch.load(tmp_path / "run.pt", weights_only=True)["step"] == 0
    assert (tmp_path / "net.onnx").exists()


def test_a_run_starts_from_an_export_with_half_precision_weights(tmp_path: Path) -> None:
    """Every export stores its weights at half precision (tools/train/half_weights.py); ``--init``
    reads one back and checks that the network it starts computes what the export does."""
    pytest.importorskip("torch")
    onnx = pytest.importorskip("onnx")
    manifest = _photos(tmp_path)
    first, second = tmp_path / "first", tmp_path / "second"
    assert _train(manifest, first).returncode == 0
    stored = [t.data_type for t in onnx.load(str(first / "net.onnx")).graph.initializer
              if len(t.dims) >= 2]
    assert stored and set(stored) == {onnx.TensorProto.FLOAT16}
    started = _train(manifest, second, "--init", str(first / "net.onnx"))
    assert started.returncode == 0, started.stderr
    assert f"started from {first / 'net.onnx'}" in started.stdout
