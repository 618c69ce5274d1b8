"""The reader with further detector networks averaged in beside the shipped pair.

Dev-time only: does a candidate member (a run of ``tools.train.train_dice_detector``, an ONNX
export) help the pair? Each file given is read as one more member of the average the reader
takes (``vision.detector.heat_maps``), for this process only, and the table photos are
scored as ``bluffcam bench-vision`` scores them, held out first; ``--renders`` adds the
unseen renders of ``tools.bench.bench_categories``. With no file it measures the pair as shipped,
the baseline to read it against on the same machine and hour:

    .venv/bin/python -m tools.bench.bench_extra_detector ../shared/datasets/manifest.json \\
        .gpu/cpu_leg/dice_detector.onnx --renders

A measurement, not a test: it asserts nothing. docs/vision_detector.md, "A long run over
short GPU loans", says which run it is for.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tools.bench.common import score_unseen_renders
from vision import detector
from vision.bench import load_manifest, run_bench, summarise
from vision.learned import held_out_photos
from vision.onnx_net import LazyNet


def add_members(paths: list[Path]) -> None:
    """Make the reader's default average (``detector.NETWORKS`` networks) take ``paths`` too."""
    extra = tuple(LazyNet(path, f"extra detector {path}", "tools/train/train_dice_detector.py")
                  for path in paths)
    shipped = detector.networks

    def with_extra(count: int = detector.NETWORKS, *, int8: bool = False,
                   ) -> tuple[LazyNet, ...]:
        chosen = shipped(count, int8=int8)
        return chosen + extra if count == detector.NETWORKS else chosen

    detector.networks = with_extra


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", type=Path)
    ap.add_argument("models", type=Path, nargs="*", help="ONNX exports to average in")
    ap.add_argument("--trained", action="store_true",
                    help="the trained table photos too, after the held-out ones")
    ap.add_argument("--renders", action="store_true", help="the 300 unseen renders too")
    args = ap.parse_args()
    add_members(args.models)
    print("networks:", ", ".join(net.what for net in detector.networks()))
    root, entries = load_manifest(args.manifest)
    held = held_out_photos()
    for name, wanted in (("held out", True), ("trained", False))[:2 if args.trained else 1]:
        chosen = [e for e in entries if e.subset == "table" and (e.image in held) == wanted]
        for summary in summarise(run_bench(root, chosen)):
            if summary.name.startswith("subset:"):
                continue
            j = summary.to_json()
            figures = " / ".join(f"{j[k]:.3f}" if j[k] is not None else "-"
                                 for k in ("accuracy", "precision", "image_exact"))
            print(f"{name} {j['name']}: {j['images']} photos, {figures} (accuracy / precision /"
                  f" image exact), {j['sure_wrong']} sure and wrong, median {j['median_ms']} ms")
    if args.renders:
        score_unseen_renders(300)


if __name__ == "__main__":
    main()
