"""Run a ``bluffcam`` command with another photos classifier in place of the shipped
``vision/models/dice_value.onnx``: a candidate is measured by the very commands that measure
the shipped one, back to back, before it may replace it.

    .venv/bin/python -m tools.bench.with_classifier .cache/candidate.onnx \\
        bench-vision ../shared/datasets/manifest.json --split held-out

Only the first of the reader's two classifier networks (``vision.learned.MODEL_PATHS``) is
swapped; the renders network stays. Dev-time only: the product always reads the shipped files.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from bluffcam.cli import main as bluffcam_main
from vision import learned
from vision.onnx_net import LazyNet


def use_classifier(path: Path) -> None:
    """Make the reader's first classifier network the one in ``path`` (from its next read)."""
    if not path.is_file():
        raise FileNotFoundError(f"no classifier network at {path}")
    learned.NETS[0] = LazyNet(path, "die classifier (candidate)",
                              "tools/train/train_dice_classifier.py")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2:
        print("usage: python -m tools.bench.with_classifier MODEL.onnx BLUFFCAM_COMMAND [ARGS...]",
              file=sys.stderr)
        return 2
    try:
        use_classifier(Path(args[0]))
    except FileNotFoundError as exc:
        print(f"with_classifier: {exc}", file=sys.stderr)
        return 2
    return bluffcam_main(args[1:])


if __name__ == "__main__":
    raise SystemExit(main())
