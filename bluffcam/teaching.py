"""Teach the camera: photos of this table's dice that the players confirmed, kept as a
labelled manifest (the shared datasets' format) in ``<data>/teaching/``, and the table's
profile learned again from them and from the reveals a person reviewed
(``bluffcam.adaptation``).

The players roll all their dice in view, the calibration page shows the reading, they
correct it and confirm; after ``MIN_PHOTOS`` or more, the profile is re-learned and the
table reads its next reveals with the new head.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from bluffcam.adaptation import Adapted, adapt_profile

#: the folder under the table's data folder
FOLDER = "teaching"
#: confirmed photos needed before the profile is learned again
MIN_PHOTOS = 3


class TeachingError(ValueError):
    """A confirmation that cannot be kept, or a re-learning that cannot be done (says why)."""


class Teaching:
    """The confirmed photos of one table, in ``folder`` (``manifest.json``, ``photos/``)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.manifest = self.folder / "manifest.json"

    def entries(self) -> list[dict[str, Any]]:
        """The manifest's photos (none where there is no manifest yet)."""
        try:
            raw = json.loads(self.manifest.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            raise TeachingError(f"{self.manifest}: cannot read the taught photos ({exc})") \
                from exc
        return raw if isinstance(raw, list) else []

    def count(self) -> int:
        """How many confirmed photos there are."""
        return len(self.entries())

    def keep(self, frame: NDArray[np.uint8], dice: Sequence[Mapping[str, Any]]) -> int:
        """Keep ``frame`` with the confirmed ``dice`` (each ``{"value": 1..6}``, with ``"x"``,
        ``"y"`` and ``"size"`` in the frame's pixels where the die's place is known); the
        number of photos now. TeachingError names a die that is wrong; nothing is written."""
        labelled = [_labelled(d, k) for k, d in enumerate(dice)]
        if not labelled:
            raise TeachingError("dice: no die confirmed; roll all the dice in view and "
                                "confirm what the photo shows")
        entries = self.entries()
        name = f"photos/taught-{len(entries) + 1:04d}.png"
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        ok, data = cv2.imencode(".png", frame)
        if not ok:
            raise TeachingError("the camera's frame could not be stored as a photo")
        _write_whole(path, data.tobytes())
        height, width = frame.shape[:2]
        entries.append({"image": name, "dice": labelled, "complete": True, "width": width,
                        "height": height, "source": "taught", "subset": "table"})
        _write_whole(self.manifest, json.dumps(entries, indent=1).encode())
        return len(entries)

    def learn(self, profile: Path, reviewed: Sequence[Path] = ()) -> Adapted:
        """The profile at ``profile`` learned again from the taught photos and the
        ``reviewed`` manifests (its settings kept; the file replaced is kept as ``.bak``)."""
        count = self.count()
        if count < MIN_PHOTOS:
            raise TeachingError(f"{count} photo{'s' * (count != 1)} taught: confirm at least "
                                f"{MIN_PHOTOS} before the camera learns this table")
        return adapt_profile([self.manifest, *reviewed], profile, profile)


def _labelled(die: Mapping[str, Any], k: int) -> dict[str, Any]:
    """One confirmed die as a manifest label; TeachingError naming what is wrong with it."""
    if not isinstance(die, Mapping):
        raise TeachingError(f"dice[{k}]: must be an object with a value, got {die!r}")
    value = die.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise TeachingError(f"dice[{k}].value: must be a whole number 1..6, got {value!r}")
    place = [die.get(key) for key in ("x", "y", "size")]
    if all(p is None for p in place):
        return {"value": value, "box": None}
    numbers = [float(p) for p in place
               if isinstance(p, int | float) and not isinstance(p, bool) and math.isfinite(p)]
    if len(numbers) != 3 or numbers[2] <= 0:
        raise TeachingError(f"dice[{k}]: x, y and size must be finite numbers (size above 0) "
                            f"or all left out, got {place!r}")
    x, y, size = numbers
    return {"value": value, "box": [round(x - size / 2, 1), round(y - size / 2, 1),
                                    round(size, 1), round(size, 1)]}


def _write_whole(path: Path, data: bytes) -> None:
    """``data`` written to ``path`` whole or not at all."""
    fd, part = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(part, path)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise

