"""A calibration profile's ``[panel]`` table checked as the button panel will read it.

`calibration.load_profile` checks each value of ``[panel]``; only the panel
(`hardware.panel.PanelWiring`) knows its keys and which pins clash. Everything that loads a
profile to keep or use (`serve`, `panel-test`, `calibrate`, the calibration page's zones)
checks the wiring here, so its fault is named with the profile's file, as every other is.
"""

from __future__ import annotations

from typing import Any

from calibration import ProfileError
from hardware.panel import PanelConfigError, PanelWiring


def checked_panel(profile: Any) -> dict[str, Any]:
    """A profile's ``[panel]`` table, its wiring checked as a whole (a misspelt key, a pin
    used twice) and a fault named with the profile's file, at load as every other key is:
    `load_profile` checks each value, and only the panel knows its keys. Raises
    `calibration.ProfileError`."""
    try:
        PanelWiring.from_dict(profile.panel)
    except PanelConfigError as exc:
        where = f"{profile.path}: " if getattr(profile, "path", None) else ""
        raise ProfileError(f"{where}{exc}") from None
    return dict(profile.panel)
