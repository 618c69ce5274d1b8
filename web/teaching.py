"""Teach the camera, from the calibration page (``bluffcam.teaching``).

``POST /api/calibration/teach/read`` reads a camera frame and answers with the reading (each
die's value, place, size and whether it is sure) and a ``shot`` id; the players correct the
values and ``POST /api/calibration/teach/confirm`` (``{"shot": id, "dice": [...]}``) keeps
the frame as a labelled photo. With ``MIN_PHOTOS`` or more, ``POST
/api/calibration/teach/learn`` learns the table's profile again from them and from the
reveals a person reviewed, and the table reads its next reveals by it. ``GET
/api/calibration/teach`` says how many photos are kept and how many the camera learned from.
Changes need the table PIN; none is taken while a reveal is due.
"""

from __future__ import annotations

import base64
import secrets
import tempfile
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from bluffcam.learned_count import learned_from
from bluffcam.table import Table
from bluffcam.teaching import FOLDER, MIN_PHOTOS, Teaching, TeachingError
from calibration import ProfileError, load_profile
from web.api import encode_jpeg, json_body, json_object, no_frame, table
from web.security import Refused, guard_change

bp = Blueprint("teaching", __name__, url_prefix="/api/calibration/teach")

#: where the app keeps the one frame read and waiting to be confirmed
SHOT_KEY = "bluffcam.teaching_shot"


def teaching(t: Table) -> Teaching:
    return Teaching(Path(t.data_dir) / FOLDER)


def _profile_file(t: Table) -> Path:
    """The table's profile file, where it may be learned again now; else a refusal."""
    path = getattr(t.profile, "path", None) if t.profile is not None else None
    if path is None:
        raise Refused(409, "no calibration profile file to teach: start bluffcam serve with "
                           "--profile FILE (bluffcam calibrate makes one)", rule="calibration")
    state = t.state()
    if (state["game"] or {}).get("phase") == "reveal" or state["review"] is not None:
        raise Refused(409, "a reveal is due: settle it before teaching the camera",
                      rule="calibration")
    return Path(path)


@bp.get("")
def status() -> Response:
    t = table()
    try:
        photos = teaching(t).count()
    except TeachingError:
        photos = 0
    return jsonify({"photos": photos, "needed": MIN_PHOTOS,
                    "learned_from": learned_from(t.profile)})


@bp.post("/read")
def read() -> Response:
    guard_change()
    t = table()
    _profile_file(t)
    profile = t.profile
    assert profile is not None  # _profile_file refuses a table without one
    if t.camera is None:
        raise Refused(503, "no camera: the camera is taught on what it sees", rule="camera")
    frame = t.snapshot()
    if frame is None:
        raise no_frame(t)
    from vision import draw_reading, read_dice

    reading = read_dice(frame, profile.reader_params)
    token = secrets.token_urlsafe(8)
    current_app.extensions[SHOT_KEY] = (token, frame)
    picture = base64.b64encode(encode_jpeg(draw_reading(frame, reading))).decode()
    return jsonify({
        "shot": token,
        "dice": [{**d.to_json(), "size": round(d.side_px, 1),
                  "sure": d.confidence >= reading.min_confidence} for d in reading.dice],
        "image": f"data:image/jpeg;base64,{picture}",
    })


@bp.post("/confirm")
def confirm() -> Response:
    guard_change()
    body = json_object(json_body(), "a confirmation")
    waiting = current_app.extensions.get(SHOT_KEY)
    if waiting is None or body.get("shot") != waiting[0]:
        raise Refused(409, "no such shot: read the dice again", rule="calibration")
    dice = body.get("dice")
    if not isinstance(dice, list):
        raise Refused(400, f"dice: give the list of dice the photo shows, got {dice!r}",
                      rule="format")
    t = table()
    _profile_file(t)
    try:
        photos = teaching(t).keep(waiting[1], dice)
    except TeachingError as exc:
        raise Refused(400, str(exc), rule="format") from None
    except OSError as exc:
        raise Refused(503, f"the photo could not be kept ({exc})", rule="storage") from None
    current_app.extensions.pop(SHOT_KEY, None)
    return jsonify({"photos": photos, "needed": MIN_PHOTOS})


@bp.post("/learn")
def learn() -> Response:
    guard_change()
    t = table()
    path = _profile_file(t)
    taught = teaching(t)
    with tempfile.TemporaryDirectory() as folder:
        reviewed = _reviewed_photos(t, Path(folder))
        try:
            adapted = t.rewrite_profile(
                lambda: _learned(taught, path, reviewed))
        except TeachingError as exc:
            raise Refused(409, str(exc), rule="calibration") from None
        except (ValueError, ProfileError) as exc:
            raise Refused(409, f"the camera could not learn this table: {exc}",
                          rule="calibration") from None
        except OSError as exc:
            raise Refused(503, f"{path.name} could not be written ({exc}): nothing changed",
                          rule="storage") from None
    return jsonify({"learned_from": learned_from(adapted), "saved": str(path)})


def _learned(taught: Teaching, path: Path, reviewed: list[Path]) -> Any:
    taught.learn(path, reviewed)
    return load_profile(path)


def _reviewed_photos(t: Table, folder: Path) -> list[Path]:
    """The reveals a person reviewed, as a manifest in ``folder`` (none where there are
    none, or they cannot be read)."""
    from bluffcam.reveal_export import export_reveals

    try:
        summary = export_reveals(Path(t.data_dir) / "reveals", folder)
    except OSError:
        return []
    return [folder / "manifest.json"] if sum(summary.photos.values()) else []
