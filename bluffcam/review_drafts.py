"""A review's corrections in progress, kept on the server with the review.

The review page corrects a reading die by die before it confirms. Kept only in the phone,
those corrections were lost to a reload, to the trip to the control page to enter the PIN,
and a second phone never saw them. Here they are kept with the table (one small JSON file a
review, beside the journal), so any phone that opens the review starts from them; a draft
is only ever for the review that waits now, and goes with it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, TypeGuard

from bluffcam.table_error import TableError

#: a draft names at most this many dice (six players' five dice, with room for strays)
MAX_DRAFT_DICE = 64


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_draft(body: Any, seats: Collection[str]) -> dict[str, Any]:
    """The draft in ``body`` (``{"dice": [{"seat", "value", "x", "y", "edited"}], "removed"}``)
    checked against the review's ``seats``; a `TableError` (400) naming what is wrong."""
    def refuse(message: str) -> TableError:
        return TableError(f"a review draft: {message}", rule="format", status=400)

    if not isinstance(body, Mapping):
        raise refuse('send {"dice": [{"seat": "Ann", "value": 4, "x": 120, "y": 80}], '
                     '"removed": 0}')
    dice = body.get("dice")
    if not isinstance(dice, list):
        raise refuse('"dice" must be a list of dice')
    if len(dice) > MAX_DRAFT_DICE:
        raise refuse(f"{len(dice)} dice is more than a table holds ({MAX_DRAFT_DICE})")
    checked = []
    for index, die in enumerate(dice):
        if not isinstance(die, Mapping):
            raise refuse(f"die {index + 1} must be an object")
        seat, value = die.get("seat"), die.get("value")
        if seat not in seats:
            raise refuse(f"die {index + 1}: unknown seat {seat!r}; the reveal is for "
                         f"{sorted(seats)}")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise refuse(f"die {index + 1}: {value!r} is not a die value 1–6")
        x, y = die.get("x"), die.get("y")
        if not (_is_number(x) and _is_number(y)):
            raise refuse(f"die {index + 1}: \"x\" and \"y\" must be numbers (photo pixels)")
        checked.append({"seat": seat, "value": value, "x": float(x), "y": float(y),
                        "edited": die.get("edited") is True})
    removed = body.get("removed", 0)
    if isinstance(removed, bool) or not isinstance(removed, int) or removed < 0:
        raise refuse(f'"removed" must be a count of dice taken out (0 or more), got {removed!r}')
    return {"dice": checked, "removed": removed}


class ReviewDrafts:
    """The drafts of the reviews, one JSON file each in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._lock = threading.Lock()

    def _path(self, review_id: str) -> Path:
        return self.folder / f"{review_id}.json"

    def get(self, review_id: str) -> dict[str, Any] | None:
        """The draft kept for ``review_id``, or None (none kept, or one unreadable)."""
        with self._lock:
            try:
                found = json.loads(self._path(review_id).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
        return found if isinstance(found, dict) else None

    def put(self, review_id: str, draft: dict[str, Any]) -> dict[str, Any]:
        """Keep ``draft`` (already checked) for ``review_id``; a draft of any other review
        goes: only the review that waits now has one."""
        kept = {**draft, "id": review_id, "saved_at": round(time.time(), 3)}
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            for old in self.folder.glob("*.json"):
                if old.name != f"{review_id}.json":
                    old.unlink(missing_ok=True)
            temporary = self._path(review_id).with_suffix(".tmp")
            temporary.write_text(json.dumps(kept), encoding="utf-8")
            temporary.replace(self._path(review_id))
        return kept


__all__ = ["ReviewDrafts", "check_draft", "MAX_DRAFT_DICE"]
