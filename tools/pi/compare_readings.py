"""Compare two `bluffcam read` outputs (JSON lines) die by die: the arm64 userland's reading
of the demo frames must give the values this machine gives. Exit 1 on any difference."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

#: positions may differ by float rounding between builds of OpenCV and ONNX Runtime
POSITION_TOLERANCE_PX = 1.0


def _readings(path: Path) -> dict[str, list[dict[str, Any]]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {line["image"]: line["dice"] for line in lines}


def differences(host: Path, other: Path) -> list[str]:
    """One line per image whose dice differ in count, value or place (beyond rounding)."""
    a, b = _readings(host), _readings(other)
    found = [f"{name}: read on one side only" for name in sorted(set(a) ^ set(b))]
    for name in sorted(set(a) & set(b)):
        dice_a, dice_b = a[name], b[name]
        if len(dice_a) != len(dice_b):
            found.append(f"{name}: {len(dice_a)} dice here, {len(dice_b)} there")
            continue
        for die_a, die_b in zip(dice_a, dice_b, strict=True):
            far = max(abs(die_a["x"] - die_b["x"]), abs(die_a["y"] - die_b["y"]))
            if die_a["value"] != die_b["value"] or far > POSITION_TOLERANCE_PX:
                found.append(f"{name}: {die_a} here, {die_b} there")
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: compare_readings.py HOST.jsonl OTHER.jsonl", file=sys.stderr)
        return 2
    host, other = Path(argv[0]), Path(argv[1])
    found = differences(host, other)
    images = len(_readings(host))
    dice = sum(len(d) for d in _readings(host).values())
    for line in found:
        print(line)
    print(f"{images} images, {dice} dice: "
          + ("the same values on both" if not found else f"{len(found)} differences"))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
