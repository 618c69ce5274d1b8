"""How many photos a table's profile learned its reader from: what the board and the
calibration page say of a taught camera (``bluffcam.teaching``, ``bluffcam adapt``)."""

from __future__ import annotations

from typing import Any


def learned_from(profile: Any) -> int:
    """How many photos the profile's table head was learned from (0: none, or it cannot be
    read: the reader names that itself at start-up)."""
    try:
        params = getattr(profile, "reader_params", None)
    except ValueError:  # a [reader] table that does not load: the table says so elsewhere
        return 0
    head = getattr(params, "table_head", None)
    if not head:
        return 0
    from vision.table_head import TableHeadError, load_head

    try:
        return load_head(head).photos
    except TableHeadError:
        return 0
