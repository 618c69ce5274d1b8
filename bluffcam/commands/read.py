"""`bluffcam read IMAGE... [--profile FILE] [--crop] [--annotate DIR]`: one JSON line per
image, each die with its value, place, confidence and whether it is sure."""

from __future__ import annotations

import argparse
import json
import sys
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.params import ReaderParams
    from vision.types import Reading


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photo(s) to read")
    parser.add_argument("--profile", help="calibration TOML whose [reader] table to use (and "
                             "its [dice] and table area, for frames of its camera's size)")
    parser.add_argument("--crop", action="store_true",
                        help="each photo is one die cut out of a bigger one: it may be read as "
                             "one die filling it (never guessed from the photo's size)")
    parser.add_argument("--annotate", metavar="DIR",
                        help="also write each photo with the reading drawn on it into DIR, as "
                             "STEM.annotated.png (STEM-2.annotated.png, ... for a later photo "
                             "of the same name from another folder)")


def annotation_names(paths: Sequence[str]) -> list[str]:
    """One file name per photo, ``STEM.annotated.png``; a later photo whose stem another has
    taken (``a/x.jpg``, ``b/x.png``) gets ``STEM-2``, ``STEM-3``, ... so that no annotation
    overwrites another, and never the plain name of a photo further on."""
    plain = [Path(p).stem + ".annotated.png" for p in paths]
    reserved = set(plain)
    used: set[str] = set()
    names = []
    for path, name in zip(paths, plain, strict=True):
        stem, n = Path(path).stem, 1
        while name in used:
            n += 1
            candidate = f"{stem}-{n}.annotated.png"
            if candidate not in reserved:
                name = candidate
        used.add(name)
        names.append(name)
    return names


def annotation_folder(annotate: str) -> Path:
    """The ``--annotate`` folder, made where missing; ValueError where it cannot be."""
    out_dir = Path(annotate)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--annotate {annotate}: exists and is not a folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"--annotate {annotate}: cannot make the folder ({exc.strerror})") from exc
    return out_dir


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


def dice_json(reading: Reading) -> list[dict[str, object]]:
    """Each die as ``Die.to_json`` gives it, with ``"sure"``: whether a reveal may be
    adjudicated on it (its confidence at or over the reading's threshold)."""
    return [{**d.to_json(), "sure": d.confidence >= reading.min_confidence}
            for d in reading.dice]


def run(args: argparse.Namespace) -> int:
    from vision import ImageLoadError, draw_reading, load_image, load_networks, read_dice
    from vision.io import write_image

    try:
        params = load_reader_params(args.profile)
        out_dir = annotation_folder(args.annotate) if args.annotate else None
    except ValueError as exc:
        print(f"read: {exc}", file=sys.stderr)
        return 2
    load_networks(params)  # the first image's ms is not charged for opening the networks
    names = annotation_names(args.images)
    status = 0
    for path, name in zip(args.images, names, strict=True):
        try:
            image = load_image(path)
        except ImageLoadError as exc:
            print(f"read: {exc}", file=sys.stderr)
            status = 1
            continue
        t0 = time.perf_counter()
        reading = read_dice(image, params, crop=args.crop)
        ms = (time.perf_counter() - t0) * 1000.0
        print(json.dumps({"image": path, "dice": dice_json(reading), "ms": round(ms, 1)}),
              flush=True)
        if out_dir is not None and not write_image(out_dir / name, draw_reading(image, reading)):
            print(f"read: {out_dir / name}: cannot write the annotated image", file=sys.stderr)
            status = 1
    return status
