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


def use_classifier(path: Path, which: int = 0) -> None:
    """Make the reader's classifier network ``which`` (0: the photos network, 1: the renders
    network) the one in ``path`` (from its next read)."""
    if not path.is_file():
        raise FileNotFoundError(f"no classifier network at {path}")
    learned.NETS[which] = learned.classifier_net(path, "die classifier (candidate)")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    first, args = args[:1], args[1:]
    renders: list[str] = []
    if args[:1] == ["--renders"]:
        renders, args = args[1:2], args[2:]
        if not renders:
            args = []  # "--renders" with no file: a usage error, not a command
    if not first or not args:
        print("usage: python -m tools.bench.with_classifier MODEL.onnx|- [--renders MODEL.onnx] "
              "BLUFFCAM_COMMAND [ARGS...]", file=sys.stderr)
        return 2
    swaps = [(Path(first[0]), 0)] if first[0] != "-" else []
    swaps += [(Path(path), 1) for path in renders]
    missing = [path for path, _ in swaps if not path.is_file()]
    if missing:  # checked before any swap: a missing file swaps nothing
        print(f"with_classifier: no classifier network at {missing[0]}", file=sys.stderr)
        return 2
    for path, which in swaps:
        use_classifier(path, which)
    return bluffcam_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
