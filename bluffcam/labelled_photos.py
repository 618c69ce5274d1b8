"""A table's settled reveals as labelled photos, in the format of the shared datasets'
``manifest.json``, so that ``bluffcam bench-vision`` measures the reader on this table's own
camera, light and dice.

Every applied dice reveal whose unmarked photo was kept is one photo; its labels are the dice
the game was settled with. Where they come from decides what the photo can measure, so each
photo's ``source`` says it:

- ``reviewed``: a person looked. The review page sends each die with its place (the record's
  ``confirmed_dice``), which becomes a box of the die's read size; dice typed in by hand, or
  confirmed by an API client with values alone, have no place (``box`` null: the bench then
  compares the photo's values as a whole).
- ``accepted``: the camera was sure and the verdict stood (nobody reopened it). Its labels are
  the reader's own reading, so on these photos the bench measures the reader against itself
  (a change of reader, not its truth); they are left out unless asked for.

A photo where a die lay outside every seat's zone is marked incomplete: that die is in the
picture but not in the labels.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bluffcam.camera_record import corrected_dice, is_dice_record
from bluffcam.table.reveal_store import REVEAL_ID, RevealStore, pixels

REVIEWED, ACCEPTED = "reviewed", "accepted"
#: where the photos go, beside the manifest
PHOTOS = "photos"


class NotExported(Exception):
    """Why one record gives no labelled photo (a short reason, counted in the summary)."""


@dataclass
class ExportSummary:
    """What an export wrote and what it passed over, and why."""

    photos: Counter[str] = field(default_factory=Counter)
    dice: Counter[str] = field(default_factory=Counter)
    #: dice a person changed, added or removed at review (over the reviewed photos)
    corrected: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    unreadable: list[str] = field(default_factory=list)

    def lines(self, manifest: Path) -> list[str]:
        """The summary in words, for the command's output."""
        total = sum(self.photos.values())
        out = [f"exported {total} photo{'s' * (total != 1)} to {manifest}"]
        if self.photos[REVIEWED]:
            out.append(f"  reviewed: {self.photos[REVIEWED]} photos, {self.dice[REVIEWED]} dice, "
                       f"{self.corrected} of them corrected by a person")
        if self.photos[ACCEPTED]:
            out.append(f"  accepted: {self.photos[ACCEPTED]} photos, {self.dice[ACCEPTED]} dice "
                       "(labelled by the reader itself: they measure a change of reader, not "
                       "its truth)")
        for why, n in sorted(self.skipped.items()):
            out.append(f"  skipped {n}: {why}")
        if self.unreadable:
            out.append(f"  records that cannot be read (skipped): {', '.join(self.unreadable)}")
        if total:
            out.append(f"measure the reader on them: bluffcam bench-vision {manifest}")
        return out


def _pixels(v: Any) -> float:
    """A place in the photo's pixels, or ValueError (a record edited by hand)."""
    where = pixels(v)
    if where is None:
        raise ValueError(f"{v!r} is not a place in pixels")
    return where


def _sizes(read: Mapping[str, Any]) -> list[tuple[float, float, float]]:
    """(x, y, size) of every die the camera read with a size."""
    return [(_pixels(d["x"]), _pixels(d["y"]), _pixels(d["size"]))
            for dice in read.values() for d in dice
            if isinstance(d, Mapping) and (pixels(d.get("size")) or 0) > 0]


def _box(x: float, y: float, read: list[tuple[float, float, float]]) -> list[float] | None:
    """A square box around (x, y): the size of the read die within half its size of there,
    else the median size of the photo's read dice (a die a person added); None where the
    camera read no die with a size."""
    if not read:
        return None
    near = [s for rx, ry, s in read if (rx - x) ** 2 + (ry - y) ** 2 <= (s / 2) ** 2]
    side = near[0] if near else statistics.median(s for _, _, s in read)
    return [round(x - side / 2, 1), round(y - side / 2, 1), round(side, 1), round(side, 1)]


def labels(record: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The photo's source and its labelled dice (``value`` and ``box``) from an applied dice
    reveal's record, or `NotExported` saying why not."""
    if record.get("status") != "applied":
        raise NotExported("not applied (waiting for review, re-captured or discarded)")
    if not is_dice_record(record):
        raise NotExported("not a dice reveal")
    read = record["read"]
    sizes = _sizes(read)
    source = ACCEPTED if record.get("how") == "camera" else REVIEWED
    placed = read if source == ACCEPTED else record.get("confirmed_dice")
    if isinstance(placed, Mapping):
        dice = [{"value": _value(d["value"]), "box": _box(_pixels(d["x"]), _pixels(d["y"]), sizes)}
                for seat in placed.values() for d in seat]
        if all(d["box"] is not None for d in dice):
            return source, dice
    confirmed = record.get("confirmed") or {}
    return source, [{"value": _value(v), "box": None} for seat in confirmed.values() for v in seat]


def _value(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
        raise ValueError(f"{v!r} is not a die value")
    return v


def _entry(record: Mapping[str, Any], store: RevealStore, out: Path,
           with_accepted: bool) -> dict[str, Any]:
    """Copy one record's photo under ``out`` and return its manifest entry."""
    try:
        source, dice = labels(record)
        stray = any(p.get("kind") == "outside_zones" for p in record.get("problems") or [])
        corrected = corrected_dice(record)
        reveal_id = record["id"]
        if not REVEAL_ID.match(reveal_id):
            raise ValueError(f"{reveal_id!r} is not a reveal id")
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
        # OverflowError: a coordinate edited to 1e308 overflows as the box is rounded
        raise NotExported("its record is malformed (edited by hand?)") from None
    if source == ACCEPTED and not with_accepted:
        raise NotExported("applied at once, labelled by the reader itself (--with-accepted)")
    try:  # read once, then decoded and written from memory: a `serve` beside this export
        # may remove old photos (`bluffcam.photo_budget`) between any two looks at the file
        data = store.photo_path(reveal_id).read_bytes()
    except (LookupError, FileNotFoundError):
        raise NotExported("no unmarked photo kept") from None
    except OSError as exc:  # one photo this user may not read: the others are exported
        raise NotExported(f"its photo cannot be read ({exc.strerror or exc})") from None
    try:
        image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_UNCHANGED)
    except cv2.error:  # a header claiming more pixels than OpenCV will allocate
        image = None
    if image is None:
        raise NotExported("its photo cannot be decoded")
    name = f"{PHOTOS}/{reveal_id}.jpg"
    (out / name).write_bytes(data)
    return {"image": name, "dice": dice, "complete": not stray,
            "width": int(image.shape[1]), "height": int(image.shape[0]),
            "source": source, "subset": "table", "reveal": reveal_id, "how": record.get("how"),
            "corrected": corrected}


def export_reveals(reveals: Path, out: Path, *, with_accepted: bool = False) -> ExportSummary:
    """Write ``out/manifest.json`` and ``out/photos/`` from the reveal records in ``reveals``
    (a data folder's ``reveals``); the records are only read."""
    if not reveals.is_dir():
        raise FileNotFoundError(f"{reveals}: no reveals folder (give the --data folder of "
                                "bluffcam serve)")
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out}: not a folder (--out names the folder to write)")
    store = RevealStore(reveals)
    records, unreadable = store.scan()
    (out / PHOTOS).mkdir(parents=True, exist_ok=True)
    summary = ExportSummary(unreadable=unreadable)
    entries = []
    for record in records:
        try:
            entry = _entry(record, store, out, with_accepted)
        except NotExported as why:
            summary.skipped[str(why)] += 1
            continue
        entries.append(entry)
        summary.photos[entry["source"]] += 1
        summary.dice[entry["source"]] += len(entry["dice"])
        summary.corrected += entry["corrected"] if entry["source"] == REVIEWED else 0
    text = json.dumps(entries, indent=1, allow_nan=False)
    (out / "manifest.json").write_text(text + "\n", encoding="utf-8")
    return summary
