"""`bluffcam adapt MANIFEST... --out TABLE.toml [--profile BASE.toml]`: teach a table
profile its own reader from labelled photos of the table (``bluffcam.adaptation``)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("manifests", nargs="+", metavar="MANIFEST",
                        help="labelled photos of this table (the manifest.json format of "
                             "../shared/datasets and of bluffcam export-reveals)")
    parser.add_argument("--out", required=True, metavar="TABLE.toml",
                        help="the profile to write; its head goes beside it as "
                             "TABLE.adapt.npz")
    parser.add_argument("--profile", metavar="BASE.toml",
                        help="the table's profile whose settings to keep (default: a minimal "
                             "profile covering the whole picture)")


def run(args: argparse.Namespace) -> int:
    from bluffcam.adaptation import adapt_profile

    try:
        adapted = adapt_profile(args.manifests, args.out, args.profile)
    except (ValueError, OSError) as exc:  # AdaptInputError, ProfileError, AdaptError
        print(f"adapt: {exc}", file=sys.stderr)
        return 2
    print(adapted.summary())
    return 0
