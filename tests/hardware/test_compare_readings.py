"""tools/pi/compare_readings.py: the arm64 userland's `bluffcam read` output against this
machine's, die by die."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools.pi.compare_readings import differences


def _write(path: Path, dice: list[dict[str, Any]], image: str = "a.jpg") -> Path:
    path.write_text(json.dumps({"image": image, "dice": dice, "ms": 12.0}) + "\n",
                    encoding="utf-8")
    return path


DIE = {"value": 3, "x": 10.0, "y": 20.0, "confidence": 0.99}


def test_the_same_dice_within_rounding_are_the_same(tmp_path: Path) -> None:
    host = _write(tmp_path / "h.jsonl", [DIE])
    other = _write(tmp_path / "o.jsonl", [dict(DIE, x=10.4, confidence=0.97)])
    assert differences(host, other) == []


def test_a_different_value_count_place_or_image_is_named(tmp_path: Path) -> None:
    host = _write(tmp_path / "h.jsonl", [DIE])
    assert "a.jpg" in differences(host, _write(tmp_path / "v.jsonl", [dict(DIE, value=4)]))[0]
    assert "1 dice here, 2 there" in differences(
        host, _write(tmp_path / "c.jsonl", [DIE, DIE]))[0]
    assert differences(host, _write(tmp_path / "p.jsonl", [dict(DIE, y=25.0)]))
    assert "read on one side only" in differences(
        host, _write(tmp_path / "i.jsonl", [DIE], image="b.jpg"))[0]
