"""The table's card art for Impus Bluff: one photo per kind, registered from the calibration page.

``GET /api/cards`` lists the registered kinds (and the kinds the current game deals);
``POST /api/cards/<kind>`` registers one photo (multipart ``image``, with the PIN and the
CSRF token like every upload); ``DELETE /api/cards/<kind>`` forgets one. The faces live in
``<data>/cards/`` (`Table.card_art`, a `bluffcam.table.card_reveals.CardArtStore`).
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from engine.cards import DEFAULT_KINDS, POLYMORPH
from vision.card_library import CardRegistrationError
from web.api import decode_image, table
from web.security import Refused, guard_change

bp = Blueprint("cards", __name__, url_prefix="/api/cards")


def _listing() -> dict[str, object]:
    t = table()
    game = t.game
    wanted = (list(game.to_json().get("card_kinds", [])) if game is not None
              and game.reveal_kind == "cards" else [*DEFAULT_KINDS, POLYMORPH])
    registered = t.card_art.kinds()
    return {"registered": registered, "wanted": wanted,
            "missing": [k for k in wanted if k not in registered]}


@bp.get("")
def list_cards() -> Response:
    return jsonify(_listing())


@bp.post("/<kind>")
def register_card(kind: str) -> Response:
    guard_change()
    upload = request.files.get("image")
    if upload is None:
        raise Refused(400, "send the photo as the multipart field 'image'", rule="format")
    photo = decode_image(upload.read())
    try:
        table().card_art.register(kind, photo)
    except CardRegistrationError as exc:
        raise Refused(400, str(exc), rule="cards") from None
    return jsonify(_listing())


@bp.delete("/<kind>")
def delete_card(kind: str) -> Response:
    guard_change()
    try:
        found = table().card_art.delete(kind)
    except CardRegistrationError as exc:
        raise Refused(400, str(exc), rule="cards") from None
    if not found:
        raise Refused(404, f"no card art registered for {kind!r}", rule="cards")
    return jsonify(_listing())
