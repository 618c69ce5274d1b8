"""Table calibration profiles (TOML): camera, table area, seat zones, reader settings.

from calibration import load_profile, save_profile, Profile
profile = load_profile("calibration/demo.toml")
profile.zones.seat_of(x, y)  # seat index or None
"""

from calibration.geometry import Point, Polygon
from calibration.markers import MarkerConfig
from calibration.profile import (
    Profile,
    ProfileError,
    load_profile,
    profile_from_dict,
    save_profile,
)
from calibration.zones import SeatZone, SeatZones

__all__ = [
    "MarkerConfig",
    "Point",
    "Polygon",
    "Profile",
    "ProfileError",
    "SeatZone",
    "SeatZones",
    "load_profile",
    "profile_from_dict",
    "save_profile",
]
