"""Refitting the table's seat zones from the calibration page, as `bluffcam calibrate` does.

The players put their dice where their cups will stand; ``POST /api/calibration/zones/fit``
(``{"seats": 4}``) reads a few camera frames, fits one zone per seat around the dice
(`bluffcam.zone_fit`) and answers with a picture of the proposal; nothing changes yet.
``POST /api/calibration/zones/apply`` (``{"proposal": id}``) writes it into the running
table's profile file and the table reads the next reveal by it. Only the zones and the table
area change: the file is read again first, so its camera, reader and panel settings stay as
they are in it now (an edit made since the table started included; a file that no longer
loads is not overwritten), and the file replaced is kept as ``<name>.toml.bak``. Both need
the table PIN; neither is taken while a reveal is due (its dice are read by the zones it
began with).
A profile that follows mat markers is refitted with ``bluffcam calibrate --markers``.
"""

from __future__ import annotations

import base64
import dataclasses
import secrets
from typing import Any

from flask import Blueprint, Response, current_app, jsonify
from flask.blueprints import BlueprintSetupState

from bluffcam.profile_wiring import checked_panel
from bluffcam.table import Table
from bluffcam.zone_fit import draw_profile, fit_from_frames, measured_dice
from calibration import ProfileError, load_profile, save_profile
from calibration.fit import FitError
from calibration.profile import backup_of
from web.api import encode_jpeg, json_body, json_object, no_frame, table
from web.security import Refused, guard_change

bp = Blueprint("zones", __name__, url_prefix="/api/calibration/zones")

#: frames read and voted over for a fit (as `bluffcam calibrate`'s default)
FIT_FRAMES = 3
#: where the app keeps the one proposal waiting to be applied
PROPOSAL_KEY = "bluffcam.zone_proposal"
#: the profile's camera and panel settings the running camera and panel were opened with
STARTED_WITH_KEY = "bluffcam.started_with"


@bp.record_once
def _remember_the_start(state: BlueprintSetupState) -> None:
    """The profile's camera and panel settings the running camera and panel were opened with
    (None for the camera where `serve --camera` chose another, or none: the file's camera
    is then not the one in use, and an edit of it needs no restart)."""
    profile = getattr(state.app.extensions.get("bluffcam.table"), "profile", None)
    if profile is None:
        return
    camera = getattr(state.app.extensions["bluffcam.table"].camera, "spec", None)
    state.app.extensions[STARTED_WITH_KEY] = (
        profile.camera if camera == profile.camera else None, dict(profile.panel))


def _refitting_allowed(t: Table) -> Any:
    """The table's profile, if its zones may be refitted now; else a refusal saying why."""
    profile = t.profile
    if profile is None or getattr(profile, "path", None) is None:
        raise Refused(409, "no calibration profile file to refit: start bluffcam serve with "
                           "--profile FILE (bluffcam calibrate makes one)", rule="calibration")
    if profile.markers is not None:
        raise Refused(409, "this profile's zones follow mat markers: refit them with "
                           "bluffcam calibrate --markers", rule="calibration")
    state = t.state()
    if (state["game"] or {}).get("phase") == "reveal" or state["review"] is not None:
        raise Refused(409, "a reveal is due: settle it before moving the zones",
                      rule="calibration")
    return profile


def _check_seats_for_the_game(t: Table, seats: int) -> None:
    """Refuse zones for fewer seats than the dice game on sits its players at (a player at
    seat 3 of a 3-seat table would lose their zone, and the next reveal its camera)."""
    sitting, game = t.seating(), t.game
    if sitting and game is not None and game.kind != "impus" and len(sitting) > seats:
        raise Refused(409, f"the game on seats its players up to seat {len(sitting)}: fit "
                           f"{len(sitting)} seats or more, or start a new game first",
                      rule="calibration")


@bp.post("/fit")
def fit() -> Response:
    guard_change()
    seats = json_object(json_body(), "a fit request").get("seats")
    if not isinstance(seats, int) or isinstance(seats, bool) or not 1 <= seats <= 6:
        raise Refused(400, f"seats: give the number of seats, 1 to 6, got {seats!r}",
                      rule="format")
    t = table()
    profile = _refitting_allowed(t)
    _check_seats_for_the_game(t, seats)
    if t.camera is None:
        raise Refused(503, "no camera: the zones are fitted to the dice the camera sees",
                      rule="camera")
    # one frame at a time, as the snapshot takes it: a camera fault is a refusal, not a crash
    frames = [f for f in (t.snapshot() for _ in range(FIT_FRAMES)) if f is not None]
    if not frames:
        raise no_frame(t)
    names = profile.zones.names if len(profile.zones.names) == seats else None
    try:
        fitted = fit_from_frames(frames, seats, names=names)
    except FitError as exc:
        raise Refused(422, str(exc), rule="calibration") from None
    height, width = fitted.frame.shape[:2]
    proposal = dataclasses.replace(profile, resolution=(width, height),
                                   table_area=fitted.fitted.table_area,
                                   seat_zones=fitted.fitted.zones,
                                   dice=measured_dice(fitted) or profile.dice)
    token = secrets.token_urlsafe(8)
    current_app.extensions[PROPOSAL_KEY] = (token, proposal)
    picture = base64.b64encode(encode_jpeg(draw_profile(fitted.frame, proposal,
                                                        fitted.dice))).decode()
    return jsonify({"proposal": token, "seats": proposal.zones.names, "dice": len(fitted.dice),
                    "image": f"data:image/jpeg;base64,{picture}"})


@bp.post("/apply")
def apply() -> Response:
    guard_change()
    token = json_object(json_body(), "an apply request").get("proposal")
    waiting = current_app.extensions.get(PROPOSAL_KEY)
    if waiting is None or token != waiting[0]:
        raise Refused(409, "no such proposal: fit the zones again", rule="calibration")
    t = table()
    profile = _refitting_allowed(t)
    fitted = waiting[1]
    _check_seats_for_the_game(t, len(fitted.zones.names))
    # the file as it is now, not as the table read it at start: an edit made since (a
    # panel pin, a reader setting) stays, and one half made is not overwritten
    try:
        on_disk = load_profile(profile.path)
        checked_panel(on_disk)
    except ProfileError as exc:
        raise Refused(409, f"{profile.path.name} was changed since the table started and does "
                           f"not load now ({exc}): finish or undo that edit, then use the "
                           "zones again", rule="calibration") from None
    # the camera and the panel were opened with the settings of the table's start: an edit
    # of them since is kept in the file, and takes effect at the next start
    camera_then, panel_then = current_app.extensions.get(STARTED_WITH_KEY, (None, None))
    restart_for = [what for what, now, then in (("camera", on_disk.camera, camera_then),
                                                 ("panel", on_disk.panel, panel_then))
                   if then is not None and now != then]
    updated = dataclasses.replace(on_disk, path=None, resolution=fitted.resolution,
                                  table_area=fitted.table_area, seat_zones=fitted.seat_zones,
                                  dice=fitted.dice)
    backup = backup_of(profile.path)
    kept_before = backup.read_bytes() if backup.is_file() else None
    try:
        refitted = t.rewrite_profile(lambda: load_profile(save_profile(updated, profile.path)))
    except OSError as exc:
        raise Refused(503, f"{profile.path.name} could not be written ({exc}): nothing "
                           "changed, the zones stay as they were", rule="storage") from None
    current_app.extensions.pop(PROPOSAL_KEY, None)
    made = backup.is_file() and backup.read_bytes() != kept_before  # this save kept one
    return jsonify({"saved": str(refitted.path), "seats": refitted.zones.names,
                    "backup": str(backup) if made else None, "restart_for": restart_for})
