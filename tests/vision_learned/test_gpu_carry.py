"""tools.borrowed.gpu_carry copies only the photos the networks train on (never a held-out one)
for a lent GPU machine, and refuses a folder git would track."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tools.borrowed.gpu_carry import copy_training_photos
from vision.learned import held_out_photos


def test_held_out_photos_stay_behind(tmp_path: Path) -> None:
    held = sorted(held_out_photos())[0]
    shared = tmp_path / "shared"
    items = [{"image": held, "dice": []}, {"image": "mine/a.jpg", "dice": [{"value": 3}]}]
    for item in items:
        (shared / item["image"]).parent.mkdir(parents=True, exist_ok=True)
        (shared / item["image"]).write_bytes(item["image"].encode())
    (shared / "manifest.json").write_text(json.dumps(items))

    assert copy_training_photos(shared / "manifest.json", tmp_path / "carry") == 1
    assert (tmp_path / "carry/mine/a.jpg").read_bytes() == b"mine/a.jpg"
    assert not (tmp_path / "carry" / held).exists()
    assert json.loads((tmp_path / "carry/manifest.json").read_text()) == [items[1]]


def test_a_folder_git_would_track_is_refused(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "tools.borrowed.gpu_carry",
                           str(tmp_path / "m.json"), "--folder", "tools/not_ignored_here"],
                          cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "is not ignored by git" in done.stderr
    assert not (root / "tools/not_ignored_here").exists()
