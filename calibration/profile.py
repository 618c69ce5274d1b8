"""Table profiles: what the camera sees of one table, stored as TOML.

A profile names the camera and resolution, the table area, one zone per seat (polygons in
image pixels, or sectors around the table centre) with the area in front of each cup, the
dice as the camera sees them (``[dice]``: their size in pixels, the classifier's up, their
colours; optional), the dice reader's settings for this table's dice and light
(``[reader]``), optional panel pin overrides, and optional ArUco markers. With markers,
every polygon is in *mat* coordinates and is mapped into the image through the markers'
homography, so the zones survive a bumped camera.
"""

from __future__ import annotations

import contextlib
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import tomli_w
from numpy.typing import NDArray

from calibration.files import replace_whole
from calibration.geometry import (
    Point,
    Polygon,
    area,
    as_polygon,
    first_crossing,
    sector,
)
from calibration.markers import MarkerConfig, known_dictionaries
from calibration.zones import SeatZone, SeatZones
from engine.words import check_language

if TYPE_CHECKING:
    from vision import ReaderParams

MAX_SEATS = 6
#: the die sizes (pixels) a profile's ``[dice]`` may give: the reader's own range
MIN_DIE_PX, MAX_DIE_PX = 4.0, 4096.0


class ProfileError(ValueError):
    """A profile is missing a key or holds a bad value; the message names which and why."""


@dataclass(frozen=True, slots=True)
class DiceConfig:
    """The ``[dice]`` table: this table's dice as its camera sees them.

    ``size_px`` is a die's size in frame pixels (the reader's extent of a die: measured by
    ``bluffcam calibrate`` from the calibration frame, refined from confirmed reveals);
    ``colours`` the dice's colours as ``"#rrggbb"`` (what calibrate saw; for a person and
    for tools, the reader does not use them); ``up`` the quarter turn (0..3) the crop
    classifier reads this camera's dice in (``None``: looked for in each frame). A profile
    without ``[dice]`` is read with the die size estimated from each frame.
    """

    size_px: float
    colours: tuple[str, ...] = ()
    up: int | None = None

    def to_toml(self) -> dict[str, Any]:
        data: dict[str, Any] = {"size_px": round(self.size_px, 1)}
        if self.up is not None:
            data["up"] = self.up
        if self.colours:
            data["colours"] = list(self.colours)
        return data


@dataclass(frozen=True)
class Profile:
    """One table's calibration. Polygons are image pixels, or mat coordinates with markers."""

    name: str
    camera: str
    resolution: tuple[int, int]
    table_area: Polygon
    seat_zones: SeatZones
    reader: dict[str, Any] = field(default_factory=dict)
    panel: dict[str, Any] = field(default_factory=dict)
    markers: MarkerConfig | None = None
    path: Path | None = None
    #: the dashboard's language where a device has not chosen one ("pl"; None: English)
    lang: str | None = None
    dice: DiceConfig | None = None
    #: where a Camera Module 3's lens was focused at calibration (dioptres: 1 / metres);
    #: None for a fixed-focus camera or one never focused, which autofocus once at start
    lens_position: float | None = None

    @property
    def zones(self) -> SeatZones:
        """Seat zones in image pixels (through the calibration-time homography with markers)."""
        if self.markers is None:  # fixed in pixels: each frame is checked for its size
            return SeatZones(self.seat_zones.seats, relocate=self.zones_for_frame)
        placed = self.seat_zones.transformed(self.markers.calibration_homography)
        return SeatZones(placed.seats, relocate=self.zones_for_frame)

    @property
    def image_table_area(self) -> Polygon:
        if self.markers is None:
            return self.table_area
        from calibration.geometry import apply_homography

        return apply_homography(self.markers.calibration_homography, self.table_area)

    def zones_for_frame(self, frame: NDArray[np.uint8]) -> SeatZones:
        """Seat zones in this frame's pixels: re-found from the markers when there are any.

        The markers seen are kept as areas where no die can be (`SeatZones.masks`), so a
        reading of a marker is never counted as a stray die. Without markers the zones are
        pixels of the profile's resolution: a frame of another size (a webcam that ignored
        the size asked of it) would put dice in the wrong seats, so it is refused by name.
        """
        if self.markers is None:
            height, width = frame.shape[:2]
            if (width, height) != self.resolution:
                want = f"{self.resolution[0]}×{self.resolution[1]}"
                raise ProfileError(
                    f"{self._where()}the camera gives {width}×{height} frames, but this "
                    f"table's zones were fitted on {want} ones: set the camera to {want} or "
                    "fit the zones again (calibration page)")
            return self.seat_zones
        from calibration.markers import detect_marker_quads, marker_footprints, mat_homography

        quads = detect_marker_quads(frame, self.markers.dictionary)
        matrix = mat_homography(quads, self.markers)
        if matrix is None:  # markers hidden (a hand, a cup): keep the calibration-time zones
            matrix = self.markers.calibration_homography
        placed = self.seat_zones.transformed(matrix)
        return SeatZones(placed.seats, no_dice=marker_footprints(quads.values()))

    @property
    def reader_params(self) -> ReaderParams:
        """The dice reader's settings for this table (``[reader]`` over the defaults); with
        ``[dice]``, also the die size, the camera's up and the box to read
        (:attr:`read_box`), so the reader reads this table's area at this table's scale
        (``vision.dice.calibrated``)."""
        from vision import ReaderParams  # imported lazily: calibration must not need vision

        reader = dict(self.reader)
        head = reader.get("table_head")
        if isinstance(head, str) and head.strip() and self.path is not None:
            reader["table_head"] = str(self.path.parent / head)  # named relative to the TOML
        try:
            params = ReaderParams.from_dict(reader)
        except (ValueError, TypeError) as exc:
            raise ProfileError(f"{self._where()}[reader]: {exc}") from exc
        if self.dice is None:  # an older profile: read as without one, sizes from the frame
            return params
        from dataclasses import replace

        return replace(params, die_size_px=self.dice.size_px, table_box=self.read_box,
                       camera_up=self.dice.up, table_resolution=self.resolution)

    @property
    def read_box(self) -> tuple[float, float, float, float]:
        """The box around the table area and every seat's zones, in image pixels
        (``left, top, right, bottom``): where the reader looks for dice."""
        zones = self.zones
        polygons = [self.image_table_area, *[z for seat in zones.seats
                                             for z in (seat.zone, seat.front) if z]]
        points = np.concatenate([np.asarray(p, dtype=np.float64) for p in polygons])
        (left, top), (right, bottom) = points.min(axis=0), points.max(axis=0)
        return float(left), float(top), float(right), float(bottom)

    def _where(self) -> str:
        return f"{self.path}: " if self.path else ""

    def to_toml_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "camera": {"spec": self.camera, "resolution": list(self.resolution)},
            "table": {"area": _points(self.table_area)},
            "seats": [],
        }
        for seat in self.seat_zones:
            entry: dict[str, Any] = {"name": seat.name, "zone": _points(seat.zone)}
            if seat.front:
                entry["front"] = _points(seat.front)
            data["seats"].append(entry)
        if self.lens_position is not None:
            data["camera"]["lens_position"] = self.lens_position
        data["reader"] = dict(self.reader)
        if self.dice is not None:
            data["dice"] = self.dice.to_toml()
        if self.panel:
            data["panel"] = dict(self.panel)
        if self.lang is not None:
            data["lang"] = self.lang
        if self.markers is not None:
            data["markers"] = {
                "dictionary": self.markers.dictionary,
                "ids": list(self.markers.ids),
                "mat_points": _points(self.markers.mat_points),
                "image_points": _points(self.markers.image_points),
            }
        return data


def _points(polygon: Polygon | tuple[Point, ...]) -> list[list[float]]:
    return [[round(x, 2), round(y, 2)] for x, y in polygon]


# --------------------------------------------------------------------------- load / save


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """Read and check a profile; raise `ProfileError` naming the file, the key and the fault."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such calibration profile") from None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{path}: not UTF-8 text (a TOML file must be): {exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: not valid TOML: {exc}") from exc
    return profile_from_dict(data, path=path)


#: what a profile file replaced by `save_profile` is kept as, beside it
BACKUP_SUFFIX = ".bak"


def save_profile(profile: Profile, path: str | os.PathLike[str]) -> Path:
    """Write a profile as TOML (checked by reading it back first, so a bad one is never saved).

    The file is replaced whole or not at all (a power cut mid-write must not leave a profile
    the table then refuses to start with), and a file it replaces is kept beside it as
    ``<name>.toml.bak``: comments and layout do not survive the rewrite, and a person may
    want them back.
    """
    path = Path(path)
    data = profile.to_toml_dict()
    text = tomli_w.dumps(data)
    profile_from_dict(tomllib.loads(text), path=path)
    path.parent.mkdir(parents=True, exist_ok=True)
    target = path.resolve()  # a linked profile: the file it links to is the one rewritten
    backup = backup_of(path).resolve()
    kept: bytes | None = None  # the backup this save replaced, put back if the save fails
    backed_up = False
    if target.is_file():
        before = target.read_bytes()
        if before != text.encode("utf-8"):  # the backup, too, is whole or not written at all
            kept = backup.read_bytes() if backup.is_file() else None
            replace_whole(backup, before, mode_of=target)
            backed_up = True
    try:
        replace_whole(target, text.encode("utf-8"), mode_of=target)
    except OSError:
        # the profile is as it was (written whole or not at all): so is its backup, which
        # is all a person has of the profile before the last one
        if backed_up:
            with contextlib.suppress(OSError):
                if kept is None:
                    backup.unlink()
                else:
                    replace_whole(backup, kept, mode_of=target)
        raise
    return path


def _outside_picture(polygon: Polygon, resolution: tuple[int, int]) -> str:
    """How a zone lies wholly outside the camera's picture, or "" where any of it is in it
    (a fitted sector may well reach past the picture's edge)."""
    points = np.asarray(polygon, dtype=np.float64)
    (left, top), (right, bottom) = points.min(axis=0), points.max(axis=0)
    width, height = resolution
    if right < 0 or bottom < 0 or left > width or top > height:
        return (f"lies wholly outside the {width} × {height} picture (x {left:.0f} to "
                f"{right:.0f}, y {top:.0f} to {bottom:.0f})")
    return ""


def backup_of(path: Path) -> Path:
    """Where `save_profile` keeps the file it replaced."""
    return path.with_name(path.name + BACKUP_SUFFIX)


def profile_from_dict(data: dict[str, Any], *, path: Path | None = None) -> Profile:
    """Build a `Profile` from parsed TOML, checking every key."""
    where = f"{path}: " if path else ""

    def fail(key: str, problem: str) -> ProfileError:
        return ProfileError(f"{where}{key}: {problem}")

    known_top = {"name", "camera", "table", "seats", "reader", "panel", "markers", "lang",
                 "dice"}
    unknown = sorted(set(data) - known_top)
    if unknown:
        raise fail(unknown[0], f"unknown key; expected one of {', '.join(sorted(known_top))}")

    name = data.get("name", path.stem if path else "table")
    if not isinstance(name, str) or not name.strip():
        raise fail("name", f"must be a non-empty string, got {name!r}")

    camera = _table(data, "camera", fail, required=True)
    _only_known(camera, "camera", ("spec", "resolution", "lens_position"), fail)
    spec = camera.get("spec")
    if not isinstance(spec, str) or not spec.strip():
        raise fail("camera.spec", f"must be a camera spec string such as 'opencv:0', got {spec!r}")
    resolution = _resolution(camera.get("resolution"), fail)
    lens_position = _lens_position(camera.get("lens_position"), fail)

    markers = _markers(data.get("markers"), fail)
    table = _table(data, "table", fail, required=True)
    _only_known(table, "table", ("area", "centre", "center", "radius"), fail)
    centre = table.get("centre", table.get("center"))
    centre_point = _point(centre, "table.centre", fail) if centre is not None else None
    if "area" not in table:
        raise fail("table.area", "missing; give the table's outline as [[x, y], ...]")
    table_area = _polygon(table["area"], "table.area", fail)

    seats_raw = data.get("seats")
    if not isinstance(seats_raw, list) or not seats_raw:
        raise fail("seats", "missing; add one [[seats]] table per seat")
    if len(seats_raw) > MAX_SEATS:
        raise fail("seats", f"at most {MAX_SEATS} seats, got {len(seats_raw)}")
    seats = [
        _seat(raw, i, centre_point, table.get("radius"), fail) for i, raw in enumerate(seats_raw)
    ]
    if markers is None:  # with markers the zones are in the mat's millimetres
        for index, seat in enumerate(seats):
            outside = _outside_picture(seat.zone, resolution)
            if outside:
                raise fail(f"seats[{index}].zone", f"{outside}: the camera would never see a "
                           "die in it; fit the zones again (bluffcam calibrate) or correct "
                           "its corners")
    names = [s.name for s in seats]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise fail("seats", f"seat names must differ; repeated: {', '.join(duplicates)}")

    lang = data.get("lang")
    if lang is not None:
        try:
            check_language(lang, "the dashboard's language")
        except ValueError as exc:
            raise fail("lang", str(exc)) from None

    reader = data.get("reader", {})
    if not isinstance(reader, dict):
        raise fail("reader", f"must be a table of reader settings, got {reader!r}")
    panel = data.get("panel", {})
    if not isinstance(panel, dict):
        raise fail("panel", f"must be a table of pin overrides, got {panel!r}")
    for key, value in panel.items():  # the wiring as a whole is checked by the panel
        if not _is_pin(value):  # when `serve` or `panel-test` opens it (hardware.panel)
            raise fail(
                f"panel.{key}",
                f"must be a BCM pin number 0..27, a list of them, -1 or true, got {value!r}",
            )

    profile = Profile(
        name=name,
        camera=spec.strip(),
        resolution=resolution,
        table_area=table_area,
        seat_zones=SeatZones(tuple(seats)),
        reader=dict(reader),
        panel=dict(panel),
        markers=markers,
        path=path,
        lang=lang,
        dice=_dice(data.get("dice"), fail),
        lens_position=lens_position,
    )
    if reader:
        try:
            from vision import ReaderParams
        except ImportError:  # vision not importable yet: checked again on first use
            ReaderParams = None  # type: ignore[assignment,misc]  # noqa: N806
        if ReaderParams is not None:
            try:
                ReaderParams.from_dict(dict(reader))
            except (ValueError, TypeError) as exc:
                raise fail("reader", str(exc)) from exc
    return profile


def _dice(raw: Any, fail: Any) -> DiceConfig | None:
    """``[dice]``: ``size_px`` (a die's size in pixels) and optional ``colours``."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise fail("dice", f"must be a [dice] table, got {raw!r}")
    _only_known(raw, "dice", ("size_px", "up", "colours"), fail)
    size = raw.get("size_px")
    if (isinstance(size, bool) or not isinstance(size, int | float) or not math.isfinite(size)
            or not MIN_DIE_PX <= size <= MAX_DIE_PX):
        raise fail("dice.size_px", f"must be a die's size in pixels, {MIN_DIE_PX:g} to "
                                   f"{MAX_DIE_PX:g}, got {size!r}")
    colours = raw.get("colours", [])
    if not isinstance(colours, list) or not all(
            isinstance(c, str) and len(c) == 7 and c[0] == "#"
            and all(ch in "0123456789abcdefABCDEF" for ch in c[1:]) for c in colours):
        raise fail("dice.colours", f'must be a list of "#rrggbb" colours, got {colours!r}')
    up = raw.get("up")
    if up is not None and (isinstance(up, bool) or not isinstance(up, int) or not 0 <= up <= 3):
        raise fail("dice.up", f"must be a quarter turn 0..3, got {up!r}")
    return DiceConfig(float(size), tuple(c.lower() for c in colours), up)


def _is_pin(value: Any) -> bool:
    """A BCM pin, a list of pins, -1 (not wired) or true/false (``encoder = true``)."""
    if isinstance(value, list):
        return all(_is_pin(v) for v in value)
    return isinstance(value, bool) or (isinstance(value, int) and -1 <= value <= 27)


def _table(data: dict[str, Any], key: str, fail: Any, *, required: bool) -> dict[str, Any]:
    value = data.get(key)
    if value is None:
        if required:
            raise fail(key, f"missing; add a [{key}] table")
        return {}
    if not isinstance(value, dict):
        raise fail(key, f"must be a [{key}] table, got {value!r}")
    return value


def _only_known(raw: dict[str, Any], key: str, known: tuple[str, ...], fail: Any) -> None:
    """A misspelt key (``resoluton``) would otherwise leave its setting at the default
    without a word."""
    unknown = sorted(set(raw) - set(known))
    if unknown:
        expected = ", ".join(known[:-1]) + f" or {known[-1]}"
        raise fail(f"{key}.{unknown[0]}", f"unknown key; expected {expected}")


#: the farthest a lens is focused near, in dioptres (a Camera Module 3 reaches about 15: 7 cm)
MAX_LENS_POSITION = 32.0


def _lens_position(value: Any, fail: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
            value) or not 0 <= value <= MAX_LENS_POSITION:
        raise fail("camera.lens_position", f"must be dioptres (1 / metres) from 0 (infinity) "
                   f"to {MAX_LENS_POSITION:g}, e.g. 1.4 for a lens 70 cm above the table; "
                   f"got {value!r}")
    return float(value)


def _resolution(value: Any, fail: Any) -> tuple[int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        raise fail("camera.resolution", f"must be [width, height] in pixels, got {value!r}")
    return int(value[0]), int(value[1])


def _point(value: Any, key: str, fail: Any) -> Point:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise fail(key, f"must be a point [x, y], got {value!r}")
    if not all(math.isfinite(v) for v in value):  # nan slips past every comparison after
        raise fail(key, f"must be a point of finite numbers, got {value!r}")
    return float(value[0]), float(value[1])


def _polygon(value: Any, key: str, fail: Any) -> Polygon:
    if not isinstance(value, list) or len(value) < 3:
        count = len(value) if isinstance(value, list) else value
        raise fail(key, f"must be a polygon of at least 3 points [[x, y], ...], got {count!r}")
    polygon = as_polygon([_point(p, f"{key}[{i}]", fail) for i, p in enumerate(value)])
    crossing = first_crossing(polygon)
    if crossing is not None:
        i, j = crossing
        n = len(polygon)
        raise fail(key, f"the outline crosses itself (corners {i}-{(i + 1) % n} cross "
                        f"{j}-{(j + 1) % n}, counting from 0); list the corners in order "
                        "around the area")
    if area(polygon) <= 0:
        raise fail(key, "polygon has no area (its points lie on one line)")
    return polygon


def _seat(raw: Any, index: int, centre: Point | None, table_radius: Any, fail: Any) -> SeatZone:
    key = f"seats[{index}]"
    if not isinstance(raw, dict):
        raise fail(key, f"must be a [[seats]] table, got {raw!r}")
    _only_known(raw, key, ("name", "zone", "front", "sector"), fail)
    name = raw.get("name", f"Seat {index + 1}")
    if not isinstance(name, str) or not name.strip():
        raise fail(f"{key}.name", f"must be a non-empty string, got {name!r}")
    if "zone" in raw and "sector" in raw:
        raise fail(key, "give either zone or sector, not both")
    if "zone" in raw:
        zone = _polygon(raw["zone"], f"{key}.zone", fail)
    elif "sector" in raw:
        zone = _sector(raw["sector"], f"{key}.sector", centre, table_radius, fail)
    else:
        raise fail(f"{key}.zone", "missing; give zone = [[x, y], ...] or sector = {start, end}")
    front = _polygon(raw["front"], f"{key}.front", fail) if "front" in raw else None
    return SeatZone(name, zone, front)


def _sector(raw: Any, key: str, centre: Point | None, table_radius: Any, fail: Any) -> Polygon:
    if centre is None:
        raise fail(key, "a sector needs the table centre: add centre = [x, y] to [table]")
    if not isinstance(raw, dict):
        raise fail(key, f"must be {{start = deg, end = deg, inner = px, outer = px}}, got {raw!r}")
    values: dict[str, float] = {}
    for name in ("start", "end", "inner", "outer"):
        value = raw.get(name)
        if value is None and name == "outer":
            value = table_radius
        if value is None and name == "inner":
            value = 0.0
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise fail(f"{key}.{name}", f"must be a number, got {value!r}")
        if not math.isfinite(value):
            raise fail(f"{key}.{name}", f"must be a finite number, got {value!r}")
        values[name] = float(value)
    if values["outer"] <= values["inner"] or values["outer"] <= 0:
        raise fail(f"{key}.outer", "must be larger than inner and positive")
    return sector(centre, values["start"], values["end"], values["inner"], values["outer"])


def _markers(raw: Any, fail: Any) -> MarkerConfig | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise fail("markers", f"must be a [markers] table, got {raw!r}")
    _only_known(raw, "markers", ("dictionary", "ids", "mat_points", "image_points"), fail)
    dictionary = raw.get("dictionary", "DICT_4X4_50")
    if not isinstance(dictionary, str) or not dictionary.startswith("DICT_"):
        raise fail("markers.dictionary", f"must name a cv2.aruco dictionary, got {dictionary!r}")
    known = known_dictionaries()
    if known and dictionary not in known:
        raise fail(
            "markers.dictionary",
            f"unknown ArUco dictionary {dictionary!r}; known: {', '.join(known)}",
        )
    ids = raw.get("ids")
    if not isinstance(ids, list) or len(ids) < 4 or not all(_is_marker_id(i) for i in ids):
        raise fail("markers.ids", f"must list at least 4 marker ids (0, 1, ...), got {ids!r}")
    if len(set(ids)) != len(ids):
        raise fail("markers.ids", f"ids must differ, got {ids!r}")
    points = {}
    for name in ("mat_points", "image_points"):
        value = raw.get(name)
        if not isinstance(value, list) or len(value) != len(ids):
            raise fail(
                f"markers.{name}", f"must give one [x, y] per id ({len(ids)}), got {value!r}"
            )
        points[name] = tuple(_point(p, f"markers.{name}[{i}]", fail) for i, p in enumerate(value))
    config = MarkerConfig(dictionary, tuple(ids), points["mat_points"], points["image_points"])
    try:
        config.calibration_homography  # noqa: B018  # checks the points are not degenerate
    except (ValueError, np.linalg.LinAlgError) as exc:
        raise fail("markers", f"points give no homography: {exc}") from exc
    return config


def _is_marker_id(value: Any) -> bool:
    """A whole number >= 0; TOML's true and false are Python ints, but no marker's id."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0

