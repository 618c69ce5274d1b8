"""Copy the training photos (the shared photos less the held-out ones) and their manifest into
a git-ignored folder of the repo, for a lent GPU machine: only the repo travels there, not the
``../shared`` beside it (docs/vision_detector.md, "A long run over short GPU loans").

The copies must never be committed: the folder must be one git ignores (``.gitignore`` lists
``/.gpu/``; this refuses a folder git would track).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

from vision.learned import held_out_photos


def copy_training_photos(manifest: Path, folder: Path) -> int:
    """Copy every photo of ``manifest`` that no network holds out into ``folder``, keeping
    their paths, and write ``folder/manifest.json`` listing just those; returns how many."""
    held = held_out_photos()
    items = [item for item in json.loads(manifest.read_text()) if item["image"] not in held]
    for item in items:
        target = folder / item["image"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(manifest.parent / item["image"], target)
    (folder / "manifest.json").write_text(json.dumps(items))
    return len(items)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", type=Path, help="../shared/datasets/manifest.json")
    ap.add_argument("--folder", type=Path, default=Path(".gpu/data"))
    args = ap.parse_args()
    ignored = subprocess.run(["git", "check-ignore", "-q", str(args.folder)]).returncode == 0
    if not ignored:
        raise SystemExit(f"{args.folder} is not ignored by git: add it to .gitignore "
                         "first (the shared photos must never be committed)")
    count = copy_training_photos(args.manifest, args.folder)
    print(f"copied {count} training photos to {args.folder}")


if __name__ == "__main__":
    main()
