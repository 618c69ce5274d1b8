"""`bluffcam calibrate`: grab a frame, fit the seat zones around the players' dice, write a profile.

Players put their dice where their cups will stand; the dice are read, grouped into one
cluster per seat, and each seat gets a sector of the table (the cup's area, and in front of
it the area for set-aside dice). With ``--markers`` (ArUco markers at the mat's corners) the
zones are stored in mat coordinates, so they follow the mat when the camera is bumped.
An annotated PNG is written beside the profile: check it before playing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bluffcam.zone_fit import DEFAULT_MARKER_DICT, draw_profile, fit_from_frames, measured_dice
from calibration import MarkerConfig, Profile, ProfileError, load_profile, save_profile
from calibration.fit import FitError
from calibration.geometry import Polygon, apply_homography, homography_from_points
from calibration.markers import quad_centre
from hardware.cameras import CameraError, open_camera, parse_resolution
from vision import Reading
from vision.io import write_image

DEFAULT_MARKER_IDS = (0, 1, 2, 3)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--camera", required=True, help="camera spec, e.g. picamera2, opencv:0, files:DIR"
    )
    parser.add_argument("--seats", type=int, required=True, help="number of seats (1-6)")
    parser.add_argument(
        "--out", required=True, type=Path, help="profile to write, e.g. calibration/mytable.toml"
    )
    parser.add_argument("--name", help="profile name (default: the file name)")
    parser.add_argument("--names", help="seat names, comma separated, clockwise from the bottom")
    parser.add_argument("--resolution", help="ask the camera for WxH (e.g. 2028x1520)")
    parser.add_argument(
        "--frames", type=int, default=3, help="frames to read and vote over (default 3)"
    )
    parser.add_argument(
        "--markers", action="store_true", help="use ArUco markers at the mat's corners"
    )
    parser.add_argument(
        "--marker-dict", default=DEFAULT_MARKER_DICT,
        help=f"ArUco dictionary (default {DEFAULT_MARKER_DICT})"
    )
    parser.add_argument(
        "--marker-ids",
        default="0,1,2,3",
        help="ids at the mat's top-left, top-right, bottom-right, bottom-left",
    )
    parser.add_argument(
        "--mat-size", default="600x400", help="marker centre spacing in mm, WxH (default 600x400)"
    )


def run(args: argparse.Namespace) -> int:
    try:
        profile, frame, dice, reading = calibrate(args)
        path = save_profile(profile, args.out)  # checks the profile again (ProfileError)
    except (CameraError, FitError, ValueError) as exc:
        print(f"calibrate: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the camera's faults are CameraErrors: this is the writing
        print(f"calibrate: cannot write the profile {args.out}: {exc}", file=sys.stderr)
        return 2
    picture = path.with_suffix(".png")
    if not write_image(picture, draw_profile(frame, profile, dice)):
        print(f"calibrate: could not write the picture {picture}; the profile is written",
              file=sys.stderr)
        print(f"wrote {path} ({len(profile.seat_zones)} seats, {len(dice)} dice)")
    else:
        print(f"wrote {path} ({len(profile.seat_zones)} seats, {len(dice)} dice) and {picture}")
    if profile.dice is not None:
        print(f"the dice are {profile.dice.size_px:.0f} px across: the reader reads this "
              "table at that scale ([dice])")
    if profile.reader or profile.panel:
        print("kept the [reader] and [panel] settings of the profile it replaces")
    if profile.lens_position:
        print(f"the lens focused at {profile.lens_position:.2f} dioptres (about "
              f"{100 / profile.lens_position:.0f} cm); serve sets it there at every start")
    print("check the picture: every die should sit in its seat's zone; edit the TOML to adjust")
    from vision.frame_check import frame_advice

    for advice in frame_advice(frame, reading):
        print(f"the camera's picture: {advice.message}")
    return 0


def calibrate(
    args: argparse.Namespace,
) -> tuple[Profile, NDArray[np.uint8], list[Any], Reading]:
    """The profile, the frame it was fitted on, the dice read (voted over a few frames) and
    that frame's own reading (for the picture's advice: smeared or small dice)."""
    resolution = parse_resolution(args.resolution) if args.resolution else None
    if not 1 <= args.seats <= 6:
        raise ValueError(f"--seats: give 1 to 6 seats, got {args.seats}")
    if args.frames < 1:
        raise ValueError(f"--frames: give 1 or more frames to vote over, got {args.frames}")
    names = _names(args)
    if args.markers:
        _marker_ids(args)
        _mat_size(args)
    _check_out(Path(args.out))
    kept = _kept_settings(Path(args.out))
    with open_camera(args.camera, resolution=resolution) as camera:
        frames = [camera.read() for _ in range(args.frames)]
        # where the autofocus cycle put the lens (Camera Module 3), for serve to set it again
        lens_position = getattr(camera, "lens_position", None)
    fit = fit_from_frames(frames, args.seats, names=names, marker_dict=args.marker_dict)
    height, width = fit.frame.shape[:2]
    name = args.name or Path(args.out).stem
    markers = _markers(fit.quads, args) if args.markers else None
    zones, table_area = fit.fitted.zones, fit.fitted.table_area
    if markers is not None:
        to_mat = np.asarray(np.linalg.inv(markers.calibration_homography), dtype=np.float64)
        zones = fit.fitted.zones.transformed(to_mat)
        table_area = apply_homography(to_mat, fit.fitted.table_area)
    profile = Profile(
        name=name,
        camera=args.camera,
        resolution=(width, height),
        table_area=table_area,
        seat_zones=zones,
        markers=markers,
        dice=measured_dice(fit),
        lens_position=lens_position,
        **kept,
    )
    return profile, fit.frame, fit.dice, fit.reading


def _kept_settings(out: Path) -> dict[str, Any]:
    """The ``[reader]`` and ``[panel]`` tables of the profile ``out`` already holds (a table
    calibrated again keeps its wiring and reader settings), checked before the camera is
    opened: a file there that is not a profile is refused rather than written over."""
    if not out.exists():
        return {}
    from bluffcam.profile_wiring import checked_panel

    try:
        old = load_profile(out)
        checked_panel(old)
    except (ProfileError, OSError) as exc:
        raise ValueError(f"--out: {out} exists and is not a profile this could update "
                         f"({exc}); give another file, or move that one aside") from None
    return {"reader": dict(old.reader), "panel": dict(old.panel)}


def _names(args: argparse.Namespace) -> list[str] | None:
    """``--names`` as the profile will take them, checked before the camera is opened."""
    if not args.names:
        return None
    names = [n.strip() for n in args.names.split(",")]
    if len(names) != args.seats or not all(names):
        raise ValueError(f"--names: give {args.seats} non-empty names, got {args.names!r}")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"--names: seat names must differ; repeated: {', '.join(repeated)}")
    return names


def _check_out(out: Path) -> None:
    """Refuse an ``--out`` that cannot take the profile before the camera is opened (its
    picture goes beside it as .png, so a .png profile would be overwritten by it)."""
    if out.is_dir():
        raise ValueError(f"--out: {out} is a folder; give a file in it, e.g. {out / 'table.toml'}")
    if out.suffix.lower() == ".png":
        raise ValueError(f"--out: {out} is where the picture goes; give a .toml file")


def _marker_ids(args: argparse.Namespace) -> tuple[int, ...]:
    """``--marker-ids`` as four whole numbers, or a ValueError naming the option."""
    try:
        ids = tuple(int(i) for i in args.marker_ids.split(","))
    except ValueError:
        ids = ()
    if len(ids) != 4:
        raise ValueError(f"--marker-ids: give 4 whole numbers (TL, TR, BR, BL), "
                         f"got {args.marker_ids!r}")
    return ids


def _mat_size(args: argparse.Namespace) -> tuple[int, int]:
    """``--mat-size`` in millimetres (a refusal names the option, not a camera's size)."""
    try:
        return parse_resolution(args.mat_size)
    except CameraError:
        raise ValueError(f"--mat-size: give the spacing of the markers' centres in mm as "
                         f"WIDTHxHEIGHT, e.g. 600x400, got {args.mat_size!r}") from None


def _markers(quads: dict[int, Polygon], args: argparse.Namespace) -> MarkerConfig:
    """The mat's marker configuration from the markers found in the calibration frame."""
    ids = _marker_ids(args)
    mat_w, mat_h = _mat_size(args)
    mat_points = (
        (0.0, 0.0),
        (float(mat_w), 0.0),
        (float(mat_w), float(mat_h)),
        (0.0, float(mat_h)),
    )
    seen = {marker_id: quad_centre(quad) for marker_id, quad in quads.items()}
    missing = [i for i in ids if i not in seen]
    if missing:
        raise ValueError(
            f"markers: ids {missing} not found (seen: {sorted(seen) or 'none'}); "
            "print them large enough and keep them in the picture"
        )
    image_points = tuple(seen[i] for i in ids)
    homography_from_points(mat_points, image_points)  # raises if degenerate
    return MarkerConfig(args.marker_dict, ids, mat_points, image_points)
