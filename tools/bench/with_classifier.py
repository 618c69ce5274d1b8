"""Run a ``bluffcam`` command with another photos classifier in place of the shipped
``vision/models/dice_value.onnx``: a candidate is measured by the very commands that measure
the shipped one, back to back, before it may replace it.

    .venv/bin/python -m tools.bench.with_classifier .cache/candidate.onnx \\
        bench-vision ../shared/datasets/manifest.json --split held-out

Only the first of the reader's two classifier networks (``vision.learned.MODEL_PATHS``) is
swapped, unless ``--renders CANDIDATE_B.onnx`` follows the first file: then the renders network
is swapped too (``-`` as the first file keeps the shipped photos network). Dev-time only: the
product always reads the shipped files.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from bluffcam.cli import main as bluffcam_main
from vision import learned
from vision.onnx_net import LazyNet


def use_classifier(path: Path, which: int = 0) -> None:
    """Make the reader's classifier network ``which`` (0: the photos network, 1: the renders
    network) the one in ``path`` (from its next read)."""
    if not path.is_file():
        raise FileNotFoundError(f"no classifier network at {path}")
    learned.NETS[which] = LazyNet(path, "die classifier (candidate)",
                                  "tools/train/train_dice_classifier.py")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    first, args = args[:1], args[1:]
    renders = None
    if args[:1] == ["--renders"] and len(args) > 1:
        renders, args = args[1], args[2:]
    if not first or not args:
        print("usage: python -m tools.bench.with_classifier MODEL.onnx|- [--renders MODEL.onnx] "
              "BLUFFCAM_COMMAND [ARGS...]", file=sys.stderr)
        return 2
    try:
        if first[0] != "-":
            use_classifier(Path(first[0]))
        if renders is not None:
            use_classifier(Path(renders), which=1)
    except FileNotFoundError as exc:
        print(f"with_classifier: {exc}", file=sys.stderr)
        return 2
    return bluffcam_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
