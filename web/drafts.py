"""A pending review's draft: the corrections a phone has made so far, kept on the server so
that a reload, a second phone, or the trip to enter the PIN starts from them
(`bluffcam.review_drafts`)."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify

from bluffcam.review_drafts import ReviewDrafts, check_draft
from bluffcam.table import Table, TableError
from web.api import json_body, table
from web.security import guard_change

bp = Blueprint("drafts", __name__, url_prefix="/api")

#: where the app keeps its `ReviewDrafts`
DRAFTS_KEY = "bluffcam.review_drafts"


def drafts() -> ReviewDrafts:
    found = current_app.extensions.get(DRAFTS_KEY)
    if found is None:
        found = ReviewDrafts(Path(table().data_dir) / "review-drafts")
        current_app.extensions[DRAFTS_KEY] = found
    return found


def _pending(t: Table, reveal_id: str) -> list[str]:
    """The seats of the review ``reveal_id`` if it is the one that waits; else a 404."""
    review = t.review
    if review is None or review.id != reveal_id:
        raise TableError(f"no pending review {reveal_id!r}: its draft went with it", status=404)
    return sorted({*review.seats, *review.expected})


@bp.get("/reveals/<reveal_id>/draft")
def get_draft(reveal_id: str) -> Response:
    _pending(table(), reveal_id)
    return jsonify({"id": reveal_id, "draft": drafts().get(reveal_id)})


@bp.post("/reveals/<reveal_id>/draft")
def put_draft(reveal_id: str) -> Response:
    guard_change()
    seats = _pending(table(), reveal_id)
    draft = check_draft(json_body(), seats)
    return jsonify({"id": reveal_id, "draft": drafts().put(reveal_id, draft)})
