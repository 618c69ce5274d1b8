"""`bluffcam export-reveals [DATA] --out DIR`: a table's settled reveals as labelled photos
for `bluffcam bench-vision` (`bluffcam.labelled_photos`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bluffcam.commands.serve import default_data_dir

    parser.add_argument("data", nargs="?", type=Path, default=None,
                        help=f"the --data folder of bluffcam serve (default: {default_data_dir()})")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="where manifest.json and photos/ are written")
    parser.add_argument("--with-accepted", action="store_true",
                        help="also the reveals applied at once, labelled by the reader itself "
                             "(their source is 'accepted')")


def run(args: argparse.Namespace) -> int:
    from bluffcam.commands.serve import default_data_dir
    from bluffcam.labelled_photos import export_reveals

    data: Path = args.data or default_data_dir()
    try:
        summary = export_reveals(data / "reveals", args.out, with_accepted=args.with_accepted)
    except OSError as exc:
        print(f"export-reveals: {exc}", file=sys.stderr)
        return 2
    for line in summary.lines(args.out / "manifest.json"):
        print(line)
    return 0
