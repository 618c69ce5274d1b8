"""The dashboard's HTML pages: board, control, reveal review and calibration.

The pages are thin shells. Each one renders the same state JSON the API serves
(`GET /api/state`, then every SSE `state` event) with a plain JavaScript module from
`web/static/js/`, so the server never renders game state twice and a page never needs
a reload to stay current. Nothing here touches the Table: the JSON API owns that.
"""

from __future__ import annotations

from flask import Blueprint, render_template

#: Assets live under /assets (not /static) so they never collide with the app's own
#: static route, whatever folder the app factory gives the Flask app.
bp = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
               static_url_path="/assets")


@bp.get("/")
def board() -> str:
    """The big screen: bid track, players, odds, history and the last reveal."""
    return render_template("board.html", page="board")


@bp.get("/control")
def control() -> str:
    """The phone: game setup and every action of the current game."""
    return render_template("control.html", page="control")


@bp.get("/setup")
def setup() -> str:
    """Game setup lives on the control page; this opens it on the setup form."""
    return render_template("control.html", page="control", start_with_setup=True)


@bp.get("/review")
@bp.get("/review/<review_id>")
def review(review_id: str | None = None) -> str:
    """Correct an uncertain reading before its verdict applies."""
    return render_template("review.html", page="review", review_id=review_id or "")


@bp.get("/calibration")
def calibration() -> str:
    """A camera snapshot with the seat zones drawn over it, and a test read."""
    return render_template("calibration.html", page="calibration")
