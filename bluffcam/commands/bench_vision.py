"""`bluffcam bench-vision MANIFEST [--subset S] [--adapt-first N]`: measure the dice reader
on labelled photos (with ``--adapt-first``: before and after a table head per source)."""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.bench import Entry
    from vision.params import ReaderParams


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("manifest", help="manifest.json (format of ../shared/datasets)")
    parser.add_argument("--subset", help="only photos of this subset (e.g. table, crop)")
    parser.add_argument("--source", help="only photos of this source (e.g. matteo)")
    parser.add_argument(
        "--split", choices=("all", "held-out", "trained"), default="all",
        help="held-out: only the photos no network of the project was trained on "
             "(vision/models/dice_value_holdout.json); trained: only the others")
    parser.add_argument("--profile", help="calibration TOML whose [reader] table to use")
    parser.add_argument("--json", action="store_true", help="print one JSON object per group")
    parser.add_argument(
        "--adapt-first", type=int, metavar="N",
        help="per source: teach a table head on its first N photos (by file name), read the "
             "rest without and with it, and print die accuracy, auto share, silent misreads "
             "and ms before and after (with --split, within that split: held-out teaches "
             "and reads photos no network saw)")


def run(args: argparse.Namespace) -> int:
    from bluffcam.commands.read import load_reader_params
    from vision.bench import load_manifest, run_bench, summarise
    from vision.io import ImageLoadError
    from vision.learned import held_out_photos

    try:
        params = load_reader_params(args.profile)
        root, entries = load_manifest(args.manifest)
    except (ValueError, OSError) as exc:
        print(f"bench-vision: {exc}", file=sys.stderr)
        return 2
    entries = [
        e for e in entries
        if (args.subset is None or e.subset == args.subset)
        and (args.source is None or e.source == args.source)
    ]
    if args.split != "all":
        held = held_out_photos()
        entries = [e for e in entries if (e.image in held) == (args.split == "held-out")]
    if not entries:
        print("bench-vision: no photos match the chosen subset/source/split", file=sys.stderr)
        return 2
    if args.adapt_first is not None:
        return _adapted(root, entries, params, args)
    try:
        scores = run_bench(root, entries, params)
    except ImageLoadError as exc:
        print(f"bench-vision: {exc}", file=sys.stderr)
        return 2
    summaries = [s.to_json() for s in summarise(scores)]
    if args.json:
        for s in summaries:
            print(json.dumps(s))
        return 0
    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"python {platform.python_version()}".rstrip())
    header = f"{'group':<22}{'imgs':>6}{'dice':>6}{'acc':>8}{'prec':>8}{'exact':>8}" \
             f"{'facerr':>8}{'sure%':>8}{'sure':>8}{'s.wrong':>8}{'unjudg':>8}" \
             f"{'med ms':>8}{'p95 ms':>8}"
    print(header)
    # sure%: the share of the dice found that are reported sure (the rest go to review);
    # sure: the share of those that are right; s.wrong: sure and wrong (silent misreads)
    # unjudg: dice found on photos marked incomplete that match no labelled die; the manifest
    # says those are not necessarily wrong, so precision leaves them out
    for s in summaries:
        print(f"{s['name']:<22}{s['images']:>6}{s['labelled']:>6}{_f(s['accuracy'])}"
              f"{_f(s['precision'])}{_f(s['image_exact'])}{_f(s['face_error'])}"
              f"{_f(s['sure_share'])}{_f(s['sure_precision'])}{s['sure_wrong']:>8}{s['unjudged']:>8}"
              f"{_f(s['median_ms'], 1)}{_f(s['p95_ms'], 1)}")
    return 0


def _f(value: float | None, digits: int = 3, width: int = 8) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def _adapted(root: Path, entries: list[Entry], params: ReaderParams,
             args: argparse.Namespace) -> int:
    """``--adapt-first N``: per source, before and after a head taught on its first N."""
    from vision.adapt_bench import adapt_first
    from vision.io import ImageLoadError

    if args.adapt_first < 1:
        print(f"bench-vision: --adapt-first must be at least 1, got {args.adapt_first}",
              file=sys.stderr)
        return 2
    try:
        results = adapt_first(root, entries, params, args.adapt_first)
    except ImageLoadError as exc:
        print(f"bench-vision: {exc}", file=sys.stderr)
        return 2
    if args.json:
        for r in results:
            print(json.dumps(r.to_json()))
        return 0
    print(f"machine: {platform.machine()} {platform.processor() or ''} "
          f"python {platform.python_version()}".rstrip())
    # auto: photos applied without review and right; silent: applied unasked and wrong;
    # s.wrong: dice read sure and wrong
    print(f"{'source':<12}{'taught':>7}{'read':>6}  {'before: acc':>11}{'auto':>7}{'silent':>7}"
          f"{'s.wrong':>8}{'ms':>7}  {'after: acc':>10}{'auto':>7}{'silent':>7}{'s.wrong':>8}"
          f"{'ms':>7}{'reach':>7}  {'size':>5}")
    # size: the die size (px) the taught photos gave the table and "after" read at; "-": their
    # dice measure many sizes, read as the general reader reads; reach: the share of photos
    # whose labelled dice "after" found, none missing and none extra: the most any head over
    # those dice could apply (it decides values and sureness, and finds no die)
    for r in results:
        if r.skipped:
            print(f"{r.source:<12}  skipped: {r.skipped}")
            continue
        b, a = r.before.to_json(), r.after.to_json()
        print(f"{r.source:<12}{r.taught:>7}{b['photos']:>6}  {_f(b['accuracy'], 3, 11)}"
              f"{_f(b['auto_share'], 3, 7)}{b['silent_misreads']:>7}{b['sure_wrong']:>8}"
              f"{_f(b['median_ms'], 0, 7)}  {_f(a['accuracy'], 3, 10)}"
              f"{_f(a['auto_share'], 3, 7)}{a['silent_misreads']:>7}{a['sure_wrong']:>8}"
              f"{_f(a['median_ms'], 0, 7)}{_f(a['reach'], 3, 7)}  {_f(r.die_size_px, 0, 5)}")
    return 0
