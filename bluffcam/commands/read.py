"""`bluffcam read IMAGE... [--profile FILE] [--annotate DIR]`: one JSON line per image."""

from __future__ import annotations

import argparse
import json
import sys
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.params import ReaderParams


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photo(s) to read")
    parser.add_argument("--profile", help="calibration TOML whose [reader] table to use")
    parser.add_argument("--annotate", metavar="DIR",
                        help="also write each photo with the reading drawn on it into DIR")


def load_reader_params(profile: str | None) -> ReaderParams:
    """The reader settings of a calibration profile (its ``[reader]`` table), or defaults."""
    from vision.params import ReaderParams

    if profile is None:
        return ReaderParams()
    try:
        from calibration import load_profile
    except ImportError:  # the calibration package is optional for reading photos
        pass
    else:
        loaded: ReaderParams = load_profile(profile).reader_params
        return loaded
    try:
        with open(profile, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ValueError(f"{profile}: cannot read the profile ({exc.strerror})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{profile}: not valid TOML ({exc})") from exc
    table = data.get("reader", {})
    if not isinstance(table, dict):
        raise ValueError(f"{profile}: [reader] must be a table")
    try:
        return ReaderParams.from_dict(table)
    except ValueError as exc:
        raise ValueError(f"{profile}: {exc}") from exc


def run(args: argparse.Namespace) -> int:
    import cv2

    from vision import ImageLoadError, draw_reading, load_image, load_networks, read_dice

    try:
        params = load_reader_params(args.profile)
    except ValueError as exc:
        print(f"read: {exc}", file=sys.stderr)
        return 2
    load_networks(params)  # the first image's ms is not charged for opening the networks
    out_dir = Path(args.annotate) if args.annotate else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    status = 0
    for path in args.images:
        try:
            image = load_image(path)
        except ImageLoadError as exc:
            print(f"read: {exc}", file=sys.stderr)
            status = 1
            continue
        t0 = time.perf_counter()
        reading = read_dice(image, params)
        ms = (time.perf_counter() - t0) * 1000.0
        print(json.dumps({"image": path, "dice": reading.to_json(), "ms": round(ms, 1)}),
              flush=True)
        if out_dir is not None:
            target = out_dir / (Path(path).stem + ".annotated.png")
            cv2.imwrite(str(target), draw_reading(image, reading))
    return status
