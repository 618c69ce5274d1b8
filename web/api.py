"""The JSON API: read the table's state, and change it (with the table PIN).

Every refusal is ``{"error": {"rule": ..., "message": ...}}`` with a 4xx status, and the
table is unchanged: 400 unreadable input, 401/403/429 PIN, 404 unknown thing, 409 an action
the rules (or the table) refuse now, 413 too large, 415 not JSON. A bug is a JSON 500 (rule
``internal``) too, its traceback in the server's log.
"""

from __future__ import annotations

import base64
import json
import threading
from typing import Any

import cv2
import numpy as np
from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    send_file,
)
from werkzeug.exceptions import ClientDisconnected, HTTPException, InternalServerError

from bluffcam.camera_record import camera_record_of
from bluffcam.photo_budget import MB, photo_usage
from bluffcam.table import Table, TableError
from bluffcam.table.reveal_store import UnknownRevealError, UnreadableRevealError
from engine import EngineError, SetupError
from engine.words import Said
from web.i18n import gettext as _
from web.join import control_url, join_qr_svg, lan_address
from web.security import Refused, csrf_token, guard_change, is_loopback

bp = Blueprint("api", __name__, url_prefix="/api")

#: JPEG quality of snapshots and test reads sent to the calibration page
JPEG_QUALITY = 85
#: uploads declaring more pixels are refused before decoding (a decompression bomb: a 1 MB
#: PNG can declare 20000 x 20000 and take gigabytes); 24 MP is twice a Pi HQ camera's photo
MAX_UPLOAD_PIXELS = 24_000_000
#: where the app keeps the lock that lets one calibration read run at a time
CALIBRATION_READ_KEY = "bluffcam.calibration_read"


def table() -> Table:
    found: Table = current_app.extensions["bluffcam.table"]
    return found


def json_body(*, required: bool = True) -> Any:
    """The request's JSON value; refuse unreadable JSON with a message that says so."""
    data = request.get_data(cache=True)
    if not data:
        if required:
            raise Refused(400, "empty body: send a JSON object", rule="format")
        return {}
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(data) >= limit:
        # a chunked body is read up to the limit and no further: what came is not all of it
        raise Refused(413, f"the body is too large (limit {limit // 1024} KiB)", rule="format")
    if request.mimetype != "application/json":
        raise Refused(415, f"send JSON with Content-Type: application/json "
                           f"(got {request.mimetype!r})", rule="format")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(400, f"body is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset "
                           f"{exc.start}", rule="format") from None
    try:
        value = json.loads(text)
        # "\ud800" is valid JSON but no text: it could be neither journaled nor shown
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        return value
    except UnicodeEncodeError as exc:
        raise Refused(400, f"body holds {exc.object[exc.start:exc.end]!a}, half of a UTF-16 "
                           "pair, which is not text", rule="format") from None
    except ValueError as exc:
        where = (f" at line {exc.lineno} column {exc.colno}"
                 if isinstance(exc, json.JSONDecodeError) else "")
        message = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise Refused(400, f"body is not valid JSON: {message}{where}", rule="format") from None
    except RecursionError:
        raise Refused(400, "body is nested too deeply to be an action", rule="format") from None


def json_object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Refused(400, f"{what} must be a JSON object, not {type(value).__name__}",
                      rule="format")
    return value


# ---------------------------------------------------------------------- reading


@bp.get("/state")
def state() -> Response:
    return jsonify(table().state())


@bp.get("/game/export")
def export() -> Response:
    script = table().export()
    response = jsonify(script)
    if request.args.get("download"):
        response.headers["Content-Disposition"] = 'attachment; filename="bluffcam-game.json"'
    return response


@bp.get("/reveals/<reveal_id>/image")
def reveal_image(reveal_id: str) -> Response:
    path = table().reveal_image(reveal_id)
    return send_file(path, mimetype="image/jpeg", max_age=3600)


@bp.get("/reveals/<reveal_id>/photo")
def reveal_photo(reveal_id: str) -> Response:
    """The frame a reveal was read from, unmarked (the review page's close-ups)."""
    path = table().reveal_photo(reveal_id)
    return send_file(path, mimetype="image/jpeg", max_age=3600)


@bp.get("/camera/snapshot")
def camera_snapshot() -> Response:
    """A fresh frame, with the profile's seat zones drawn unless ``?zones=0``."""
    t = table()
    frame = t.snapshot()
    if frame is None:
        raise no_frame(t)
    if request.args.get("zones", "1") != "0" and t.profile is not None:
        frame = with_zones(frame, t)
    return Response(encode_jpeg(frame), mimetype="image/jpeg",
                    headers={"Cache-Control": "no-store"})


@bp.get("/camera/record")
def camera_record_json() -> Response:
    """How the camera has done at this table: its reveals applied at once, reviewed and
    corrected, and its verdicts players took back (``bluffcam.camera_record``)."""
    store = table().reveals
    budget_mb = current_app.config.get("PHOTO_BUDGET_MB")
    return jsonify({**camera_record_of(store), "photos": photo_usage(store.folder).to_json(
        None if budget_mb is None else int(budget_mb) * MB)})


@bp.get("/csrf")
def csrf() -> Response:
    """The session's CSRF token, for pages that post forms (uploads)."""
    return jsonify({"csrf_token": csrf_token()})


@bp.get("/pin")
def pin() -> Response:
    """The table PIN and the control page's address for a phone, told only to a browser on
    this machine (the board on the TV)."""
    _only_the_tables_screen()
    return jsonify({"pin": current_app.extensions["bluffcam.pin"].pin,
                    "control_url": _control_url(),
                    "phones_can_join": bool(current_app.config["PHONES_CAN_JOIN"])})


@bp.get("/join.svg")
def join_qr() -> Response:
    """A QR code a phone scans to open the control page, unlocked (``web.join``): it carries
    the PIN, so like the PIN it is told only to the table's own screen."""
    _only_the_tables_screen()
    return Response(join_qr_svg(_control_url(), current_app.extensions["bluffcam.pin"].pin),
                    mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


def _control_url() -> str:
    """Where a phone opens the control page: the LAN address only where phones can reach it."""
    reachable = bool(current_app.config["PHONES_CAN_JOIN"])
    return control_url(request.host_url, lan_address() if reachable else None)


def _only_the_tables_screen() -> None:
    if not is_loopback():
        raise Refused(403, "the PIN is shown on the table's own screen only", rule="pin")


# ---------------------------------------------------------------------- changing


def _no_broken_body() -> None:
    """A request that needs no body may come without one, or with a JSON one, but not with
    a broken one: that is a client gone wrong, and it should hear so rather than be obeyed."""
    json_body(required=False)


def _seen(value: Any) -> int | None:
    """``seen`` of an action or undo: the ``actions_count`` of the screen it was chosen on."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Refused(400, f'"seen" must be the actions_count the screen showed (0, 1, ...), '
                           f"got {json.dumps(value)}", rule="format")
    return value


@bp.post("/pin/check")
def pin_check() -> Response:
    """Lets the control page verify a PIN before storing it (throttled like any change)."""
    guard_change()
    _no_broken_body()
    return jsonify({"ok": True})


@bp.post("/action")
def action() -> Response:
    guard_change()
    body = json_object(json_body(), "an action")
    source = str(request.headers.get("X-Source", "web"))[:20]
    seen = _seen(body.pop("seen", None))
    return jsonify(table().submit(body, source=source, seen=seen))


@bp.post("/game")
def new_game() -> Response:
    guard_change()
    body = json_object(json_body(), "a game setup")
    return jsonify(table().new_game(body))


@bp.post("/undo")
def undo() -> Response:
    guard_change()
    body = json_body(required=False)
    seen = _seen(body.get("seen")) if isinstance(body, dict) else None
    return jsonify(table().undo(seen=seen))


@bp.post("/evening/new")
def new_evening() -> Response:
    """Start tonight's standings afresh (a new group at the table)."""
    guard_change()
    _no_broken_body()
    return jsonify(table().new_evening())


@bp.post("/evening/undo")
def undo_new_evening() -> Response:
    """Bring back the standings "New evening" cleared, until the next game starts."""
    guard_change()
    _no_broken_body()
    return jsonify(table().bring_back_evening())


@bp.post("/reveal/capture")
def capture() -> Response:
    guard_change()
    _no_broken_body()
    return jsonify(table().capture_reveal())


@bp.post("/reveals/<reveal_id>/recapture")
def recapture(reveal_id: str) -> Response:
    guard_change()
    _no_broken_body()
    t = table()
    review = t.review
    if review is None or review.id != reveal_id:
        raise TableError(f"no pending review {reveal_id!r} to re-capture", status=404)
    return jsonify(t.capture_reveal(replacing=reveal_id))


@bp.post("/reveals/<reveal_id>/confirm")
def confirm(reveal_id: str) -> Response:
    guard_change()
    body = json_object(json_body(), "a confirmation")
    if "seats" not in body:
        raise Refused(400, "send {\"seats\": {\"Ann\": [1, 4, 4], ...}}: the confirmed dice",
                      rule="format")
    return jsonify(table().confirm_review(reveal_id, body["seats"]))


@bp.post("/reveals/<reveal_id>/reopen")
def reopen(reveal_id: str) -> Response:
    """Send the last round's camera reveal back to review: its verdict is taken back."""
    guard_change()
    _no_broken_body()
    return jsonify(table().reopen_reveal(reveal_id))


@bp.post("/calibration/read")
def calibration_read() -> Response:
    """Test the reader on an uploaded photo (multipart ``image``) or, without one, the camera;
    one at a time (a 24-megapixel photo takes some 200 MB while it is read, and this needs
    no PIN: a dozen at once took a Pi's memory)."""
    guard_change(pin=False)
    if table().camera_reading:  # a reveal waits on that reading: it has the board's CPU
        raise Refused(429, "the camera is reading the table's dice: test again in a moment",
                      rule="busy", headers={"Retry-After": "2"})
    reading_one = current_app.extensions.setdefault(CALIBRATION_READ_KEY, threading.Lock())
    if not reading_one.acquire(blocking=False):
        raise Refused(429, "the reader is busy with another photo: try again in a moment",
                      rule="busy", headers={"Retry-After": "2"})
    try:
        return _read_for_calibration()
    finally:
        reading_one.release()


def _read_for_calibration() -> Response:
    t = table()
    upload = request.files.get("image")
    if upload is None and request.mimetype == "multipart/form-data":
        # an upload that names no "image" part, or was cut short, is not a request to read
        # the camera instead
        raise Refused(400, "the upload has no complete \"image\" part: choose a photo",
                      rule="format")
    if upload is not None:
        frame = decode_image(upload.read())
    else:
        frame = t.snapshot()
        if frame is None:
            raise no_frame(t)
    from vision import ReaderParams, draw_reading, read_dice
    from vision.cover_check import doubted
    from vision.frame_check import frame_advice

    params = t.profile.reader_params if t.profile is not None else ReaderParams()
    reading = read_dice(frame, params)
    advice = frame_advice(frame, reading, params)
    covered = sum(doubted(frame, [(d.x, d.y, d.side_px) for d in reading.sure],
                          params.cover_doubt_odds))
    annotated = draw_reading(frame, reading)
    if t.profile is not None:
        annotated = with_zones(annotated, t)
    image = base64.b64encode(encode_jpeg(annotated)).decode()
    return jsonify({
        "dice": reading.to_json(),
        "values": reading.values,
        "uncertain": len(reading.uncertain),
        # sure dice with something over part of them: a reveal would send them to review
        "covered": covered,
        "advice": [a.to_json() for a in advice],
        "width": reading.width,
        "height": reading.height,
        "image": f"data:image/jpeg;base64,{image}",
    })


# ---------------------------------------------------------------------- images


def decode_image(data: bytes) -> Any:
    """Decode an uploaded image, or refuse it: it must really be an image."""
    if not data:
        raise Refused(400, "the upload is empty: choose a photo", rule="format")
    from vision import io as vision_io  # lazily, like the reader below

    size = vision_io.declared_size(data)
    if size is None:
        raise Refused(400, "the upload is not an image this server can decode "
                           "(JPEG, PNG, BMP, WebP)", rule="format")
    if size[0] <= 0 or size[1] <= 0:
        raise Refused(400, f"the upload is not a valid image: its header declares {size[0]} x "
                           f"{size[1]} pixels", rule="format")
    if size[0] * size[1] > MAX_UPLOAD_PIXELS:
        raise Refused(413, f"the image declares {size[0]} x {size[1]} pixels; at most "
                           f"{MAX_UPLOAD_PIXELS // 1_000_000} megapixels are read",
                      rule="format")
    try:
        frame = vision_io.decode_image(np.frombuffer(data, dtype=np.uint8))
    except cv2.error:
        frame = None
    if frame is None:
        raise Refused(400, "the upload is not an image this server can decode "
                           "(JPEG, PNG, BMP, WebP)", rule="format")
    return frame


def no_frame(t: Table) -> Refused:
    """The refusal when the camera gives no frame, with its status where that says why (a
    camera that reports "ok" yet gives nothing, e.g. between the demo's recorded scenes)."""
    status = t.camera_status()
    why = "the camera gave none; try again" if status == "ok" else status
    return Refused(503, f"no camera frame: {why}", rule="camera")


def encode_jpeg(frame: Any) -> bytes:
    ok, buffer = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise Refused(500, "could not encode the image as JPEG", rule="camera")
    return bytes(buffer.tobytes())


def with_zones(frame: Any, t: Table) -> Any:
    """The table profile's seat zones (and front-of-cup areas) over a copy of the frame, in
    the colours of the reveal photos, each labelled with the player who sits there while a
    game is on (as on the reveal photos), else with the seat's name."""
    from vision.reveal import draw_zones, seat_labels

    out = frame.copy()
    if t.profile is None:
        return out
    try:
        zones = t.profile.zones_for_frame(frame)
    except Exception:
        return out
    seating = t.seating()
    if seating is None:
        draw_zones(out, zones, zones.names)
        return out
    game = t.game.to_json() if t.game is not None else {}
    gone = [p["name"] for p in game.get("players", []) if p.get("out")]
    draw_zones(out, zones, seat_labels(zones, seating, out=gone))
    return out


# ---------------------------------------------------------------------- errors


def error_response(status: int, rule: str, message: str,
                   headers: dict[str, str] | None = None,
                   said: Said | None = None) -> tuple[Response, int]:
    body: dict[str, Any] = {"rule": rule, "message": message}
    if said is not None:  # the page says it in its language (web/static/js/i18n.js)
        body["said"] = said.to_json()
    response = jsonify({"error": body})
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response, status


def error_page(status: int, title: str, text: str) -> tuple[str, int]:
    """A page that is not there, or failed, in the dashboard's look with the way back
    (werkzeug's plain page has neither)."""
    return render_template("error.html", page="error", title=title, text=text), status


#: what a client is told whose body stopped short of its Content-Length (or of its last chunk)
TORN_BODY = ("the request's body did not arrive whole (the connection ended before the length "
             "it announced was sent, or a chunk of it was malformed): nothing was changed; "
             "send the request again")


def _kept_headers(error: HTTPException) -> dict[str, str]:
    """The headers an HTTP error must carry whatever its body (a 405's Allow, a 429's or
    503's Retry-After)."""
    keep = {"allow", "retry-after", "www-authenticate"}
    return {k: v for k, v in error.get_headers() if k.lower() in keep}


def register_error_handlers(app: Flask) -> None:
    def _refused(error: Refused) -> tuple[Response, int]:
        return error_response(error.status, error.rule, error.message, error.headers)

    def _table_error(error: TableError) -> tuple[Response, int]:
        return error_response(error.status, error.rule, error.message, said=error.said)

    def _engine_error(error: EngineError) -> tuple[Response, int]:
        status = 400 if error.rule == "format" or isinstance(error, SetupError) else 409
        return error_response(status, error.rule, error.message, said=error.said)

    def _unknown_reveal(error: UnknownRevealError) -> tuple[Response, int]:
        return error_response(404, "reveal", str(error))

    def _unreadable_reveal(error: UnreadableRevealError) -> tuple[Response, int]:
        return error_response(409, "reveal", str(error))  # it exists, damaged: not a 404

    def _too_large(error: Exception) -> tuple[Response, int]:
        limit = int(app.config.get("MAX_CONTENT_LENGTH") or 0)
        return error_response(413, "format", f"the upload is too large (limit {limit // 1024} KiB)")

    def _http(error: HTTPException) -> Any:
        if request.path.startswith("/api/") and error.code is not None:
            if isinstance(error, ClientDisconnected):
                return error_response(400, "format", TORN_BODY)
            return error_response(error.code, "http", str(error.description),
                                  _kept_headers(error))
        if error.code == 404:
            return error_page(404, _("Page not found"),
                              _("There is no page at {path}: open one of the table's pages "
                                "instead.").format(path=request.path))
        if error.code == 405:
            page, status = error_page(405, _("Not opened like that"),
                                      _("{path} is not opened with {method}: follow a link to "
                                        "it instead.").format(path=request.path,
                                                              method=request.method))
            # the methods it is opened with, as a 405 must say (werkzeug's own page did)
            return page, status, {"Allow": ", ".join(getattr(error, "valid_methods", None) or [])}
        return error

    def _unexpected(error: InternalServerError) -> Any:
        # Flask has logged the traceback already; the journal holds every accepted action,
        # so a reload shows the table as it is
        if request.path.startswith("/api/"):
            return error_response(500, "internal", "the table hit an unexpected error (its "
                                  "details are in the server's log): reload to see the "
                                  "table as it is")
        return error_page(500, _("Something went wrong"),
                          _("The table hit an unexpected error drawing this page (its details "
                          "are in the server's log). The game is kept in the journal: "
                          "reload, or open the board."))

    app.register_error_handler(Refused, _refused)
    app.register_error_handler(TableError, _table_error)
    app.register_error_handler(EngineError, _engine_error)
    app.register_error_handler(UnknownRevealError, _unknown_reveal)
    app.register_error_handler(UnreadableRevealError, _unreadable_reveal)
    app.register_error_handler(413, _too_large)
    # every other HTTP error too (a body that never fully arrived, a malformed chunk): under
    # /api/ each answers in the API's form; a page keeps werkzeug's own
    app.register_error_handler(HTTPException, _http)
    app.register_error_handler(InternalServerError, _unexpected)
