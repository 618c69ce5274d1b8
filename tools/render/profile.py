"""Writes a calibration profile (TOML) for a rendered layout, in calibration/'s format."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _points(poly: list[list[float]]) -> str:
    return "[" + ", ".join(f"[{x:.1f}, {y:.1f}]" for x, y in poly) + "]"


#: the demo's ``[dice]``: the median size the reader gives the rendered dice (its extent) and
#: the classifier's up, as ``bluffcam calibrate`` would measure them on these frames
DEMO_DICE = """\
# this table's dice as its camera sees them: a die's size in pixels (the reader's extent,
# the median of the demo's reveals) and the quarter turn the classifier reads them in
[dice]
size_px = 47.0
up = 0
"""

#: the demo's ``[reader]``: the networks' 8-bit copies read its reveals as the float files do
DEMO_READER = """\
[reader]
# the networks' 8-bit copies: about 1.5 times less CPU a read, and this table's reveals read
# as with the float files (BENCHMARKS.md, "Reading with a table profile")
int8_networks = true
"""


def write_profile(path: Path, layout_px: dict[str, Any], *, frames: Path,
                  resolution: tuple[int, int]) -> None:
    lines = [
        "# The table profile of the recorded demo game (bluffcam/recordings/demo).",
        "# Written by `python -m tools.render demo`: the zones are the rendered layout's",
        "# polygons projected through the same camera that rendered the frames.",
        'name = "demo"',
        "",
        "[camera]",
        f'spec = "files:{frames.as_posix()}"',
        f"resolution = [{resolution[0]}, {resolution[1]}]",
        "",
        "[table]",
        f"area = {_points(layout_px['table'])}",
    ]
    for seat in layout_px["seats"]:
        lines += [
            "",
            "[[seats]]",
            f'name = "{seat["name"]}"',
            f"zone = {_points(seat['zone'])}",
            f"front = {_points(seat['front'])}",
        ]
    lines += ["", DEMO_DICE.rstrip("\n"), "", DEMO_READER.rstrip("\n"), ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
