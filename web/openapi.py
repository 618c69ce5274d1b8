"""An OpenAPI 3.1 description of the JSON API, served at ``GET /api/openapi.json``.

Written by hand from docs/api.md (the contract) so a person, or a fuzzer such as
schemathesis, can see every route, what it takes and every refusal it may answer;
tests/reliability checks that it lists exactly the routes the app has.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

bp = Blueprint("openapi", __name__, url_prefix="/api")

_ERROR = {"$ref": "#/components/schemas/Error"}
_STATE = {"$ref": "#/components/schemas/State"}
_REVEAL_ID = {"name": "reveal_id", "in": "path", "required": True,
              "schema": {"type": "string", "pattern": "^r[0-9]{1,9}$"},
              "description": "a reveal id, r<N>; anything else is 404"}


#: a review's draft (bluffcam/review_drafts.py)
_DRAFT = {"type": "object", "required": ["dice"], "properties": {
    "dice": {"type": "array", "items": {"type": "object", "required": ["seat", "value", "x", "y"],
                                        "properties": {
                                            "seat": {"type": "string"},
                                            "value": {"type": "integer", "minimum": 1,
                                                      "maximum": 6},
                                            "x": {"type": "number"}, "y": {"type": "number"},
                                            "edited": {"type": "boolean"}}}},
    "removed": {"type": "integer", "minimum": 0}}}
_DRAFT_ANSWER = {"type": "object", "required": ["id", "draft"], "properties": {
    "id": {"type": "string"}, "draft": {"oneOf": [_DRAFT, {"type": "null"}]}}}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _reveal_jpeg(summary: str) -> dict[str, Any]:
    """A reveal's JPEG by its id (its marked photo, or the frame unmarked)."""
    return {"get": {"summary": summary, "parameters": [_REVEAL_ID],
                    "responses": {"200": {"description": "JPEG", "content": {"image/jpeg": {
                        "schema": {"type": "string", "format": "binary"}}}},
                                  **_refusals(404)}}}


def _teaching_paths() -> dict[str, Any]:
    """Teach the camera (web/teaching.py)."""
    count = {"type": "integer", "minimum": 0}
    return {
        "/api/calibration/teach": {"get": {
            "summary": "how many photos are taught and how many the camera learned from",
            "responses": {"200": _json({"type": "object", "properties": {
                "photos": count, "needed": count, "learned_from": count}}, "the count")}}},
        "/api/calibration/teach/read": {"post": _change(
            "read a camera frame for teaching: each die's value, place, size and sureness",
            None, answer={"type": "object", "properties": {
                "shot": {"type": "string"}, "dice": {"type": "array"},
                "image": {"type": "string", "description": "a JPEG data URL"}}})},
        "/api/calibration/teach/confirm": {"post": _change(
            "keep the frame read as a labelled photo of this table, with the dice confirmed",
            {"type": "object", "required": ["shot", "dice"], "properties": {
                "shot": {"type": "string"}, "dice": {"type": "array", "items": {
                    "type": "object", "required": ["value"], "properties": {
                        "value": {"type": "integer", "minimum": 1, "maximum": 6},
                        "x": {"type": "number"}, "y": {"type": "number"},
                        "size": {"type": "number"}}}}}},
            answer={"type": "object", "properties": {"photos": count, "needed": count}})},
        "/api/calibration/teach/learn": {"post": _change(
            "learn the table's profile again from the taught photos and the reviewed reveals",
            None, answer={"type": "object", "properties": {
                "learned_from": count, "saved": {"type": "string"}}})},
    }


def _refusals(*codes: int) -> dict[str, Any]:
    meaning = {
        400: "unreadable input (rule \"format\", or the setup's rule id)",
        401: "no table PIN", 403: "wrong PIN, or a cross-site request",
        404: "no such reveal or route", 409: "refused by the rules (rule = RULES.md id) or "
        "by the table (\"table\", \"camera\")", 413: "too large",
        415: "not application/json", 422: "no zones can be fitted to what the camera sees "
        "(too few dice)", 421: "a name this table does not answer to (rule \"host\"): open it "
        "by its address, or allow the name (serve --allow-host)",
        429: "too many wrong PINs, or a test read while another, or a reveal's reading, "
             "runs: wait (Retry-After)",
        503: "no camera frame, the disk refused the write (rule \"storage\"), or too many live "
        "screens open (rule \"busy\"); nothing changed",
    }
    return {str(code): _json(_ERROR, meaning[code]) for code in codes}


_CHANGE = (400, 401, 403, 409, 413, 415, 429, 503)


def _change(summary: str, body: dict[str, Any] | None, *, extra: tuple[int, ...] = (),
            answer: dict[str, Any] | None = None) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "summary": summary,
        "security": [{"tablePin": []}],
        "responses": {"200": _json(answer or _STATE, "the new state"),
                      **_refusals(*sorted(set(_CHANGE) | set(extra)))},
    }
    if body is not None:
        operation["requestBody"] = {"required": True,
                                    "content": {"application/json": {"schema": body}}}
    return operation


def _card_art_paths() -> dict[str, Any]:
    """web/cards.py: the table's card art for Impus (cards confirm as ``{"cards": [kinds]}``)."""
    kind = {"name": "kind", "in": "path", "required": True, "schema": {"type": "string"},
            "description": "a card kind (lowercase name), e.g. orc, imp, polymorph"}
    listing = _json({"type": "object", "properties": {
        "registered": {"type": "array"}, "wanted": {"type": "array"},
        "missing": {"type": "array"}}}, "the registered kinds and those still missing")
    return {
        "/api/cards": {"get": {"summary": "the registered card art", "responses": {
            "200": listing}}},
        "/api/cards/{kind}": {
            "post": {"summary": "register one photo of a card of this kind (multipart `image`)",
                     "security": [{"tablePin": []}, {"csrfToken": []}],
                     "parameters": [kind],
                     "requestBody": {"required": True, "content": {"multipart/form-data": {
                         "schema": {"type": "object", "properties": {
                             "image": {"type": "string", "format": "binary"},
                             "csrf_token": {"type": "string"}, "pin": {"type": "string"}}}}}},
                     "responses": {"200": listing, **_refusals(*_CHANGE)}},
            "delete": {"summary": "forget the card art of this kind", "parameters": [kind],
                       "security": [{"tablePin": []}],
                       "responses": {"200": listing, **_refusals(*_CHANGE, 404)}},
        },
    }


def describe() -> dict[str, Any]:
    """The OpenAPI document (a fresh dict each call)."""
    document = _document()
    for operations in document["paths"].values():  # every route checks the Host first
        for operation in operations.values():
            operation["responses"].update(_refusals(421))
    return document


def _document() -> dict[str, Any]:
    faces = {"type": "integer", "minimum": 1, "maximum": 6}
    return {
        "openapi": "3.1.0",
        "info": {"title": "bluffcam table API", "version": "1",
                 "description": "Read the table's state; change it with the table PIN. Every "
                 "refusal is {\"error\": {\"rule\", \"message\"}} and changes nothing."},
        "servers": [{"url": "/"}],
        "paths": {
            "/api/state": {"get": {"summary": "the dashboard state",
                                   "responses": {"200": _json(_STATE, "the state")}}},
            "/api/events": {"get": {
                "summary": "Server-Sent Events: `event: state` with the whole state on every "
                           "change (`id:` = version), heartbeat comments",
                "responses": {"200": {"description": "an endless event stream",
                                      "content": {"text/event-stream": {
                                          "schema": {"type": "string"}}}},
                              **_refusals(503)}}},
            "/api/game/export": {"get": {
                "summary": "the current game as a replay script",
                "parameters": [{"name": "download", "in": "query", "required": False,
                                "schema": {"type": "string"}}],
                "responses": {"200": _json({"$ref": "#/components/schemas/Script"},
                                           "setup and accepted actions"),
                              **_refusals(409)}}},
            "/api/reveals/{reveal_id}/image": _reveal_jpeg("the annotated photo of a reveal"),
            "/api/reveals/{reveal_id}/photo": _reveal_jpeg(
                "the frame a reveal was read from, without the reading's marks"),
            "/api/camera/snapshot": {"get": {
                "summary": "a fresh camera frame with the seat zones drawn",
                "parameters": [{"name": "zones", "in": "query", "required": False,
                                "schema": {"enum": ["0", "1"]}}],
                "responses": {"200": {"description": "JPEG", "content": {"image/jpeg": {
                    "schema": {"type": "string", "format": "binary"}}}},
                    **_refusals(503)}}},
            "/api/camera/record": {"get": {
                "summary": "how the camera has done at this table, from its reveal records",
                "responses": {"200": _json({
                    "type": "object",
                    "properties": {**{k: {"type": "integer", "minimum": 0} for k in (
                        "reveals", "at_once", "reviewed", "by_hand", "waiting", "dice",
                        "corrected", "reopened", "unreadable")},
                        "since": {"type": ["number", "null"]},
                        "photos": {
                            "type": "object",
                            "properties": {
                                **{k: {"type": "integer", "minimum": 0} for k in (
                                    "reveals", "bytes", "free_bytes", "min_free_bytes")},
                                "budget_bytes": {"type": ["integer", "null"]}},
                            "required": ["reveals", "bytes", "budget_bytes", "free_bytes",
                                         "min_free_bytes"]}},
                    "required": ["reveals", "at_once", "reviewed", "by_hand", "waiting", "dice",
                                 "corrected", "reopened", "unreadable", "since", "photos"]},
                    "the counts, and what the reveal photos take")}}},
            "/api/csrf": {"get": {"summary": "the session's CSRF token for form posts",
                                  "responses": {"200": _json({
                                      "type": "object",
                                      "properties": {"csrf_token": {"type": "string"}},
                                      "required": ["csrf_token"]}, "the token")}}},
            "/api/pin": {"get": {"summary": "the table PIN and the control page's address for a "
                                            "phone, told to the table's own screen only",
                                 "responses": {"200": _json({
                                     "type": "object",
                                     "properties": {"pin": {"type": "string"},
                                                    "control_url": {"type": "string"}}},
                                     "on loopback"), **_refusals(403)}}},
            "/api/join.svg": {"get": {
                "summary": "a QR code of the control page with the PIN in its fragment, told to "
                           "the table's own screen only",
                "responses": {"200": {"description": "SVG", "content": {"image/svg+xml": {
                    "schema": {"type": "string"}}}}, **_refusals(403)}}},
            "/api/openapi.json": {"get": {"summary": "this document",
                                          "responses": {"200": {"description": "OpenAPI"}}}},
            "/api/pin/check": {"post": _change(
                "check a PIN (throttled like every change)", {"type": "object"},
                answer={"type": "object", "properties": {"ok": {"const": True}}})},
            "/api/action": {"post": _change(
                "apply one replay-script action", {"$ref": "#/components/schemas/Action"})},
            "/api/game": {"post": _change(
                "start a new game (a setup, or an exported script with its actions)",
                {"$ref": "#/components/schemas/Script"})},
            "/api/undo": {"post": _change("take back the last action unless it was a reveal "
                                          "(optional body {\"seen\": actions_count}, as for "
                                          "an action)", None)},
            "/api/evening/new": {"post": _change(
                "start tonight's standings (state.evening) afresh: the games that have ended "
                "no longer count", None)},
            "/api/evening/undo": {"post": _change(
                "undo the last \"new evening\" until the next game starts (state.evening_undo);"
                " 409 (rule evening) when there is none", None)},
            "/api/reveal/capture": {"post": _change(
                "read the reveal with the camera: applied when sure, else state.review; 409 "
                "(rule camera) where the camera gave no reading", None)},
            "/api/reveals/{reveal_id}/recapture": {"post": {
                **_change("read a pending review again", None, extra=(404,)),
                "parameters": [_REVEAL_ID]}},
            "/api/reveals/{reveal_id}/confirm": {"post": {
                **_change("apply a person's (maybe corrected) reading of a pending review", {
                    "type": "object", "required": ["seats"],
                    "properties": {"seats": {"type": "object", "additionalProperties": {
                        "type": "array", "items": {"oneOf": [faces, {"type": "string"}, {
                            "type": "object", "properties": {"value": faces},
                            "required": ["value"]}]}}}}}, extra=(404,)),
                "parameters": [_REVEAL_ID]}},
            "/api/reveals/{reveal_id}/draft": {
                "get": {"summary": "the corrections a phone made so far to a pending review "
                                   "(null: none), for a reload or a second phone",
                        "parameters": [_REVEAL_ID],
                        "responses": {"200": _json(_DRAFT_ANSWER, "the draft"),
                                      **_refusals(404)}},
                "post": {**_change("keep the corrections made so far to a pending review: "
                                   "the dice as corrected, with their places in the photo",
                                   _DRAFT, extra=(404,), answer=_DRAFT_ANSWER),
                         "parameters": [_REVEAL_ID]}},
            "/api/reveals/{reveal_id}/reopen": {"post": {
                **_change("take back the verdict of the last round's camera reveal (state.reopen)"
                          " and send its reading to review again", None),
                "parameters": [_REVEAL_ID]}},
            **_card_art_paths(),
            "/api/calibration/zones/fit": {"post": _change(
                "fit the seat zones to the dice on the table: a proposal, nothing changes yet",
                {"type": "object", "required": ["seats"], "properties": {
                    "seats": {"type": "integer", "minimum": 1, "maximum": 6}}},
                extra=(422, 503), answer={"type": "object", "properties": {
                    "proposal": {"type": "string"}, "dice": {"type": "integer"},
                    "seats": {"type": "array", "items": {"type": "string"}},
                    "image": {"type": "string", "description": "a JPEG data URL"}}})},
            "/api/calibration/zones/apply": {"post": _change(
                "write a proposal's zones into the table's profile file and read by them",
                {"type": "object", "required": ["proposal"],
                 "properties": {"proposal": {"type": "string"}}},
                answer={"type": "object", "properties": {
                    "saved": {"type": "string"},
                    "seats": {"type": "array", "items": {"type": "string"}},
                    "backup": {"type": ["string", "null"],
                               "description": "the file replaced, kept as <name>.bak"},
                    "restart_for": {"type": "array", "items": {"enum": ["camera", "panel"]},
                                    "description": "settings edited in the file since the "
                                                   "start, which apply after a restart"}}})},
            "/api/calibration/read": {"post": {
                "summary": "test the reader on an uploaded photo (multipart `image`; at most "
                           "8 MiB and 24 megapixels, JPEG/PNG/BMP/WebP) or the camera",
                "security": [{"csrfToken": []}],
                "requestBody": {"required": False, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "properties": {
                        "image": {"type": "string", "format": "binary"},
                        "csrf_token": {"type": "string"}}}}}},
                "responses": {"200": _json({"type": "object", "properties": {
                    "dice": {"type": "array"}, "values": {"type": "array"},
                    "uncertain": {"type": "integer"},
                    "covered": {"type": "integer"}, "width": {"type": "integer"},
                    "height": {"type": "integer"}, "image": {"type": "string"},
                    "advice": {"type": "array", "items": {
                        "type": "object", "required": ["kind", "message"], "properties": {
                            "kind": {"type": "string", "enum": [
                                "dark", "blown_out", "grainy", "smeared"]},
                            "message": {"type": "string"},
                            "said": {"type": "object", "description":
                                     "the message as {msgid, params[, plural, n]}"}}}}}},
                    "what the reader saw, and what to fix about the picture"),
                    **_refusals(400, 403, 413, 415, 429, 503)}}},
            **_teaching_paths(),
        },
        "components": {
            "securitySchemes": {
                "tablePin": {"type": "apiKey", "in": "header", "name": "X-Table-PIN"},
                "csrfToken": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"},
            },
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {
                    "error": {"type": "object", "required": ["rule", "message"], "properties": {
                        "rule": {"type": "string"}, "message": {"type": "string"}}}}},
                "Action": {
                    "type": "object",
                    "description": "a replay-script action: {\"player\": \"Ann\", \"bid\": "
                                   "\"3x4\"} (optional \"set_aside\": [4, 4] or \"reroll\": "
                                   "true), {\"player\": \"Ben\", \"challenge\": true}, "
                                   "{\"player\": \"Cho\", \"pass\": true}, {\"player\": \"Cho\", "
                                   "\"scam\": true}, {\"reveal\": {\"Ann\": [1, 4, 4]}} "
                                   "and the Impus actions (play/claim, doubt, polymorph, "
                                   "discard)",
                    "properties": {
                        "player": {"type": "string"},
                        "bid": {"type": "string", "pattern": "^[0-9]+(x[1-6]|\\*)$"},
                        "set_aside": {"type": "array", "items": faces},
                        "reroll": {"type": "boolean"},
                        "seen": {"type": "integer", "minimum": 0,
                                 "description": "the state's actions_count on the screen the "
                                                "action was chosen on: refused (409, rule "
                                                "stale) where the game has moved since"},
                        "challenge": {"type": "boolean"},
                        "pass": {"type": "boolean"},
                        "scam": {"type": "boolean"},
                        "dudo": {"type": "boolean"},
                        "calza": {"type": "boolean"},
                        "reveal": {"oneOf": [
                            {"type": "object",
                             "additionalProperties": {"type": "array", "items": faces}},
                            {"type": "array", "items": {"type": "string"}}]},
                    },
                },
                "Script": {"type": "object", "required": ["game", "players"], "properties": {
                    "game": {"enum": ["bluff", "scam", "impus", "perudo"]},
                    "players": {"type": "array", "items": {"type": "string", "minLength": 1}},
                    "starter": {"type": "string"},
                    "options": {"type": "object"},
                    "seats": {"type": "array", "items": {"type": "integer", "minimum": 1},
                              "description": "each player's seat at the table, 1 = the "
                                             "calibration profile's first (docs/api.md, "
                                             "Seats); the table's, not the rules'"},
                    "computer": {"type": "object", "required": ["player"], "properties": {
                        "player": {"type": "string"},
                        "level": {"enum": ["easy", "normal", "hard"]}},
                        "description": "the player the computer plays (Bluff, Scam, Perudo; "
                                       "docs/computer-player.md)"},
                    "actions": {"type": "array",
                                "items": {"$ref": "#/components/schemas/Action"}}}},
                "State": {
                    "type": "object",
                    "description": "the dashboard state (docs/api.md)",
                    "required": ["version", "setup", "game", "legal", "history", "review",
                                 "last_reveal", "camera", "messages", "pin_required",
                                 "actions_count", "undo"],
                    "properties": {
                        "version": {"type": "integer"},
                        "setup": {"type": ["object", "null"]},
                        "game": {"type": ["object", "null"]},
                        "bidder": {"type": ["string", "null"]},
                        "set_aside": {"type": "object"},
                        "legal": {"type": "object"},
                        "board": {"type": ["object", "null"]},
                        "odds": {"type": ["object", "null"]},
                        "history": {"type": "array"},
                        "review": {"type": ["object", "null"]},
                        "last_reveal": {"type": ["object", "null"]},
                        "camera": {"type": "object", "properties": {
                            "spec": {"type": ["string", "null"]},
                            "status": {"type": "string"},
                            "reading": {"type": "boolean", "description": "the camera's "
                                        "frames are being read now (a reveal's, or a "
                                        "re-roll's dice set aside), or a reading waits its turn"},
                            "learned_from": {"type": "integer", "minimum": 0,
                                             "description": "photos of this table the "
                                             "camera's reader learned from (0: none)"}}},
                        "messages": {"type": "array", "items": {"type": "object", "properties": {
                            "level": {"type": "string"}, "text": {"type": "string"},
                            "at": {"type": "number"},
                            "review": {"type": "string", "description": "the pending review "
                                                                        "it announces"},
                            "before_play": {"type": "boolean", "description": "a card game's "
                                            "deal, listed until the first card is played"}}}},
                        "pin_required": {"type": "boolean"},
                        "table_seats": {"type": ["array", "null"],
                                        "items": {"type": "string"}},
                        "actions_count": {"type": "integer"},
                        "game_id": {"type": ["integer", "null"], "description": "the "
                                    "journal's number of the current game"},
                        "undo": {"type": ["object", "null"]},
                        "reopen": {"type": ["string", "null"], "description": "the camera "
                                   "reveal POST /api/reveals/{id}/reopen may send back"},
                        "house_rules": {"type": "array", "items": {"type": "string"},
                                        "description": "the game's chosen variants in words"},
                        "evening": {"type": ["object", "null"], "description": "tonight's "
                                    "standings: games ended and each player's wins and losses",
                                    "properties": {
                            "games": {"type": "integer"},
                            "players": {"type": "array", "items": {"type": "object",
                                "properties": {"name": {"type": "string"},
                                               "wins": {"type": "integer"},
                                               "losses": {"type": "integer"}}}}}},
                    },
                },
            },
        },
    }


@bp.get("/openapi.json")
def openapi_json() -> Response:
    return jsonify(describe())
