"""The options every trainer that learns from photos and renders takes, in one place, so
that ``--seed``, ``--threads`` and the inputs mean the same in each."""

from __future__ import annotations

import argparse
from pathlib import Path


def trainer_parser(description: str, *, steps: int, batch: int) -> argparse.ArgumentParser:
    """A parser with the photos' manifest, ``--renders`` manifests (repeatable), ``--seed``,
    ``--steps``, ``--batch`` and ``--threads``; each trainer adds its own after them."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("manifest", type=Path)
    ap.add_argument("--renders", type=Path, action="append", default=[])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--steps", type=int, default=steps)
    ap.add_argument("--batch", type=int, default=batch)
    ap.add_argument("--threads", type=int, default=2)
    return ap
