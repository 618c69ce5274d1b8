"""How the camera has done at this table, from its reveal records: how many reveals it read,
how many it applied at once, how many a person reviewed and how many dice they corrected,
and how many verdicts players took back after the camera had been sure (the misreads only
the players caught).

Shown on the calibration page, so that a host knows from their own games, not from a
benchmark of other people's photos, how far to trust the camera at their table.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from bluffcam.table.reveal_store import RevealStore


def corrected_dice(record: Mapping[str, Any]) -> int:
    """Dice a person changed, added or removed between the camera's reading and the applied
    reveal (a die changed from 4 to 1 counts once)."""
    changes = record.get("corrections") or {}
    return sum(max(len(c.get("removed", [])), len(c.get("added", [])))
               for c in changes.values())


def is_dice_record(record: Mapping[str, Any]) -> bool:
    """A dice reveal's record (not an Impus card reveal's)."""
    return isinstance(record.get("read"), Mapping) and "cards" not in (record.get("expected")
                                                                         or {})


def camera_record(records: Iterable[Mapping[str, Any]], unreadable: int = 0) -> dict[str, Any]:
    """The camera's record over dice reveal records, as JSON: ``reveals`` applied (``at_once``
    by the camera, ``reviewed`` after a person confirmed them, ``by_hand`` typed in instead),
    ``waiting`` for review, ``dice`` read in the applied ones, ``corrected`` of those,
    ``reopened``: verdicts taken back after the camera applied them on its own,
    ``unreadable``: records that cannot be read or make no sense (edited by hand), and
    ``since``: the first reveal's time (seconds since the epoch; None: none yet)."""
    counts: Counter[str] = Counter(dict.fromkeys(COUNTS, 0))
    times: list[float] = []
    for record in records:
        try:
            if is_dice_record(record):
                counts.update(_counts(record))
                at = record.get("captured_at")
                if isinstance(at, (int, float)) and math.isfinite(at):
                    times.append(float(at))
        except (AttributeError, KeyError, TypeError, ValueError):
            unreadable += 1
    return {**{k: counts[k] for k in COUNTS}, "unreadable": unreadable,
            "since": min(times, default=None)}


def camera_record_of(store: RevealStore) -> dict[str, Any]:
    """:func:`camera_record` over a store's records, read again only when one was written
    since the last call (`RevealStore.stamp`): 30,000 records took 3.6 s to read on the
    development VM, and slowed the table's actions while they were read."""
    stamp = store.stamp()
    with _KEPT_LOCK:
        kept = _KEPT.get(store.folder)
    if kept is None or kept[0] != stamp:
        records, unreadable = store.scan()
        kept = (stamp, camera_record(records, len(unreadable)))
        with _KEPT_LOCK:
            _KEPT[store.folder] = kept
    return dict(kept[1])


#: the last record of each reveals folder, with the stamp it was read at
_KEPT: dict[Path, tuple[int, dict[str, Any]]] = {}
_KEPT_LOCK = threading.Lock()

#: what :func:`camera_record` counts
COUNTS = ("reveals", "at_once", "reviewed", "by_hand", "waiting", "dice", "corrected",
          "reopened")


def _counts(record: Mapping[str, Any]) -> Counter[str]:
    """One dice reveal record's share of the counts (TypeError and the like where the record
    makes no sense, so that it is counted as unreadable rather than in part)."""
    out: Counter[str] = Counter()
    out["reopened"] = sum(1 for r in record.get("reopened") or []
                          if (r.get("was") or {}).get("how") == "camera")
    status = record.get("status")
    out["waiting"] = int(status == "needs_review")
    if status == "applied":
        out["reveals"] = 1
        out[{"camera": "at_once", "confirmed": "reviewed"}.get(str(record.get("how")),
                                                              "by_hand")] = 1
        out["dice"] = sum(len(dice) for dice in record["read"].values())
        out["corrected"] = corrected_dice(record)
    return out
